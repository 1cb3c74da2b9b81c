/*
 * fit_sums.c — ND's ratio of sums (docs/reference/nd-calibration.md §5.2-§5.3):
 * ratio = sum of measured / sum of estimated over the round, per key, with
 * ND's pairing of columns and its leave-one-out by refitting without each row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"

/* ND's pairing of a key with measured columns (DP_COMM with op_wait, DP_REDUCE with dp_wait,
 * PP_COMM with pp_wait and its estimate including the bubble). */
static double measured_for(const nd_fit_row *r, nd_ratio_key k, bool *has, const nd_fit_options *o)
{
    const double *m = r->measured;
    *has = true;
    switch (k) {
    case ND_RATIO_COMPUTE: *has = o->column[ND_MEAS_COMP]; return m[ND_MEAS_COMP];
    case ND_RATIO_DP_COMM: *has = o->column[ND_MEAS_OP_WAIT]; return m[ND_MEAS_OP_WAIT];
    case ND_RATIO_DP_REDUCE: *has = o->column[ND_MEAS_DP_WAIT]; return m[ND_MEAS_DP_WAIT];
    case ND_RATIO_MP_COMM:
        *has = o->column[ND_MEAS_MP_WAIT] || o->column[ND_MEAS_SP_WAIT];
        return m[ND_MEAS_MP_WAIT] + m[ND_MEAS_SP_WAIT];
    case ND_RATIO_EP_COMM: *has = o->column[ND_MEAS_EP_WAIT]; return m[ND_MEAS_EP_WAIT];
    case ND_RATIO_CP_COMM: *has = o->column[ND_MEAS_CP_WAIT]; return m[ND_MEAS_CP_WAIT];
    case ND_RATIO_PP_COMM: *has = o->column[ND_MEAS_PP_WAIT]; return m[ND_MEAS_PP_WAIT];
    case ND_RATIO_OPTIMIZER: *has = o->column[ND_MEAS_OPTIMIZER]; return m[ND_MEAS_OPTIMIZER];
    case ND_RATIO_OVERHEAD: *has = o->column[ND_MEAS_COMP] || o->column[ND_MEAS_IDLE]; return r->idle_ms;
    default: *has = false; return 0;
    }
}

static double estimated_for(const nd_fit_row *r, nd_ratio_key k)
{
    double x = nd_fit_regressor(r, k);
    if (k == ND_RATIO_PP_COMM) x += nd_fit_regressor(r, ND_RATIO_BUBBLE);
    return x;
}

/* Ratios from the rows other than `skip` (skip = n: all rows). Returns -1 when the rows price
 * no compute. */
static int sums(const nd_fit_row *rows, size_t n, size_t skip, const nd_fit_options *o,
                double ratio[ND_RATIO_KEYS], nd_ratio_status status[ND_RATIO_KEYS])
{
    double E[ND_RATIO_KEYS] = {0}, M[ND_RATIO_KEYS] = {0}, W = 0;
    bool measured[ND_RATIO_KEYS] = {0};
    for (size_t i = 0; i < n; i++) {
        if (i == skip) continue;
        for (int p = 0; p < ND_ND_PARTS; p++) W += rows[i].est[p];
        for (int k = 0; k < ND_RATIO_KEYS; k++) {
            if (k == ND_RATIO_BUBBLE || k == ND_RATIO_FORWARD) continue;
            bool has;
            M[k] += measured_for(&rows[i], (nd_ratio_key)k, &has, o);
            measured[k] = has;
            E[k] += estimated_for(&rows[i], (nd_ratio_key)k);
        }
    }
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        bool fitted = measured[k] && E[k] > 1e-9 * W; /* ND's NEGLIGIBLE */
        ratio[k] = fitted ? M[k] / E[k] : NAN;
        status[k] = fitted ? ND_RATIO_FITTED : ND_RATIO_HELD;
    }
    if (status[ND_RATIO_COMPUTE] != ND_RATIO_FITTED) return -1;
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (status[k] == ND_RATIO_FITTED && ratio[k] > 0) continue;
        if (k == ND_RATIO_BUBBLE || k == ND_RATIO_FORWARD) continue;
        /* ND's fallback: an unfitted key converts units with COMPUTE's ratio. */
        ratio[k] = o->allow_fallback ? ratio[ND_RATIO_COMPUTE] : (status[k] == ND_RATIO_FITTED ? 0 : 1);
        if (status[k] != ND_RATIO_FITTED || o->allow_fallback)
            status[k] = o->allow_fallback ? ND_RATIO_FALLBACK : ND_RATIO_HELD;
    }
    ratio[ND_RATIO_BUBBLE] = ratio[ND_RATIO_PP_COMM];
    status[ND_RATIO_BUBBLE] = ND_RATIO_SHARED;
    ratio[ND_RATIO_FORWARD] = 1;
    status[ND_RATIO_FORWARD] = ND_RATIO_HELD;
    return 0;
}

int nd_fit_sums(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res, nd_error *err)
{
    nd_ratio_status status[ND_RATIO_KEYS];
    double ratio[ND_RATIO_KEYS];
    if (sums(rows, n, n, o, ratio, status))
        return nd_error_set(err, ND_EINPUT,
                            "the estimates price no compute over the round: no ratio can be fitted");
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (k == ND_RATIO_FORWARD) continue;
        res->ratio[k] = ratio[k];
        res->status[k] = status[k];
        res->source[k] = status[k] == ND_RATIO_FALLBACK ? ND_RATIO_COMPUTE
                         : status[k] == ND_RATIO_SHARED ? ND_RATIO_PP_COMM
                                                        : -1;
        if (status[k] == ND_RATIO_HELD) snprintf(res->why[k], sizeof res->why[k], "not fitted on this round");
        if (status[k] == ND_RATIO_FITTED) snprintf(res->target[k], sizeof res->target[k], "ratio of sums");
        if (status[k] == ND_RATIO_FITTED && ratio[k] <= 0)
            return nd_error_set(err, ND_EINPUT,
                                "%s: the round measures none of it (ratio 0); "
                                "--allow-fallback gives it COMPUTE's ratio",
                                nd_ratio_key_name((nd_ratio_key)k));
    }
    for (size_t i = 0; i < n; i++) {
        res->corrected_ms[i] = nd_fit_corrected(&rows[i], res->ratio, ND_FIT_SUMS);
        res->target_ms[i] = rows[i].busy_ms;
        res->left_out_ms[i] = NAN;
        if (n < 2) continue;
        if (sums(rows, n, i, o, ratio, status))
            return nd_error_set(err, ND_EINPUT,
                                "without %s the other rows price no compute: no "
                                "leave-one-out estimate",
                                rows[i].label);
        res->left_out_ms[i] = nd_fit_corrected(&rows[i], ratio, ND_FIT_SUMS);
    }
    return ND_OK;
}
