/* lsq.c — the least squares behind nd-fit: weighted rows and priors solved by GSL's SVD,
 * the best non-negative solution over subsets of the ratios, leverages for exact
 * leave-one-out, and robust (Tukey bisquare) row weights from GSL's robust fit. */
#include "lsq.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <string.h>

/* A design matrix whose smallest singular value is below this share of its largest is taken
 * as rank-deficient (double precision keeps ~16 digits; 1e-12 leaves four for the residuals). */
#define LSQ_RCOND_MIN 1e-12
/* A subset's objective must beat the best by more than this share to replace it: equal fits
 * (to rounding) keep the first found, so the choice does not depend on the last bits. */
#define LSQ_TIE 1e-12

/* One subset: columns `cols` free, the others held at 0. Fills r (p) and returns the
 * objective; NAN when the subset cannot be solved. */
typedef struct subset_fit {
    double objective, rss, rcond;
    double r[ND_LSQ_MAX_P], se[ND_LSQ_MAX_P];
    double cov[ND_LSQ_MAX_P][ND_LSQ_MAX_P]; /* (A'A)^-1 of the free columns, unscaled */
} subset_fit;

static double column_scale(const nd_lsq_problem *q, size_t k)
{
    double s = 0;
    for (size_t i = 0; i < q->n; i++) s += q->w[i] * q->X[i * q->p + k] * q->X[i * q->p + k];
    return s / (double)q->n;
}

static double prior_of(const nd_lsq_problem *q, size_t k)
{
    return q->prior ? q->prior[k] : 1.0;
}

/* Builds the augmented, weighted system for the free columns and solves it by SVD. */
static int solve_subset(const nd_lsq_problem *q, const size_t *cols, size_t m, subset_fit *f, double *h)
{
    size_t n = q->n, rows = n + (q->lambda > 0 ? m : 0);
    memset(f, 0, sizeof *f);
    if (rows < m || m == 0) return -1;
    gsl_matrix *A = gsl_matrix_alloc(rows, m), *V = gsl_matrix_alloc(m, m);
    gsl_vector *b = gsl_vector_alloc(rows), *S = gsl_vector_alloc(m), *work = gsl_vector_alloc(m);
    gsl_vector *c = gsl_vector_alloc(m);
    int rc = (!A || !V || !b || !S || !work || !c) ? -1 : 0;
    if (!rc) {
        for (size_t i = 0; i < n; i++) {
            double sw = sqrt(q->w[i]);
            gsl_vector_set(b, i, sw * q->y[i]);
            for (size_t j = 0; j < m; j++) gsl_matrix_set(A, i, j, sw * q->X[i * q->p + cols[j]]);
        }
        double penalty = 0;
        for (size_t k = 0; k < q->p; k++) {
            bool is_free = false;
            for (size_t j = 0; j < m; j++) is_free |= cols[j] == k;
            if (!is_free) penalty += q->lambda * column_scale(q, k) * prior_of(q, k) * prior_of(q, k);
        }
        for (size_t j = 0; q->lambda > 0 && j < m; j++) {
            double s = sqrt(q->lambda * column_scale(q, cols[j]));
            for (size_t t = 0; t < m; t++) gsl_matrix_set(A, n + j, t, t == j ? s : 0.0);
            gsl_vector_set(b, n + j, s * prior_of(q, cols[j]));
        }
        gsl_matrix *U = gsl_matrix_alloc(rows, m);
        rc = U ? 0 : -1;
        if (!rc) {
            gsl_matrix_memcpy(U, A);
            rc = gsl_linalg_SV_decomp(U, V, S, work);
        }
        double smax = rc ? 0 : gsl_vector_get(S, 0), smin = rc ? 0 : gsl_vector_get(S, m - 1);
        f->rcond = smax > 0 ? smin / smax : 0;
        if (!rc && f->rcond > LSQ_RCOND_MIN) {
            gsl_linalg_SV_solve(U, V, S, b, c);
            double rss = 0, obj = 0;
            for (size_t i = 0; i < rows; i++) {
                double pred = 0;
                for (size_t j = 0; j < m; j++) pred += gsl_matrix_get(A, i, j) * gsl_vector_get(c, j);
                double e = gsl_vector_get(b, i) - pred;
                obj += e * e;
                if (i < n) rss += e * e;
            }
            f->objective = obj + penalty;
            f->rss = rss;
            for (size_t j = 0; j < m; j++) {
                f->r[cols[j]] = gsl_vector_get(c, j);
                /* (A^T A)^-1 = V S^-2 V^T: the covariance up to the residual variance. */
                for (size_t l = 0; l < m; l++) {
                    double v = 0;
                    for (size_t t = 0; t < m; t++) {
                        double s2 = gsl_vector_get(S, t) * gsl_vector_get(S, t);
                        v += gsl_matrix_get(V, j, t) * gsl_matrix_get(V, l, t) / s2;
                    }
                    f->cov[cols[j]][cols[l]] = v;
                }
                f->se[cols[j]] = f->cov[cols[j]][cols[j]]; /* scaled by the caller */
            }
            if (h) {
                gsl_vector *lev = gsl_vector_alloc(rows);
                if (lev && !gsl_linalg_SV_leverage(U, lev))
                    for (size_t i = 0; i < n; i++) h[i] = gsl_vector_get(lev, i);
                gsl_vector_free(lev);
            }
        } else {
            rc = -1;
        }
        gsl_matrix_free(U);
    }
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(b);
    gsl_vector_free(S);
    gsl_vector_free(work);
    gsl_vector_free(c);
    return rc;
}

