/*
 * fit_internal.h — what the fit modes share (calib/fit*.c only).
 */
#ifndef ND_FIT_INTERNAL_H
#define ND_FIT_INTERNAL_H

#include "nd/calibrate/fit.h"
#include "lsq.h"

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

/* A coefficient of a joint fit: one ratio shared by the keys of `keys`, a fixed cost, or a
 * memory ratio. */
typedef struct nd_fit_col {
    unsigned keys;  /* ratio keys (bit 1u << key); 0 for the others */
    int fixed;      /* nd_fixed_cost, or -1 */
    int memory;     /* nd_memory_ratio, or -1 */
    double held_at; /* its value when held inside a fit (1, 0 for a fixed cost, or a fallback's) */
} nd_fit_col;

/* What the coefficient multiplies in a row (ms; MiB for memory). */
double nd_fit_col_regressor(const nd_fit_row *r, const nd_fit_col *c);
/* Its name in messages: the first key's, the fixed cost's or the memory ratio's. */
const char *nd_fit_col_name(const nd_fit_col *c);

typedef struct nd_fit_problem {
    const nd_fit_row *rows;
    size_t n;
    const bool *use;     /* rows taking part (NULL: all) */
    const double *y;     /* [n] the target less what held parts price */
    const double *scale; /* [n] what a relative error divides by (the step, the peak) */
    const nd_fit_options *o;
    const char *target; /* what is fitted on: "time", "idle", "peak_mib" */
    size_t p;
    nd_fit_col col[ND_LSQ_MAX_P];
    size_t n_one; /* columns held inside this fit at their neutral value (--hold auto) */
    nd_fit_col one[ND_LSQ_MAX_P];
} nd_fit_problem;

/* Fits pb's columns under the identifiability rules (fit_solve.c), dropping fixed costs
 * the round does not show and, with --allow-fallback, folding unidentified ratios into
 * COMPUTE's. Records values, intervals and statuses in res; pred and left_out ([n]) get the
 * fitted and leave-one-out target of each used row (NaN elsewhere); spread (may be NULL)
 * gains the fitted terms and their covariance. ND_EINPUT refuses a round that does not
 * identify a ratio, naming it. pb's columns are left as fitted. */
int nd_fit_solve(nd_fit_problem *pb, nd_fit_result *res, double *pred, double *left_out, nd_spread *spread,
                 nd_error *err);

/* A ratio column of the given keys, a fixed cost's, a memory ratio's. */
nd_fit_col nd_fit_ratio_col(unsigned keys);
nd_fit_col nd_fit_fixed_col(nd_fixed_cost f);
nd_fit_col nd_fit_memory_col(nd_memory_ratio m);

int nd_fit_parts(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err);
int nd_fit_total(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err);
/* Per-shape corrections on the residuals of the ratios' fit (total mode), kept when they
 * predict left-out strategies better (fit_shapes.c). Updates corrected_ms and left_out_ms. */
int nd_fit_shapes(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                  nd_error *err);
/* The memory ratios on the rows' measured peaks (after the time fit; rows without a peak
 * take no part). */
int nd_fit_memory(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                  nd_error *err);
int nd_fit_sums(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res, nd_error *err);

#endif
