/*
 * fit_parts.c — the parts mode: each measured column fits the ratios of the
 * parts it measures, by weighted least squares through the origin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "lsq.h"

typedef struct group {
    nd_measured cols[2];
    int ncols;
    nd_ratio_key keys[2];
    int nkeys;
    bool idle; /* the target is ND's IDLE */
} group;

/* COMPUTE first: every other group's --allow-fallback takes its ratio. comp's target does
 * not need OPTIMIZER's fit (a measured optimizer is subtracted; an unmeasured one stays 1). */
static const group groups[] = {
    {{ND_MEAS_COMP}, 1, {ND_RATIO_COMPUTE}, 1, false},
    {{ND_MEAS_OPTIMIZER}, 1, {ND_RATIO_OPTIMIZER}, 1, false},
    {{ND_MEAS_DP_WAIT, ND_MEAS_OP_WAIT}, 2, {ND_RATIO_DP_COMM, ND_RATIO_DP_REDUCE}, 2, false},
    {{ND_MEAS_MP_WAIT, ND_MEAS_SP_WAIT}, 2, {ND_RATIO_MP_COMM}, 1, false},
    {{ND_MEAS_EP_WAIT}, 1, {ND_RATIO_EP_COMM}, 1, false},
    {{ND_MEAS_CP_WAIT}, 1, {ND_RATIO_CP_COMM}, 1, false},
    {{ND_MEAS_PP_WAIT}, 1, {ND_RATIO_PP_COMM, ND_RATIO_BUBBLE}, 2, false},
    {{ND_MEAS_IDLE}, 1, {ND_RATIO_OVERHEAD}, 1, true},
};

#define GROUP_NAME_MAX 40

/* "comp", "dp_wait + op_wait": the measured columns a group fits on, as messages and the
 * ratios file's fitted_on name them. */
static void group_name(const group *g, char name[GROUP_NAME_MAX])
{
    snprintf(name, GROUP_NAME_MAX, "%s%s%s", nd_classified_csv.measured[g->cols[0]], g->ncols > 1 ? " + " : "",
             g->ncols > 1 ? nd_classified_csv.measured[g->cols[1]] : "");
}

static bool measured(const group *g, const nd_fit_options *o)
{
    if (g->idle) return o->column[ND_MEAS_IDLE] || o->column[ND_MEAS_COMP];
    for (int c = 0; c < g->ncols; c++)
        if (o->column[g->cols[c]]) return true;
    return false;
}

static double target(const group *g, const nd_fit_row *r, const nd_fit_options *o)
{
    if (g->idle) return r->idle_ms;
    double y = 0;
    for (int c = 0; c < g->ncols; c++) y += r->measured[g->cols[c]];
    /* comp includes the optimizer step; when the round states it apart, it is fitted apart. */
    if (g->keys[0] == ND_RATIO_COMPUTE && o->column[ND_MEAS_OPTIMIZER]) y -= r->measured[ND_MEAS_OPTIMIZER];
    return y;
}

/* Parts the target measures that no ratio of this group fits: priced at their held ratio. */
static double offset(const group *g, const nd_fit_row *r, const nd_fit_options *o, const nd_fit_result *res)
{
    if (g->keys[0] == ND_RATIO_COMPUTE && !o->column[ND_MEAS_OPTIMIZER])
        return r->est[ND_PART_OPTIMIZER] * res->ratio[ND_RATIO_OPTIMIZER];
    return 0;
}

typedef struct work {
    size_t n, p;
    double *X, *y, *w, *h, *pred;
    double *w0; /* the rows' weights before the robust fit reweights w */
    nd_ratio_key key[2];
} work;

