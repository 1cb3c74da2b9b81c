/* Trainer logs to round rows (nd-classify --log): the step times a trainer prints, the
 * warm-up dropped, the median of the steady steps; the peak memory it prints; the
 * degrees its printed arguments, device mesh or config state. Four formats, told apart by
 * what their step lines hold (docs/classify.md, "Trainer logs"):
 *   Megatron-LM, Megatron-DeepSpeed, MindSpeed:
 *     " iteration 10/ 1000 | consumed samples: 160 | elapsed time per iteration (ms): 1147.6 | ..."
 *     "[Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max allocated: ... |
 *      reserved: ... | max reserved: ..."; arguments "  tensor_model_parallel_size ..... 2"
 *   torchtitan: "step: 10  loss: 7.1234  memory: 58.31GiB(73.60%)  tps: 7,402  ..."
 *     (tokens per second per device), "Building 2-D device mesh with ['dp_shard', 'tp'], [4, 2]"
 *   NeMo: "... global_step=50.0, consumed_samples=76800.0, train_step_timing in s=5.900 ..."
 *   MindFormers: "{ Epoch:[ 1/ 2], step:[ 2/ 19], loss: 10.633, per_step_time: 1752ms, ...",
 *     MindSpore's "Actual peak memory usage (with fragments): 26244M" */
#include "classify_log.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/toml.h"

#define LOG_MAX_STEPS   10000000     /* step lines kept (16 bytes each) */
#define LOG_PIECE       65536        /* a longer line is read in pieces of this size */
#define LOG_MAX_MS      1e9          /* a step of more than 11 days is no step */
#define LOG_MAX_MIB     1073741824.0 /* a round's peak_mib limit (ND_MEMORY_MIB_MAX) */
#define LOG_MAX_DEVICES 1073741824.0 /* a round's devices limit */

typedef struct kv {
    char key[48];
    char value[48];
} kv;

typedef struct log_state {
    nd_classify_log *out;
    const char *path;
    const char *config; /* the --log-config file these arguments come from, or NULL */
    double *ms;
    long *step;
    size_t n, cap;
    kv *args; /* printed arguments, config lines, the torchtitan mesh */
    size_t n_args, cap_args;
    double max_reserved_mib, max_allocated_mib;
    size_t line;          /* the line being read, from 1 */
    int format;           /* LOG_* once known */
    size_t zero_tps;      /* torchtitan step lines with tps 0 (no tokens yet): left out, noted */
    size_t zero_tps_line; /* the first of them */
} log_state;

static const char *const format_names[] = {"", "Megatron", "torchtitan", "NeMo", "MindFormers"};

/* ---- small text helpers ------------------------------------------------------ */

