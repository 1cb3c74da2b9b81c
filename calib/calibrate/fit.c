/*
 * fit.c — fitting ratios: checks the round, runs the mode (fit_parts.c, fit_total.c,
 * fit_sums.c) and summarises the result. What the modes share is in fit_common.c.
 */
#include "nd/calibrate/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/calibrate/metrics.h"

const char *nd_fit_mode_name(nd_fit_mode m)
{
    static const char *names[] = {"auto", "parts", "total", "sums"};
    return m <= ND_FIT_SUMS ? names[m] : "?";
}

/* In-sample and leave-one-out summaries once ratios and predictions are set. */
static void summarise(const nd_fit_row *rows, size_t n, nd_fit_result *res)
{
    double *x = malloc(2 * n * sizeof *x);
    if (x) {
        double *y = x + n;
        for (size_t i = 0; i < n; i++) {
            x[i] = res->corrected_ms[i] * rows[i].rank_scale;
            y[i] = rows[i].rank_ms;
        }
        res->spearman = nd_metric_spearman(x, y, n);
        res->regret = nd_metric_regret(x, y, n, &res->pick, &res->fastest);
        free(x);
    }
    nd_fit_loo_metrics(res->left_out_ms, res->target_ms, rows, n, true, &res->loo_total);
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        double *p = malloc(2 * n * sizeof *p);
        if (!p) continue;
        double *t = p + n;
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            p[i] = res->group_left_out[i * ND_RATIO_KEYS + k];
            t[i] = res->group_target[i * ND_RATIO_KEYS + k];
            any |= isfinite(t[i]);
        }
        if (any)
            nd_fit_loo_metrics(p, t, rows, n, false, &res->loo_key[k]);
        else
            res->loo_key[k].mape = res->loo_key[k].max_abs = res->loo_key[k].spearman =
                res->loo_key[k].regret = NAN;
        free(p);
    }
}

static int check_rows(const nd_fit_row *rows, size_t n, nd_error *err)
{
    if (n == 0) return nd_error_set(err, ND_EINPUT, "the round has no rows to fit");
    for (size_t i = 0; i < n; i++) {
        if (!(rows[i].time_ms > 0) || !isfinite(rows[i].time_ms))
            return nd_error_set(err, ND_EINPUT, "%s: the measured step is not a positive number",
                                rows[i].label);
        for (int p = 0; p < ND_PARTS; p++)
            if (!isfinite(rows[i].est[p]))
                return nd_error_set(err, ND_EINPUT, "%s: the estimate of %s is not finite", rows[i].label,
                                    nd_part_name((nd_part)p));
    }
    return ND_OK;
}

int nd_fit_run(const nd_fit_row *rows, size_t n, const nd_fit_options *opt, nd_fit_result *res, nd_error *err)
{
    int rc = check_rows(rows, n, err);
    if (rc) return rc;
    if (nd_fit_result_alloc(res, n)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    nd_fit_options o = *opt;
    if (o.mode == ND_FIT_AUTO) o.mode = o.column[ND_MEAS_COMP] ? ND_FIT_PARTS : ND_FIT_TOTAL;
    res->mode = o.mode;
    res->max_ci = o.max_ci > 0 ? o.max_ci : ND_FIT_MAX_CI;
    if (o.mode == ND_FIT_SUMS && n < 2 && !o.allow_fallback) {
        nd_fit_result_free(res);
        return nd_error_set(err, ND_EINPUT,
                            "1 row cannot check a ratio (no leave-one-out): profile at "
                            "least 2 strategies (or --allow-fallback to fit it unchecked, as ND does)");
    }
    switch (o.mode) {
    case ND_FIT_PARTS: rc = nd_fit_parts(rows, n, &o, res, err); break;
    case ND_FIT_TOTAL: rc = nd_fit_total(rows, n, &o, res, err); break;
    default: rc = nd_fit_sums(rows, n, &o, res, err); break;
    }
    if (!rc && o.mode != ND_FIT_SUMS) rc = nd_fit_memory(rows, n, &o, res, err);
    if (!rc)
        for (int k = 0; k < ND_RATIO_KEYS; k++)
            if (!isfinite(res->ratio[k]) || res->ratio[k] <= 0) {
                rc = nd_error_set(err, ND_EINPUT, "ratio %s came out %g: not a usable correction",
                                  nd_ratio_key_name((nd_ratio_key)k), res->ratio[k]);
                break;
            }
    if (rc) {
        nd_fit_result_free(res);
        return rc;
    }
    res->distinct = nd_fit_distinct(rows, n);
    res->max_ci = o.max_ci > 0 ? o.max_ci : ND_FIT_MAX_CI;
    summarise(rows, n, res);
    return ND_OK;
}
