/* --dims, and which parallel dimension a process group is.
 *
 * Rank order (Megatron's and torchtitan's default): TP innermost, then CP, then DP,
 * then PP outermost: rank = tp + MP*(cp + CP*(dp + DP*pp)). Expert parallelism folds
 * inside DP x CP x TP, its groups strided like CP/DP by MP. A group is placed by its
 * rank list first (exact), then by words in its name, then by its size when only one
 * dimension has that size, and last by its collective type as ND's Ascend path does. */
#include "classify_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

/* The dimensions --dims takes: the searched ones but SP (see below). */
#define DIMS_ACCEPTED ((ND_DIM_BIT(ND_DIMS_SEARCHED) - 1) & ~ND_DIM_BIT(ND_DIM_SP))

static int dim_item(nd_classify_dims *d, const char *item, nd_error *err)
{
    const char *eq = strchr(item, '=');
    if (!eq) return nd_error_set(err, ND_EUSAGE, "--dims: '%s' is not NAME=VALUE", item);
    char name[8] = {0};
    size_t k = 0;
    for (const char *p = item; p < eq; p++) {
        if (isspace((unsigned char)*p)) continue;
        if (k + 1 >= sizeof name)
            return nd_error_set(err, ND_EUSAGE, "--dims: unknown dimension in '%s'", item);
        name[k++] = (char)toupper((unsigned char)*p);
    }
    int dim = nd_dim_from_name(name);
    if (dim >= 0) nd_text_copy(name, nd_dim_name((nd_dim)dim), sizeof name); /* TP is stored as MP */
    if (dim == ND_DIM_SP)
        return nd_error_set(err, ND_EUSAGE,
                            "--dims: %s is refused: ND reads any non-empty %s cell as true, "
                            "so a written %s column could not say false; leave it out",
                            name, name, name);
    if (dim < 0 || !(DIMS_ACCEPTED & ND_DIM_BIT(dim))) {
        char accepted[64];
        nd_dim_names(DIMS_ACCEPTED, accepted, sizeof accepted);
        return nd_error_set(err, ND_EUSAGE, "--dims: unknown dimension '%s' (accepted: %s; %s means %s)",
                            name, accepted, nd_dims[ND_DIM_MP].synonym, nd_dims[ND_DIM_MP].name);
    }
    int64_t v;
    /* Bounded so the products of three degrees (a group's stride) fit an int64. */
    if (nd_parse_int64(eq + 1, 1, (int64_t)1 << 20, &v) != 0)
        return nd_error_set(err, ND_EUSAGE, "--dims: %s: '%s' is not a whole number in [1, 1048576]", name,
                            eq + 1);
    for (int i = 0; i < d->count; i++)
        if ((int)d->dim[i] == dim) return nd_error_set(err, ND_EUSAGE, "--dims: %s is given twice", name);
    if (d->count == ND_CLASSIFY_DIMS_MAX) return nd_error_set(err, ND_EUSAGE, "--dims: too many dimensions");
    d->dim[d->count] = (nd_dim)dim;
    d->value[d->count++] = v;
    return ND_OK;
}

int nd_classify_dims_parse(const char *text, nd_classify_dims *dims, nd_error *err)
{
    memset(dims, 0, sizeof *dims);
    char *copy = nd_strdup(text);
    if (!copy) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && !rc;
         item = strtok_r(NULL, ",", &save)) {
        bool blank = true;
        for (const char *p = item; *p; p++) blank &= isspace((unsigned char)*p) != 0;
        if (!blank) rc = dim_item(dims, item, err);
    }
    free(copy);
    if (!rc && dims->count == 0)
        rc = nd_error_set(err, ND_EUSAGE, "--dims: no dimension given (e.g. DP=8,MP=4)");
    return rc;
}

int64_t nd_classify_dims_get(const nd_classify_dims *dims, nd_dim dim)
{
    for (int i = 0; i < dims->count; i++)
        if (dims->dim[i] == dim) return dims->value[i];
    return 1;
}