/* A note on what was read (printed with the report); the same note once, at most 8. */
static void ND_PRINTF(2, 3) note(nd_classify_log *l, const char *fmt, ...)
{
    char text[sizeof l->notes[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (int i = 0; i < l->n_notes; i++)
        if (!strcmp(l->notes[i], text)) return;
    if (l->n_notes < (int)(sizeof l->notes / sizeof l->notes[0]))
        nd_text_copy(l->notes[l->n_notes++], text, sizeof text);
}

/* Removes terminal colour sequences (ESC [ ... letter), which torchtitan writes. */
static void strip_ansi(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        if (*r == '\x1b' && r[1] == '[') {
            r += 2;
            while (*r && !isalpha((unsigned char)*r)) r++;
            if (*r) r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* The number after key (past spaces, ':', '=' or '['), commas dropped ("7,402"), into buf.
 * Returns where the value starts, NULL when key is absent; end (may be NULL) gets what
 * follows the number. */
static const char *number_text(const char *line, const char *key, char *buf, size_t size, const char **end)
{
    const char *p = strstr(line, key);
    if (!p) return NULL;
    p += strlen(key);
    while (*p == ' ' || *p == ':' || *p == '=' || *p == '[') p++;
    const char *value = p;
    size_t k = 0;
    for (; *p && k + 1 < size && (isdigit((unsigned char)*p) || strchr("+-.,eE", *p)); p++)
        if (*p != ',') buf[k++] = *p;
    buf[k] = '\0';
    while (k && !isdigit((unsigned char)buf[k - 1])) /* "1.0." or a trailing 'e' */
        buf[--k] = '\0';
    if (end) *end = p;
    return value;
}

/* The number after key; false when key is absent or no finite number follows. */
static bool number_after(const char *line, const char *key, double *v, const char **end)
{
    char buf[64];
    return number_text(line, key, buf, sizeof buf, end) && buf[0] && nd_parse_double(buf, v) == 0;
}

/* A step line's time (or rate) after key: 1 read into *v, 0 key absent, or ND_EINPUT naming
 * the file, the line and the field when what follows it is no finite number ("nan", "inf",
 * "1e400", "abc"): a step line nd recognises but cannot read is refused, not dropped. */
static int step_number(const log_state *s, const char *line, const char *key, double *v, const char **end,
                       nd_error *err)
{
    char buf[64];
    const char *from = number_text(line, key, buf, sizeof buf, end);
    if (!from) return 0;
    if (buf[0] && nd_parse_double(buf, v) == 0) return 1;
    char raw[40], shown[64];
    size_t n = strcspn(from, " \t|,]");
    if (n >= sizeof raw) n = sizeof raw - 1;
    memcpy(raw, from, n);
    raw[n] = '\0';
    size_t k = strlen(key);
    if (key[k - 1] == ':') k--; /* "tps:" is the field tps */
    return nd_error_set(err, ND_EINPUT, "%s:%zu: '%.*s': '%s' is not a number", s->path, s->line, (int)k, key,
                        nd_text_shown(raw, shown, sizeof shown));
}

/* A logged step number as an id; -1 when it is none (absent, negative, huge). */
static long step_id(double step)
{
    return step >= 0 && step < 1e15 ? (long)step : -1;
}

static int add_step(log_state *s, long step, double ms, nd_error *err)
{
    if (s->format == LOG_TORCHTITAN) { /* tokens per second, a time once the tokens are known */
        if (!(ms > 0 && isfinite(ms)))
            return nd_error_set(err, ND_EINPUT,
                                "%s:%zu: step %ld: tps %g is not a rate of tokens nd reads (more than 0)",
                                s->path, s->line, step, ms);
    } else if (!(ms > 0 && ms <= LOG_MAX_MS))
        return nd_error_set(err, ND_EINPUT,
                            "%s:%zu: step %ld: a step time of %g ms is not a time "
                            "nd reads (0 < ms <= 1e9)",
                            s->path, s->line, step, ms);
    /* a progress bar redrawn for the same step (NeMo) is one step */
    if (s->n && s->step[s->n - 1] == step && step >= 0) {
        s->ms[s->n - 1] = ms;
        return ND_OK;
    }
    if (s->n == LOG_MAX_STEPS)
        return nd_error_set(err, ND_EINPUT, "%s: more than %d step lines", s->path, LOG_MAX_STEPS);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        double *m = realloc(s->ms, cap * sizeof *m);
        if (m) s->ms = m;
        long *st = m ? realloc(s->step, cap * sizeof *st) : NULL;
        if (!st) return nd_error_set(err, ND_ENOMEM, "out of memory");
        s->step = st;
        s->cap = cap;
    }
    s->ms[s->n] = ms;
    s->step[s->n++] = step;
    return ND_OK;
}

static int add_arg(log_state *s, const char *key, size_t klen, const char *value)
{
    if (klen == 0 || klen >= sizeof s->args[0].key) return ND_OK;
    for (size_t i = 0; i < s->n_args; i++) /* the first printing wins */
        if (strlen(s->args[i].key) == klen && !strncmp(s->args[i].key, key, klen)) return ND_OK;
    if (s->n_args == 4096) return ND_OK;
    if (s->n_args == s->cap_args) {
        size_t cap = s->cap_args ? s->cap_args * 2 : 64;
        kv *a = realloc(s->args, cap * sizeof *a);
        if (!a) return ND_ENOMEM;
        s->args = a;
        s->cap_args = cap;
    }
    kv *a = &s->args[s->n_args++];
    memcpy(a->key, key, klen);
    a->key[klen] = '\0';
    size_t v = strcspn(value, " \t\r\n|,");
    if (v >= sizeof a->value) v = sizeof a->value - 1;
    memcpy(a->value, value, v);
    a->value[v] = '\0';
    return ND_OK;
}

static const char *arg(const log_state *s, const char *key)
{
    for (size_t i = 0; i < s->n_args; i++)
        if (!strcmp(s->args[i].key, key)) return s->args[i].value;
    return NULL;
}

/* ---- one line ---------------------------------------------------------------- */

/* Megatron's argument dump ("  key ........ value", DeepSpeed's with "> "), and YAML-like
 * config lines ("  tensor_model_parallel_size: 2", NeMo's and MindFormers' dumps). */
static int arg_line(log_state *s, const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '>' || *p == '\t') p++;
    const char *k = p;
    while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
    size_t klen = (size_t)(p - k);
    if (!klen) return ND_OK;
    if (!strncmp(p, " ..", 3)) { /* dots then the value */
        while (*p == ' ' || *p == '.') p++;
        return add_arg(s, k, klen, p);
    }
    if (*p == ':' && p[1] == ' ' && !strchr(p + 2, ':') && !strchr(p + 2, '|')) {
        p += 2;
        while (*p == ' ') p++;
        return *p ? add_arg(s, k, klen, p) : ND_OK;
    }
    return ND_OK;
}

/* torchtitan: "Building 2-D device mesh with ['dp_shard', 'tp'], [4, 2]" */
static int mesh_line(log_state *s, const char *line)
{
    const char *p = strstr(line, "device mesh with [");
    if (!p) return ND_OK;
    p += strlen("device mesh with [");
    const char *sizes = strstr(p, "], [");
    if (!sizes) return ND_OK;
    sizes += 4;
    char name[32];
    while (*p && *p != ']') {
        while (*p == ' ' || *p == ',' || *p == '\'' || *p == '"') p++;
        size_t n = 0;
        while (*p && *p != '\'' && *p != '"' && *p != ',' && *p != ']' && n + 6 < sizeof name)
            name[n++] = *p++;
        name[n] = '\0';
        while (*sizes == ' ' || *sizes == ',') sizes++;
        char *end;
        long v = strtol(sizes, &end, 10);
        if (!n || end == sizes) break;
        char key[40], value[24];
        snprintf(key, sizeof key, "mesh_%s", name);
        snprintf(value, sizeof value, "%ld", v);
        if (add_arg(s, key, strlen(key), value)) return ND_ENOMEM;
        sizes = end;
        while (*p == '\'' || *p == '"') p++;
    }
    return ND_OK;
}

/* Megatron's step line: the mean time per iteration since the previous line. */
static int megatron_step(log_state *s, const char *line, double v, nd_error *err)
{
    double step = -1, gbs;
    s->format = LOG_MEGATRON;
    number_after(line, "iteration", &step, NULL);
    if (number_after(line, "global batch size", &gbs, NULL) && gbs >= 1) {
        char t[24];
        snprintf(t, sizeof t, "%.0f", gbs);
        add_arg(s, "logged_global_batch_size", 24, t);
    }
    return add_step(s, step_id(step), v, err);
}

/* torchtitan's step line: tokens per second per device, its memory the reserved peak. */
static int torchtitan_step(log_state *s, const char *line, double tps, nd_error *err)
{
    double step = -1, gib;
    const char *end;
    s->format = LOG_TORCHTITAN;
    number_after(line, "step:", &step, NULL);
    if (number_after(line, "memory", &gib, &end) && !strncmp(end, "GiB", 3) &&
        gib * 1024 > s->max_reserved_mib)
        s->max_reserved_mib = gib * 1024;
    if (tps == 0) { /* no tokens counted yet: left out, and said */
        if (!s->zero_tps++) s->zero_tps_line = s->line;
        return ND_OK;
    }
    return add_step(s, step_id(step), tps, err); /* tokens per s: a time at the end (times_of) */
}

/* A step line of any format; a line that is one but whose time is no number is refused. */
static int step_line(log_state *s, const char *line, nd_error *err)
{
    double v, step = -1;
    const char *end;
    int got;
    if ((got = step_number(s, line, "elapsed time per iteration (ms)", &v, NULL, err)))
        return got < 0 ? got : megatron_step(s, line, v, err);
    if (strstr(line, "step:") && strstr(line, "tps:") && !strstr(line, "per_step_time")) {
        if ((got = step_number(s, line, "tps:", &v, NULL, err)) < 0) return got;
        return torchtitan_step(s, line, v, err);
    }
    if ((got = step_number(s, line, "train_step_timing in s", &v, NULL, err))) {
        if (got < 0) return got;
        s->format = LOG_NEMO;
        number_after(line, "global_step", &step, NULL);
        return add_step(s, step_id(step), v * 1000, err);
    }
    if ((got = step_number(s, line, "per_step_time", &v, &end, err))) {
        if (got < 0) return got;
        s->format = LOG_MINDFORMERS;
        number_after(line, "step:[", &step, NULL);
        return add_step(s, step_id(step), !strncmp(end, "s", 1) && strncmp(end, "ms", 2) ? v * 1000 : v, err);
    }
    return ND_OK;
}

/* MindSpore's memory report, which MindFormers' logs hold (with GLOG_v=1; MindSpore's
 * tutorials, "DryRun"): "Actual peak memory usage (with fragments): 26244M" is what the
 * device held (reserved), "Used peak memory usage (without fragments): 23716M" what was
 * allocated; M is MiB (its "Device MOC memory size: 65536M" is a 64 GiB device). */
static void mindspore_memory_line(log_state *s, const char *line)
{
    double v;
    const char *end;
    if (number_after(line, "Actual peak memory usage (with fragments)", &v, &end) && *end == 'M' &&
        v > s->max_reserved_mib)
        s->max_reserved_mib = v;
    if (number_after(line, "Used peak memory usage (without fragments)", &v, &end) && *end == 'M' &&
        v > s->max_allocated_mib)
        s->max_allocated_mib = v;
}

/* Megatron's memory report: the largest of every rank's that the log holds. */
static void memory_line(log_state *s, const char *line)
{
    if (strstr(line, "peak memory usage")) mindspore_memory_line(s, line);
    if (!strstr(line, "memory (MB)")) return;
    double v;
    if (number_after(line, "max allocated", &v, NULL) && v > s->max_allocated_mib) s->max_allocated_mib = v;
    if (number_after(line, "max reserved", &v, NULL) && v > s->max_reserved_mib) s->max_reserved_mib = v;
}

static int line_of(log_state *s, char *line, nd_error *err)
{
    strip_ansi(line);
    line[strcspn(line, "\n")] = '\0';
    memory_line(s, line);
    int rc = mesh_line(s, line);
    if (!rc) rc = arg_line(s, line);
    if (rc) return nd_error_set(err, ND_ENOMEM, "out of memory");
    return step_line(s, line, err);
}

static int read_lines(log_state *s, FILE *f, nd_error *err)
{
    char *buf = malloc(LOG_PIECE);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    bool line_ended = true; /* the previous piece ended its line: this one starts the next */
    while (!rc && fgets(buf, LOG_PIECE, f)) {
        if (line_ended) s->line++;
        line_ended = strchr(buf, '\n') != NULL;
        /* a progress bar redraws with '\r': each drawing is a line of its own (on the file's line) */
        for (char *p = buf, *q; !rc && p; p = q) {
            q = strchr(p, '\r');
            if (q) *q++ = '\0';
            rc = line_of(s, p, err);
        }
    }
    if (!rc && ferror(f)) rc = nd_error_set(err, ND_EIO, "%s: read error", s->path);
    free(buf);
    return rc;
}

/* ---- the row ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A whole number in [1, 2^30] (a round's limit for gbs and seq_len); 0 when absent, and when
 * the log gives another value, which is noted (the row then does not state it). */
static int64_t arg_int(const log_state *s, const char *key)
{
    const char *v = arg(s, key);
    int64_t n;
    if (!v) return 0;
    if (nd_parse_int64(v, 1, (int64_t)1 << 30, &n) == 0) return n;
    char shown[64];
    if (s->out && strcmp(v, "None") && strcmp(v, "null") && strcmp(v, "-1"))
        note(s->out, "%s%s%s = %s is not a whole number in [1, 1073741824]: left out",
             s->config ? s->config : "", s->config ? ": " : "", key, nd_text_shown(v, shown, sizeof shown));
    return 0;
}

static bool arg_true(const log_state *s, const char *key)
{
    const char *v = arg(s, key);
    return v && (!strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1"));
}

/* 1 true, 0 false, -1 absent or neither. */
static int arg_bool(const log_state *s, const char *key)
{
    const char *v = arg(s, key);
    if (!v) return -1;
    if (!strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1")) return 1;
    if (!strcmp(v, "False") || !strcmp(v, "false") || !strcmp(v, "0")) return 0;
    return -1;
}

int nd_classify_log_dims_set(nd_classify_dims *d, nd_dim dim, int64_t v)
{
    if (v < 1 || v > ((int64_t)1 << 20)) return 0;
    for (int i = 0; i < d->count; i++)
        if (d->dim[i] == dim) {
            d->value[i] = v;
            return 0;
        }
    if (d->count == ND_CLASSIFY_DIMS_MAX) return -1;
    d->dim[d->count] = dim;
    d->value[d->count++] = v;
    return 0;
}

/* ---- the strategy each format states --------------------------------------------- */

typedef struct strat {
    int64_t dp, mp, pp, cp, ep, vpp, mbs, gbs, seq, op, zero, mb;
    int sp; /* 1, 0, -1 unknown */
    const char *recompute;
} strat;

static const char *recompute_word(const log_state *s, const char *key, bool full_if_true)
{
    const char *v = arg(s, key);
    if (!v) return NULL;
    if (!strcmp(v, "selective")) return "selective";
    if (!strcmp(v, "full") || (full_if_true && (!strcmp(v, "True") || !strcmp(v, "true")))) return "full";
    if (!strcmp(v, "None") || !strcmp(v, "none") || !strcmp(v, "null") || !strcmp(v, "False") ||
        !strcmp(v, "false"))
        return "off";
    char shown[64];
    if (s->out)
        note(s->out, "%s = %s is not a recompute mode nd knows (selective, full, None): the row states none",
             key, nd_text_shown(v, shown, sizeof shown));
    return NULL;
}

/* Megatron-LM's arguments (also Megatron-DeepSpeed's and MindSpeed's). */
static void megatron_strategy(const log_state *s, strat *t)
{
    t->mp = arg_int(s, "tensor_model_parallel_size");
    t->pp = arg_int(s, "pipeline_model_parallel_size");
    t->cp = arg_int(s, "context_parallel_size");
    t->ep = arg_int(s, "expert_model_parallel_size");
    t->dp = arg_int(s, "data_parallel_size");
    t->vpp = arg_int(s, "virtual_pipeline_model_parallel_size");
    t->mbs = arg_int(s, "micro_batch_size");
    t->gbs = arg_int(s, "global_batch_size");
    if (!t->gbs) t->gbs = arg_int(s, "logged_global_batch_size");
    t->seq = arg_int(s, "seq_length");
    int64_t world = arg_int(s, "world_size");
    int64_t rest = (t->mp ? t->mp : 1) * (t->pp ? t->pp : 1) * (t->cp ? t->cp : 1);
    if (!t->dp && world && world % rest == 0) t->dp = world / rest;
    t->sp = arg_bool(s, "sequence_parallel");
    t->recompute = recompute_word(s, "recompute_granularity", false);
    if (arg_true(s, "use_distributed_optimizer") && t->dp) /* sharded over DP (with CP) */
    {
        t->op = t->dp * (t->cp ? t->cp : 1);
        t->zero = 1;
    }
    int64_t zero = arg_int(s, "zero_stage"); /* Megatron-DeepSpeed: ZeRO over DP */
    if (zero >= 1 && zero <= 3 && t->dp) {
        t->op = t->dp;
        t->zero = zero;
    }
}

/* torchtitan: the device mesh it logs, the toml's [training] and [parallelism]. */
static void torchtitan_strategy(const log_state *s, const log_state *toml, strat *t)
{
    int64_t rep = arg_int(s, "mesh_dp_replicate"), shard = arg_int(s, "mesh_dp_shard");
    bool mesh = rep || shard || arg_int(s, "mesh_tp") || arg_int(s, "mesh_pp") || arg_int(s, "mesh_cp");
    t->mp = arg_int(s, "mesh_tp");
    t->pp = arg_int(s, "mesh_pp");
    t->cp = arg_int(s, "mesh_cp");
    t->ep = arg_int(s, "mesh_ep");
    if (!mesh && toml) { /* no mesh line: the toml's degrees (-1 means "the rest": unknown) */
        rep = arg_int(toml, "parallelism.data_parallel_replicate_degree");
        shard = arg_int(toml, "parallelism.data_parallel_shard_degree");
        t->mp = arg_int(toml, "parallelism.tensor_parallel_degree");
        t->pp = arg_int(toml, "parallelism.pipeline_parallel_degree");
        t->cp = arg_int(toml, "parallelism.context_parallel_degree");
        t->ep = arg_int(toml, "parallelism.expert_parallel_degree");
    }
    if (mesh) { /* the mesh lists the dimensions above 1: the others are 1, not "the run's" */
        t->mp = t->mp ? t->mp : 1;
        t->pp = t->pp ? t->pp : 1;
        t->cp = t->cp ? t->cp : 1;
        t->ep = t->ep ? t->ep : 1;
    }
    if (mesh || rep || shard) t->dp = (rep ? rep : 1) * (shard ? shard : 1);
    t->sp = t->mp > 1 ? 1 : t->mp == 1 ? 0 : -1; /* torchtitan's TP shards the norms' sequence */
    if (shard > 1) {
        t->op = shard * (t->cp ? t->cp : 1);
        t->zero = 3;
    } /* FSDP over dp_shard x cp */
    if (!toml) return;
    int64_t local = arg_int(toml, "training.local_batch_size");
    if (!local) local = arg_int(toml, "training.batch_size");
    t->seq = arg_int(toml, "training.seq_len");
    t->gbs = arg_int(toml, "training.global_batch_size");
    if (!t->gbs && local && t->dp) t->gbs = local * t->dp;
    t->mbs = local;
    int64_t pp_mbs = arg_int(toml, "parallelism.pipeline_parallel_microbatch_size");
    if (t->pp > 1 && pp_mbs) t->mbs = pp_mbs;
    t->recompute = recompute_word(toml, "activation_checkpoint.mode", false);
}

/* NeMo's and MindFormers' config dumps. */
static void config_strategy(const log_state *s, strat *t, bool mindformers)
{
    if (mindformers) {
        t->dp = arg_int(s, "data_parallel");
        t->mp = arg_int(s, "model_parallel");
        t->pp = arg_int(s, "pipeline_stage");
        t->cp = arg_int(s, "context_parallel");
        t->ep = arg_int(s, "expert_parallel");
        t->mb = arg_int(s, "micro_batch_num");
        t->mbs = arg_int(s, "batch_size");
        t->seq = arg_int(s, "seq_length");
        t->sp = arg_bool(s, "use_seq_parallel");
        t->recompute = arg_true(s, "select_recompute") ? "selective" : recompute_word(s, "recompute", true);
        if (t->dp && t->mbs) t->gbs = t->dp * t->mbs * (t->mb ? t->mb : 1);
        return;
    }
    megatron_strategy(s, t); /* NeMo's model config uses Megatron's names */
    if (!t->seq) t->seq = arg_int(s, "encoder_seq_length");
    int64_t world = arg_int(s, "devices") * (arg_int(s, "num_nodes") ? arg_int(s, "num_nodes") : 1);
    int64_t rest = (t->mp ? t->mp : 1) * (t->pp ? t->pp : 1) * (t->cp ? t->cp : 1);
    if (!t->dp && world && world % rest == 0) t->dp = world / rest;
    if (!t->recompute) t->recompute = recompute_word(s, "activations_checkpoint_granularity", false);
}

/* The job's toml (torchtitan's config) as "table.key" arguments, read by nd_toml. */
static int toml_read(const char *path, log_state *t, nd_error *err)
{
    nd_toml *doc = NULL;
    int rc = nd_toml_load(&doc, path, err);
    for (size_t i = 0; !rc && i < nd_toml_count(doc); i++) {
        const char *table, *key, *value;
        char name[64];
        nd_toml_entry(doc, i, &table, &key, &value, NULL);
        int n = snprintf(name, sizeof name, "%s%s%s", table, *table ? "." : "", key);
        if (n > 0 && (size_t)n < sizeof name && add_arg(t, name, (size_t)n, value))
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    if (doc) nd_toml_free(doc);
    return rc;
}

static int set(nd_classify_dims *d, nd_dim dim, int64_t v, const char *path, nd_error *err)
{
    if (nd_classify_log_dims_set(d, dim, v))
        return nd_error_set(err, ND_EINPUT, "%s: too many dimensions", path);
    return ND_OK;
}

/* --dims over what the log states: a degree stated in both and different is a note. */
static int dims_over(nd_classify_log *l, const nd_classify_log_options *o, nd_error *err)
{
    for (int i = 0; i < o->dims.count; i++) {
        int64_t had = 0;
        for (int k = 0; k < l->dims.count; k++)
            if (l->dims.dim[k] == o->dims.dim[i]) had = l->dims.value[k];
        if (had && had != o->dims.value[i])
            note(l, "the log says %s=%lld, --dims %lld: --dims is kept", nd_dim_name(o->dims.dim[i]),
                 (long long)had, (long long)o->dims.value[i]);
        if (set(&l->dims, o->dims.dim[i], o->dims.value[i], l->path, err)) return err->code;
    }
    if (o->has_dims)
        snprintf(l->dims_source + strlen(l->dims_source), sizeof l->dims_source - strlen(l->dims_source),
                 "%s--dims", l->dims_source[0] ? " and " : "");
    return ND_OK;
}

static int strategy_of(log_state *s, const nd_classify_log_options *o, nd_error *err)
{
    nd_classify_log *l = s->out;
    strat t = {.sp = -1};
    log_state toml = {.out = l, .path = o->config, .config = o->config};
    int rc = ND_OK;
    if (o->config && (rc = toml_read(o->config, &toml, err))) return rc;
    if (s->format == LOG_MEGATRON)
        megatron_strategy(s, &t);
    else if (s->format == LOG_TORCHTITAN)
        torchtitan_strategy(s, o->config ? &toml : NULL, &t);
    else
        config_strategy(s, &t, s->format == LOG_MINDFORMERS);
    free(toml.args);
    if (!t.mb && t.gbs && t.mbs && t.dp && t.gbs % (t.mbs * t.dp) == 0) t.mb = t.gbs / (t.mbs * t.dp);
    const struct {
        nd_dim dim;
        int64_t v;
    } dims[] = {{ND_DIM_DP, t.dp}, {ND_DIM_EP, t.ep},   {ND_DIM_MP, t.mp},
                {ND_DIM_CP, t.cp}, {ND_DIM_PP, t.pp},   {ND_DIM_VPP, t.vpp},
                {ND_DIM_MB, t.mb}, {ND_DIM_MBS, t.mbs}, {ND_DIM_OP, t.op}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0] && !rc; i++)
        if (dims[i].v) rc = set(&l->dims, dims[i].dim, dims[i].v, s->path, err);
    if (rc) return rc;
    if (l->dims.count)
        snprintf(l->dims_source, sizeof l->dims_source, "the log%s",
                 s->format == LOG_TORCHTITAN && o->config ? " and --log-config" : "");
    l->gbs = t.gbs;
    l->seq_len = t.seq;
    l->sp = t.sp;
    l->zero = t.zero;
    l->recompute = t.recompute;
    l->local_tokens = t.gbs && t.dp && t.seq ? (double)t.gbs / (double)t.dp * (double)t.seq : 0;
    l->non_dp = (t.mp ? t.mp : 1) * (t.pp ? t.pp : 1) * (t.cp ? t.cp : 1);
    if ((rc = dims_over(l, o, err))) return rc;
    l->has_dims = l->dims.count > 0;
    return ND_OK;
}

/* The steady steps' median, warm-up dropped: --skip-steps, else the first tenth of the
 * step lines (at least one of two or more). torchtitan's tokens per second become ms. */
static int times_of(log_state *s, const nd_classify_log_options *o, nd_error *err)
{
    nd_classify_log *l = s->out;
    if (s->format == LOG_TORCHTITAN) {
        if (l->local_tokens <= 0 && !o->config)
            return nd_error_set(err, ND_EINPUT,
                                "%s: torchtitan logs tokens per second per device (tps); the step "
                                "time needs the tokens a rank takes per step: give the job's toml "
                                "with --log-config (training.local_batch_size, training.seq_len)",
                                s->path);
        if (l->local_tokens <= 0) /* the toml was given: say what in it is missing or wrong */
            return nd_error_set(err, ND_EINPUT,
                                "%s: torchtitan logs tokens per second per device (tps); the step "
                                "time needs the tokens a rank takes per step, which %s does not "
                                "give: %s",
                                s->path, o->config,
                                l->n_notes ? l->notes[l->n_notes - 1]
                                           : "it needs training.local_batch_size (or global_batch_size "
                                             "and the data-parallel degrees) and training.seq_len");
        for (size_t i = 0; i < s->n; i++) { /* tps per device: ms per step */
            double tps = s->ms[i];
            s->ms[i] = 1000.0 * l->local_tokens / (tps * (double)l->non_dp);
            if (!(s->ms[i] > 0 && s->ms[i] <= LOG_MAX_MS))
                return nd_error_set(
                    err, ND_EINPUT,
                    "%s: step %ld: tps %g with %.0f tokens a step per rank makes a step of %g ms; "
                    "nd reads steps of more than 0 and at most 1e9 ms: is the tps or the toml's "
                    "batch and seq_len wrong?",
                    s->path, s->step[i], tps, l->local_tokens / (double)l->non_dp, s->ms[i]);
        }
    }
    size_t skip = o->skip_steps >= 0 ? (size_t)o->skip_steps
                  : s->n >= 3        ? (s->n / 10 > 1 ? s->n / 10 : 1)
                  : s->n == 2        ? 1
                                     : 0;
    if (skip >= s->n)
        return nd_error_set(err, ND_EINPUT,
                            "%s: --skip-steps %zu drops every step (the log has %zu "
                            "step lines)",
                            s->path, skip, s->n);
    size_t n = s->n - skip;
    double *v = s->ms + skip;
    qsort(v, n, sizeof *v, cmp_double);
    l->n_steps = s->n;
    l->n_warmup = skip;
    l->n_steady = n;
    l->time_ms = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    l->min_ms = v[0];
    l->max_ms = v[n - 1];
    if (s->n == 1) note(l, "one step line only: it may hold warm-up (compilation, allocator growth)");
    if (s->zero_tps)
        note(l, "%zu step line%s with tps 0 (no tokens counted yet) left out (line %zu%s)", s->zero_tps,
             s->zero_tps == 1 ? "" : "s", s->zero_tps_line, s->zero_tps == 1 ? "" : " first");
    return ND_OK;
}

static void peak_of(log_state *s, const nd_classify_log_options *o)
{
    nd_classify_log *l = s->out;
    if (o->peak_allocated) {
        l->peak_mib = s->max_allocated_mib;
        l->peak_kind = "max allocated";
    } else {
        l->peak_mib = s->max_reserved_mib;
        l->peak_kind = "max reserved";
    }
    if (l->peak_mib <= 0) l->peak_kind = NULL;
}

/* The row nd-compare would read (calib/calibrate/classified.c's limits: a step in (0, 1e9]
 * ms, a peak in (0, 2^30] MiB, at most 2^30 devices): a value beyond them is a note and no
 * row, so one log never poisons the round it is appended to. */
static void check_row(nd_classify_log *l)
{
    double devices = 1;
    for (int i = 0; i < l->dims.count; i++)
        if (l->dims.dim[i] == ND_DIM_DP || l->dims.dim[i] == ND_DIM_MP || l->dims.dim[i] == ND_DIM_PP ||
            l->dims.dim[i] == ND_DIM_CP)
            devices *= (double)l->dims.value[i];
    char why[200] = "";
    if (!(l->time_ms > 0 && l->time_ms <= LOG_MAX_MS))
        snprintf(why, sizeof why, "the step time %g ms is beyond (0, 1e9] ms", l->time_ms);
    else if (l->peak_mib != 0 && !(l->peak_mib > 0 && l->peak_mib <= LOG_MAX_MIB))
        snprintf(why, sizeof why, "the peak %g MiB is beyond (0, 2^30] MiB", l->peak_mib);
    else if (devices > LOG_MAX_DEVICES)
        snprintf(why, sizeof why, "DP x MP x PP x CP = %.0f devices, beyond 2^30", devices);
    if (!why[0]) return;
    l->skip_row = true;
    note(l, "%s: no round row is written for this log", why);
}

void nd_classify_log_free(nd_classify_log *l)
{
    free(l->path);
    memset(l, 0, sizeof *l);
}

int nd_classify_log_read(const char *path, const nd_classify_log_options *o, nd_classify_log *out,
                         nd_error *err)
{
    memset(out, 0, sizeof *out);
    log_state s = {.out = out, .path = path};
    FILE *f = nd_fopen_regular(path, err);
    if (!f) return err->code;
    int rc = read_lines(&s, f, err);
    fclose(f);
    if (!rc && !(out->path = nd_strdup(path))) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && s.n == 0)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s: no step times found: not a Megatron-LM (\"elapsed time per iteration "
                          "(ms)\"), torchtitan (\"tps\"), NeMo (\"train_step_timing in s\") or "
                          "MindFormers (\"per_step_time\") training log",
                          path);
    if (!rc) out->format = format_names[s.format];
    if (!rc) rc = strategy_of(&s, o, err);
    if (!rc) rc = times_of(&s, o, err);
    if (!rc) peak_of(&s, o);
    if (!rc) check_row(out);
    free(s.ms);
    free(s.step);
    free(s.args);
    if (rc) nd_classify_log_free(out);
    return rc;
}
