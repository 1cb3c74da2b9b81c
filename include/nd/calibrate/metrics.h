/*
 * metrics.h — how close estimates are to measurements, and whether they rank
 * strategies the same way. Used by nd-compare and nd-fit. docs/calibration.md
 * §Metrics gives each formula.
 */
#ifndef ND_METRICS_H
#define ND_METRICS_H

#include <stddef.h>

/* Pearson's r of x and y; NaN when n < 2 or either series is constant. */
double nd_metric_pearson(const double *x, const double *y, size_t n);

/* Spearman's rho: Pearson's r of the ranks, tied values sharing their mean rank;
 * NaN when n < 2 or either series is constant. */
double nd_metric_spearman(const double *x, const double *y, size_t n);

/* Relative errors (est - meas) / meas over the rows whose measured value is at least
 * min_meas (the others are too small to divide by). */
typedef struct nd_error_stats {
    double mape;    /* mean |relative error| */
    double bias;    /* mean relative error (signed: > 0 the estimate is high) */
    double max_abs; /* largest |relative error| */
    size_t n;       /* rows counted */
} nd_error_stats;

void nd_metric_relative_errors(const double *est, const double *meas, size_t n, double min_meas,
                               nd_error_stats *out);

/* ND's top-k agreement: walking the rows in measured order, how many leading rows each
 * have the lowest estimate among the rows from there on. */
size_t nd_metric_top_k(const double *est, const double *meas, size_t n);

/* Regret of following the estimate: the measured time of the row the estimate ranks
 * first, over the fastest measured time, minus 1 (0 = the estimate picked the fastest).
 * Ties break to the earlier row. Writes the two rows' indices when non-NULL. */
double nd_metric_regret(const double *est, const double *meas, size_t n, size_t *pick, size_t *fastest);

#endif
