/*
 * stage.h — one pipeline stage of a strategy: which layers it holds, its
 * per-micro-batch time, its memory, and its end-of-step work (gradient
 * synchronisation and optimizer). Used by estimate.c and the search.
 */
#ifndef ND_STAGE_H
#define ND_STAGE_H

#include "nd/base/formats.h"
#include "nd/costmodel/context.h"
#include "nd/costmodel/layer_cache.h"
#include "nd/costmodel/split.h"

/* Memory of one pipeline stage, per device, MiB. The components add up to total_mib:
 * params + grads + optimizer + activations + working + buffers is the peak of what tensors
 * hold (allocated_mib, torch.cuda.max_memory_allocated); allocator_mib is what the caching
 * allocator holds beyond it at its peak (reserved_mib = allocated + allocator,
 * torch.cuda.max_memory_reserved); context_mib is the runtime's own (CUDA/CANN context,
 * library workspaces, communication buffers), which nvidia-smi also shows.
 * docs/cost-model.md §Memory. */
typedef struct nd_stage_memory {
    int64_t first_layer, layers; /* body layers on the stage (all its chunks) */
    double params_mib;           /* weights held on the device */
    double grads_mib;            /* gradient buffers */
    double optimizer_mib;        /* optimizer states and master weights */
    double activations_mib;      /* activations kept for backward, all micro-batches in flight */
    double working_mib;          /* the largest transient: a layer's backward, the logits and loss, or
                                    the optimizer step's temporaries */
    double buffers_mib;          /* communication buffers in tensors (pipeline, expert dispatch, FSDP) */
    double allocator_mib;        /* cached by the allocator beyond the allocated peak */
    double held_mib;             /* of which collective buffers awaiting the device: given back
                                    before the allocator would fail, so not counted in `fits` */
    double context_mib;          /* runtime context and communication-library buffers */
    double allocated_mib;        /* peak of tensors: params .. buffers */
    double reserved_mib;         /* peak of the caching allocator: allocated + allocator */
    double total_mib;            /* reserved + context: what the device must hold */
    double inflight;             /* micro-batches of activations held at the peak */
} nd_stage_memory;

/* What a stage's total needs to fit: the total less the held collective buffers. */
double nd_stage_memory_firm_mib(const nd_stage_memory *m);

/* The components of m in the memory CSV's order (formats.h: params .. context). */
void nd_stage_memory_components(const nd_stage_memory *m, double out[ND_MEMORY_COMPONENTS]);

/* Per-stage timing, per micro-batch unless noted, ms. */
typedef struct nd_stage_time {
    double forward_ms, backward_ms, recompute_ms;
    double weight_grad_ms; /* the weight-gradient share of backward_ms (ZB-H1) */
    double tp_ms, ep_ms, cp_ms, overhead_ms;
    double kernels;                                /* kernel launches of one micro-batch */
    double total_ms;                               /* everything one micro-batch costs the stage */
    double dp_comm_ms, dp_reduce_ms, optimizer_ms; /* per step, exposed */
} nd_stage_time;

typedef struct nd_stage_work {
    int64_t stage;
    int64_t first_layer, layers;                   /* body layers (all chunks); MTP layers are extra */
    int64_t n[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]; /* layers by kind and recompute mode */
    bool first, last;  /* the rank holds the embedding (virtual stage 0), the loss (the last one) */
    double pass_share; /* the share of the rank's layers one micro-batch passes (DualPipe 1/2) */
    double inflight;   /* micro-batches of activations of all the rank's layers held at the peak */
    double params_ne;  /* non-expert parameters per device (TP-sharded, before ZeRO) */
    double params_e;   /* expert parameters per device (EP x ETP-sharded, before ZeRO) */
    double layer_ne[ND_LAYER_KINDS], layer_e[ND_LAYER_KINDS]; /* one layer's parameters per device */
    int64_t offloaded[ND_LAYER_KINDS]; /* mode-off layers whose activations live on the host */
    double copy_cost_ms_per_gib;
} nd_stage_work;

/* The virtual stages (split.h's order) rank `stage` holds, in the order it runs them: chunk c
 * is c x PP + stage; a V-shaped schedule (ZB-V, DualPipeV) holds `stage` and 2 PP - 1 - stage;
 * DualPipe holds stage and PP - 1 - stage of a PP-stage split. */
typedef struct nd_held_chunks {
    int n;
    int64_t v[ND_MAX_CHUNKS_PER_RANK];
} nd_held_chunks;
void nd_stage_held_chunks(const nd_strategy *s, int64_t stage, nd_held_chunks *h);

/* Virtual stages of the schedule's split: PP x VPP (DualPipe: PP). */
int64_t nd_stage_virtual_count(const nd_strategy *s);

/* Layers, modes and parameters of stage `stage`. plan NULL: every layer in s->recompute. */
void nd_stage_work_init(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        int64_t stage, nd_stage_work *w);

