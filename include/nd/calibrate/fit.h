/*
 * fit.h — fitting the per-part ratios from a profiling round.
 *
 * Modes (docs/calibration.md §nd-fit):
 *   parts  each measured column fits the ratios of the parts it measures, by weighted
 *          least squares through the origin (non-negative; two parts sharing a column
 *          are fitted jointly, or as one ratio when the round cannot tell them apart);
 *          idle also fits the fixed costs (per kernel, per micro-batch, per step);
 *   total  only the step is measured: every exercised ratio and the fixed costs jointly
 *          on `time`;
 *   sums   ND's ratio of sums (docs/reference/nd-calibration.md §5.2), for compatibility.
 * A ratio is written only when the round identifies it (the rank of the design, a 95 %
 * interval excluding 0 and narrower than max_ci); otherwise the fit is refused, naming the
 * ratios (--hold holds them at 1; --allow-fallback gives them COMPUTE's ratio, as ND
 * does). Parts that no row exercises, or that the round does not measure, are held at 1;
 * a fixed cost the round does not show (its interval reaches 0) is held at 0.
 * A round with measured peaks also fits the memory ratios the same way.
 */
#ifndef ND_FIT_H
#define ND_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/calibrate/classified.h"
#include "nd/calibrate/compare.h"
#include "nd/base/error.h"
#include "nd/costmodel/parts.h"

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
    double kernels;                 /* the estimate's kernels on the critical path per step */
    double slots;                   /* its micro-batch slots */
    double peak_mib;                /* measured peak (NaN when the row has none) */
    double mem_static_mib;          /* raw peak stage: weights, gradients, optimizer states */
    double mem_activations_mib;     /* ... its activations */
    double mem_transient_mib;       /* ... the rest of its peak */
    nd_shape_key shape;             /* its layer sharding */
    double mb_work;                 /* the raw ms of the parts a shape correction scales */
} nd_fit_row;

#define ND_FIT_MAX_CI 0.5 /* the default largest relative half-width of a written ratio */

typedef struct nd_fit_options {
    nd_fit_mode mode;
    nd_fit_weights weights;
    bool robust;
    bool allow_fallback;
    bool column[ND_MEAS_COUNT];      /* the round has this column */
    double max_ci;                   /* a ratio's 95 % half-width / ratio must stay below (0: the default) */
    bool hold[ND_RATIO_KEYS];        /* --hold: held at 1 */
    bool hold_auto;                  /* --hold auto: hold what the round does not identify (the
                                        subset it identifies with the best leave-one-out error) */
    bool hold_fixed[ND_FIXED_COSTS]; /* --hold: held at 0 */
    bool hold_memory[ND_MEM_RATIOS]; /* --hold: held at 1 */
    bool no_fixed;                   /* fit no fixed cost (ND's ratios alone) */
    bool no_shapes;                  /* fit no per-shape correction */
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

/* A fitted quantity besides the ratios: a fixed cost or a memory ratio. */
typedef struct nd_fit_term {
    double value, lo, hi;   /* 95 % interval (NaN: none) */
    nd_ratio_status status; /* FITTED or HELD */
    char why[96];           /* why it is held */
    char target[48];        /* what it was fitted on */
} nd_fit_term;

typedef struct nd_fit_result {
    nd_fit_mode mode;
    double ratio[ND_RATIO_KEYS], lo[ND_RATIO_KEYS], hi[ND_RATIO_KEYS]; /* 95 % interval */
    nd_ratio_status status[ND_RATIO_KEYS];
    int source[ND_RATIO_KEYS];
    char why[ND_RATIO_KEYS][96];
    char target[ND_RATIO_KEYS][48]; /* what each fitted ratio was fitted on */
    nd_fit_term fixed[ND_FIXED_COSTS];
    nd_fit_term memory[ND_MEM_RATIOS];
    nd_spread time_spread; /* covariance of the fitted terms, residual scatter */
    nd_spread memory_spread;
    double max_ci;         /* the limit applied */
    size_t distinct;       /* distinct strategies (labels) */
    unsigned unidentified; /* after a refusal: bit (1u << key) of the ratios the round
                              does not identify */
    unsigned confounded;   /* ... of those, the ones no strategy of the round separates */
    size_t n;
    double *corrected_ms;   /* [n] in-sample corrected estimate of target_ms */
    double *left_out_ms;    /* [n] leave-one-out estimate; NaN when not estimable */
    double *target_ms;      /* [n] time (parts, total) or busy (sums) */
    double *group_target;   /* [n x keys] per-key measured targets (parts mode), NaN if none */
    double *group_left_out; /* [n x keys] per-key leave-one-out predictions */
    nd_fit_loo loo_total;
    nd_fit_loo loo_key[ND_RATIO_KEYS];
    double spearman; /* in-sample corrected vs rank_ms */
    double regret;   /* following the in-sample corrected estimate */
    size_t pick, fastest;
    size_t memory_rows;      /* rows with a measured peak */
    double *memory_fitted;   /* [n] corrected peak (NaN without a measured peak) */
    double *memory_left_out; /* [n] leave-one-out peak */
    nd_fit_loo loo_memory;
    int shapes; /* per-shape corrections (total mode; 0 when none helps) */
    nd_shape_ratio shape[ND_MAX_SHAPES];
    double shape_ridge_rows; /* their pull toward 0, in rows' worth of evidence */
    double shape_spread;     /* sd of the corrections between shapes */
    size_t shape_groups;     /* distinct shapes among the rows */
} nd_fit_result;

/* Fits. rows are not kept. The mode AUTO becomes PARTS when the round measures comp,
 * else TOTAL. Errors: ND_EINPUT with the reason (too few rows for the ratios, ratios the
 * round does not identify, a non-finite value, a ratio fitted to 0 without
 * --allow-fallback). After any error res holds no arrays; after a refusal for
 * identifiability res->unidentified and res->confounded name the ratios. */
int nd_fit_run(const nd_fit_row *rows, size_t n, const nd_fit_options *opt, nd_fit_result *res,
               nd_error *err);

void nd_fit_result_free(nd_fit_result *res);

/* The rows of a comparison (priced raw) as the fit sees them, in its order; the caller
 * frees *rows. The memory terms follow the kind of peak the comparison measured. */
int nd_fit_rows(const nd_compare *cmp, nd_fit_row **rows, nd_error *err);

/* Corrected total of one row with the given ratios: each part x its ratio (fixed costs
 * not included). */
double nd_fit_corrected(const nd_fit_row *r, const double ratio[ND_RATIO_KEYS], nd_fit_mode mode);

/* The corrected step of a row with a fit's ratios and fixed costs. */
double nd_fit_predict(const nd_fit_row *r, const nd_fit_result *res);

/* The ms a fixed cost adds to a row per unit of its value (kernels / 1000, slots, 1). */
double nd_fit_fixed_regressor(const nd_fit_row *r, nd_fixed_cost f);

/* The fit as -c reads it back: ratios, fixed costs, memory ratios, uncertainty, shapes. */
void nd_fit_ratios_of(const nd_fit_result *res, nd_ratios *out);

/* Distinct strategies among rows: rows with the same label count once. */
size_t nd_fit_distinct(const nd_fit_row *rows, size_t n);

/* Metrics are printed as numbers only on at least this many distinct strategies. */
#define ND_FIT_MIN_DISTINCT 3

#endif
