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
    double *scale;         /* m: what a relative error divides by */
} design;

/* What the columns held at their neutral value inside this fit price in row r. */
static double held_inside(const nd_fit_problem *pb, const nd_fit_row *r)
{
    double x = 0;
    for (size_t k = 0; k < pb->n_one; k++) x += pb->one[k].held_at * nd_fit_col_regressor(r, &pb->one[k]);
    return x;
}

static void build(const nd_fit_problem *pb, const double *w_all, design *d)
{
    d->p = pb->p;
    for (size_t j = 0; j < d->m; j++) {
        const nd_fit_row *r = &pb->rows[d->row[j]];
        d->y[j] = pb->y[d->row[j]] - held_inside(pb, r);
        d->w[j] = w_all[d->row[j]];
        d->scale[j] = pb->scale[d->row[j]];
        for (size_t k = 0; k < d->p; k++) d->X[j * d->p + k] = nd_fit_col_regressor(r, &pb->col[k]);
    }
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Rows with the same regressors (a strategy measured again) give one equation: each row's
 * regressors, to 9 significant digits, and the distinct ones counted. (Proportional rows
 * are no more informative either; the rank test below sees them.) */
static size_t distinct_rows(const design *d, const double *w_base)
{
    size_t width = d->p * 24 + 1, m = 0;
    char *text = malloc(d->m * width);
    char **rows = malloc(d->m * sizeof *rows);
    size_t count = d->m;
    if (text && rows) {
        for (size_t j = 0; j < d->m; j++) {
            /* A row that prices none of the columns, or that the robust weights dropped,
             * carries nothing about them. */
            bool any = false;
            for (size_t k = 0; k < d->p; k++) any |= d->X[j * d->p + k] != 0;
            if (!any || d->w[j] < 1e-6 * w_base[d->row[j]]) continue;
            rows[m] = text + m * width;
            size_t used = 0;
            for (size_t k = 0; k < d->p; k++)
                used += (size_t)snprintf(rows[m] + used, width - used, "%.9g,", d->X[j * d->p + k]);
            m++;
        }
        qsort(rows, m, sizeof *rows, by_text);
        count = m ? 1 : 0;
        for (size_t j = 1; j < m; j++) count += strcmp(rows[j - 1], rows[j]) != 0;
    }
    free(text);
    free(rows);
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
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(work);
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
    snprintf(t->why, sizeof t->why, "%.*s", (int)sizeof t->why - 1, why); /* a note: cut to fit */
}

/* ---- the refusal ------------------------------------------------------------------------ */

typedef enum { FAIL_NONE = 0, FAIL_DISTINCT, FAIL_CONFOUNDED, FAIL_INTERVAL } fail_kind;

typedef struct verdict {
    fail_kind kind;
    unsigned failed; /* columns that fail */
    char reason[ND_LSQ_MAX_P][120];
} verdict;

/* "A, B and C" of the failed columns, skipping the first `skip` of them. */
static void col_list(const nd_fit_problem *pb, unsigned mask, const char *sep, size_t skip, char *buf,
                     size_t size)
{
    size_t used = 0, seen = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < pb->p && used < size; k++) {
        if (!(mask & 1u << k) || seen++ < skip) continue;
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%s", used ? sep : "", nd_fit_col_name(&pb->col[k]));
    }
}

/* ND's own fit, which fits any round that prices compute: named in every refusal. */
#define SUMS_WAY_OUT "; or fit as ND does, --fit_mode sums (ND's ratio of sums: no intervals)"

/* One line that says what the round cannot support and what to do: profile (nd-fit
 * --suggest names strategies), hold, or ND's ratio of sums. */
