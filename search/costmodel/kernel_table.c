/* kernel_table.c — measured kernel rates near a query shape: exact where measured, the
 * measured points' ratios to the curve interpolated between them, the curve beyond them.
 * docs/devices.md §Kernel tables. */
#include "nd/costmodel/kernel_table.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 6
#define NEAREST  4
/* A query this close in every log dimension is the measured shape (shapes are integers). */
#define SAME_SHAPE 1e-6
/* How far past the measured range (a factor on each dimension) interpolation still reaches. */
#define REACH_LOG 0.2231435513142097 /* log 1.25 */

/* One table viewed as points: coordinates (the logs of the shape), the shape the curve takes,
 * and the measured efficiency, of the points in [from, to) of its groups (the query's pass and
 * precision, and the points of any pass). */
typedef struct view {
    size_t from[2], to[2], dims;
    void (*shape)(const struct view *v, size_t i, double *shape); /* dims values */
    const double *(*key)(const struct view *v, size_t i);         /* their logs */
    double (*efficiency)(const struct view *v, size_t i);
    const nd_kernel_tables *t;
    nd_gemm_precision precision;
    int pass; /* nd_gemm_pass, or backward for attention */
} view;

/* The memo: one slot per hash of the question, overwritten on a collision. An answer depends
 * only on the question (the kind, pass, precision, shape and the curve there), so a hit is the
 * answer a fresh lookup would give: outputs do not depend on what was asked before. */
#define MEMO_SLOTS 65536
typedef struct memo_slot {
    bool used;
    int kind, pass, precision;
    double shape[MAX_DIMS], curve_here, answer;
} memo_slot;
struct nd_kernel_memo {
    pthread_mutex_t lock;
    memo_slot slot[MEMO_SLOTS];
};

static size_t memo_hash(const memo_slot *q)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[MAX_DIMS + 4];
    memcpy(parts, q->shape, sizeof q->shape);
    memcpy(&parts[MAX_DIMS], &q->curve_here, sizeof q->curve_here);
    parts[MAX_DIMS + 1] = (uint64_t)q->kind;
    parts[MAX_DIMS + 2] = (uint64_t)q->pass;
    parts[MAX_DIMS + 3] = (uint64_t)q->precision;
    for (size_t i = 0; i < MAX_DIMS + 4; i++) {
        h ^= parts[i];
        h *= 1099511628211ull;
    }
    /* A multiply carries low bits upward only, and a shape's doubles have zero low mantissa
     * bits: without this finaliser (MurmurHash3's fmix64) the slot, taken from the low bits,
     * would ignore the shape and every question would collide. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (size_t)(h % MEMO_SLOTS);
}

static bool memo_same(const memo_slot *a, const memo_slot *b)
{
    return a->used && a->kind == b->kind && a->pass == b->pass && a->precision == b->precision &&
           a->curve_here == b->curve_here && !memcmp(a->shape, b->shape, sizeof a->shape);
}

static double sq(double x)
{
    return x * x;
}

/* The nearest `NEAREST` matching points to q (log coordinates), by squared distance. */
static size_t nearest(const view *v, const double *q, size_t idx[NEAREST], double d2[NEAREST], double lo[],
                      double hi[])
{
    size_t found = 0;
    for (size_t j = 0; j < v->dims; j++) {
        lo[j] = INFINITY;
        hi[j] = -INFINITY;
    }
    for (int r = 0; r < 2; r++)
        for (size_t i = v->from[r]; i < v->to[r]; i++) {
            const double *c = v->key(v, i);
            double d = 0;
            for (size_t j = 0; j < v->dims; j++) {
                if (c[j] < lo[j]) lo[j] = c[j];
                if (c[j] > hi[j]) hi[j] = c[j];
                d += sq(c[j] - q[j]);
            }
            /* insertion into the sorted few; ties keep the earlier row (reproducible) */
            size_t at = found < NEAREST ? found : NEAREST;
            while (at > 0 && d2[at - 1] > d) at--;
            if (at >= NEAREST) continue;
            size_t last = found < NEAREST ? found : NEAREST - 1;
            for (size_t k = last; k > at; k--) {
                idx[k] = idx[k - 1];
                d2[k] = d2[k - 1];
            }
            idx[at] = i;
            d2[at] = d;
            if (found < NEAREST) found++;
        }
    return found;
}

static double interpolate(const view *v, const double *shape, double curve_here, nd_curve_fn curve,
                          const void *ctx);

