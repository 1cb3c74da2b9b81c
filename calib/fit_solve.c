/*
 * fit_solve.c — one joint least-squares fit under the identifiability rules
 * (docs/calibration.md §Identifiability): what every fit of nd-fit runs, on the step
 * (total mode), on one measured column (parts mode) or on the measured peaks (memory).
 *
 * A coefficient is written only when the round identifies it:
 *   1. the design has full rank over the coefficients (identical or proportional rows
 *      count once), and holds more distinct rows than coefficients (so the fit is checked);
 *   2. its 95 % interval excludes 0;
 *   3. its relative half-width is under max_ci.
 * A fixed cost that fails is held at 0 (its neutral value: the round shows no such cost
 * beyond the estimate) and the fit repeated. A ratio that fails refuses the fit, naming
 * it; --allow-fallback instead gives it COMPUTE's ratio (ND's fallback), a memory ratio 1.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"

double nd_fit_col_regressor(const nd_fit_row *r, const nd_fit_col *c)
{
    if (c->fixed >= 0) return nd_fit_fixed_regressor(r, (nd_fixed_cost)c->fixed);
    if (c->memory == ND_MEM_ACTIVATIONS) return r->mem_activations_mib;
    if (c->memory == ND_MEM_TRANSIENT) return r->mem_transient_mib;
    double x = 0;
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (c->keys & 1u << k) x += nd_fit_regressor(r, (nd_ratio_key)k);
    return x;
}

const char *nd_fit_col_name(const nd_fit_col *c)
{
    if (c->fixed >= 0) return nd_fixed_cost_name((nd_fixed_cost)c->fixed);
    if (c->memory >= 0) return nd_memory_ratio_name((nd_memory_ratio)c->memory);
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (c->keys & 1u << k) return nd_ratio_key_name((nd_ratio_key)k);
    return "?";
}

/* ---- the rows the fit sees ----------------------------------------------------------- */

typedef struct design {
    size_t m, p;           /* rows used, columns */
    size_t *row;           /* [m] index into the problem's rows */
    double *X, *y, *w, *h; /* m x p, m, m, m */
} design;

static void build(const nd_fit_problem *pb, const double *w_all, design *d)
{
    d->p = pb->p;
    for (size_t j = 0; j < d->m; j++) {
        const nd_fit_row *r = &pb->rows[d->row[j]];
        d->y[j] = pb->y[d->row[j]];
        d->w[j] = w_all[d->row[j]];
        for (size_t k = 0; k < d->p; k++) d->X[j * d->p + k] = nd_fit_col_regressor(r, &pb->col[k]);
    }
}

typedef struct keyed_row {
    const double *x;
    size_t p;
} keyed_row;

static int by_direction(const void *a, const void *b)
{
    const keyed_row *u = a, *v = b;
    for (size_t k = 0; k < u->p; k++)
        if (u->x[k] != v->x[k]) return u->x[k] < v->x[k] ? -1 : 1;
    return 0;
}

/* Rows whose regressors are proportional give one equation for the coefficients: each row
 * is scaled to unit length and rounded to 9 digits, and the distinct ones counted. */
static size_t distinct_rows(const design *d)
{
    double *unit = malloc(d->m * d->p * sizeof *unit);
    keyed_row *keys = malloc(d->m * sizeof *keys);
    size_t count = d->m;
    if (unit && keys) {
        for (size_t j = 0; j < d->m; j++) {
            double norm = 0;
            for (size_t k = 0; k < d->p; k++) norm += d->X[j * d->p + k] * d->X[j * d->p + k];
            norm = sqrt(norm);
            for (size_t k = 0; k < d->p; k++)
                unit[j * d->p + k] = norm > 0 ? round(d->X[j * d->p + k] / norm * 1e9) : 0;
            keys[j] = (keyed_row){&unit[j * d->p], d->p};
        }
        qsort(keys, d->m, sizeof *keys, by_direction);
        count = d->m ? 1 : 0;
        for (size_t j = 1; j < d->m; j++) count += by_direction(&keys[j - 1], &keys[j]) != 0;
    }
    free(unit), free(keys);
    return count;
}