/* ---- groups ------------------------------------------------------------------ */

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int nd_classify_group_table_intern(group_table *t, const comm_group *g)
{
    for (size_t i = 0; i < t->n; i++) {
        const comm_group *h = &t->items[i];
        if (h->kind == g->kind && h->size == g->size && h->start == g->start && h->stride == g->stride &&
            same_text(h->pg_name, g->pg_name) && same_text(h->pg_desc, g->pg_desc) &&
            same_text(h->ranks, g->ranks))
            return (int)i;
    }
    if (t->n >= GROUP_TABLE_MAX) return -2;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        comm_group *items = realloc(t->items, cap * sizeof *items);
        if (!items) return -1;
        t->items = items;
        t->cap = cap;
    }
    comm_group *h = &t->items[t->n];
    *h = *g;
    h->pg_name = nd_strdup(g->pg_name);
    h->pg_desc = nd_strdup(g->pg_desc);
    h->ranks = nd_strdup(g->ranks);
    if ((g->pg_name && !h->pg_name) || (g->pg_desc && !h->pg_desc) || (g->ranks && !h->ranks)) {
        free(h->pg_name);
        free(h->pg_desc);
        free(h->ranks);
        return -1;
    }
    return (int)t->n++;
}

void nd_classify_group_table_free(group_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->items[i].pg_name);
        free(t->items[i].pg_desc);
        free(t->items[i].ranks);
    }
    free(t->items);
    memset(t, 0, sizeof *t);
}

nd_classify_quantity nd_classify_coll_default_column(coll_kind k, const nd_classify_dims *dims,
                                                     bool is_p2p_section, const char **label_out)
{
    bool mp_or_cp =
        dims && (nd_classify_dims_get(dims, ND_DIM_MP) > 1 || nd_classify_dims_get(dims, ND_DIM_CP) > 1);
    if (is_p2p_section || k == COLL_P2P) {
        *label_out = "pipeline p2p";
        return ND_CQ_PP_WAIT;
    }
    switch (k) {
    case COLL_ALL_TO_ALL: *label_out = "expert all-to-all"; return ND_CQ_EP_WAIT;
    case COLL_ALL_GATHER:
        if (mp_or_cp) {
            *label_out = "all-gather (MP or CP active)";
            return ND_CQ_UNCLASSIFIED;
        }
        *label_out = "fsdp all-gather";
        return ND_CQ_OP_WAIT;
    case COLL_REDUCE_SCATTER:
        if (mp_or_cp) {
            *label_out = "reduce-scatter (MP or CP active)";
            return ND_CQ_UNCLASSIFIED;
        }
        *label_out = "fsdp reduce-scatter";
        return ND_CQ_OP_WAIT;
    case COLL_ALL_REDUCE: *label_out = "all-reduce"; return ND_CQ_DP_WAIT;
    default: *label_out = nd_classify_coll_label(k); return ND_CQ_UNCLASSIFIED;
    }
}

/* A dimension a group may be: its wait column, its group size and the stride between its
 * ranks. DP x CP (both > 1) is a group of its own, named by no word. */
typedef struct candidate {
    nd_classify_quantity column;
    int dim; /* nd_dim; -1 for DP x CP */
    int64_t size, stride;
} candidate;

/* "MP", ..., or "DPxCP": how a site label names the candidate. */
static void candidate_name(const candidate *c, char *buf, size_t size)
{
    if (c->dim >= 0)
        snprintf(buf, size, "%s", nd_dim_name((nd_dim)c->dim));
    else
        snprintf(buf, size, "%sx%s", nd_dim_name(ND_DIM_DP), nd_dim_name(ND_DIM_CP));
}

static size_t candidates(const nd_classify_dims *d, candidate out[6])
{
    int64_t t = nd_classify_dims_get(d, ND_DIM_MP), c = nd_classify_dims_get(d, ND_DIM_CP);
    int64_t dp = nd_classify_dims_get(d, ND_DIM_DP), p = nd_classify_dims_get(d, ND_DIM_PP);
    int64_t e = nd_classify_dims_get(d, ND_DIM_EP);
    candidate all[6] = {{ND_CQ_MP_WAIT, ND_DIM_MP, t, 1},          {ND_CQ_CP_WAIT, ND_DIM_CP, c, t},
                        {ND_CQ_DP_WAIT, ND_DIM_DP, dp, t * c},     {ND_CQ_DP_WAIT, -1, dp * c, t},
                        {ND_CQ_PP_WAIT, ND_DIM_PP, p, t * c * dp}, {ND_CQ_EP_WAIT, ND_DIM_EP, e, t}};
    size_t n = 0;
    for (size_t i = 0; i < 6; i++) {
        if (all[i].size <= 1) continue;
        if (i == 3 && (c <= 1 || dp <= 1)) continue; /* DPxCP only when both are real */
        out[n++] = all[i];
    }
    return n;
}

