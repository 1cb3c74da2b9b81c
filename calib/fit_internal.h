/*
 * fit_internal.h — what the fit modes share (calib/fit*.c only).
 */
#ifndef ND_FIT_INTERNAL_H
#define ND_FIT_INTERNAL_H

#include "nd/fit.h"

/* The estimated ms the ratio key k scales in a row (COMPUTE: FW + BW + RECOMPUTE, ...). */
double nd_fit_regressor(const nd_fit_row *r, nd_ratio_key k);
double nd_fit_weight(const nd_fit_options *o, const nd_fit_row *r);
void nd_fit_hold(nd_fit_result *res, nd_ratio_key k, const char *why);
void nd_fit_interval(nd_fit_result *res, nd_ratio_key k, double se, int dof);
/* Leave-one-out metrics of predictions against targets. rank_steps: regret ranks rows by
 * their measured step (rank_ms) as nd-search would; otherwise by the target itself. */
void nd_fit_loo_metrics(const double *pred, const double *target, const nd_fit_row *rows, size_t n,
                        bool rank_steps, nd_fit_loo *out);
int nd_fit_result_alloc(nd_fit_result *res, size_t n);

int nd_fit_parts(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err);
int nd_fit_total(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err);
int nd_fit_sums(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                nd_error *err);

#endif
