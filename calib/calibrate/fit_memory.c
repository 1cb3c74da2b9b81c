/*
 * fit_memory.c — the memory ratios: the rows' measured peaks (peak_mib) fitted by the same
 * least squares, identifiability rules and leave-one-out as time (fit_solve.c):
 *   measured peak = static + MEM_ACTIVATIONS x activations + MEM_TRANSIENT x transient,
 * all three of the estimate's peak stage, static (weights, gradients, optimizer states) at
 * its estimate. docs/calibration.md §Memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"

int nd_fit_memory(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                  nd_error *err)
{
    double *buf = malloc(5 * n * sizeof *buf);
    bool *use = malloc(n * sizeof *use);
    int rc = (!buf || !use) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    double *y = buf, *scale = y ? y + n : NULL, *offset = scale ? scale + n : NULL;
    double *pred = offset ? offset + n : NULL, *loo = pred ? pred + n : NULL;
    bool held[ND_MEM_RATIOS] = {0};
    nd_fit_problem pb = {rows, n, use, y, scale, o, nd_classified_csv.peak_mib, 0, {{0}}, 0, {{0}}};
    for (size_t i = 0; !rc && i < n; i++) {
        use[i] = isfinite(rows[i].peak_mib) && rows[i].peak_mib > 0;
        res->memory_rows += use[i];
    }
    for (int m = 0; !rc && res->memory_rows && m < ND_MEM_RATIOS; m++) {
        nd_fit_col col = nd_fit_memory_col((nd_memory_ratio)m);
        double mx = 0;
        for (size_t i = 0; i < n; i++)
            if (use[i]) mx = fmax(mx, nd_fit_col_regressor(&rows[i], &col));
        nd_fit_term *t = &res->memory[m];
        if (!o->hold_memory[m] && mx > 0) {
            pb.col[pb.p++] = col;
            continue;
        }
        snprintf(t->why, sizeof t->why, "%s",
                 o->hold_memory[m] ? "--hold" : "no row of the round exercises it");
        held[m] = true;
    }
    for (size_t i = 0; !rc && pb.p && i < n; i++) {
        offset[i] = rows[i].mem_static_mib;
        if (held[ND_MEM_ACTIVATIONS]) offset[i] += rows[i].mem_activations_mib;
        if (held[ND_MEM_TRANSIENT]) offset[i] += rows[i].mem_transient_mib;
        y[i] = use[i] ? rows[i].peak_mib - offset[i] : 0;
        scale[i] = use[i] ? rows[i].peak_mib : 1;
    }
    if (!rc && pb.p) rc = nd_fit_solve(&pb, res, pred, loo, &res->memory_spread, err);
    if (!rc && pb.p) {
        double s = 0;
        for (size_t i = 0; i < n; i++) {
            if (!use[i]) continue;
            res->memory_fitted[i] = pred[i] + offset[i];
            res->memory_left_out[i] = loo[i] + offset[i];
            s += pow(res->memory_fitted[i] / rows[i].peak_mib - 1, 2);
        }
        int dof = (int)res->memory_rows - res->memory_spread.terms;
        res->memory_spread.residual_sd = dof > 0 ? sqrt(s / dof) : NAN;
        double *peaks = malloc(n * sizeof *peaks);
        if (peaks) {
            for (size_t i = 0; i < n; i++) peaks[i] = use[i] ? rows[i].peak_mib : NAN;
            nd_fit_loo_metrics(res->memory_left_out, peaks, rows, n, false, &res->loo_memory);
            free(peaks);
        }
    }
    if (rc) nd_error_prefix(err, "fitting the memory ratios");
    free(buf);
    free(use);
    return rc;
}