/* Prediction for row i from ratios fitted on all other rows (robust weights refitted). */
static double refit_without(const work *wk, size_t skip, bool robust, nd_error *err)
{
    size_t n = wk->n - 1, p = wk->p;
    double *X = malloc((n * p + 3 * n) * sizeof *X);
    if (!X) return NAN;
    double *y = X + n * p, *w = y + n, *w0 = w + n;
    for (size_t i = 0, j = 0; i < wk->n; i++) {
        if (i == skip) continue;
        memcpy(&X[j * p], &wk->X[i * p], p * sizeof *X);
        y[j] = wk->y[i], w[j] = w0[j] = wk->w0[i], j++;
    }
    nd_lsq_problem q = {n, p, X, y, w, 0, NULL};
    nd_lsq_solution s;
    double pred = NAN;
    if (!robust || n > p) {
        if (robust && nd_lsq_robust_weights(&q, w, err)) goto done;
        for (size_t i = 0; i < n; i++) w[i] = fmax(w[i], 1e-12 * w0[i]); /* as the full fit floors */
        if (!nd_lsq_solve(&q, &s, NULL, err)) {
            pred = 0;
            for (size_t k = 0; k < p; k++) pred += s.r[k] * wk->X[skip * p + k];
        }
    }
done:
    free(X);
    return pred;
}

static int solve_group(const nd_fit_row *rows, const group *g, const nd_fit_options *o, work *wk,
                       nd_fit_result *res, nd_error *err)
{
    char name[GROUP_NAME_MAX];
    group_name(g, name);
    nd_lsq_problem q = {wk->n, wk->p, wk->X, wk->y, wk->w, 0, NULL};
    if (o->robust && wk->n > wk->p) {
        int rc = nd_lsq_robust_weights(&q, wk->w, err);
        if (rc) return rc;
        for (size_t i = 0; i < wk->n; i++) wk->w[i] = fmax(wk->w[i], 1e-12 * nd_fit_weight(o, &rows[i]));
    }
    nd_lsq_solution s;
    int rc = nd_lsq_solve(&q, &s, wk->h, err);
    if (rc) return nd_error_prefix(err, "fitting %s", name);
    for (size_t k = 0; k < wk->p; k++) {
        nd_ratio_key key = wk->key[k];
        res->ratio[key] = s.r[k];
        res->status[key] = ND_RATIO_FITTED;
        snprintf(res->target[key], sizeof res->target[key], "%s", name);
        nd_fit_interval(res, key, s.se[k], s.dof);
        if (s.r[k] > 0) continue;
        if (!o->allow_fallback)
            return nd_error_set(err, ND_EINPUT,
                                "%s fits to 0 on %s: the round measures none of what nd prices "
                                "there (check the classification, or --allow-fallback to take "
                                "COMPUTE's ratio)", nd_ratio_key_name(key), name);
        res->ratio[key] = res->ratio[ND_RATIO_COMPUTE];
        res->status[key] = ND_RATIO_FALLBACK;
        res->source[key] = ND_RATIO_COMPUTE;
    }
    for (size_t i = 0; i < wk->n; i++) {
        wk->pred[i] = 0;
        for (size_t k = 0; k < wk->p; k++) wk->pred[i] += res->ratio[wk->key[k]] * wk->X[i * wk->p + k];
    }
    return ND_OK;
}