/* Columns the design cannot tell apart: the weighted design with unit columns has a
 * singular value below 1e-6 of its largest; the columns with a large share of that
 * direction are confounded. Returns a mask of columns (0: full rank). */
static unsigned confounded_columns(const design *d)
{
    size_t m = d->m, p = d->p;
    if (m < p) { /* fewer rows than columns: pad with zero rows, rank stays */
        m = p;
    }
    gsl_matrix *A = gsl_matrix_calloc(m, p), *V = gsl_matrix_alloc(p, p);
    gsl_vector *S = gsl_vector_alloc(p), *work = gsl_vector_alloc(p);
    unsigned mask = 0;
    if (A && V && S && work) {
        for (size_t k = 0; k < p; k++) {
            double norm = 0;
            for (size_t j = 0; j < d->m; j++) norm += d->w[j] * d->X[j * p + k] * d->X[j * p + k];
            norm = sqrt(norm);
            for (size_t j = 0; j < d->m; j++)
                gsl_matrix_set(A, j, k, norm > 0 ? sqrt(d->w[j]) * d->X[j * p + k] / norm : 0);
        }
        if (!gsl_linalg_SV_decomp(A, V, S, work)) {
            double smax = gsl_vector_get(S, 0);
            for (size_t t = 0; t < p; t++) {
                if (gsl_vector_get(S, t) > 1e-6 * smax) continue;
                for (size_t k = 0; k < p; k++)
                    if (fabs(gsl_matrix_get(V, k, t)) > 0.1) mask |= 1u << k;
            }
        }
    }
    gsl_matrix_free(A), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(work);
    return mask;
}

/* ---- changing the columns ------------------------------------------------------------- */

static void remove_col(nd_fit_problem *pb, size_t k)
{
    for (size_t j = k + 1; j < pb->p; j++) pb->col[j - 1] = pb->col[j];
    pb->p--;
}

static void hold_col(const nd_fit_col *c, nd_fit_result *res, const char *why)
{
    nd_fit_term *t = c->fixed >= 0 ? &res->fixed[c->fixed] : c->memory >= 0 ? &res->memory[c->memory] : NULL;
    if (!t) {
        for (int k = 0; k < ND_RATIO_KEYS; k++)
            if (c->keys & 1u << k) nd_fit_hold(res, (nd_ratio_key)k, why);
        return;
    }
    t->value = c->fixed >= 0 ? 0.0 : 1.0;
    t->lo = t->hi = NAN;
    t->status = ND_RATIO_HELD;
    snprintf(t->why, sizeof t->why, "%s", why);
}

/* Drops every fixed cost of `mask` (held at 0, `why`). Returns how many. */
static size_t drop_fixed(nd_fit_problem *pb, unsigned mask, nd_fit_result *res, const char *why)
{
    size_t dropped = 0;
    for (size_t k = pb->p; k-- > 0;)
        if (mask & 1u << k && pb->col[k].fixed >= 0) {
            hold_col(&pb->col[k], res, why);
            remove_col(pb, k);
            dropped++;
        }
    return dropped;
}

/* ---- the refusal ------------------------------------------------------------------------ */

typedef struct verdict {
    unsigned failed;        /* columns that fail */
    char reason[ND_LSQ_MAX_P][120];
} verdict;

static void refusal(const nd_fit_problem *pb, const verdict *v, size_t distinct, nd_fit_result *res,
                    nd_error *err)
{
    char text[900], hold[200];
    size_t used = 0, hused = 0;
    text[0] = hold[0] = '\0';
    for (size_t k = 0; k < pb->p; k++) {
        if (!(v->failed & 1u << k)) continue;
        used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "%s%s (%s)",
                                 used ? "; " : "", nd_fit_col_name(&pb->col[k]), v->reason[k]);
        hused += (size_t)snprintf(hold + hused, hused < sizeof hold ? sizeof hold - hused : 0, "%s%s",
                                  hused ? "," : "", nd_fit_col_name(&pb->col[k]));
        if (pb->col[k].memory < 0)
            for (int key = 0; key < ND_RATIO_KEYS; key++)
                if (pb->col[k].keys & 1u << key) res->unidentified |= 1u << key;
    }
    nd_error_set(err, ND_EINPUT,
                 "the round (%zu distinct strateg%s, fitted on %s) does not identify %s: profile strategies "
                 "that separate them (nd-fit --suggest K proposes some), or --hold %s to keep them at 1",
                 distinct, distinct == 1 ? "y" : "ies", pb->target, text, hold);
}

