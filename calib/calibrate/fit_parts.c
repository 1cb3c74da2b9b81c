/*
 * fit_parts.c — the parts mode: each measured column fits the ratios of the
 * parts it measures, by weighted least squares through the origin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/base/array.h"

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
    snprintf(name, GROUP_NAME_MAX, "%s%s%s", nd_classified_csv.measured[g->cols[0]],
             g->ncols > 1 ? " + " : "", g->ncols > 1 ? nd_classified_csv.measured[g->cols[1]] : "");
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

/* Fits one group: its ratio keys (two sharing a column are fitted apart when the round
 * tells them apart, else as one shared ratio), plus the fixed costs on idle. */
static int fit_group(const nd_fit_row *rows, size_t n, const group *g, const nd_fit_options *o,
                     nd_fit_result *res, double *buf, nd_error *err)
{
    double *y = buf, *scale = y + n, *offsets = scale + n, *pred = offsets + n, *loo = pred + n;
    char name[GROUP_NAME_MAX];
    group_name(g, name);
    nd_fit_problem pb = {rows, n, NULL, y, scale, o, name, 0, {{0}}, 0, {{0}}};
    unsigned keys = 0;
    for (int k = 0; k < g->nkeys; k++) {
        double mx = 0;
        for (size_t i = 0; i < n; i++) mx = fmax(mx, fabs(nd_fit_regressor(&rows[i], g->keys[k])));
        if (o->hold[g->keys[k]])
            nd_fit_hold(res, g->keys[k], "--hold");
        else if (mx > 0) {
            keys |= 1u << g->keys[k];
            pb.col[pb.p++] = nd_fit_ratio_col(1u << g->keys[k]);
        } else
            nd_fit_hold(res, g->keys[k], "no row of the round exercises it");
    }
    for (size_t i = 0; i < n; i++) {
        offsets[i] = offset(g, &rows[i], o, res);
        for (int k = 0; k < g->nkeys; k++)
            if (res->status[g->keys[k]] == ND_RATIO_HELD)
                offsets[i] += nd_fit_regressor(&rows[i], g->keys[k]);
        y[i] = target(g, &rows[i], o) - offsets[i];
        scale[i] = rows[i].time_ms;
    }
    size_t ratio_cols = pb.p;
    for (int f = 0; g->idle && f < ND_FIXED_COSTS; f++) {
        if (o->no_fixed || o->hold_fixed[f]) {
            snprintf(res->fixed[f].why, sizeof res->fixed[f].why, "%s",
                     o->no_fixed ? "--no-fixed" : "--hold");
            continue;
        }
        pb.col[pb.p++] = nd_fit_fixed_col((nd_fixed_cost)f);
    }
    if (pb.p == 0) return ND_OK;
    nd_fit_problem first = pb;
    unsigned before = res->unidentified, confounded = res->confounded;
    int rc = nd_fit_solve(&pb, res, pred, loo, &res->time_spread, err);
    if (rc == ND_EINPUT && ratio_cols == 2 && (res->unidentified & keys)) {
        /* The column identifies the sum of the two parts: one ratio for both. */
        res->unidentified = before;
        res->confounded = confounded;
        pb = first;
        pb.col[0].keys = keys;
        for (size_t k = 1; k + 1 < pb.p; k++) pb.col[k] = pb.col[k + 1];
        pb.p--;
        res->status[g->keys[1]] = ND_RATIO_SHARED;
        res->source[g->keys[1]] = g->keys[0];
        rc = nd_fit_solve(&pb, res, pred, loo, &res->time_spread, err);
    }
    if (rc) return nd_error_prefix(err, "fitting %s", name);
    /* The group's leave-one-out is reported under its first fitted key. */
    int key = -1;
    for (int k = g->nkeys; k-- > 0;)
        if (res->status[g->keys[k]] != ND_RATIO_HELD) key = g->keys[k];
    for (size_t i = 0; i < n; i++) {
        if (key >= 0) {
            res->group_target[i * ND_RATIO_KEYS + (size_t)key] = y[i] + offsets[i];
            res->group_left_out[i * ND_RATIO_KEYS + (size_t)key] = loo[i] + offsets[i];
        }
        res->corrected_ms[i] += isfinite(loo[i]) ? loo[i] - pred[i] : NAN; /* the step's delta, for now */
    }
    return ND_OK;
}

int nd_fit_parts(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res, nd_error *err)
{
    double *buf = malloc(5 * n * sizeof *buf);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    for (size_t gi = 0; !rc && gi < ND_ARRAY_LEN(groups); gi++) {
        const group *g = &groups[gi];
        if (!measured(g, o)) {
            char why[96], name[GROUP_NAME_MAX];
            group_name(g, name);
            snprintf(why, sizeof why, "the round does not measure %s", name);
            for (int k = 0; k < g->nkeys; k++) nd_fit_hold(res, g->keys[k], why);
            continue;
        }
        rc = fit_group(rows, n, g, o, res, buf, err);
    }
    /* corrected_ms held the sum of the groups' leave-one-out deltas. */
    for (size_t i = 0; !rc && i < n; i++) {
        double delta = res->corrected_ms[i];
        res->corrected_ms[i] = nd_fit_predict(&rows[i], res);
        res->left_out_ms[i] = res->corrected_ms[i] + delta;
        res->target_ms[i] = rows[i].time_ms;
    }
    if (!rc) {
        double s = 0;
        for (size_t i = 0; i < n; i++) s += pow(res->corrected_ms[i] / res->target_ms[i] - 1, 2);
        int dof = (int)n - res->time_spread.terms;
        res->time_spread.residual_sd = dof > 0 ? sqrt(s / dof) : NAN;
    }
    free(buf);
    return rc;
}