/* Parses "[0, 1, 2]" into ranks (at most max); the count, or -1 if malformed. */
static long parse_ranks(const char *s, int64_t *ranks, long max)
{
    long n = 0;
    const char *p = s;
    while (*p && (isspace((unsigned char)*p) || *p == '[')) p++;
    while (*p && *p != ']') {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || v > INT32_MAX || n == max) return -1; /* ranks are ints */
        ranks[n++] = v;
        p = end;
        while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
    }
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static const candidate *by_ranks(const int64_t *r, long n, const candidate *c, size_t nc, coll_kind kind)
{
    const candidate *hit = NULL;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].size != n || (r[0] / c[i].stride) % c[i].size != 0) continue;
        bool ok = true;
        for (long k = 0; k < n && ok; k++) /* r[k] == r[0] + k * stride, without overflow */
            ok = (r[k] - r[0]) % c[i].stride == 0 && (r[k] - r[0]) / c[i].stride == k;
        if (!ok) continue;
        if (!hit) hit = &c[i];
        /* Same ranks for two dimensions (EP = DP, CP = 1): the collective decides. */
        if (kind == COLL_ALL_TO_ALL && c[i].column == ND_CQ_EP_WAIT) hit = &c[i];
        if (kind == COLL_P2P && c[i].column == ND_CQ_PP_WAIT) hit = &c[i];
    }
    return hit;
}

/* The dimension a word of a process group's name means, or -1. */
static int dim_of_word(const char *w)
{
    static const struct {
        const char *word;
        nd_dim dim;
    } map[] = {{"tp", ND_DIM_MP},       {"tensor", ND_DIM_MP},  {"mp", ND_DIM_MP},     {"model", ND_DIM_MP},
               {"cp", ND_DIM_CP},       {"context", ND_DIM_CP}, {"pp", ND_DIM_PP},     {"pipe", ND_DIM_PP},
               {"pipeline", ND_DIM_PP}, {"ep", ND_DIM_EP},      {"expert", ND_DIM_EP}, {"moe", ND_DIM_EP},
               {"dp", ND_DIM_DP},       {"data", ND_DIM_DP},    {"fsdp", ND_DIM_DP},   {"ddp", ND_DIM_DP},
               {"replicate", ND_DIM_DP}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(w, map[i].word)) return map[i].dim;
    return -1;
}

/* The dimension the next word of *pp means (-1 none), moving past it; -2 at the end. */
static int next_word_dim(const char **pp)
{
    const char *p = *pp;
    while (*p && !isalnum((unsigned char)*p)) p++;
    if (!*p) return -2;
    char word[32];
    size_t k = 0;
    for (; *p && isalnum((unsigned char)*p); p++)
        if (k + 1 < sizeof word) word[k++] = (char)tolower((unsigned char)*p);
    word[k] = '\0';
    *pp = p;
    return dim_of_word(word);
}

static const candidate *by_name(const char *name, const candidate *c, size_t nc)
{
    for (int dim; (dim = next_word_dim(&name)) != -2;)
        for (size_t i = 0; dim >= 0 && i < nc; i++)
            if (c[i].dim == dim) return &c[i];
    return NULL;
}

/* The first dimension a word of name means ("mesh_tp" -> MP), or -1. */
static int dim_of_name(const char *name)
{
    for (int dim; (dim = next_word_dim(&name)) != -2;)
        if (dim >= 0) return dim;
    return -1;
}

static int dims_set(nd_classify_dims *d, nd_dim dim, int64_t v)
{
    for (int i = 0; i < d->count; i++)
        if (d->dim[i] == dim) return d->value[i] == v ? 0 : -1; /* two groups disagree */
    if (d->count == ND_CLASSIFY_DIMS_MAX) return -1;
    d->dim[d->count] = dim;
    d->value[d->count++] = v;
    return 0;
}

int nd_classify_dims_from_groups(const pg_config *cfg, size_t n, int64_t world, nd_classify_dims *out)
{
    memset(out, 0, sizeof *out);
    int64_t product = 1;
    for (size_t i = 0; i < n; i++) {
        const char *name = cfg[i].desc ? cfg[i].desc : cfg[i].name;
        int dim = name ? dim_of_name(name) : -1;
        int64_t size = cfg[i].size;
        if (dim < 0 || size < 1 || size > ((int64_t)1 << 20)) continue;
        if (dims_set(out, (nd_dim)dim, size)) return -1;
        if (dim != ND_DIM_DP && dim != ND_DIM_EP) product *= size;
    }
    bool has_dp = false;
    for (int i = 0; i < out->count; i++) has_dp |= out->dim[i] == ND_DIM_DP;
    /* DP is what the world leaves (EP folds inside it); a world of one default group is DP */
    if (!has_dp && world > 0 && world % product == 0 && world / product <= ((int64_t)1 << 20) &&
        dims_set(out, ND_DIM_DP, world / product))
        return -1;
    return out->count > 0 ? 1 : 0;
}