/* The identifiability rules 2 and 3 on a solved fit. */
static void check_intervals(const nd_fit_problem *pb, const nd_lsq_solution *s, double t95, verdict *v)
{
    double max_ci = pb->o->max_ci > 0 ? pb->o->max_ci : ND_FIT_MAX_CI;
    for (size_t k = 0; k < pb->p; k++) {
        if (pb->col[k].fixed >= 0) continue;
        double r = s->r[k], half = t95 * s->se[k];
        if (!s->free[k] || r <= 0)
            snprintf(v->reason[k], sizeof v->reason[k], "fits to 0: the round contradicts its estimate");
        else if (isfinite(half) && r - half <= 0)
            snprintf(v->reason[k], sizeof v->reason[k], "95 %% interval %.3g ... %.3g reaches 0", r - half, r + half);
        else if (isfinite(half) && half / r >= max_ci)
            snprintf(v->reason[k], sizeof v->reason[k], "95 %% interval +-%.0f %%, over --max-ci %.0f %%",
                     100 * half / r, 100 * max_ci);
        else
            continue;
        v->failed |= 1u << k;
    }
}

/* --allow-fallback: failing ratios share COMPUTE's coefficient (ND's fallback), failing
 * memory ratios are held at 1. Returns false when nothing could be done. */
static bool fall_back(nd_fit_problem *pb, const verdict *v, nd_fit_result *res)
{
    size_t compute = pb->p;
    for (size_t k = 0; k < pb->p; k++)
        if (pb->col[k].keys & 1u << ND_RATIO_COMPUTE) compute = k;
    bool changed = false;
    for (size_t k = pb->p; k-- > 0;) {
        if (!(v->failed & 1u << k) || k == compute) continue;
        if (pb->col[k].memory >= 0) {
            hold_col(&pb->col[k], res, "not identified (--allow-fallback holds it at 1)");
        } else if (compute < pb->p) {
            for (int key = 0; key < ND_RATIO_KEYS; key++)
                if (pb->col[k].keys & 1u << key) {
                    res->status[key] = ND_RATIO_FALLBACK;
                    res->source[key] = ND_RATIO_COMPUTE;
                }
            pb->col[compute].keys |= pb->col[k].keys;
        } else {
            continue;
        }
        if (compute > k) compute--;
        remove_col(pb, k);
        changed = true;
    }
    return changed;
}

/* ---- solving ---------------------------------------------------------------------------- */

static int robust_weights(const nd_fit_problem *pb, design *d, double *w_all, nd_error *err)
{
    build(pb, w_all, d);
    if (d->m <= d->p) return ND_OK;
    double *w0 = malloc(d->m * sizeof *w0);
    if (!w0) return nd_error_set(err, ND_ENOMEM, "out of memory");
    memcpy(w0, d->w, d->m * sizeof *w0);
    nd_lsq_problem q = {d->m, d->p, d->X, d->y, d->w, 0, NULL};
    int rc = nd_lsq_robust_weights(&q, d->w, err);
    for (size_t j = 0; !rc && j < d->m; j++) w_all[d->row[j]] = fmax(d->w[j], 1e-12 * w0[j]);
    free(w0);
    return rc;
}

/* One fit of the current columns, then the rules. Returns 1 when the columns changed (go
 * again), 0 when the fit stands, or an error. */