/* The same for the stage after `prev` (of the same strategy and plan), reusing what does not
 * depend on the stage. prev may be NULL. */
void nd_stage_work_next(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        int64_t stage, const nd_stage_work *prev, nd_stage_work *w);

/* Layers the stage runs: its body layers, and on the last stage the MTP layers. */
int64_t nd_stage_layer_count(const nd_context *ctx, const nd_stage_work *w);

/* The model index of the stage's j-th layer (0 <= j < nd_stage_layer_count), chunk by chunk
 * with interleaving; MTP layers are numbered after the body (layers, layers + 1, ...). */
int64_t nd_stage_layer_at(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w, int64_t j);

/* The mode a per-layer plan gives the pos-th layer of `kind` on `stage`. Within a stage and
 * kind the plan's counts are laid out in this order: the offloaded layers (the stage's first,
 * running without recompute; *offloaded set unless NULL), then selective, then full, then the other layers
 * without recompute. So converting one layer to full recompute, from selective or from off,
 * changes that one layer. */
nd_recompute nd_plan_layer_mode(const nd_recompute_plan *plan, int64_t stage, nd_layer_kind kind, int64_t pos,
                                bool *offloaded);

/* Calls fn for every layer the strategy runs, stage by stage in each stage's order, with
 * the mode the plan gives it. */
typedef void (*nd_plan_layer_fn)(void *arg, int64_t layer, nd_recompute mode);
void nd_plan_each_layer(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        nd_plan_layer_fn fn, void *arg);

/* The model index of the pos-th layer of `kind` on `stage`, or -1. */
int64_t nd_plan_layer_index(const nd_context *ctx, const nd_strategy *s, int64_t stage, nd_layer_kind kind,
                            int64_t pos);

/* Two middle stages with the same layers, modes and parameters: their time and
 * synchronisation are equal (only the micro-batches in flight differ). */
bool nd_stage_same_work(const nd_stage_work *a, const nd_stage_work *b);

/* Per-micro-batch compute, exposed TP/EP/CP communication and overhead (fills the
 * per-micro-batch fields of t). */
void nd_stage_time_compute(const nd_context *ctx, const nd_strategy *s, const nd_layer_cache_entry *costs,
                           const nd_stage_work *w, nd_stage_time *t);

/* Gradient synchronisation and optimizer step, exposed, per step (fills dp_comm_ms,
 * dp_reduce_ms, optimizer_ms; needs t's per-micro-batch fields for the overlap windows). */
void nd_stage_sync_compute(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                           nd_stage_time *t);

/* The FP8 copies of the stage's layer weights Transformer Engine keeps from the first
 * micro-batch of a step to the next step (Megatron passes is_first_microbatch, so a linear casts
 * its weight once per step and caches it): elements cast, and bytes held per element (the
 * copies: 1 or 2 by the device's FP8 GEMM layouts; 2 under blockwise scales, whose rowwise and
 * columnwise scales differ). 0 without FP8, outside Transformer Engine, or under ZeRO-3. */
double nd_stage_fp8_weight_cache(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                 double *bytes_per_weight);

/* Memory per device at the stage's peak. */
void nd_stage_memory_compute(const nd_context *ctx, const nd_strategy *s, const nd_layer_cache_entry *costs,
                             const nd_stage_work *w, nd_stage_memory *mem);

/* Forward model FLOPs of one micro-batch on one device of the stage. */
double nd_stage_model_flops(const nd_context *ctx, const nd_layer_cache_entry *costs, const nd_stage_work *w);

/* Exposed pipeline point-to-point time of a step (PP_COMM), ms: blocking sends of every chunk
 * crossing, or with Megatron's overlap_p2p_comm (interleaved) and DualPipe's paired passes the
 * fill and drain alone, and what a transfer takes beyond a chunk of the straggler's compute. */
double nd_stage_p2p_ms(const nd_context *ctx, const nd_strategy *s, const nd_stage_time *straggler);

/* Time of the whole pipeline for one step, ms: stage st[i].total_ms per micro-batch,
 * straggler = the slowest stage, X its time. 1F1B and GPipe: sum + (MB-1) X (Narayanan et al.
 * 2021); interleaved: MB X + (sum - X) / VPP; ZB-H1 and ZB-H2: MB X + each other stage's
 * max(0, x - 2W) and max(0, x - 3W) (Qi et al. 2023); ZB-V half of ZB-H2's; DualPipe: MB X +
 * (PP/2 - 1)(F&B + B - 3W), DualPipeV MB X + (PP - 1)(F&B + B - 3W) / 2 (DeepSeek-V3 report).
 * docs/cost-model.md §Step time of the pipeline. */
double nd_pipeline_ms(const nd_strategy *s, const nd_stage_time *st, int straggler);

/* Micro-batches in flight on a stage at its memory peak, per schedule. */
double nd_stage_inflight(const nd_strategy *s, int64_t stage);

#endif
