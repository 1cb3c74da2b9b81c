/*
 * lsq.h — the least squares nd-fit needs, on GSL.
 *
 * Minimises  sum_i w_i (y_i - sum_k X_ik r_k)^2 + lambda sum_k s_k (r_k - prior_k)^2
 * over r >= 0, with s_k = sum_i w_i X_ik^2 / n (so lambda is dimensionless: 1 weighs the
 * prior like the whole data set). lambda = 0 is plain weighted least squares.
 * Non-negativity is exact: when the unconstrained optimum is not feasible, every subset of
 * free ratios is solved (the others at 0) and the best feasible one kept; p is at most a
 * dozen, so this is at most 2^p small SVDs.
 * Leverages come from the SVD of the augmented system (gsl_linalg_SV_leverage), so the
 * leave-one-out residual of row i is e_i / (1 - h_i) exactly (for a fixed active set).
 */
#ifndef ND_LSQ_H
#define ND_LSQ_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/base/error.h"

#define ND_LSQ_MAX_P 12

typedef struct nd_lsq_problem {
    size_t n, p;
    const double *X;     /* n x p, row-major */
    const double *y;     /* n */
    const double *w;     /* n weights (> 0) */
    double lambda;       /* ridge strength toward prior; 0 = none */
    const double *prior; /* p, or NULL for all 1 */
} nd_lsq_problem;

typedef struct nd_lsq_solution {
    double r[ND_LSQ_MAX_P];                 /* the fitted coefficients */
    double se[ND_LSQ_MAX_P];                /* standard errors (NaN where not estimable) */
    double cov[ND_LSQ_MAX_P][ND_LSQ_MAX_P]; /* their covariance, s^2 (A'A)^-1 (0 for held ones) */
    bool free[ND_LSQ_MAX_P];                /* not held at 0 by the non-negativity */
    double rss;                             /* weighted residual sum of squares */
    int dof;                                /* n minus free coefficients (at least 1 when estimable) */
    double rcond;                           /* reciprocal condition number of the weighted X (free columns) */
} nd_lsq_solution;

/* Solves the problem. h (n entries, may be NULL) receives each row's leverage.
 * ND_EINPUT when p is 0 or too large, any input is not finite, or no subset can be
 * solved; ND_ENOMEM. Rank deficiency is reported through rcond, not as an error. */
int nd_lsq_solve(const nd_lsq_problem *q, nd_lsq_solution *out, double *h, nd_error *err);

/* Robust weights (Tukey bisquare, GSL's default tuning) for the same problem without the
 * ridge: multiplies into w_out (n) the per-row factor in [0, 1]. */
int nd_lsq_robust_weights(const nd_lsq_problem *q, double *w_out, nd_error *err);

#endif
