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
#include "nd/device.h"
#include "nd/error.h"
#include "nd/formats.h"
#include "nd/model.h"
#include "nd/parts.h"
#include "nd/run.h"
#include "nd/strategy.h"

#define ND_MAX_STAGES 512

typedef struct nd_context {
    const nd_model *model;
    const nd_train *train;
    const nd_device *device;
    int64_t devices;          /* cluster size */
    double budget_mib;        /* memory a strategy may use per device */
    const nd_ratios *ratios;  /* NULL: uncorrected */
    nd_param_count params;    /* filled by nd_context_init */
} nd_context;

/* Fills ctx and counts the model's parameters. budget_mib 0 = the device capacity. */
void nd_context_init(nd_context *ctx, const nd_model *m, const nd_train *t, const nd_device *d,
                     int64_t devices, double budget_mib, const nd_ratios *ratios);

/* Memory of one pipeline stage, per device, MiB. The components add up to total_mib:
 * params + grads + optimizer + activations + working + buffers is the peak of what tensors
 * hold (allocated_mib, torch.cuda.max_memory_allocated); allocator_mib is what the caching
 * allocator holds beyond it at its peak (reserved_mib = allocated + allocator,
 * torch.cuda.max_memory_reserved); context_mib is the runtime's own (CUDA/CANN context,
 * library workspaces, communication buffers), which nvidia-smi also shows.
 * docs/cost-model.md §Memory. */
typedef struct nd_stage_memory {
    int64_t first_layer, layers;  /* body layers on the stage (all its chunks) */
    double params_mib;       /* weights held on the device */
    double grads_mib;        /* gradient buffers */
    double optimizer_mib;    /* optimizer states and master weights */
    double activations_mib;  /* activations kept for backward, all micro-batches in flight */
    double working_mib;      /* the largest transient: a layer's backward, the logits and loss, or
                                the optimizer step's temporaries */
    double buffers_mib;      /* communication buffers in tensors (pipeline, expert dispatch, FSDP) */
    double allocator_mib;    /* cached by the allocator beyond the allocated peak */
    double held_mib;         /* of which collective buffers awaiting the device: given back
                                before the allocator would fail, so not counted in `fits` */
    double context_mib;      /* runtime context and communication-library buffers */
    double allocated_mib;    /* peak of tensors: params .. buffers */
    double reserved_mib;     /* peak of the caching allocator: allocated + allocator */
    double total_mib;        /* reserved + context: what the device must hold */
    double inflight;         /* micro-batches of activations held at the peak */
} nd_stage_memory;

/* What a stage's total needs to fit: the total less the held collective buffers. */
double nd_stage_memory_firm_mib(const nd_stage_memory *m);

/* The components of m in the memory CSV's order (formats.h: params .. context). */
void nd_stage_memory_components(const nd_stage_memory *m, double out[ND_MEMORY_COMPONENTS]);

/* Per-stage timing, per micro-batch unless noted, ms. */
typedef struct nd_stage_time {
    double forward_ms, backward_ms, recompute_ms;
    double weight_grad_ms;   /* the weight-gradient share of backward_ms (ZB-H1) */
    double tp_ms, ep_ms, cp_ms, overhead_ms;
    double kernels;          /* kernel launches of one micro-batch */
    double total_ms;         /* everything one micro-batch costs the stage */
    double dp_comm_ms, dp_reduce_ms, optimizer_ms; /* per step, exposed */
} nd_stage_time;

typedef struct nd_estimate {
    double parts_ms[ND_PARTS];     /* corrected by the ratios when the context has them */
    double raw_parts_ms[ND_PARTS]; /* uncorrected */
    double step_ms;                /* sum of parts_ms */
    double raw_step_ms;
    double peak_mib;               /* the largest stage total (reserved + context), corrected by
                                      the memory ratios when the context has them */
    double raw_peak_mib;           /* the same, uncorrected */
    double peak_firm_mib;          /* the largest stage total less its held collective buffers:
                                      what `fits` compares with the budget */
    double peak_allocated_mib;     /* the largest stage's allocated and reserved peaks */
    double peak_reserved_mib;
    int peak_stage;
    bool fits;                 /* every stage's total less its held buffers is in the budget */
    int straggler_stage;       /* the pipeline's slowest stage */
    int64_t stages;            /* = PP */
    double tokens_per_s_per_device;
    double model_flops_per_step; /* forward + backward FLOPs of the whole model, no recompute */
    double mfu;                  /* model FLOPs / (step time x peak x devices) */
    double microbatch_slots;     /* micro-batch slots on the pipeline's critical path: MB + PP - 1
                                    (MB + (PP - 1) / VPP interleaved) */
    double kernels_per_step;     /* device kernels on the step's critical path: the straggler
                                    stage's kernels per micro-batch x microbatch_slots (what a
                                    fitted per-kernel cost multiplies, docs/calibration.md) */
    nd_stage_memory *stage_memory; /* optional: PP entries, filled when non-NULL */
    nd_stage_time *stage_time;     /* optional: PP entries, filled when non-NULL */
} nd_estimate;

/* A per-stage recompute plan (from the knapsack): layers of each kind in each mode, and
 * optionally how many of the mode-off layers keep their activations in host memory. */
typedef struct nd_recompute_plan {
    int64_t stages;
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]; /* [stages] */
    int64_t (*offloaded)[ND_LAYER_KINDS];                  /* [stages], or NULL */
    double copy_cost_ms_per_gib; /* step time each GiB copied to or from the host costs */
} nd_recompute_plan;

typedef struct nd_layer_cache nd_layer_cache;

/* A cache of priced layer kinds. One per thread; nd_layer_cache_free releases it. */
nd_layer_cache *nd_layer_cache_alloc(void);
void nd_layer_cache_free(nd_layer_cache *cache);

/* Prices strategy s (already checked with nd_strategy_check). cache may be NULL.
 * plan may be NULL (every layer in s->recompute). Fills est; est->stage_memory and
 * est->stage_time, when non-NULL, must hold s->pp entries. Returns 0 or ND_ENOMEM. */
int nd_estimate_strategy(const nd_context *ctx, const nd_strategy *s, nd_layer_cache *cache,
                         const nd_recompute_plan *plan, nd_estimate *est, nd_error *err);

/* The run file's recompute_plan as a plan for strategy s; ND_EINPUT when it does not match
 * s's stages and layers. plan points into run. */
int nd_plan_from_run(const nd_run *run, const nd_strategy *s, nd_recompute_plan *plan, nd_error *err);

/* ND's -mppb (layout.c): whether the config states per-stage layers or recompute. */
bool nd_layout_stated(const nd_run_layout *L);

/* The config's per-stage layers as the run strategy's FIRST/LAST, when its PP is the
 * config's and the middle stages are equal. Returns 1 when set, else 0 with why in note
 * ("" when there is nothing to say). */
int nd_layout_strategy(nd_run *run, char *note, size_t size);

/* The config's per-stage recompute counts as a plan for s (s->pp stages into layers): each
 * stage's first `recompute` layers fully recomputed, up to its `selective` count
 * selectively, the rest not; at another PP each count keeps its share of the stage.
 * Returns 0, or -1 when the config states no counts. */
int nd_layout_plan(const nd_model *m, const nd_run_layout *L, const nd_strategy *s,
                   int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]);

#endif
