/*
 * fit_suggest.h — nd-fit --suggest K: the strategies to profile next, chosen from the
 * search space to make the round identify what it does not (D-optimal on the fit's design)
 * and to settle the calibrated top candidates (docs/calibration.md §The next round).
 */
#ifndef ND_FIT_SUGGEST_H
#define ND_FIT_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/costmodel/device.h"
#include "nd/base/error.h"
#include "nd/calibrate/fit.h"
#include "nd/inputs/run.h"
#include "nd/costmodel/strategy.h"

typedef struct nd_suggest_inputs {
    const nd_run *run; /* model, training, the run's strategy */
    const nd_device *device;
    double budget_mib;
    int64_t devices, global_batch; /* the cluster the candidates are searched for */
    const nd_fit_row *rows;        /* the round, as fitted (raw) */
    size_t n;
    const nd_strategy *profiled; /* the round's strategies: never suggested again */
    size_t n_profiled;
    const nd_ratios *ratios; /* the fit's, when it stands (its top candidates); or NULL */
    bool no_fixed;           /* the design leaves the fixed costs out */
    unsigned separate;       /* ratio keys (1u << key) the picks should separate first
                                (D_s-optimal); 0: every term (D-optimal) */
    unsigned vary;           /* ND_DIM_BIT of the dimensions candidates vary (0: all) */
} nd_suggest_inputs;

typedef struct nd_suggestion {
    nd_strategy strategy;
    double estimate_ms; /* its estimated step (corrected for a top candidate) */
    char reason[200];
} nd_suggestion;

/* Up to k suggestions into out (k entries), *count of them. ND_EINPUT when nothing fits the
 * cluster; ND_ENOMEM. */
int nd_fit_suggest(const nd_suggest_inputs *in, size_t k, nd_suggestion *out, size_t *count, nd_error *err);

/* The run list: the searched dimensions, recompute, estimated_ms, reason (formats.h's
 * nd_run_list_csv). Written atomically. */
int nd_fit_suggest_write(const char *path, const nd_suggestion *s, size_t count, nd_error *err);

#endif