static const candidate *by_size(int64_t size, const candidate *c, size_t nc)
{
    const candidate *hit = NULL;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].size != size) continue;
        if (hit) return NULL; /* two dimensions of that size: cannot tell */
        hit = &c[i];
    }
    return hit;
}

/* The ranks of g: its own list, its pg_config entry, start/stride, or the world. */
static long group_ranks(const comm_group *g, const pg_config *cfg, size_t n_cfg, int64_t world, int64_t *r,
                        long max, int64_t *size)
{
    const char *ranks = g->ranks;
    *size = g->size;
    for (size_t i = 0; i < n_cfg && g->pg_name; i++) {
        if (!cfg[i].name || strcmp(cfg[i].name, g->pg_name)) continue;
        if (!ranks) ranks = cfg[i].ranks;
        if (!*size) *size = cfg[i].size;
    }
    if (ranks) {
        long n = parse_ranks(ranks, r, max);
        if (n > 0) qsort(r, (size_t)n, sizeof *r, cmp_i64);
        if (n > 0 && !*size) *size = n;
        if (n > 0) return n;
    }
    if (g->stride > 0 && g->stride <= INT32_MAX && g->start >= 0 && g->start <= INT32_MAX && *size > 0 &&
        *size <= max) {
        for (long k = 0; k < *size; k++) r[k] = g->start + k * g->stride;
        return (long)*size;
    }
    bool world_group = g->pg_desc && !strcmp(g->pg_desc, "default_pg");
    if (world_group && world > 0 && world <= max && (!*size || *size == world)) {
        for (long k = 0; k < world; k++) r[k] = k;
        *size = world;
        return (long)world;
    }
    return 0;
}

/* The degree --dims gives the dimension a wait column stands for (dp_wait and op_wait:
 * DP), or 0. */
static int64_t column_degree(nd_classify_quantity col, const nd_classify_dims *dims)
{
    if (!dims) return 0;
    switch (col) {
    case ND_CQ_DP_WAIT:
    case ND_CQ_OP_WAIT: return nd_classify_dims_get(dims, ND_DIM_DP);
    case ND_CQ_MP_WAIT:
    case ND_CQ_SP_WAIT: return nd_classify_dims_get(dims, ND_DIM_MP);
    case ND_CQ_EP_WAIT: return nd_classify_dims_get(dims, ND_DIM_EP);
    case ND_CQ_CP_WAIT: return nd_classify_dims_get(dims, ND_DIM_CP);
    case ND_CQ_PP_WAIT: return nd_classify_dims_get(dims, ND_DIM_PP);
    default: return 0;
    }
}

nd_classify_quantity nd_classify_group_map(const comm_group *g, const pg_config *cfg, size_t n_cfg,
                                           int64_t world_size, const nd_classify_dims *dims, char *label,
                                           size_t label_size, const char **how, int64_t *size_out)
{
    enum { MAX_RANKS = 4096 };
    candidate c[6];
    size_t nc = dims ? candidates(dims, c) : 0;
    int64_t *r = malloc(MAX_RANKS * sizeof *r), size = 0;
    long n = r ? group_ranks(g, cfg, n_cfg, world_size, r, MAX_RANKS, &size) : 0;
    const candidate *hit = n > 1 ? by_ranks(r, n, c, nc, g->kind) : NULL;
    free(r);
    *how = "ranks";
    const char *pg = g->pg_desc ? g->pg_desc : g->pg_name;
    if (!hit && g->pg_desc) {
        hit = by_name(g->pg_desc, c, nc);
        *how = "name";
    }
    if (!hit && g->pg_name) {
        hit = by_name(g->pg_name, c, nc);
        *how = "name";
    }
    if (!hit && size > 1) {
        hit = by_size(size, c, nc);
        *how = "size";
    }
    if (hit) {
        char dim[16];
        candidate_name(hit, dim, sizeof dim);
        snprintf(label, label_size, "%s pg %s (%s)", nd_classify_coll_label(g->kind), pg ? pg : "?", dim);
        if (size_out) *size_out = size > 1 ? size : hit->size;
        return hit->column;
    }
    const char *nd_label;
    nd_classify_quantity col = nd_classify_coll_default_column(g->kind, dims, false, &nd_label);
    *how = "collective type";
    snprintf(label, label_size, "%s (by type)", nd_label);
    if (size_out) *size_out = size > 1 ? size : column_degree(col, dims);
    return col;
}