static int attempt(nd_fit_problem *pb, design *d, const double *w_all, nd_lsq_solution *s, double *t95,
                   nd_fit_result *res, nd_error *err)
{
    const nd_fit_options *o = pb->o;
    verdict v = {0};
    build(pb, w_all, d);
    size_t distinct = distinct_rows(d);
    unsigned confounded = confounded_columns(d);
    if (confounded) {
        if (drop_fixed(pb, confounded, res, "the round cannot tell it from the ratios")) return 1;
        for (size_t k = 0; k < pb->p; k++)
            if (confounded & 1u << k)
                snprintf(v.reason[k], sizeof v.reason[k], "every strategy prices it in proportion to the others "
                         "listed"), v.failed |= 1u << k;
        for (size_t k = 0; k < pb->p; k++)
            if (confounded & 1u << k && pb->col[k].memory < 0)
                for (int key = 0; key < ND_RATIO_KEYS; key++)
                    if (pb->col[k].keys & 1u << key) res->confounded |= 1u << key;
    } else if (distinct < pb->p + (o->allow_fallback ? 0 : 1)) {
        if (drop_fixed(pb, 1u << (pb->p - 1), res, "too few distinct strategies to fit it beside the ratios"))
            return 1;
        for (size_t k = 0; k < pb->p; k++)
            snprintf(v.reason[k], sizeof v.reason[k], "%zu distinct strateg%s cannot fit and check %zu "
                     "coefficient%s", distinct, distinct == 1 ? "y" : "ies", pb->p, pb->p == 1 ? "" : "s"),
                v.failed |= 1u << k;
    } else {
        nd_lsq_problem q = {d->m, d->p, d->X, d->y, d->w, 0, NULL};
        int rc = nd_lsq_solve(&q, s, d->h, err);
        if (rc) return rc;
        *t95 = s->dof > 0 ? gsl_cdf_tdist_Pinv(0.975, (double)s->dof) : NAN;
        unsigned weak = 0;
        for (size_t k = 0; k < pb->p; k++)
            if (pb->col[k].fixed >= 0 && !(s->free[k] && s->r[k] - *t95 * s->se[k] > 0)) weak |= 1u << k;
        if (drop_fixed(pb, weak, res, "the round shows no such cost beyond the estimate (its interval reaches 0)"))
            return 1;
        check_intervals(pb, s, *t95, &v);
    }
    if (!v.failed) return 0;
    if (o->allow_fallback && fall_back(pb, &v, res)) return 1;
    refusal(pb, &v, distinct, res, err);
    return ND_EINPUT;
}

static void record(const nd_fit_problem *pb, const nd_lsq_solution *s, double t95, nd_fit_result *res)
{
    for (size_t k = 0; k < pb->p; k++) {
        const nd_fit_col *c = &pb->col[k];
        double half = t95 * s->se[k];
        double lo = isfinite(half) ? s->r[k] - half : NAN, hi = isfinite(half) ? s->r[k] + half : NAN;
        nd_fit_term *t = c->fixed >= 0 ? &res->fixed[c->fixed] : c->memory >= 0 ? &res->memory[c->memory] : NULL;
        if (t) {
            t->value = s->r[k], t->lo = lo, t->hi = hi, t->status = ND_RATIO_FITTED;
            snprintf(t->target, sizeof t->target, "%s", pb->target);
            continue;
        }
        for (int key = 0; key < ND_RATIO_KEYS; key++) {
            if (!(c->keys & 1u << key)) continue;
            res->ratio[key] = s->r[k], res->lo[key] = lo, res->hi[key] = hi;
            if (res->status[key] != ND_RATIO_FALLBACK && res->status[key] != ND_RATIO_SHARED)
                res->status[key] = ND_RATIO_FITTED;
            snprintf(res->target[key], sizeof res->target[key], "%s", pb->target);
        }
    }
}

/* The covariance and scatter a -c user's prediction intervals come from. */
static void spread(const nd_fit_problem *pb, const nd_lsq_solution *s, double t95, const design *d,
                   nd_spread *out)
{
    if (!out) return;
    int base = out->terms;
    for (size_t k = 0; k < pb->p && base + (int)k < ND_SPREAD_MAX_TERMS; k++) {
        int t = base + (int)k;
        out->fixed[t] = pb->col[k].fixed;
        out->scales[t] = pb->col[k].memory >= 0 ? 1u << pb->col[k].memory : pb->col[k].keys;
        for (size_t l = 0; l < pb->p && base + (int)l < ND_SPREAD_MAX_TERMS; l++)
            out->cov[t][base + (int)l] = s->cov[k][l];
        out->terms = t + 1;
    }
    (void)d;
    /* Parts mode adds one group at a time: the least degrees of freedom hold for all. */
    out->t95 = base ? fmax(out->t95, t95) : t95;
    out->dof = base ? (s->dof < out->dof ? s->dof : out->dof) : s->dof;
}

