/*
 * stage.h — one pipeline stage of a strategy: which layers it holds, its
 * per-micro-batch time, its memory, and its end-of-step work (gradient
 * synchronisation and optimizer). Used by estimate.c and the search.
 */
#ifndef ND_STAGE_H
#define ND_STAGE_H

#include "nd/estimate.h"
#include "nd/layer_cache.h"

typedef struct nd_stage_work {
    int64_t stage;
    int64_t first_layer, layers; /* body layers (all chunks); MTP layers are extra */
    int64_t n[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]; /* layers by kind and recompute mode */
    bool first, last;
    double inflight;  /* micro-batches of activations held at the peak */
    double params_ne; /* non-expert parameters per device (TP-sharded, before ZeRO) */
    double params_e;  /* expert parameters per device (EP x ETP-sharded, before ZeRO) */
    double layer_ne[ND_LAYER_KINDS], layer_e[ND_LAYER_KINDS]; /* one layer's parameters per device */
    int64_t offloaded[ND_LAYER_KINDS]; /* mode-off layers whose activations live on the host */
    double copy_cost_ms_per_gib;
} nd_stage_work;

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
void nd_stage_time_compute(const nd_context *ctx, const nd_strategy *s,
                           const nd_layer_cache_entry *costs, const nd_stage_work *w,
                           nd_stage_time *t);

/* Gradient synchronisation and optimizer step, exposed, per step (fills dp_comm_ms,
 * dp_reduce_ms, optimizer_ms; needs t's per-micro-batch fields for the overlap windows). */
void nd_stage_sync_compute(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                           nd_stage_time *t);

/* Memory per device at the stage's peak. */
void nd_stage_memory_compute(const nd_context *ctx, const nd_strategy *s,
                             const nd_layer_cache_entry *costs, const nd_stage_work *w,
                             nd_stage_memory *mem);

/* Forward model FLOPs of one micro-batch on one device of the stage. */
double nd_stage_model_flops(const nd_context *ctx, const nd_layer_cache_entry *costs,
                            const nd_stage_work *w);

/* Exposed pipeline point-to-point time of a step (PP_COMM), ms. */
double nd_stage_p2p_ms(const nd_context *ctx, const nd_strategy *s);

/* Time of the whole pipeline for one step, ms: stage st[i].total_ms per micro-batch,
 * straggler = the slowest stage. 1F1B and GPipe: sum + (MB-1) x slowest (Narayanan et al.
 * 2021); interleaved: (sum + PP(VPP-1) x slowest) / VPP + (MB x VPP - PP(VPP-1) - 1) x
 * slowest / VPP; ZB-H1: MB x slowest + each other stage's max(0, x - 2 W) (Qi et al. 2023). */
double nd_pipeline_ms(const nd_strategy *s, const nd_stage_time *st, int straggler);

/* Micro-batches in flight on a stage at its memory peak, per schedule. */
double nd_stage_inflight(const nd_strategy *s, int64_t stage);

#endif