static double lookup(const view *v, int kind, const double *shape, double curve_here, nd_curve_fn curve,
                     const void *ctx)
{
    struct nd_kernel_memo *memo = v->t->memo;
    if (!memo) return interpolate(v, shape, curve_here, curve, ctx);
    memo_slot q;
    memset(&q, 0, sizeof q);
    q.used = true;
    q.kind = kind;
    q.pass = v->pass;
    q.precision = (int)v->precision;
    q.curve_here = curve_here;
    memcpy(q.shape, shape, v->dims * sizeof *shape);
    size_t at = memo_hash(&q);
    pthread_mutex_lock(&memo->lock);
    bool hit = memo_same(&memo->slot[at], &q);
    double answer = hit ? memo->slot[at].answer : 0;
    pthread_mutex_unlock(&memo->lock);
    if (hit) return answer;
    q.answer = interpolate(v, shape, curve_here, curve, ctx);
    pthread_mutex_lock(&memo->lock);
    memo->slot[at] = q;
    pthread_mutex_unlock(&memo->lock);
    return q.answer;
}

static double interpolate(const view *v, const double *shape, double curve_here, nd_curve_fn curve,
                          const void *ctx)
{
    if (v->from[0] == v->to[0] && v->from[1] == v->to[1]) return curve_here;
    double q[MAX_DIMS], lo[MAX_DIMS], hi[MAX_DIMS], d2[NEAREST];
    size_t idx[NEAREST];
    for (size_t j = 0; j < v->dims; j++) q[j] = log(shape[j] > 0 ? shape[j] : 1);
    size_t found = nearest(v, q, idx, d2, lo, hi);
    if (!found) return curve_here;
    if (d2[0] < SAME_SHAPE * SAME_SHAPE) return v->efficiency(v, idx[0]);
    for (size_t j = 0; j < v->dims; j++)
        if (q[j] < lo[j] - REACH_LOG || q[j] > hi[j] + REACH_LOG) return curve_here;
    /* the measured points' log ratios to the curve, weighted by inverse squared distance */
    double sum_w = 0, sum = 0;
    for (size_t k = 0; k < found; k++) {
        double s[MAX_DIMS];
        v->shape(v, idx[k], s);
        double at_point = curve(ctx, s);
        if (!(at_point > 0)) continue;
        double w = 1 / d2[k];
        sum_w += w;
        sum += w * log(v->efficiency(v, idx[k]) / at_point);
    }
    return sum_w > 0 ? curve_here * exp(sum / sum_w) : curve_here;
}

/* The group index of a (precision, pass) and the two ranges a query of `pass` reads. */
static int group_of(int precision, int pass)
{
    return (precision & 3) * 4 + (pass & 3);
}

static void groups_of(const size_t *from, nd_gemm_precision precision, nd_gemm_pass pass, view *v)
{
    int g = group_of((int)precision, (int)pass), any = group_of((int)precision, ND_PASS_ANY);
    v->from[0] = from[g];
    v->to[0] = from[g + 1];
    v->from[1] = from[any];
    v->to[1] = pass == ND_PASS_ANY ? from[any] : from[any + 1];
}

static void gemm_shape(const view *v, size_t i, double *s)
{
    const nd_gemm_point *p = &v->t->gemm[i];
    s[0] = p->m;
    s[1] = p->n;
    s[2] = p->k;
}
static const double *gemm_key(const view *v, size_t i)
{
    return v->t->gemm[i].key;
}
static double gemm_eff(const view *v, size_t i)
{
    return v->t->gemm[i].efficiency;
}

double nd_kernel_tables_gemm(const nd_kernel_tables *t, nd_gemm_precision precision, nd_gemm_pass pass,
                             double m, double n, double k, double curve_here, nd_curve_fn curve,
                             const void *ctx)
{
    if (!t) return curve_here;
    view v = {{0}, {0}, 3, gemm_shape, gemm_key, gemm_eff, t, precision, (int)pass};
    groups_of(t->gemm_from, precision, pass, &v);
    double shape[3] = {m, n, k};
    return lookup(&v, 0, shape, curve_here, curve, ctx);
}

static void grouped_shape(const view *v, size_t i, double *s)
{
    const nd_grouped_point *p = &v->t->grouped[i];
    s[0] = p->groups;
    s[1] = p->m;
    s[2] = p->n;
    s[3] = p->k;
}
static const double *grouped_key(const view *v, size_t i)
{
    return v->t->grouped[i].key;
}
static double grouped_eff(const view *v, size_t i)
{
    return v->t->grouped[i].efficiency;
}