/* --robust: row j predicted by the robust fit of the other rows, run again from their own
 * weights (so it equals fitting those rows alone). */
static double refit_without(const design *d, const double *w_base, size_t skip, nd_error *err)
{
    size_t m = d->m - 1, p = d->p;
    if (m <= p) return NAN;
    double *X = malloc((m * p + 3 * m) * sizeof *X);
    if (!X) return NAN;
    double *y = X + m * p, *w = y + m, *w0 = w + m;
    for (size_t i = 0, j = 0; i < d->m; i++) {
        if (i == skip) continue;
        memcpy(&X[j * p], &d->X[i * p], p * sizeof *X);
        y[j] = d->y[i], w[j] = w0[j] = w_base[d->row[i]], j++;
    }
    nd_lsq_problem q = {m, p, X, y, w, 0, NULL};
    nd_lsq_solution s;
    double pred = NAN;
    if (!nd_lsq_robust_weights(&q, w, err)) {
        for (size_t i = 0; i < m; i++) w[i] = fmax(w[i], 1e-12 * w0[i]); /* as the full fit floors */
        if (!nd_lsq_solve(&q, &s, NULL, err)) {
            pred = 0;
            for (size_t k = 0; k < p; k++) pred += s.r[k] * d->X[skip * p + k];
        }
    }
    free(X);
    return pred;
}

int nd_fit_solve(nd_fit_problem *pb, nd_fit_result *res, double *pred, double *left_out, nd_spread *spread_out,
                 nd_error *err)
{
    size_t n = pb->n;
    design d = {0};
    double *w_all = malloc(2 * n * sizeof *w_all), *w_base = w_all ? w_all + n : NULL;
    d.row = malloc(n * sizeof *d.row);
    d.X = malloc(n * ND_LSQ_MAX_P * sizeof *d.X);
    d.y = malloc(3 * n * sizeof *d.y);
    int rc = (!w_all || !d.row || !d.X || !d.y) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    if (!rc) {
        d.w = d.y + n, d.h = d.w + n;
        for (size_t i = 0; i < n; i++) {
            if (pb->use && !pb->use[i]) continue;
            d.row[d.m++] = i;
            w_all[i] = pb->o->weights == ND_WEIGHTS_ABSOLUTE ? 1.0 : 1.0 / (pb->scale[i] * pb->scale[i]);
            w_base[i] = w_all[i];
        }
        if (pb->o->robust) rc = robust_weights(pb, &d, w_all, err);
    }
    nd_lsq_solution s;
    double t95 = NAN;
    for (int round = 0; !rc; round++) {
        rc = pb->p == 0 ? nd_error_set(err, ND_EINPUT, "nothing left to fit on %s", pb->target)
                        : attempt(pb, &d, w_all, &s, &t95, res, err);
        if (rc != 1) break;
        rc = ND_OK;
    }
    if (!rc) {
        record(pb, &s, t95, res);
        spread(pb, &s, t95, &d, spread_out);
        for (size_t i = 0; i < n; i++) pred[i] = left_out[i] = NAN;
        for (size_t j = 0; j < d.m; j++) {
            double fit = 0;
            for (size_t k = 0; k < d.p; k++) fit += s.r[k] * d.X[j * d.p + k];
            pred[d.row[j]] = fit;
            if (pb->o->robust)
                left_out[d.row[j]] = refit_without(&d, w_base, j, err);
            else if (d.h[j] < 1 - 1e-10)
                left_out[d.row[j]] = d.y[j] - (d.y[j] - fit) / (1 - d.h[j]);
        }
    }
    free(w_all), free(d.row), free(d.X), free(d.y);
    return rc;
}

nd_fit_col nd_fit_ratio_col(unsigned keys)
{
    return (nd_fit_col){keys, -1, -1};
}

nd_fit_col nd_fit_fixed_col(nd_fixed_cost f)
{
    return (nd_fit_col){0, (int)f, -1};
}

nd_fit_col nd_fit_memory_col(nd_memory_ratio m)
{
    return (nd_fit_col){0, -1, (int)m};
}
