/*
 * fit_shapes.c — per-shape corrections (total mode), after the ratios and fixed costs.
 *
 * Strategies of one layer sharding (TP, CP, EP, ETP, MBS, SP: what the estimate prices a
 * layer for) run the same kernels per micro-batch, and the kernel library's choices for
 * those shapes are what a smooth device model misses most: on the vTrain rounds the
 * fitted estimate is off by a nearly constant fraction per shape, from -27 % to +13 %. So
 * each shape s gets delta_s, added to the ratio of its micro-batch parts (W_i, their raw
 * ms), fitted on the residuals e_i of the ratios' fit with a ridge toward 0:
 *
 *     delta_s = sum_s w e W / (sum_s w W^2 + lambda S),   S = mean_i w_i W_i^2,
 *
 * so lambda counts in rows' worth of evidence: a shape profiled once moves little. lambda
 * is chosen on a grid by exact leave-one-out error (the shapes' refit without the row on
 * top of the ratios' own leave-one-out), "no shapes" included: they are kept only when they
 * predict left-out strategies better. docs/calibration.md §Shapes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/base/array.h"

typedef struct order {
    const nd_fit_row *rows;
    size_t i;
} order;

static int by_key(const void *a, const void *b)
{
    const order *p = a, *q = b;
    int c = nd_shape_key_compare(&p->rows[p->i].shape, &q->rows[q->i].shape);
    return c ? c : (p->i < q->i ? -1 : p->i > q->i);
}

typedef struct shape_sums {
    double www, wwe;     /* sum w W^2, sum w W e */
    size_t first, count; /* in the sorted order */
} shape_sums;

/* Leave-one-out score of lambda (INFINITY: no shapes). */
static double score(const nd_fit_row *rows, const order *ord, const shape_sums *g, size_t groups,
                    const double *w, const double *e, const double *loo, double lambda_s)
{
    double total = 0;
    for (size_t k = 0; k < groups; k++)
        for (size_t j = g[k].first; j < g[k].first + g[k].count; j++) {
            size_t i = ord[j].i;
            double W = rows[i].mb_work, d = 0;
            if (isfinite(lambda_s)) {
                double den = g[k].www - w[i] * W * W + lambda_s;
                d = den > 0 ? (g[k].wwe - w[i] * W * e[i]) / den : 0;
            }
            double err = (loo[i] + d * W) / rows[i].time_ms - 1;
            total += err * err;
        }
    return total;
}

int nd_fit_shapes(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                  nd_error *err)
{
    if (o->no_shapes || n < 3) return ND_OK;
    order *ord = malloc(n * sizeof *ord);
    shape_sums *g = malloc(n * sizeof *g);
    double *w = malloc(2 * n * sizeof *w);
    if (!ord || !g || !w) {
        free(ord);
        free(g);
        free(w);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    double *e = w + n, S = 0;
    for (size_t i = 0; i < n; i++) {
        ord[i] = (order){rows, i};
        w[i] = nd_fit_weight(o, &rows[i]);
        e[i] = rows[i].time_ms - res->corrected_ms[i];
        S += w[i] * rows[i].mb_work * rows[i].mb_work / (double)n;
    }
    qsort(ord, n, sizeof *ord, by_key);
    size_t groups = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = ord[j].i;
        if (j == 0 || nd_shape_key_compare(&rows[ord[j - 1].i].shape, &rows[i].shape))
            g[groups++] = (shape_sums){0, 0, j, 0};
        shape_sums *s = &g[groups - 1];
        s->www += w[i] * rows[i].mb_work * rows[i].mb_work;
        s->wwe += w[i] * rows[i].mb_work * e[i];
        s->count++;
    }
    res->shape_groups = groups;
    static const double grid[] = {0.3, 1, 3, 10, 30, 100};
    double best = score(rows, ord, g, groups, w, e, res->left_out_ms, INFINITY), lambda = INFINITY;
    bool usable = groups > 1 && groups < n && groups <= ND_MAX_SHAPES && S > 0;
    for (size_t k = 0; usable && k < ND_ARRAY_LEN(grid); k++) {
        double sc = score(rows, ord, g, groups, w, e, res->left_out_ms, grid[k] * S);
        if (sc < best * (1 - 1e-9)) {
            best = sc;
            lambda = grid[k];
        }
    }
    if (isfinite(lambda)) {
        /* The residual variance after the shapes, for their standard errors. */
        double rss = 0, used = 0, spread = 0;
        for (size_t k = 0; k < groups; k++) used += g[k].www / (g[k].www + lambda * S);
        for (size_t k = 0; k < groups; k++)
            for (size_t j = g[k].first; j < g[k].first + g[k].count; j++) {
                size_t i = ord[j].i;
                double d = g[k].wwe / (g[k].www + lambda * S), r = e[i] - d * rows[i].mb_work;
                rss += w[i] * r * r;
            }
        double dof = (double)n - (double)res->time_spread.terms - used, s2 = dof > 0 ? rss / dof : NAN;
        res->shapes = (int)groups;
        res->shape_ridge_rows = lambda;
        for (size_t k = 0; k < groups; k++) {
            nd_shape_ratio *sh = &res->shape[k];
            double den = g[k].www + lambda * S;
            sh->key = rows[ord[g[k].first].i].shape;
            sh->delta = g[k].wwe / den;
            sh->se = sqrt(s2 * g[k].www) / den;
            sh->rows = (int)g[k].count;
            spread += sh->delta * sh->delta / (double)groups;
            for (size_t j = g[k].first; j < g[k].first + g[k].count; j++) {
                size_t i = ord[j].i;
                double W = rows[i].mb_work, dn = g[k].www - w[i] * W * W + lambda * S;
                res->corrected_ms[i] += sh->delta * W;
                res->left_out_ms[i] += (dn > 0 ? (g[k].wwe - w[i] * W * e[i]) / dn : 0) * W;
            }
        }
        res->shape_spread = sqrt(spread);
    }
    free(ord);
    free(g);
    free(w);
    return ND_OK;
}