static void refusal(const nd_fit_problem *pb, const verdict *v, size_t distinct, nd_fit_result *res,
                    nd_error *err)
{
    char names[300], hold[300], text[700];
    size_t used = 0;
    col_list(pb, v->failed, ", ", 0, names, sizeof names);
    for (size_t k = 0; k < pb->p; k++)
        if (v->failed & 1u << k && pb->col[k].memory < 0)
            for (int key = 0; key < ND_RATIO_KEYS; key++)
                if (pb->col[k].keys & 1u << key) res->unidentified |= 1u << key;
    const char *s = distinct == 1 ? "y" : "ies";
    switch (v->kind) {
    case FAIL_DISTINCT:
        nd_error_set(err, ND_EINPUT,
                     "%zu distinct strateg%s cannot fit and check %zu coefficient%s on %s (%s): "
                     "profile at least %zu more (nd-fit --suggest K proposes some)%s%s",
                     distinct, s, pb->p, pb->p == 1 ? "" : "s", pb->target, names, pb->p + 1 - distinct,
                     pb->p > 1 ? ", or --hold some of them" : "", SUMS_WAY_OUT);
        return;
    case FAIL_CONFOUNDED:
        col_list(pb, v->failed, ",", 1, hold, sizeof hold);
        nd_error_set(
            err, ND_EINPUT,
            "every one of the %zu distinct strateg%s prices %s in the same proportion, "
            "so %s cannot tell them apart: profile strategies that change their mix (nd-fit --suggest K "
            "proposes some), or --hold all but one of them (--hold %s)%s",
            distinct, s, names, pb->target, hold, SUMS_WAY_OUT);
        return;
    default:
        for (size_t k = 0; k < pb->p; k++)
            if (v->failed & 1u << k)
                used +=
                    (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "%s%s (%s)",
                                     used ? "; " : "", nd_fit_col_name(&pb->col[k]), v->reason[k]);
        col_list(pb, v->failed, ",", 0, hold, sizeof hold);
        nd_error_set(err, ND_EINPUT,
                     "the round (%zu distinct strateg%s, fitted on %s) does not identify %s: "
                     "profile strategies that separate them (nd-fit --suggest K proposes some), or --hold %s "
                     "to keep them at 1%s",
                     distinct, s, pb->target, text, hold, SUMS_WAY_OUT);
    }
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
            snprintf(v->reason[k], sizeof v->reason[k], "95 %% interval %.3g ... %.3g reaches 0", r - half,
                     r + half);
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
            pb->one[pb->n_one++] = pb->col[k];
        } else if (compute == pb->p && res->status[ND_RATIO_COMPUTE] == ND_RATIO_FITTED) {
            /* COMPUTE was fitted on another column (parts mode): its value, held here. */
            for (int key = 0; key < ND_RATIO_KEYS; key++)
                if (pb->col[k].keys & 1u << key) {
                    res->ratio[key] = res->ratio[ND_RATIO_COMPUTE];
                    res->lo[key] = res->hi[key] = NAN;
                    res->status[key] = ND_RATIO_FALLBACK;
                    res->source[key] = ND_RATIO_COMPUTE;
                }
            pb->col[k].held_at = res->ratio[ND_RATIO_COMPUTE];
            pb->one[pb->n_one++] = pb->col[k];
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
/* The solution's errors on the rows that inform it: rows pricing none of the columns (a
 * pipeline wait where PP = 1) or dropped by the robust weights fit themselves and add no
 * degree of freedom; counted, they would shrink the interval of what few rows decide. */
static void informative_dof(const design *d, const double *w_base, nd_lsq_solution *s)
{
    size_t informative = 0, free_cols = 0;
    for (size_t j = 0; j < d->m; j++) {
        bool any = false;
        for (size_t k = 0; k < d->p; k++) any |= d->X[j * d->p + k] != 0;
        informative += any && d->w[j] >= 1e-6 * w_base[d->row[j]];
    }
    for (size_t k = 0; k < d->p; k++) free_cols += s->free[k];
    int dof = (int)informative - (int)free_cols;
    if (dof == s->dof) return;
    double scale = dof > 0 && s->dof > 0 ? (double)s->dof / dof : NAN;
    for (size_t k = 0; k < d->p; k++) {
        s->se[k] *= sqrt(scale);
        for (size_t l = 0; l < d->p; l++) s->cov[k][l] *= scale;
    }
    s->dof = dof;
}

/* The rules on the current columns: solves when the design allows, fills v with what
 * fails. Returns 0, or an error of the solver. */
static int evaluate(const nd_fit_problem *pb, design *d, const double *w_all, const double *w_base,
                    nd_lsq_solution *s, double *t95, verdict *v, size_t *distinct, unsigned *confounded,
                    nd_error *err)
{
    memset(v, 0, sizeof *v);
    *t95 = NAN;
    build(pb, w_all, d);
    *distinct = distinct_rows(d, w_base);
    *confounded = 0;
    if (*distinct < pb->p + (pb->o->allow_fallback ? 0 : 1)) {
        v->kind = FAIL_DISTINCT;
        v->failed = (1u << pb->p) - 1;
        return ND_OK;
    }
    *confounded = confounded_columns(d);
    if (*confounded) {
        v->kind = FAIL_CONFOUNDED;
        v->failed = *confounded;
        return ND_OK;
    }
    nd_lsq_problem q = {d->m, d->p, d->X, d->y, d->w, 0, NULL};
    int rc = nd_lsq_solve(&q, s, d->h, err);
    if (rc) return rc;
    informative_dof(d, w_base, s);
    *t95 = s->dof > 0 ? gsl_cdf_tdist_Pinv(0.975, (double)s->dof) : NAN;
    check_intervals(pb, s, *t95, v);
    if (v->failed) v->kind = FAIL_INTERVAL;
    /* A fixed cost must stand out: its interval above 0. */
    for (size_t k = 0; k < pb->p; k++)
        if (pb->col[k].fixed >= 0 && !(s->free[k] && s->r[k] - *t95 * s->se[k] > 0)) {
            snprintf(v->reason[k], sizeof v->reason[k], "its interval reaches 0");
            v->failed |= 1u << k;
            v->kind = FAIL_INTERVAL;
        }
    return ND_OK;
}

/* Mean squared relative leave-one-out error of a solved fit (from its leverages). */
static double loo_score(const design *d, const nd_lsq_solution *s)
{
    double score = 0;
    for (size_t j = 0; j < d->m; j++) {
        if (d->h[j] >= 1 - 1e-10) return INFINITY;
        double fit = 0;
        for (size_t k = 0; k < d->p; k++) fit += s->r[k] * d->X[j * d->p + k];
        double e = (d->y[j] - fit) / (1 - d->h[j]) / d->scale[j];
        score += e * e;
    }
    return score / (double)d->m;
}

/* After a refusal: of the subsets of the columns that the round identifies, the one whose
 * fit predicts left-out strategies best (ties: the larger). Returns its mask, 0 if none.
 * At most 2^9 small fits. */
static unsigned best_identified(const nd_fit_problem *pb, design *d, const double *w_all,
                                const double *w_base, nd_error *err)
{
    unsigned best = 0, all = (1u << pb->p) - 1;
    double best_score = INFINITY;
    int best_size = 0;
    for (unsigned mask = all; mask > 0; mask--) {
        nd_fit_problem trial = *pb;
        trial.p = 0;
        for (size_t k = 0; k < pb->p; k++) {
            if (mask & 1u << k)
                trial.col[trial.p++] = pb->col[k];
            else
                trial.one[trial.n_one++] = pb->col[k];
        }
        nd_lsq_solution s;
        double t95;
        verdict v;
        size_t distinct;
        unsigned confounded;
        /* a subset the solver cannot handle is simply not a candidate */
        if (evaluate(&trial, d, w_all, w_base, &s, &t95, &v, &distinct, &confounded, err)) continue;
        if (v.failed) continue;
        double score = loo_score(d, &s);
        int size = (int)trial.p;
        if (score < best_score * (1 - 1e-9) || (score <= best_score * (1 + 1e-9) && size > best_size)) {
            best_score = score;
            best = mask;
            best_size = size;
        }
    }
    return best;
}

/* The columns outside `mask` are held inside the fit, at their neutral value. */
static void hold_outside(nd_fit_problem *pb, unsigned mask, nd_fit_result *res)
{
    for (size_t k = pb->p; k-- > 0;) {
        if (mask & 1u << k) continue;
        hold_col(&pb->col[k], res, "not identified by the round (--hold auto)");
        pb->one[pb->n_one++] = pb->col[k];
        remove_col(pb, k);
    }
}

/* Phase 1: the ratios (or memory ratios) alone, under the rules; --allow-fallback folds
 * what fails into COMPUTE's. */
static int fit_ratios(nd_fit_problem *pb, design *d, const double *w_all, const double *w_base,
                      nd_fit_result *res, nd_error *err)
{
    for (;;) {
        nd_lsq_solution s;
        double t95;
        verdict v;
        size_t distinct;
        unsigned confounded;
        if (pb->p == 0) return ND_OK; /* everything held */
        int rc = evaluate(pb, d, w_all, w_base, &s, &t95, &v, &distinct, &confounded, err);
        if (rc || !v.failed) return rc;
        if (pb->o->allow_fallback && fall_back(pb, &v, res)) continue;
        for (size_t k = 0; k < pb->p; k++)
            if (confounded & 1u << k && pb->col[k].memory < 0)
                for (int key = 0; key < ND_RATIO_KEYS; key++)
                    if (pb->col[k].keys & 1u << key) res->confounded |= 1u << key;
        nd_error quiet = {0};
        unsigned best = best_identified(pb, d, w_all, w_base, &quiet);
        if (pb->o->hold_auto) { /* none identified: all held, the estimate as it is */
            hold_outside(pb, best, res);
            if (!best) return ND_OK;
            continue;
        }
        refusal(pb, &v, distinct, res, err);
        if (best) {
            char keep[300], hold[300];
            col_list(pb, best, ", ", 0, keep, sizeof keep);
            col_list(pb, ~best & ((1u << pb->p) - 1), ",", 0, hold, sizeof hold);
            size_t len = strlen(err->message);
            snprintf(err->message + len, sizeof err->message - len,
                     "; it identifies %s with --hold %s (or --hold auto)", keep, hold);
        }
        return ND_EINPUT;
    }
}

static size_t first_bit(unsigned mask)
{
    size_t k = 0;
    while (mask && !(mask & 1u << k)) k++;
    return k;
}

/* Phase 2: the fixed costs enter one at a time, forward: of those that stand out (interval
 * above 0) while every ratio stays identified, the one that lowers the residual most;
 * until none does. What the estimate prices is kept unless the round shows more. */
static int add_fixed(nd_fit_problem *pb, const nd_fit_col *pending, size_t n_pending, design *d,
                     const double *w_all, const double *w_base, nd_fit_result *res, nd_error *err)
{
    bool taken[ND_FIXED_COSTS] = {0};
    char why[ND_FIXED_COSTS][120] = {{0}};
    for (;;) {
        size_t best = n_pending;
        double best_rss = INFINITY;
        for (size_t f = 0; f < n_pending; f++) {
            if (taken[f] || pb->p >= ND_LSQ_MAX_P) continue;
            nd_fit_problem trial = *pb;
            trial.col[trial.p++] = pending[f];
            nd_lsq_solution s;
            double t95;
            verdict v;
            size_t distinct;
            unsigned confounded;
            int rc = evaluate(&trial, d, w_all, w_base, &s, &t95, &v, &distinct, &confounded, err);
            if (rc) return rc;
            if (v.failed & 1u << (trial.p - 1))
                snprintf(why[f], sizeof why[f], "the round shows no such cost beyond the estimate (%s)",
                         v.reason[trial.p - 1]);
            else if (v.failed)
                snprintf(why[f], sizeof why[f], "fitting it would leave %s unidentified",
                         nd_fit_col_name(&trial.col[first_bit(v.failed)]));
            else if (s.rss < best_rss) {
                best_rss = s.rss;
                best = f;
            }
        }
        if (best == n_pending) break;
        taken[best] = true;
        pb->col[pb->p++] = pending[best];
    }
    for (size_t f = 0; f < n_pending; f++)
        if (!taken[f]) hold_col(&pending[f], res, why[f][0] ? why[f] : "no room beside the ratios");
    return ND_OK;
}

static void record(const nd_fit_problem *pb, const nd_lsq_solution *s, double t95, nd_fit_result *res)
{
    for (size_t k = 0; k < pb->p; k++) {
        const nd_fit_col *c = &pb->col[k];
        double half = t95 * s->se[k];
        double lo = isfinite(half) ? s->r[k] - half : NAN, hi = isfinite(half) ? s->r[k] + half : NAN;
        nd_fit_term *t = c->fixed >= 0    ? &res->fixed[c->fixed]
                         : c->memory >= 0 ? &res->memory[c->memory]
                                          : NULL;
        if (t) {
            t->value = s->r[k];
            t->lo = lo;
            t->hi = hi;
            t->status = ND_RATIO_FITTED;
            snprintf(t->target, sizeof t->target, "%s", pb->target);
            continue;
        }
        for (int key = 0; key < ND_RATIO_KEYS; key++) {
            if (!(c->keys & 1u << key)) continue;
            res->ratio[key] = s->r[k];
            res->lo[key] = lo;
            res->hi[key] = hi;
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
        y[j] = d->y[i];
        w[j] = w0[j] = w_base[d->row[i]];
        j++;
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

int nd_fit_solve(nd_fit_problem *pb, nd_fit_result *res, double *pred, double *left_out,
                 nd_spread *spread_out, nd_error *err)
{
    size_t n = pb->n;
    design d = {0};
    double *w_all = malloc(2 * n * sizeof *w_all), *w_base = w_all ? w_all + n : NULL;
    d.row = malloc(n * sizeof *d.row);
    d.X = malloc(n * ND_LSQ_MAX_P * sizeof *d.X);
    d.y = malloc(4 * n * sizeof *d.y);
    int rc = (!w_all || !d.row || !d.X || !d.y) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    if (!rc) {
        d.w = d.y + n;
        d.h = d.w + n;
        d.scale = d.h + n;
        for (size_t i = 0; i < n; i++) {
            if (pb->use && !pb->use[i]) continue;
            d.row[d.m++] = i;
            w_all[i] = pb->o->weights == ND_WEIGHTS_ABSOLUTE ? 1.0 : 1.0 / (pb->scale[i] * pb->scale[i]);
            w_base[i] = w_all[i];
        }
    }
    nd_fit_col pending[ND_FIXED_COSTS];
    size_t n_pending = 0;
    for (size_t k = pb->p; k-- > 0;)
        if (pb->col[k].fixed >= 0) {
            pending[n_pending++] = pb->col[k];
            remove_col(pb, k);
        }
    if (!rc && pb->o->robust && pb->p) rc = robust_weights(pb, &d, w_all, err);
    if (!rc && pb->p) rc = fit_ratios(pb, &d, w_all, w_base, res, err);
    if (!rc) rc = add_fixed(pb, pending, n_pending, &d, w_all, w_base, res, err);
    nd_lsq_solution s;
    double t95 = NAN;
    if (!rc && pb->p == 0) { /* every fixed cost held: the target is what held parts price */
        for (size_t i = 0; i < n; i++)
            pred[i] = left_out[i] = pb->use && !pb->use[i] ? NAN : held_inside(pb, &pb->rows[i]);
        free(w_all);
        free(d.row);
        free(d.X);
        free(d.y);
        return ND_OK;
    }
    if (!rc) {
        verdict v;
        size_t distinct;
        unsigned confounded;
        rc = evaluate(pb, &d, w_all, w_base, &s, &t95, &v, &distinct, &confounded, err);
    }
    if (!rc) {
        record(pb, &s, t95, res);
        spread(pb, &s, t95, &d, spread_out);
        for (size_t i = 0; i < n; i++) pred[i] = left_out[i] = NAN;
        for (size_t j = 0; j < d.m; j++) {
            double fit = 0, inside = held_inside(pb, &pb->rows[d.row[j]]);
            for (size_t k = 0; k < d.p; k++) fit += s.r[k] * d.X[j * d.p + k];
            pred[d.row[j]] = fit + inside;
            if (pb->o->robust)
                left_out[d.row[j]] = refit_without(&d, w_base, j, err) + inside;
            else if (d.h[j] < 1 - 1e-10)
                left_out[d.row[j]] = d.y[j] - (d.y[j] - fit) / (1 - d.h[j]) + inside;
        }
    }
    free(w_all);
    free(d.row);
    free(d.X);
    free(d.y);
    return rc;
}

nd_fit_col nd_fit_ratio_col(unsigned keys)
{
    return (nd_fit_col){keys, -1, -1, 1.0};
}

nd_fit_col nd_fit_fixed_col(nd_fixed_cost f)
{
    return (nd_fit_col){0, (int)f, -1, 0.0};
}

nd_fit_col nd_fit_memory_col(nd_memory_ratio m)
{
    return (nd_fit_col){0, -1, (int)m, 1.0};
}
