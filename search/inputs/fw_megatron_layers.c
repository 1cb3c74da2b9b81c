/*
 * fw_megatron_layers.c — which layers a Megatron-LM or MindSpeed-LLM script builds: MindSpeed's
 * --noop-layers (identities within --num-layers) and --moe-layer-freq (an int, or Megatron's
 * Python list expression of 0/1 per layer), as the model's layer count, dense-first layers and
 * MoE frequency. Part of the reader (fw_megatron.c); docs/frameworks.md lists the flags.
 */
#include "fw_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_args.h"
#include "fw_megatron.h"
#include "nd/base/text.h"

/* --noop-layers 61,62,63 (MindSpeed): layers of --num-layers that are identities. The model
 * has the others; where they stand shapes the pipeline split (fw_megatron.c's read_split). */
int fw_megatron_noop_layers(fw_reader *r, args_doc *d)
{
    int line;
    const char *v = fw_args_val(d, "noop-layers", &line);
    nd_model *m = &r->run->model;
    if (!v) return ND_OK;
    int64_t seen = 0;
    const char *p = v;
    for (;;) {
        char *end;
        long long k = strtoll(p, &end, 10);
        if (end == p || k < 0 || k >= m->layers || (*end && *end != ','))
            return nd_error_set(
                r->err, ND_EINPUT,
                "%s:%d: --noop-layers: '%s' is not a list of layer numbers below --num-layers "
                "%lld",
                r->path, line, v, (long long)m->layers);
        seen++;
        if (!*end) break;
        p = end + 1;
    }
    if (seen >= m->layers)
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: --noop-layers: every layer is a no-op", r->path, line);
    char n[32];
    snprintf(n, sizeof n, "%lld", (long long)(m->layers - seen));
    return fw_model(r, "num_hidden_layers", n, line, "--noop-layers");
}

/* Whether layer i of --num-layers is in --noop-layers. */
bool fw_megatron_is_noop(const char *list, int64_t i)
{
    for (const char *p = list; p && *p;) {
        char *end;
        if (strtoll(p, &end, 10) == i) return true;
        p = *end == ',' ? end + 1 : end + (*end != '\0');
    }
    return false;
}

/* A 0/1 list as Python writes it and Megatron evaluates it: lists, '+' to join, '*' to repeat,
 * parentheses to group ("([0]*1+[1]*3)*12", "[0,1]*16"). */
typedef struct {
    const char *p;
    unsigned char *item;
    size_t n, cap;
} layer_list;

static void list_blank(layer_list *l)
{
    while (*l->p == ' ') l->p++;
}

static bool list_expr(layer_list *l, int depth);

/* an atom: [a, b, ...] or (expr), then any number of *k */
static bool list_term(layer_list *l, int depth)
{
    size_t from = l->n;
    list_blank(l);
    if (*l->p == '(') {
        l->p++;
        if (!list_expr(l, depth + 1)) return false;
        list_blank(l);
        if (*l->p != ')') return false;
        l->p++;
    } else if (*l->p == '[') {
        for (l->p++;;) {
            list_blank(l);
            if (*l->p == ']') break;
            if ((*l->p != '0' && *l->p != '1') || l->n == l->cap) return false;
            l->item[l->n++] = (unsigned char)(*l->p++ - '0');
            list_blank(l);
            if (*l->p == ',') l->p++;
        }
        l->p++;
    } else {
        return false;
    }
    for (list_blank(l); *l->p == '*'; list_blank(l)) {
        char *end;
        long times = strtol(l->p + 1, &end, 10);
        if (end == l->p + 1 || times < 0) return false;
        l->p = end;
        size_t len = l->n - from;
        if (times > 0 && len > (l->cap - from) / (size_t)times) return false;
        for (long t = 1; t < times; t++) memcpy(l->item + from + (size_t)t * len, l->item + from, len);
        l->n = from + (size_t)times * len;
    }
    return true;
}

static bool list_expr(layer_list *l, int depth)
{
    if (depth > 32 || !list_term(l, depth)) return false;
    for (list_blank(l); *l->p == '+'; list_blank(l)) {
        l->p++;
        if (!list_term(l, depth)) return false;
    }
    return true;
}

/* --moe-layer-freq: an int k (every k-th layer MoE; MindSpeed's -1: every layer), or a
 * Python list expression of 0/1 per layer ("([0]*3+[1]*58)", "([0]*1+[1]*3)*1", "[0,1]*16"):
 * dense-first layers and every k-th layer are what nd represents. */
int fw_megatron_layer_freq(fw_reader *r, args_doc *d)
{
    int line;
    const char *v = fw_args_val(d, "moe-layer-freq", &line);
    if (!v) return ND_OK;
    int64_t k;
    if (!nd_parse_int64(v, -1, 1 << 20, &k)) {
        if (k == 0)
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: --moe-layer-freq: 0 is not a frequency", r->path,
                                line);
        return fw_model(r, "moe_layer_freq", k < 0 ? "1" : v, line, "--moe-layer-freq");
    }
    int64_t layers = r->run->model.layers, n = 0;
    layer_list list = {.p = v, .cap = 1 << 16};
    list.item = calloc(list.cap, 1);
    if (!list.item) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    bool ok = list_expr(&list, 0);
    list_blank(&list);
    ok = ok && !*list.p && list.n > 0;
    unsigned char *moe = list.item;
    n = (int64_t)list.n;
    int rc = ND_OK;
    /* the layers counted before --noop-layers (Megatron's list has one entry a layer) */
    const char *total = fw_args_val(d, "num-layers", NULL);
    int64_t all = layers;
    if (total) nd_parse_int64(total, 1, 1 << 24, &all);
    if (!ok)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --moe-layer-freq: '%s' is neither an int nor a list such as "
                          "([0]*3+[1]*58)",
                          r->path, line, v);
    else if (n != all)
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: --moe-layer-freq: %lld entries for %lld layers", r->path,
                          line, (long long)n, (long long)all);
    int64_t dense = 0;
    while (!rc && dense < n && !moe[dense]) dense++;
    bool tail = true; /* dense first, then every layer MoE */
    for (int64_t i = dense; i < n; i++) tail &= moe[i] == 1;
    int64_t step = 0; /* else every step-th layer, from layer 0 */
    for (int64_t f = 2; !rc && !tail && f <= n && !step; f++) {
        bool fits = true;
        for (int64_t i = 0; i < n && fits; i++) fits = moe[i] == (i % f == 0);
        if (fits) step = f;
    }
    char num[32];
    if (!rc && tail) {
        snprintf(num, sizeof num, "%lld", (long long)dense);
        rc = fw_model(r, "first_k_dense_replace", num, line, "--moe-layer-freq");
    } else if (!rc && step) {
        snprintf(num, sizeof num, "%lld", (long long)step);
        rc = fw_model(r, "moe_layer_freq", num, line, "--moe-layer-freq");
    } else if (!rc) {
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --moe-layer-freq: '%s': nd represents dense first layers then MoE, or "
                          "every k-th layer MoE, not this pattern",
                          r->path, line, v);
    }
    free(moe);
    return rc;
}
