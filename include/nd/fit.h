/*
 * fit.h — fitting the per-part ratios from a profiling round.
 *
 * Modes (docs/calibration.md §Fit):
 *   parts  each measured column fits the ratios of the parts it measures, by weighted
 *          least squares through the origin (non-negative; two parts sharing a column
 *          are fitted jointly, or as one ratio when the round cannot tell them apart);
 *   total  only the step is measured: every exercised ratio jointly on `time`, with a
 *          ridge toward 1 whose strength is chosen by exact leave-one-out error;
 *   sums   ND's ratio of sums (reference/nd-calibration.md §5.2), for compatibility.
 * Parts that no row exercises, or that the round does not measure, are held at 1 and
 * reported; --allow-fallback instead gives them COMPUTE's ratio as ND does.
 */
#ifndef ND_FIT_H
#define ND_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/classified.h"
#include "nd/error.h"
#include "nd/parts.h"

typedef enum { ND_FIT_AUTO = 0, ND_FIT_PARTS, ND_FIT_TOTAL, ND_FIT_SUMS } nd_fit_mode;
typedef enum { ND_WEIGHTS_RELATIVE = 0, ND_WEIGHTS_ABSOLUTE } nd_fit_weights;

const char *nd_fit_mode_name(nd_fit_mode m);

typedef struct nd_fit_row {
    char label[96];
    double est[ND_PARTS];           /* raw estimated parts */
    double measured[ND_MEAS_COUNT]; /* measured columns (0 when absent) */
    double time_ms;                 /* the profiled step */
    double rank_ms;                 /* what ranking compares: the trainer's step (else time) x rank_scale */
    double rank_scale;              /* ms to ranking cost: 1, or devices / sequences in a round that
                                       mixes cluster sizes or batches */
    double idle_ms;                 /* ND's IDLE */
    double busy_ms;                 /* ND's busy */
} nd_fit_row;

typedef struct nd_fit_options {
    nd_fit_mode mode;
    nd_fit_weights weights;
    bool robust;
    bool allow_fallback;
    bool column[ND_MEAS_COUNT]; /* the round has this column */
} nd_fit_options;

typedef enum {
    ND_RATIO_FITTED = 0,
    ND_RATIO_HELD,     /* held at 1: not exercised or not measured (why[] says) */
    ND_RATIO_SHARED,   /* one ratio fitted with source[] */
    ND_RATIO_FALLBACK, /* ND's fallback: copied from source[] */
} nd_ratio_status;

typedef struct nd_fit_loo {
    double mape, max_abs, spearman, regret;
    size_t n; /* rows with a leave-one-out prediction */
} nd_fit_loo;

typedef struct nd_fit_result {
    nd_fit_mode mode;
    double ratio[ND_RATIO_KEYS], lo[ND_RATIO_KEYS], hi[ND_RATIO_KEYS]; /* 95 % interval */
    nd_ratio_status status[ND_RATIO_KEYS];
    int source[ND_RATIO_KEYS];
    char why[ND_RATIO_KEYS][96];
    char target[ND_RATIO_KEYS][48]; /* what each fitted ratio was fitted on */
    double lambda;                  /* ridge strength (total mode) */
    size_t n;
    double *corrected_ms;  /* [n] in-sample corrected estimate of target_ms */
    double *left_out_ms;   /* [n] leave-one-out estimate; NaN when not estimable */
    double *target_ms;     /* [n] time (parts, total) or busy (sums) */
    double *group_target;  /* [n x keys] per-key measured targets (parts mode), NaN if none */
    double *group_left_out;/* [n x keys] per-key leave-one-out predictions */
    nd_fit_loo loo_total;
    nd_fit_loo loo_key[ND_RATIO_KEYS];
    double spearman;       /* in-sample corrected vs rank_ms */
    double regret;         /* following the in-sample corrected estimate */
    size_t pick, fastest;
} nd_fit_result;

/* Fits. rows are not kept. The mode AUTO becomes PARTS when the round measures comp,
 * else TOTAL. Errors: ND_EINPUT with the reason (too few rows for the ratios, a singular
 * round, a non-finite value, a ratio fitted to 0 without --allow-fallback). */
int nd_fit_run(const nd_fit_row *rows, size_t n, const nd_fit_options *opt, nd_fit_result *res,
               nd_error *err);

void nd_fit_result_free(nd_fit_result *res);

/* Corrected total of one row with the given ratios: each part x its ratio. */
double nd_fit_corrected(const nd_fit_row *r, const double ratio[ND_RATIO_KEYS], nd_fit_mode mode);

#endif
