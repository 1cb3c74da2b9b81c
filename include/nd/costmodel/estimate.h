/*
 * estimate.h — price one strategy: peak memory per device and the step time
 * split into the twelve parts, in milliseconds and MiB.
 *
 * The context gathers what does not change between strategies (model, training
 * settings, device, device count, memory budget, ratios). A layer-cost cache
 * (nd_layer_cache) holds each layer kind priced once per distinct sharding
 * (TP, CP, EP, ETP, MBS, SP), so a search reuses it across stages and
 * candidates. Equations and their sources: docs/cost-model.md.
 */
#ifndef ND_ESTIMATE_H
#define ND_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/costmodel/context.h"
#include "nd/costmodel/layer_cache.h"
#include "nd/costmodel/stage.h"

typedef struct nd_estimate {
    double parts_ms[ND_PARTS];     /* corrected by the ratios when the context has them */
    double raw_parts_ms[ND_PARTS]; /* uncorrected */
    double step_ms;                /* sum of parts_ms */
    double raw_step_ms;
    double peak_mib;           /* the largest stage total (reserved + context), corrected by
                                  the memory ratios when the context has them */
    double raw_peak_mib;       /* the same, uncorrected */
    double peak_firm_mib;      /* the largest stage total less its held collective buffers:
                                  what `fits` compares with the budget */
    double peak_allocated_mib; /* the largest stage's allocated and reserved peaks */
    double peak_reserved_mib;
    int peak_stage;
    bool fits;           /* every stage's total less its held buffers is in the budget */
    int straggler_stage; /* the pipeline's slowest stage */
    int64_t stages;      /* = PP */
    double tokens_per_s_per_device;
    double model_flops_per_step;   /* forward + backward FLOPs of the whole model, no recompute */
    double mfu;                    /* model FLOPs / (step time x peak x devices) */
    double microbatch_slots;       /* micro-batch slots on the pipeline's critical path: MB + PP - 1
                                      (MB + (PP - 1) / VPP interleaved) */
    double kernels_per_step;       /* device kernels on the step's critical path: the straggler
                                      stage's kernels per micro-batch x microbatch_slots (what a
                                      fitted per-kernel cost multiplies, docs/calibration.md) */
    nd_stage_memory *stage_memory; /* optional: PP entries, filled when non-NULL */
    nd_stage_time *stage_time;     /* optional: PP entries, filled when non-NULL */
} nd_estimate;

/* Prices strategy s (already checked with nd_strategy_check). cache may be NULL.
 * plan may be NULL (every layer in s->recompute). Fills est; est->stage_memory and
 * est->stage_time, when non-NULL, must hold s->pp entries. Returns 0 or ND_ENOMEM. */
int nd_estimate_strategy(const nd_context *ctx, const nd_strategy *s, nd_layer_cache *cache,
                         const nd_recompute_plan *plan, nd_estimate *est, nd_error *err);

/* What nd knows it prices short for strategy s, as a sentence to print beside the estimate, or
 * NULL: DeepSpeed's ZeRO-3 sharding over more than one node, whose measured steps at 384-2,240
 * A100s (SC21 Table 2, docs/benchmarks.md) grew with the GPU count where nd's ring costs do not. */
const char *nd_estimate_strategy_caveat(const nd_context *ctx, const nd_strategy *s);

#endif