int nd_lsq_solve(const nd_lsq_problem *q, nd_lsq_solution *out, double *h, nd_error *err)
{
    memset(out, 0, sizeof *out);
    if (q->p == 0 || q->p > ND_LSQ_MAX_P || q->n == 0)
        return nd_error_set(err, ND_EINPUT, "least squares: %zu rows, %zu coefficients", q->n, q->p);
    for (size_t i = 0; i < q->n * q->p; i++)
        if (!isfinite(q->X[i])) return nd_error_set(err, ND_EINPUT, "least squares: a non-finite estimate");
    for (size_t i = 0; i < q->n; i++)
        if (!isfinite(q->y[i]) || !(q->w[i] > 0) || !isfinite(q->w[i]))
            return nd_error_set(err, ND_EINPUT, "least squares: a non-finite measurement or weight");
    subset_fit best = {.objective = INFINITY}, f;
    size_t best_mask = 0, cols[ND_LSQ_MAX_P], all = ((size_t)1 << q->p) - 1;
    /* The unconstrained optimum, when feasible, is the constrained one (the problem is
     * convex); otherwise every subset of free columns. */
    for (size_t k = 0; k < q->p; k++) cols[k] = k;
    bool unconstrained = false;
    if (!solve_subset(q, cols, q->p, &f, NULL)) {
        unconstrained = true;
        for (size_t k = 0; k < q->p; k++) unconstrained &= f.r[k] >= 0;
        if (unconstrained) {
            best = f;
            best_mask = all;
        }
    }
    for (size_t mask = 1; !unconstrained && mask <= all; mask++) {
        size_t m = 0;
        for (size_t k = 0; k < q->p; k++)
            if (mask & ((size_t)1 << k)) cols[m++] = k;
        if (solve_subset(q, cols, m, &f, NULL)) continue;
        bool feasible = true;
        for (size_t j = 0; j < m; j++) feasible &= f.r[cols[j]] >= 0;
        if (feasible && f.objective < best.objective * (1 - LSQ_TIE)) {
            best = f;
            best_mask = mask;
        }
    }
    if (!best_mask)
        return nd_error_set(err, ND_EINPUT, "least squares: no subset of the ratios can be solved");
    size_t m = 0;
    for (size_t k = 0; k < q->p; k++)
        if (best_mask & ((size_t)1 << k)) {
            cols[m++] = k;
            out->free[k] = true;
        }
    solve_subset(q, cols, m, &f, h);
    int dof = (int)q->n - (int)m;
    double sigma2 = dof > 0 ? f.rss / dof : NAN;
    for (size_t k = 0; k < q->p; k++) {
        out->r[k] = out->free[k] ? f.r[k] : 0.0;
        out->se[k] = out->free[k] ? sqrt(f.se[k] * sigma2) : NAN;
        for (size_t l = 0; l < q->p; l++)
            out->cov[k][l] = out->free[k] && out->free[l] ? f.cov[k][l] * sigma2 : 0.0;
    }
    out->rss = f.rss;
    out->dof = dof;
    out->rcond = f.rcond;
    return ND_OK;
}

int nd_lsq_robust_weights(const nd_lsq_problem *q, double *w_out, nd_error *err)
{
    size_t n = q->n, p = q->p;
    if (n <= p)
        return nd_error_set(err, ND_EINPUT, "robust fit needs more rows (%zu) than ratios (%zu)", n, p);
    gsl_matrix *X = gsl_matrix_alloc(n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *y = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
    gsl_multifit_robust_workspace *ws = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, p);
    int rc = (!X || !cov || !y || !c || !ws) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    if (!rc) {
        for (size_t i = 0; i < n; i++) {
            double sw = sqrt(q->w[i]);
            gsl_vector_set(y, i, sw * q->y[i]);
            for (size_t k = 0; k < p; k++) gsl_matrix_set(X, i, k, sw * q->X[i * p + k]);
        }
        int status = gsl_multifit_robust(X, y, c, cov, ws);
        if (status && status != GSL_EMAXITER) {
            rc = nd_error_set(err, ND_EINPUT, "robust fit failed: %s", gsl_strerror(status));
        } else {
            gsl_multifit_robust_stats st = gsl_multifit_robust_statistics(ws);
            for (size_t i = 0; i < n; i++) w_out[i] *= gsl_vector_get(st.weights, i);
        }
    }
    gsl_multifit_robust_free(ws);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
    return rc;
}
