/*
 * compare.h — estimate every row of a profiling round and set the estimate
 * beside what was measured, part by part (ND's folding of the twelve parts
 * onto the measured columns), with accuracy and ranking metrics.
 */
#ifndef ND_COMPARE_H
#define ND_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdio.h>
#include "nd/calibrate/classified.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/estimate.h"
#include "nd/calibrate/metrics.h"
#include "nd/costmodel/prediction.h"
#include "nd/inputs/run.h"

/* ND's folding (nd_fold, formats.h): the estimated parts and the measured columns onto one
 * vocabulary. */

/* Folds twelve estimated parts (ms). */
void nd_fold_estimate(const double parts_ms[ND_PARTS], double out[ND_FOLDS]);

typedef struct nd_compare_row {
    const nd_classified_row *row;
    const char *label; /* in the comparison's label pool (nd_compare.labels) */
    nd_strategy strategy;
    int64_t devices, seq_len;
    nd_estimate est; /* corrected when ratios were given */
    double measured[ND_FOLDS];
    double estimated[ND_FOLDS];
    double rank_ms;   /* step_trainer when the row has it, else time */
    double rank_cost; /* what ranking compares: rank_ms, or per sequence and device */
    double est_cost;  /* the estimate on the same scale */
    int64_t gbs;
    nd_stage_memory *peak_memory; /* the estimate's peak stage (corrected with -c), in
                                     nd_compare.peak_memories; NULL unless the inputs asked
                                     (keep_peak_memory: nd-fit's memory fit): 112 bytes a row
                                     that nd-compare's 100,000 rows need not hold */
    double peak_est_mib;          /* the estimated peak of the kind the round measures */
    double step_halfwidth_ms;     /* 95 % prediction interval of est.step_ms (-c with an uncertainty) */
    double peak_halfwidth_mib;    /* ... of peak_est_mib; NaN without */
} nd_compare_row;

typedef struct nd_compare_metrics {
    double pearson, spearman;
    nd_error_stats errors;
} nd_compare_metrics;

typedef struct nd_compare {
    nd_compare_row *rows; /* in measured order (rank_ms ascending, ties in file order) */
    size_t count;
    nd_compare_metrics fold[ND_FOLDS];
    size_t top_k;         /* ND's top-k agreement */
    double regret;        /* following the estimate, on rank_ms */
    size_t pick, fastest; /* indices into rows */
    size_t trainer_steps; /* rows ranked by step_trainer */
    bool corrected;
    bool normalized;              /* rows differ in devices or batch: ranked by ms x devices / gbs */
    bool fold_measured[ND_FOLDS]; /* the round has a column for this part */
    nd_peak_kind peak;
    nd_compare_metrics memory; /* estimated vs measured peak_mib, rows that have it */
    size_t memory_rows;
    size_t fits_but_measured_over;   /* rows called fits whose measured peak exceeds the budget */
    char *labels;                    /* owned: every row's label, one after another (a 100,000-row round
                                        keeps 3 MB of labels, not 10 MB of fixed-size buffers) */
    double share_distance[ND_FOLDS]; /* ND's distance: per part, the mean over rows of |measured
                                        share - estimated share| (shares of the measured and the
                                        estimated step), ND's six parts (not idle);
                                        [ND_FOLD_TOTAL]: the mean of each row's Euclidean norm
                                        over the measured ones */
    size_t skipped;                  /* rows whose strategy cannot be priced, left out (as ND) */
    char skip_note[ND_ERROR_MESSAGE_MAX + 256]; /* the first one's "ND cannot cost ..." line */
    nd_stage_memory *peak_memories;             /* owned: [count], when the inputs keep_peak_memory */
} nd_compare;

/* Inputs of a comparison: the run (model, training, base strategy), the device, the budget,
 * the ratios (NULL = raw) and the cluster size and batch used when a row cannot imply them. */
typedef struct nd_compare_inputs {
    const nd_run *run;
    const nd_device *device;
    double budget_mib;
    const nd_ratios *ratios;
    nd_peak_kind peak;           /* what the round's peak_mib measures */
    const nd_run_layout *layout; /* -mppb: the config's per-stage recompute counts, a plan for
                                    each row (nd_layout_plan); NULL = each row's recompute */
    bool keep_peak_memory;       /* fill each row's peak_memory */
} nd_compare_inputs;

/* Prices every row: ND's default strategy (every degree 1, the run's ZeRO, schedule and
 * recompute) overridden by the row's degrees, its device count DP*MP*PP*CP, its global batch
 * DP*MB*MBS and its seq_len. A row whose strategy the model cannot take is left out, as ND
 * does ("ND cannot cost <config>, left out of the comparison: <why>"; counted in skipped,
 * the first in skip_note; nd_compare_print_skips says them); a round none of whose rows can
 * be priced is an error, and so is a stated `devices` or `gbs` that contradicts the row's
 * degrees. */
int nd_compare_round(const nd_compare_inputs *in, const nd_classified *round, nd_compare *out, nd_error *err);

/* The same, with progress on `progress` (NULL: none) once pricing takes over a second,
 * "<program>: pricing the round 40 % (40000 of 100000 rows), ..." (progress.h). */
int nd_compare_round_progress(const nd_compare_inputs *in, const nd_classified *round, nd_compare *out,
                              FILE *progress, const char *program, nd_error *err);

void nd_compare_free(nd_compare *c);

/* The rows a comparison left out, on diag: the first one's line, then how many more. */
void nd_compare_print_skips(FILE *diag, const nd_compare *c);

#endif
