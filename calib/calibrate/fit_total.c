/*
 * fit_total.c — the total mode: only the step is measured (trainer logs), so every
 * exercised ratio and the fixed costs are fitted jointly on `time`, under the
 * identifiability rules of fit_solve.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/base/array.h"

static const nd_ratio_key candidates[] = {
    ND_RATIO_COMPUTE, ND_RATIO_DP_COMM, ND_RATIO_DP_REDUCE, ND_RATIO_MP_COMM,  ND_RATIO_EP_COMM,
    ND_RATIO_CP_COMM, ND_RATIO_PP_COMM, ND_RATIO_OPTIMIZER, ND_RATIO_OVERHEAD,
};
#define N_CANDIDATES (ND_ARRAY_LEN(candidates))

/* The keys a candidate's ratio scales: the step cannot split PP_COMM from BUBBLE. */
static unsigned keys_of(nd_ratio_key k)
{
    return k == ND_RATIO_PP_COMM ? 1u << ND_RATIO_PP_COMM | 1u << ND_RATIO_BUBBLE : 1u << k;
}

static bool held(const nd_fit_options *o, unsigned keys)
{
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (keys & 1u << k && o->hold[k]) return true;
    return false;
}

/* The columns: exercised, unheld ratios, then the fixed costs. Held ratios price their
 * part at 1 in the offset. */
static void columns(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                    nd_fit_problem *pb, double *offset)
{
    for (size_t i = 0; i < n; i++) offset[i] = 0;
    for (size_t c = 0; c < N_CANDIDATES; c++) {
        nd_fit_col col = nd_fit_ratio_col(keys_of(candidates[c]));
        double mx = 0;
        for (size_t i = 0; i < n; i++) mx = fmax(mx, fabs(nd_fit_col_regressor(&rows[i], &col)));
        bool hold = held(o, col.keys);
        if (mx > 0 && !hold) {
            pb->col[pb->p++] = col;
            continue;
        }
        for (int k = 0; k < ND_RATIO_KEYS; k++)
            if (col.keys & 1u << k)
                nd_fit_hold(res, (nd_ratio_key)k, hold ? "--hold" : "no row of the round exercises it");
        for (size_t i = 0; i < n; i++) offset[i] += nd_fit_col_regressor(&rows[i], &col);
    }
    if (res->status[ND_RATIO_PP_COMM] != ND_RATIO_HELD) {
        res->status[ND_RATIO_BUBBLE] = ND_RATIO_SHARED;
        res->source[ND_RATIO_BUBBLE] = ND_RATIO_PP_COMM;
    }
    for (int f = 0; f < ND_FIXED_COSTS; f++) {
        nd_fit_col col = nd_fit_fixed_col((nd_fixed_cost)f);
        double mx = 0;
        for (size_t i = 0; i < n; i++) mx = fmax(mx, nd_fit_col_regressor(&rows[i], &col));
        if (o->no_fixed || o->hold_fixed[f] || mx <= 0) {
            res->fixed[f].status = ND_RATIO_HELD;
            snprintf(res->fixed[f].why, sizeof res->fixed[f].why, "%s",
                     o->no_fixed        ? "--no-fixed"
                     : o->hold_fixed[f] ? "--hold"
                                        : "no row of the round exercises it");
            continue;
        }
        pb->col[pb->p++] = col;
    }
}

/* Relative scatter of the corrected steps around the measured ones. */
static double residual_sd(const nd_fit_result *res, size_t n, int dof)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double e = res->corrected_ms[i] / res->target_ms[i] - 1;
        s += e * e;
    }
    return dof > 0 ? sqrt(s / dof) : NAN;
}

int nd_fit_total(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res, nd_error *err)
{
    double *buf = malloc(5 * n * sizeof *buf);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    double *offset = buf, *y = buf + n, *scale = y + n, *pred = scale + n, *loo = pred + n;
    nd_fit_problem pb = {rows, n, NULL, y, scale, o, nd_classified_csv.time, 0, {{0}}, 0, {{0}}};
    columns(rows, n, o, res, &pb, offset);
    for (size_t i = 0; i < n; i++) {
        y[i] = rows[i].time_ms - offset[i];
        scale[i] = rows[i].time_ms;
    }
    int rc = pb.p ? nd_fit_solve(&pb, res, pred, loo, &res->time_spread, err)
                  : nd_error_set(err, ND_EINPUT, "no part of the estimate is exercised by the round");
    for (size_t i = 0; !rc && i < n; i++) {
        res->corrected_ms[i] = nd_fit_predict(&rows[i], res);
        res->left_out_ms[i] = isfinite(loo[i]) ? res->corrected_ms[i] + (loo[i] - pred[i]) : NAN;
        res->target_ms[i] = rows[i].time_ms;
    }
    if (!rc) rc = nd_fit_shapes(rows, n, o, res, err);
    if (!rc) res->time_spread.residual_sd = residual_sd(res, n, res->time_spread.dof);
    free(buf);
    return rc;
}
