/*
 * pipeline_layout.c — Megatron's --pipeline-model-parallel-layout (the run file's
 * `pipeline_layout`): the grammar read as Megatron-core reads it, checked as Megatron checks it,
 * and bound to the run's strategy once its PP is known.
 *
 * The grammar (megatron/core/transformer/pipeline_parallel_layer_layout.py): E embedding, t a
 * decoder layer, m an MTP layer, L the loss; `|` separates virtual stages, listed in virtual-
 * stage order (v = chunk x PP + rank); `(...)*n` repeats a group (no nesting) and `x*n` one
 * character, the groups first; commas are cosmetic. docs/run-file.md §train.
 */
#include "nd/inputs/run.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"

/* The longest layout text once its repeats are unrolled. */
#define LAYOUT_EXPANDED_MAX (1u << 20)

static int refuse(char *why, size_t size, const char *fmt, ...) ND_PRINTF(3, 4);
static int refuse(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads "*n" at p (n in [1, 100000]); the text after it in *end. */
static int read_repeat(const char *p, long *n, const char **end)
{
    if (*p != '*' || !isdigit((unsigned char)p[1])) return -1;
    char *e;
    *n = strtol(p + 1, &e, 10);
    *end = e;
    return *n >= 1 && *n <= 100000 ? 0 : -1;
}

static int append(char *out, size_t *used, const char *s, size_t n, long times)
{
    if ((size_t)times * n > LAYOUT_EXPANDED_MAX - *used) return -1;
    for (long i = 0; i < times; i++) {
        memcpy(out + *used, s, n);
        *used += n;
    }
    out[*used] = '\0';
    return 0;
}

/* One unrolling pass: groups `(...)*n` (groups = true) or single characters `x*n`. */
static int unroll(const char *in, bool groups, char *out, char *why, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = in; *p;) {
        const char *end;
        long n;
        if (groups && *p == '(') {
            const char *close = strchr(p + 1, ')'), *open = strchr(p + 1, '(');
            if (!close || (open && open < close))
                return refuse(why, size, "pipeline_layout: '(' without its ')' (groups do not nest)");
            if (read_repeat(close + 1, &n, &end))
                return refuse(why, size, "pipeline_layout: a group must be followed by *N, N in [1, 100000]");
            if (append(out, &used, p + 1, (size_t)(close - p - 1), n))
                return refuse(why, size, "pipeline_layout: more than %u characters unrolled",
                              LAYOUT_EXPANDED_MAX);
            p = end;
        } else if (!groups && p[1] == '*' && !read_repeat(p + 1, &n, &end)) {
            if (append(out, &used, p, 1, n))
                return refuse(why, size, "pipeline_layout: more than %u characters unrolled",
                              LAYOUT_EXPANDED_MAX);
            p = end;
        } else {
            if (append(out, &used, p, 1, 1))
                return refuse(why, size, "pipeline_layout: more than %u characters unrolled",
                              LAYOUT_EXPANDED_MAX);
            p++;
        }
    }
    return 0;
}

/* Counts the unrolled stages into out and checks Megatron's rules. */
static int count_stages(const char *text, int64_t pp, int64_t layers, int64_t mtp, nd_pipeline_layout *out,
                        char *why, size_t size)
{
    int64_t v = 0, e = 0, l = 0, t = 0, m = 0, mtp_stage = -1;
    memset(out, 0, sizeof *out);
    for (const char *p = text;; p++) {
        if (*p == '|' || !*p) {
            if (++v > ND_MAX_VIRTUAL_STAGES)
                return refuse(why, size, "pipeline_layout: more than %d virtual stages",
                              ND_MAX_VIRTUAL_STAGES);
            if (!*p) break;
            continue;
        }
        switch (*p) {
        case 'E':
            if (e++ || v != 0 || p != text)
                return refuse(why, size, "pipeline_layout: E (the embedding) must come first, once");
            break;
        case 'L':
            if (l++ || p[1]) return refuse(why, size, "pipeline_layout: L (the loss) must come last, once");
            break;
        case 't':
            if (m)
                return refuse(why, size,
                              "pipeline_layout: decoder layers (t) must come before the MTP layers (m)");
            t++;
            out->decoder[v]++;
            break;
        case 'm':
            if (mtp_stage >= 0 && mtp_stage != v)
                return refuse(why, size,
                              "pipeline_layout: all the MTP layers (m) must be in one virtual stage");
            mtp_stage = v;
            m++;
            break;
        default:
            return refuse(why, size,
                          "pipeline_layout: '%c' is not a layer (E embedding, t decoder, m MTP, L loss)", *p);
        }
    }
    if (!e || !l) return refuse(why, size, "pipeline_layout: it must begin with E and end with L");
    if (v % pp)
        return refuse(why, size, "pipeline_layout: %lld virtual stages do not divide over PP=%lld",
                      (long long)v, (long long)pp);
    if (t != layers)
        return refuse(why, size, "pipeline_layout: %lld decoder layers (t), the model has %lld", (long long)t,
                      (long long)layers);
    if (m != mtp)
        return refuse(why, size, "pipeline_layout: %lld MTP layers (m), the model has %lld", (long long)m,
                      (long long)mtp);
    if (m && mtp_stage != v - 1)
        return refuse(
            why, size,
            "pipeline_layout: MTP layers in virtual stage %lld: nd prices them on the last "
            "rank's last chunk, beside the loss (Megatron's standalone MTP stage is not represented)",
            (long long)mtp_stage);
    out->pp = pp;
    out->vpp = v / pp;
    out->mtp = m;
    nd_pipeline_layout_finish(out);
    return 0;
}

int nd_pipeline_layout_parse(const char *text, int64_t pp, int64_t layers, int64_t mtp,
                             nd_pipeline_layout *out, char *why, size_t size)
{
    size_t n = strlen(text);
    char *clean = malloc(n + 1), *a = malloc(LAYOUT_EXPANDED_MAX + 1), *b = malloc(LAYOUT_EXPANDED_MAX + 1);
    int rc = clean && a && b ? 0 : refuse(why, size, "out of memory");
    if (!rc) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (text[i] != ',' && !isspace((unsigned char)text[i])) clean[k++] = text[i];
        clean[k] = '\0';
        rc = unroll(clean, true, a, why, size);
    }
    if (!rc) rc = unroll(a, false, b, why, size);
    if (!rc) rc = count_stages(b, pp, layers, mtp, out, why, size);
    free(clean);
    free(a);
    free(b);
    return rc;
}

int nd_run_bind_layout(nd_run *run, nd_error *err)
{
    if (!run->pipeline_layout_text[0]) return ND_OK;
    char why[320];
    nd_strategy *s = &run->strategy;
    if (nd_pipeline_layout_parse(run->pipeline_layout_text, s->pp, run->model.layers, run->model.mtp_layers,
                                 &run->pipeline_layout, why, sizeof why))
        return nd_error_set(err, ND_EINPUT, "%s: %s", run->source, why);
    s->layout = &run->pipeline_layout;
    s->vpp = run->pipeline_layout.vpp;
    s->first_stage_layers = s->last_stage_layers = 0;
    s->embedding_in_split = s->loss_in_split = false;
    if (s->vpp > 1 && s->schedule == ND_SCHEDULE_1F1B) s->schedule = ND_SCHEDULE_INTERLEAVED;
    return ND_OK;
}