/* Builds the regression of one group; merges two parts the round cannot tell apart. */
static int build_group(const nd_fit_row *rows, size_t n, const group *g, const nd_fit_options *o,
                       nd_fit_result *res, work *wk, double *offsets, nd_error *err)
{
    wk->n = n, wk->p = 0;
    for (int k = 0; k < g->nkeys; k++) {
        double mx = 0;
        for (size_t i = 0; i < n; i++) mx = fmax(mx, fabs(nd_fit_regressor(&rows[i], g->keys[k])));
        if (mx > 0) wk->key[wk->p++] = g->keys[k];
        else nd_fit_hold(res, g->keys[k], "no row of the round exercises it");
    }
    for (size_t i = 0; i < n; i++) {
        offsets[i] = offset(g, &rows[i], o, res);
        for (int k = 0; k < g->nkeys; k++)
            if (res->status[g->keys[k]] == ND_RATIO_HELD) offsets[i] += nd_fit_regressor(&rows[i], g->keys[k]);
        wk->y[i] = target(g, &rows[i], o) - offsets[i];
        wk->w[i] = wk->w0[i] = nd_fit_weight(o, &rows[i]);
        for (size_t k = 0; k < wk->p; k++) wk->X[i * wk->p + k] = nd_fit_regressor(&rows[i], wk->key[k]);
    }
    if (wk->p == 2) {
        nd_lsq_problem q = {n, 2, wk->X, wk->y, wk->w, 0, NULL};
        nd_lsq_solution s;
        bool separable = n >= 3 && !nd_lsq_solve(&q, &s, NULL, err) && s.rcond > 1e-8 && s.free[0] && s.free[1];
        if (!separable) {
            for (size_t i = 0; i < n; i++) wk->X[i] = wk->X[2 * i] + wk->X[2 * i + 1];
            res->status[wk->key[1]] = ND_RATIO_SHARED;
            res->source[wk->key[1]] = wk->key[0];
            wk->p = 1;
        }
    }
    /* One more row than ratios, so that leave-one-out and an interval check the fit;
     * --allow-fallback accepts an exact but unchecked fit, as ND does. */
    size_t need = wk->p + (o->allow_fallback ? 0 : 1);
    char name[GROUP_NAME_MAX];
    group_name(g, name);
    if (wk->p && n < need)
        return nd_error_set(err, ND_EINPUT,
                            "fitting %s: %zu row%s cannot fit and check %zu ratio%s: profile at least %zu "
                            "strategies (or --allow-fallback to fit them unchecked)", name, n,
                            n == 1 ? "" : "s", wk->p, wk->p > 1 ? "s" : "", wk->p + 1);
    return ND_OK;
}

int nd_fit_parts(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err)
{
    work wk = {0};
    double *buf = malloc(n * (ND_LSQ_MAX_P + 6) * sizeof *buf);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    wk.X = buf, wk.y = buf + n * ND_LSQ_MAX_P, wk.w = wk.y + n, wk.h = wk.w + n, wk.pred = wk.h + n;
    wk.w0 = wk.pred + n;
    double *offsets = wk.w0 + n;
    double *delta = calloc(n, sizeof *delta);
    int rc = delta ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t gi = 0; !rc && gi < sizeof groups / sizeof groups[0]; gi++) {
        const group *g = &groups[gi];
        if (!measured(g, o)) {
            char why[96], name[GROUP_NAME_MAX];
            group_name(g, name);
            snprintf(why, sizeof why, "the round does not measure %s", name);
            for (int k = 0; k < g->nkeys; k++) nd_fit_hold(res, g->keys[k], why);
            continue;
        }
        if ((rc = build_group(rows, n, g, o, res, &wk, offsets, err)) || wk.p == 0) continue;
        if ((rc = solve_group(rows, g, o, &wk, res, err))) break;
        for (int k = 0; k < g->nkeys; k++) {
            nd_ratio_key key = g->keys[k];
            if (res->status[key] != ND_RATIO_SHARED) continue;
            res->ratio[key] = res->ratio[res->source[key]];
            res->lo[key] = res->lo[res->source[key]], res->hi[key] = res->hi[res->source[key]];
        }
        for (size_t i = 0; i < n; i++) {
            double pred = wk.pred[i] + offsets[i], y = wk.y[i] + offsets[i], loo;
            if (o->robust) loo = refit_without(&wk, i, true, err) + offsets[i];
            else loo = wk.h[i] < 1 - 1e-10 ? y - (y - pred) / (1 - wk.h[i]) : NAN;
            res->group_target[i * ND_RATIO_KEYS + wk.key[0]] = y;
            res->group_left_out[i * ND_RATIO_KEYS + wk.key[0]] = loo;
            delta[i] += loo - pred;
        }
    }
    for (size_t i = 0; !rc && i < n; i++) {
        res->corrected_ms[i] = nd_fit_corrected(&rows[i], res->ratio, ND_FIT_PARTS);
        res->left_out_ms[i] = res->corrected_ms[i] + delta[i];
        res->target_ms[i] = rows[i].time_ms;
    }
    free(delta);
    free(buf);
    return rc;
}