double nd_kernel_tables_grouped(const nd_kernel_tables *t, nd_gemm_precision precision, nd_gemm_pass pass,
                                double groups, double m, double n, double k, double curve_here,
                                nd_curve_fn curve, const void *ctx)
{
    if (!t) return curve_here;
    view v = {{0}, {0}, 4, grouped_shape, grouped_key, grouped_eff, t, precision, (int)pass};
    groups_of(t->grouped_from, precision, pass, &v);
    double shape[4] = {groups, m, n, k};
    return lookup(&v, 1, shape, curve_here, curve, ctx);
}

static void attention_shape(const view *v, size_t i, double *s)
{
    const nd_attention_point *p = &v->t->attention[i];
    s[0] = p->batch;
    s[1] = p->seq;
    s[2] = p->heads;
    s[3] = p->kv_heads;
    s[4] = p->qk_dim;
    s[5] = p->v_dim;
}
static const double *attention_key(const view *v, size_t i)
{
    return v->t->attention[i].key;
}
static double attention_eff(const view *v, size_t i)
{
    return v->t->attention[i].efficiency;
}

double nd_kernel_tables_attention(const nd_kernel_tables *t, bool backward, double batch, double seq,
                                  double heads, double kv_heads, double qk_dim, double v_dim,
                                  double curve_here, nd_curve_fn curve, const void *ctx)
{
    if (!t) return curve_here;
    view v = {{t->attention_from[backward], 0},
              {t->attention_from[backward + 1], 0},
              6,
              attention_shape,
              attention_key,
              attention_eff,
              t,
              ND_GEMM_16BIT,
              backward};
    double shape[6] = {batch, seq, heads, kv_heads, qk_dim, v_dim};
    return lookup(&v, 2, shape, curve_here, curve, ctx);
}

static void logs_of(const double *shape, size_t dims, double *key)
{
    for (size_t j = 0; j < dims; j++) key[j] = log(shape[j] > 0 ? shape[j] : 1);
}

/* Orders `count` items of `size` bytes stably by group (group(i) < groups) and fills from[]. */
static int group_items(void *items, size_t count, size_t size, int groups, int (*group)(const void *item),
                       size_t *from)
{
    if (count == 0) { /* an empty table: memcpy must not see its null pointer */
        for (int g = 0; g <= groups; g++) from[g] = 0;
        return 0;
    }
    char *copy = malloc(count * size);
    if (!copy) return -1;
    memcpy(copy, items, count * size);
    size_t at = 0;
    for (int g = 0; g < groups; g++) {
        from[g] = at;
        for (size_t i = 0; i < count; i++)
            if (group(copy + i * size) == g) memcpy((char *)items + at++ * size, copy + i * size, size);
    }
    from[groups] = at;
    free(copy);
    return 0;
}

static int gemm_group(const void *p)
{
    const nd_gemm_point *g = p;
    return group_of((int)g->precision, (int)g->pass);
}
static int grouped_group(const void *p)
{
    const nd_grouped_point *g = p;
    return group_of((int)g->precision, (int)g->pass);
}
static int attention_group(const void *p)
{
    return ((const nd_attention_point *)p)->backward ? 1 : 0;
}

int nd_kernel_tables_index(nd_kernel_tables *t)
{
    if (group_items(t->gemm, t->gemm_count, sizeof *t->gemm, ND_TABLE_GROUPS, gemm_group, t->gemm_from) ||
        group_items(t->grouped, t->grouped_count, sizeof *t->grouped, ND_TABLE_GROUPS, grouped_group,
                    t->grouped_from) ||
        group_items(t->attention, t->attention_count, sizeof *t->attention, 2, attention_group,
                    t->attention_from))
        return -1;
    for (size_t i = 0; i < t->gemm_count; i++) {
        nd_gemm_point *p = &t->gemm[i];
        logs_of((double[]){p->m, p->n, p->k}, 3, p->key);
    }
    for (size_t i = 0; i < t->grouped_count; i++) {
        nd_grouped_point *p = &t->grouped[i];
        logs_of((double[]){p->groups, p->m, p->n, p->k}, 4, p->key);
    }
    for (size_t i = 0; i < t->attention_count; i++) {
        nd_attention_point *p = &t->attention[i];
        logs_of((double[]){p->batch, p->seq, p->heads, p->kv_heads, p->qk_dim, p->v_dim}, 6, p->key);
    }
    if (!t->memo) {
        t->memo = calloc(1, sizeof *t->memo);
        if (!t->memo) return -1;
        pthread_mutex_init(&t->memo->lock, NULL);
    }
    return 0;
}

void nd_kernel_tables_free(nd_kernel_tables *t)
{
    if (!t) return;
    if (t->memo) pthread_mutex_destroy(&t->memo->lock);
    free(t->memo);
    free(t->gemm);
    free(t->grouped);
    free(t->attention);
    free(t);
}
