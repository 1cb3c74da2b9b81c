/* kernel_table.c — measured kernel rates near a query shape: exact where measured, the
 * measured points' ratios to the curve interpolated between them, the curve beyond them.
 * docs/devices.md §Kernel tables. */
#include "nd/costmodel/kernel_table.h"

#include <math.h>
#include <stdlib.h>

#define MAX_DIMS 6
#define NEAREST  4
/* A query this close in every log dimension is the measured shape (shapes are integers). */
#define SAME_SHAPE 1e-6
/* How far past the measured range (a factor on each dimension) interpolation still reaches. */
#define REACH_LOG 0.2231435513142097 /* log 1.25 */

/* One table viewed as points: coordinates (the logs of the shape), the shape the curve takes,
 * and the measured efficiency; `match` rejects points of another pass or precision. */
typedef struct view {
    size_t count, dims;
    bool (*match)(const struct view *v, size_t i);
    void (*shape)(const struct view *v, size_t i, double *shape); /* dims values */
    double (*efficiency)(const struct view *v, size_t i);
    const nd_kernel_tables *t;
    nd_gemm_precision precision;
    int pass; /* nd_gemm_pass, or backward for attention */
} view;

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
    for (size_t i = 0; i < v->count; i++) {
        if (!v->match(v, i)) continue;
        double s[MAX_DIMS], d = 0;
        v->shape(v, i, s);
        for (size_t j = 0; j < v->dims; j++) {
            double c = log(s[j]);
            lo[j] = fmin(lo[j], c);
            hi[j] = fmax(hi[j], c);
            d += sq(c - q[j]);
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

static double lookup(const view *v, const double *shape, double curve_here, nd_curve_fn curve,
                     const void *ctx)
{
    if (!v->count) return curve_here;
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

static bool gemm_match(const view *v, size_t i)
{
    const nd_gemm_point *p = &v->t->gemm[i];
    return p->precision == v->precision && ((int)p->pass == v->pass || p->pass == ND_PASS_ANY);
}
static void gemm_shape(const view *v, size_t i, double *s)
{
    const nd_gemm_point *p = &v->t->gemm[i];
    s[0] = p->m;
    s[1] = p->n;
    s[2] = p->k;
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
    view v = {t->gemm_count, 3, gemm_match, gemm_shape, gemm_eff, t, precision, (int)pass};
    double shape[3] = {m, n, k};
    return lookup(&v, shape, curve_here, curve, ctx);
}

static bool grouped_match(const view *v, size_t i)
{
    const nd_grouped_point *p = &v->t->grouped[i];
    return p->precision == v->precision && ((int)p->pass == v->pass || p->pass == ND_PASS_ANY);
}
static void grouped_shape(const view *v, size_t i, double *s)
{
    const nd_grouped_point *p = &v->t->grouped[i];
    s[0] = p->groups;
    s[1] = p->m;
    s[2] = p->n;
    s[3] = p->k;
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
    view v = {t->grouped_count, 4, grouped_match, grouped_shape, grouped_eff, t, precision, (int)pass};
    double shape[4] = {groups, m, n, k};
    return lookup(&v, shape, curve_here, curve, ctx);
}

static bool attention_match(const view *v, size_t i)
{
    return (int)v->t->attention[i].backward == v->pass;
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
static double attention_eff(const view *v, size_t i)
{
    return v->t->attention[i].efficiency;
}

double nd_kernel_tables_attention(const nd_kernel_tables *t, bool backward, double batch, double seq,
                                  double heads, double kv_heads, double qk_dim, double v_dim,
                                  double curve_here, nd_curve_fn curve, const void *ctx)
{
    if (!t) return curve_here;
    view v = {t->attention_count, 6, attention_match, attention_shape,
              attention_eff,      t, ND_GEMM_16BIT,   backward};
    double shape[6] = {batch, seq, heads, kv_heads, qk_dim, v_dim};
    return lookup(&v, shape, curve_here, curve, ctx);
}

void nd_kernel_tables_free(nd_kernel_tables *t)
{
    if (!t) return;
    free(t->gemm);
    free(t->grouped);
    free(t->attention);
    free(t);
}
