/*
 * stage.c — one pipeline stage: its layers, time per micro-batch, the gradient
 * synchronisation and optimizer step at the end of a step, and the pipeline's time.
 * Its memory is in stage_memory.c.
 */
#include "nd/costmodel/stage.h"

#include <math.h>
#include <string.h>

#include "nd/costmodel/collective.h"
#include "nd/base/units.h"
#include "kernels.h"
#include "nd/base/array.h"
#include "nd/costmodel/split.h"

/* Parameters of one layer of `kind` on one device, split into the non-expert part
 * (TP-sharded matrices, replicated norms, router and MLA down-projections) and the
 * routed experts (sharded over EP x ETP). */
static void layer_params(const nd_context *ctx, const nd_strategy *s, nd_layer_kind kind, double *ne,
                         double *e)
{
    const nd_model *m = ctx->model;
    const nd_param_count *pc = &ctx->params;
    double tp = (double)s->tp, h = (double)m->hidden;
    double replicated = 0;
    if (m->attention == ND_ATTN_MLA)
        replicated = h * (double)m->q_lora_rank + (double)m->q_lora_rank +
                     h * (double)(m->kv_lora_rank + m->qk_rope_head_dim) + (double)m->kv_lora_rank;
    *ne = ((double)pc->attention - replicated) / tp + replicated + (double)pc->norms;
    *e = 0;
    if (kind == ND_LAYER_DENSE) {
        *ne += (double)pc->dense_mlp / tp;
        return;
    }
    double router = h * (double)m->experts + (m->router_bias ? (double)m->experts : 0) +
                    (m->shared_expert_gate && m->shared_experts ? h : 0);
    *ne += ((double)pc->moe_shared - router) / tp + router;
    *e = (double)pc->moe_routed / (double)(s->ep * s->etp);
}

void nd_stage_held_chunks(const nd_strategy *s, int64_t stage, nd_held_chunks *h)
{
    h->n = 0;
    switch (s->schedule) {
    case ND_SCHEDULE_ZB_V:
    case ND_SCHEDULE_DUALPIPE_V: /* a V: down the ranks, then back up */
        h->v[h->n++] = stage;
        h->v[h->n++] = 2 * s->pp - 1 - stage;
        return;
    case ND_SCHEDULE_DUALPIPE: /* both directions: this rank's stage and its mirror */
        h->v[h->n++] = stage;
        if (s->pp - 1 - stage != stage) h->v[h->n++] = s->pp - 1 - stage;
        if (h->n == 2 && h->v[1] < h->v[0]) {
            h->v[1] = h->v[0];
            h->v[0] = s->pp - 1 - stage;
        }
        return;
    default:
        for (int64_t c = 0; c < s->vpp && h->n < ND_MAX_CHUNKS_PER_RANK; c++)
            h->v[h->n++] = c * s->pp + stage;
    }
}

/* The layers of each kind rank `stage` holds, the first of its first chunk and their count;
 * whether it holds the embedding (virtual stage 0) and the loss (the last). */
static void count_layers(const nd_context *ctx, const nd_strategy *s, int64_t stage,
                         int64_t kinds[ND_LAYER_KINDS], nd_stage_work *w)
{
    const nd_model *m = ctx->model;
    kinds[ND_LAYER_DENSE] = kinds[ND_LAYER_MOE] = 0;
    nd_held_chunks h;
    nd_stage_held_chunks(s, stage, &h);
    int64_t last_v = nd_stage_virtual_count(s) - 1;
    w->layers = 0;
    w->first = w->last = false;
    for (int i = 0; i < h.n; i++) {
        int64_t first, count;
        nd_split_chunk(s, m->layers, h.v[i] % s->pp, h.v[i] / s->pp, &first, &count);
        if (i == 0) w->first_layer = first;
        w->layers += count;
        w->first |= h.v[i] == 0;
        w->last |= h.v[i] == last_v;
        for (int k = 0; k < ND_LAYER_KINDS; k++)
            kinds[k] += nd_model_count_kind(m, first, count, (nd_layer_kind)k);
    }
    /* DualPipe: each micro-batch passes one of the rank's two stages */
    w->pass_share = s->schedule == ND_SCHEDULE_DUALPIPE && h.n == 2 ? 0.5 : 1.0;
}

int64_t nd_stage_virtual_count(const nd_strategy *s)
{
    return s->schedule == ND_SCHEDULE_DUALPIPE ? s->pp : s->pp * s->vpp;
}

void nd_stage_work_init(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        int64_t stage, nd_stage_work *w)
{
    nd_stage_work_next(ctx, s, plan, stage, NULL, w);
}

void nd_stage_work_next(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        int64_t stage, const nd_stage_work *prev, nd_stage_work *w)
{
    const nd_model *m = ctx->model;
    memset(w, 0, sizeof *w);
    w->stage = stage;
    int64_t kinds[ND_LAYER_KINDS];
    count_layers(ctx, s, stage, kinds, w);
    if (w->last && m->mtp_layers) kinds[nd_model_layer_kind(m, m->layers)] += m->mtp_layers;
    if (plan && stage < plan->stages) {
        memcpy(w->n, plan->layers[stage], sizeof w->n);
        if (plan->offloaded) memcpy(w->offloaded, plan->offloaded[stage], sizeof w->offloaded);
        w->copy_cost_ms_per_gib = plan->copy_cost_ms_per_gib;
    } else {
        for (int k = 0; k < ND_LAYER_KINDS; k++) w->n[k][s->recompute] = kinds[k];
        /* torchtitan's per-layer selective AC: every N-th layer checkpointed whole. */
        int64_t every = ctx->train->selective_every;
        if (s->recompute == ND_RECOMPUTE_SELECTIVE && every > 0)
            for (int k = 0; k < ND_LAYER_KINDS; k++) {
                int64_t full = kinds[k] / every;
                w->n[k][ND_RECOMPUTE_SELECTIVE] = 0;
                w->n[k][ND_RECOMPUTE_FULL] = full;
                w->n[k][ND_RECOMPUTE_OFF] = kinds[k] - full;
            }
    }
    w->inflight = nd_stage_inflight(s, stage);

    double tp = (double)s->tp, h = (double)m->hidden, v = (double)m->vocab;
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        /* A layer's parameters depend on the strategy, not the stage: the previous stage's do. */
        if (prev) {
            w->layer_ne[k] = prev->layer_ne[k];
            w->layer_e[k] = prev->layer_e[k];
        } else
            layer_params(ctx, s, (nd_layer_kind)k, &w->layer_ne[k], &w->layer_e[k]);
        w->params_ne += (double)kinds[k] * w->layer_ne[k];
        w->params_e += (double)kinds[k] * w->layer_e[k];
    }
    double norm = m->norm == ND_NORM_LAYER ? 2 * h : h;
    if (w->first) w->params_ne += v * h / tp + (double)m->max_positions * h;
    if (w->last) {
        w->params_ne += norm;
        /* The output projection: its own matrix, or a copy of a tied embedding where another
         * rank holds the embedding; MTP modules on the last stage also need the embedding. A
         * rank holding both ends (PP 1; DualPipe's and the V schedules' first rank) shares the
         * one matrix physically (DeepSeek-V3 report §3.2.1). */
        if (!m->tied_embeddings) w->params_ne += v * h / tp;
        bool needs_embedding = m->tied_embeddings || m->mtp_layers > 0;
        if (needs_embedding && !w->first) w->params_ne += v * h / tp;
        w->params_ne += (double)m->mtp_layers * (3 * norm + 2 * h * h / tp);
    }
}

double nd_stage_fp8_weight_cache(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                 double *bytes_per_weight)
{
    const nd_train *tr = ctx->train;
    *bytes_per_weight = 0;
    if (!tr->fp8 || !tr->fp8_weight_cache || !nd_framework_profile_of(tr->framework)->fp8_saves_fp8 ||
        s->zero >= 3)
        return 0;
    double copies = ctx->device->fp8_weight_copies > 0 ? ctx->device->fp8_weight_copies : 2;
    *bytes_per_weight = tr->fp8_recipe == ND_FP8_BLOCKWISE ? 2 : copies;
    double weights = 0; /* the layers' (their norms, a few thousandths, included) */
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++)
            weights += (double)w->n[k][r] * (w->layer_ne[k] + w->layer_e[k]);
    return weights;
}

/* Whether the schedule runs a forward and a backward of two micro-batches at once on a rank
 * (DualPipe's F&B pairs), so that one's communication hides behind the other's compute. */
static bool pairs_passes(const nd_context *ctx, const nd_strategy *s)
{
    return s->schedule == ND_SCHEDULE_DUALPIPE || s->schedule == ND_SCHEDULE_DUALPIPE_V ||
           (ctx->train->ep_comm_overlap && s->pp > 1);
}

/* A per-micro-batch time scaled by the share of the rank one micro-batch passes. */
static void scale_time(nd_stage_time *t, double f)
{
    double *v[] = {&t->forward_ms, &t->backward_ms, &t->recompute_ms, &t->weight_grad_ms, &t->tp_ms,
                   &t->ep_ms,      &t->cp_ms,       &t->overhead_ms,  &t->kernels,        &t->total_ms};
    for (size_t i = 0; i < ND_ARRAY_LEN(v); i++) *v[i] *= f;
}

/* The forwards of layers that synchronise (dropless MoE reads its token counts on the host):
 * the synchronisation ends whatever lead the host had, so until the next one, one layer's
 * forward, the device waits for the host wherever issuing the layer takes longer than running
 * it; no lead built elsewhere covers it. */
typedef struct synced_forwards {
    double host_ops;  /* their forward host operators */
    double device_ms; /* their forward device time, launches included */
    double wait_ms;   /* what of their host time the device waits for */
} synced_forwards;

static synced_forwards synced_forward_wait(const nd_layer_cache_entry *costs, const nd_stage_work *w,
                                           double launch_ms, double op_ms)
{
    synced_forwards seg = {0};
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_layer_cost *c = &costs->layer[k];
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
            double n = (double)w->n[k][r];
            if (n == 0 || c->host_syncs[r] <= 0) continue;
            double device_ms = c->forward_ms + c->comm_fwd_ms + c->kernels_fwd * launch_ms;
            seg.host_ops += n * c->host_ops_fwd;
            seg.device_ms += n * device_ms;
            seg.wait_ms += n * fmax(0.0, c->host_ops_fwd * op_ms - device_ms);
        }
    }
    return seg;
}

void nd_stage_time_compute(const nd_context *ctx, const nd_strategy *s, const nd_layer_cache_entry *costs,
                           const nd_stage_work *w, nd_stage_time *t)
{
    memset(t, 0, sizeof *t);
    double kernels = 0, host_ops = 0, syncs = 0;
    double fwd_device = 0, fwd_host_ops = 0, fwd_kernels = 0; /* the forward pass's share */
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_layer_cost *c = &costs->layer[k];
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
            double n = (double)w->n[k][r];
            if (n == 0) continue;
            t->forward_ms += n * c->forward_ms;
            t->backward_ms += n * c->backward_ms;
            t->weight_grad_ms += n * c->weight_grad_ms;
            t->recompute_ms += n * c->recompute_ms[r];
            t->tp_ms += n * c->tp_ms[r];
            t->ep_ms += n * c->ep_ms[r];
            t->cp_ms += n * c->cp_ms[r];
            kernels += n * c->kernels[r];
            host_ops += n * c->host_ops[r];
            syncs += n * c->host_syncs[r];
            fwd_device += n * (c->forward_ms + c->comm_fwd_ms);
            fwd_host_ops += n * c->host_ops_fwd;
            fwd_kernels += n * c->kernels_fwd;
        }
    }
    const nd_layer_cost *ends[2] = {w->first ? &costs->embedding : NULL, w->last ? &costs->head : NULL};
    for (size_t i = 0; i < ND_ARRAY_LEN(ends); i++) {
        if (!ends[i]) continue;
        t->forward_ms += ends[i]->forward_ms;
        t->backward_ms += ends[i]->backward_ms;
        t->weight_grad_ms += ends[i]->weight_grad_ms;
        t->tp_ms += ends[i]->tp_ms[0];
        kernels += ends[i]->kernels[0];
        host_ops += ends[i]->host_ops[0];
        fwd_device += ends[i]->forward_ms + ends[i]->comm_fwd_ms;
        fwd_host_ops += ends[i]->host_ops_fwd;
        fwd_kernels += ends[i]->kernels_fwd;
    }
    /* Offloaded activations go to the host after the forward and come back before the
     * backward: hidden behind compute by construction (the knapsack checks the window), but
     * each GiB may still cost the step (the copy engines share HBM and the host link). */
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        t->overhead_ms += 2.0 * (double)w->offloaded[k] * costs->layer[k].activation_bytes[ND_RECOMPUTE_OFF] /
                          ND_GIB * w->copy_cost_ms_per_gib;
    /* Without fused accumulation every micro-batch's weight gradients are written, then
     * read and added into the gradient buffer (PyTorch autograd's accumulation). */
    if (!ctx->train->grad_accumulation_fusion && s->mb > 1) {
        const nd_train *tr = ctx->train;
        double params = w->params_ne + w->params_e, later = (double)(s->mb - 1) / (double)s->mb;
        t->backward_ms +=
            later * nd_memory_ms(ctx->device, params * (tr->param_bytes + 2.0 * tr->grad_bytes));
        /* one AccumulateGrad kernel (and autograd node) per parameter tensor */
        double tensors = later * (double)(w->layers + (w->last ? ctx->model->mtp_layers : 0)) *
                         nd_model_layer_tensors(ctx->model);
        kernels += tensors;
        host_ops += tensors;
    }
    /* Each kernel leaves a gap on the device; and when a micro-batch's operators take the host
     * longer to issue than the device to run, the device waits for the host (small models,
     * small micro-batches, TP=8): what the host time exceeds the device's busy time is
     * exposed. A synchronisation (dropless MoE's token counts, a pipeline send that ends with
     * cudaDeviceSynchronize) drains the queue: its round trip is exposed, and the device idles
     * again while the host issues the next operator. CUDA graphs replay the captured kernels
     * without the host. */
    const nd_device *d = ctx->device;
    const nd_framework_profile *fw = nd_framework_profile_of(ctx->train->framework);
    bool graphs = ctx->train->cuda_graphs;
    if (graphs) host_ops = fwd_host_ops = syncs = 0;
    if (s->pp > 1 && fw->p2p_sync && !graphs) syncs += 2; /* a send and a receive, each synchronised */
    double launch = d->kernel_launch_us / 1e3, op = d->host_dispatch_us / 1e3;
    double busy = t->forward_ms + t->backward_ms + t->recompute_ms + t->tp_ms + t->ep_ms + t->cp_ms;
    synced_forwards seg = graphs ? (synced_forwards){0} : synced_forward_wait(costs, w, launch, op);
    double host_wait;
    if (fw->pass_syncs && !graphs) {
        /* Synchronised passes: the host can run ahead only within the forward, then within
         * the backward; and each of the four synchronisations drains the queue. */
        double fwd_busy = fwd_device + fwd_kernels * launch;
        double bwd_busy = busy - fwd_device + (kernels - fwd_kernels) * launch;
        host_wait = fmax(0.0, (fwd_host_ops - seg.host_ops) * op - (fwd_busy - seg.device_ms)) +
                    fmax(0.0, (host_ops - fwd_host_ops) * op - bwd_busy);
        syncs += 4;
    } else {
        host_wait = fmax(0.0, (host_ops - seg.host_ops) * op - (busy + kernels * launch - seg.device_ms));
    }
    host_wait += seg.wait_ms;
    t->overhead_ms += kernels * launch + host_wait + syncs * (d->host_sync_us / 1e3 + op) +
                      d->microbatch_host_ms + (graphs ? 0 : fw->microbatch_ops * op);
    t->kernels = kernels;
    t->total_ms = busy + t->overhead_ms;
    if (w->pass_share > 0 && w->pass_share != 1.0) scale_time(t, w->pass_share);
    if (pairs_passes(ctx, s)) {
        /* one micro-batch's all-to-alls beside the other's forward or backward: the steady
         * state's pairs, not the first forwards a 1F1B rank runs alone */
        double m = (double)s->mb,
               alone = s->schedule == ND_SCHEDULE_DUALPIPE || s->schedule == ND_SCHEDULE_DUALPIPE_V
                           ? 0
                           : fmin(m, (double)(s->pp - w->stage - 1));
        double window = t->forward_ms + t->backward_ms + t->recompute_ms;
        double hidden = fmin(t->ep_ms, window) * (m - alone) / m * (1 - ND_OVERLAP_SLOWDOWN);
        t->ep_ms -= hidden;
        t->total_ms -= hidden;
    }
}

/* Communication that may hide behind `window` ms; never less than one bucket of it. */
static double behind(double comm_ms, bool overlap, double window_ms, double buckets)
{
    if (!overlap) return comm_ms;
    double last = comm_ms / buckets; /* the last bucket waits for the last backward */
    return last + nd_overlapped_ms(comm_ms - last, true, window_ms);
}

/* Synchronisation of one parameter group (non-expert or expert) over its data-parallel
 * replicas: `group` ranks spaced `stride`, sharded `shard` ways at ZeRO level `zero`. */
static void sync_group(const nd_context *ctx, const nd_strategy *s, const nd_stage_time *t, double params,
                       int64_t group, int64_t stride, int64_t shard, int zero, double buckets,
                       double *dp_comm, double *dp_reduce)
{
    if (params <= 0 || group <= 1) return;
    const nd_device *d = ctx->device;
    const nd_train *tr = ctx->train;
    double grads = params * tr->grad_bytes, weights = params * tr->param_bytes;
    double m = (double)s->mb, fwd = t->forward_ms, bwd = t->backward_ms + t->recompute_ms;
    /* the sharded gradients' reduce-scatters a step: every micro-batch's, or the last one's */
    double scatters = s->pp > 1 && nd_framework_profile_of(tr->framework)->pp_reduce_once ? 1 : m;
    nd_group all = {group, stride}, shards = {shard, stride}, replicas = {group / shard, stride * shard};
    if (zero == 0 || shard == 1) {
        /* Plain data parallelism: one all-reduce, behind the last backward (PyTorch DDP,
         * Megatron overlap_grad_reduce). */
        *dp_reduce += behind(nd_collective_ms(d, ND_COLL_ALL_REDUCE, all, grads), tr->overlap_grad_reduce,
                             bwd, buckets);
        return;
    }
    double rs = nd_collective_ms(d, ND_COLL_REDUCE_SCATTER, shards, grads);
    double ar = nd_collective_ms(d, ND_COLL_ALL_REDUCE, replicas, grads / (double)shard);
    double ag = nd_collective_ms(d, ND_COLL_ALL_GATHER, shards, weights);
    int fetches = nd_framework_profile_of(tr->framework)->zero3_fetches_per_layer;
    if (zero == 3 && fetches > 0) {
        /* fetched module by module as each runs, each gather and scatter waited for */
        double calls = buckets * fetches;
        double ag_one = nd_collective_ms(d, ND_COLL_ALL_GATHER, shards, weights / calls);
        double rs_one = nd_collective_ms(d, ND_COLL_REDUCE_SCATTER, shards, grads / calls);
        *dp_comm += m * calls * (2 * ag_one + rs_one);
        *dp_reduce += behind(ar, tr->overlap_grad_reduce, bwd, buckets);
        return;
    }
    if (zero == 3) {
        /* FSDP: gather the weights before forward and again before backward, scatter the
         * gradients after backward, every micro-batch; prefetch hides what compute covers. */
        *dp_comm += m * behind(ag, tr->overlap_param_gather, fwd, buckets);
        if (scatters == m) /* the backward's gather and scatter share its window */
            *dp_comm += m * behind(ag + rs, tr->overlap_grad_reduce, bwd, buckets);
        else
            *dp_comm += m * behind(ag, tr->overlap_grad_reduce, bwd, buckets) +
                        behind(rs, tr->overlap_grad_reduce, bwd, buckets);
        *dp_reduce += behind(ar, tr->overlap_grad_reduce, bwd, buckets);
        return;
    }
    double chain = ar + (zero == 1 ? rs : 0); /* ZeRO-2 scatters every micro-batch instead */
    double chain_exposed = behind(chain, tr->overlap_grad_reduce, bwd, buckets);
    if (chain > 0) {
        *dp_reduce += chain_exposed * ar / chain;
        *dp_comm += chain_exposed * (chain - ar) / chain;
    }
    if (zero == 2) *dp_comm += scatters * behind(rs, tr->overlap_grad_reduce, bwd, buckets);
    *dp_comm += behind(ag, tr->overlap_param_gather, fwd, buckets);
}

void nd_stage_sync_compute(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                           nd_stage_time *t)
{
    const nd_model *m = ctx->model;
    const nd_train *tr = ctx->train;
    const nd_device *d = ctx->device;
    double buckets = w->layers > 0 ? (double)w->layers : 1.0;
    int zero = s->zero < 0 ? 0 : s->zero;
    int64_t dpcp = s->dp * s->cp;
    t->dp_comm_ms = t->dp_reduce_ms = 0;
    sync_group(ctx, s, t, w->params_ne, dpcp, s->tp, s->op, zero, buckets, &t->dp_comm_ms, &t->dp_reduce_ms);
    int64_t edp = nd_strategy_expert_dp(s);
    int64_t shard_e = nd_strategy_expert_op(s);
    sync_group(ctx, s, t, w->params_e, edp, s->ep * s->etp, shard_e, zero, buckets, &t->dp_comm_ms,
               &t->dp_reduce_ms);
    /* A tied or MTP-shared embedding lives on the first and last stage: their gradients
     * are summed once per step (Megatron's embedding all-reduce); a rank holding both ends
     * holds one copy and sums nothing. */
    if (w->first != w->last && (m->tied_embeddings || m->mtp_layers)) {
        nd_group ends = {2, (s->pp - 1) * s->tp * s->cp * s->dp};
        double bytes = (double)m->vocab * (double)m->hidden / (double)s->tp * tr->grad_bytes;
        t->dp_reduce_ms += nd_collective_ms(d, ND_COLL_ALL_REDUCE, ends, bytes);
    }

    /* Optimizer step: memory-bound passes over the local shard (Adam reads the gradient,
     * the master weights and both moments and writes them back; the model copy is a second
     * pass, reading the master weights and writing the 16-bit ones), plus the gradient-norm
     * read, the zeroing of the gradient buffer and the norm's all-reduce across every rank;
     * the framework's own passes over the gradient buffer before its reduction. */
    const nd_framework_profile *fw = nd_framework_profile_of(tr->framework);
    double shard_ne = zero >= 1 ? (double)s->op : 1, shard_grads = zero >= 2 ? (double)s->op : 1;
    double local = w->params_ne / shard_ne + w->params_e / (zero >= 1 ? (double)shard_e : 1);
    double held = w->params_ne / shard_grads + w->params_e / (zero >= 2 ? (double)shard_e : 1);
    double states = (double)(tr->optimizer_states * tr->state_bytes);
    double weights = tr->master_bytes ? 3.0 * tr->master_bytes + tr->param_bytes : 2.0 * tr->param_bytes;
    double held_e = w->params_e / (zero >= 2 ? (double)shard_e : 1);
    double bytes = local * (tr->grad_bytes + 2 * states + weights) +
                   (1 + nd_train_check_for_nan_in_grad(tr)) * held * tr->grad_bytes;
    if (fw->grad_prescale && dpcp > 1) {
        /* the factor is 1/(DP x CP) for every gradient, or with averaging collectives 1 for the
         * dense ones and EDP/(DP x CP) for the experts' (their group is EDP) */
        double scaled = !tr->average_in_collective ? held : edp != dpcp ? held_e : 0;
        bytes += 2 * scaled * tr->grad_bytes;
    }
    /* Clipping reads the gradients for their norm and scales them by the clamped coefficient,
     * a read and a write, whatever the norm (torch's clip_grad_norm_ multiplies unconditionally;
     * Megatron-core keeps the coefficient a device tensor to spare the host a sync). */
    if (tr->grad_clip) bytes += 3 * local * tr->grad_bytes;
    /* FP8 weights cast once per step: the 16-bit weight read (twice under current scaling, its
     * amax first) and its cached copies written */
    double fp8_copy_bytes, fp8_weights = nd_stage_fp8_weight_cache(ctx, s, w, &fp8_copy_bytes);
    bytes += fp8_weights * (tr->param_bytes * (tr->fp8_recipe == ND_FP8_CURRENT ? 2 : 1) + fp8_copy_bytes);
    /* fp16 loss scaling: unscale the gradients and look for overflow, a read and a write. */
    if (tr->param_bytes == 2 && !strcmp(tr->precision, "fp16")) bytes += 2.0 * local * tr->grad_bytes;
    t->optimizer_ms = nd_memop_ms(d, ND_MEMOP_OPTIMIZER, bytes);
    if (tr->grad_clip) {
        nd_group world = {s->dp * s->tp * s->pp * s->cp, 1};
        t->optimizer_ms += nd_collective_ms(d, ND_COLL_ALL_REDUCE, world, 8);
    }
    if (tr->swap_optimizer)
        t->optimizer_ms += 2 * local * (states + tr->master_bytes) / (d->host_gbps * 1e9) * 1e3;
    /* Virtual moments stay on the host: AdamW reads and writes them across the host link. */
    t->optimizer_ms += 2 * nd_train_host_moment_bytes(tr, local) / (d->host_gbps * 1e9) * 1e3;
}

double nd_stage_model_flops(const nd_context *ctx, const nd_layer_cache_entry *costs, const nd_stage_work *w)
{
    (void)ctx;
    double f = 0;
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) f += (double)w->n[k][r] * costs->layer[k].model_flops;
    if (w->last) f += costs->head.model_flops;
    return f;
}

double nd_stage_p2p_ms(const nd_context *ctx, const nd_strategy *s, const nd_stage_time *straggler)
{
    if (s->pp <= 1) return 0.0;
    const nd_train *tr = ctx->train;
    double T = (double)s->mbs * (double)tr->seq_len / (double)s->cp;
    double bytes = tr->param_bytes * T * (double)ctx->model->hidden / (s->sp ? (double)s->tp : 1);
    nd_group pipe = {s->pp, s->tp * s->cp * s->dp};
    double one = nd_collective_ms(ctx->device, ND_COLL_P2P, pipe, bytes);
    double m = (double)s->mb, v = (double)s->vpp, p = (double)s->pp;
    switch (s->schedule) {
    case ND_SCHEDULE_DUALPIPE:
    case ND_SCHEDULE_DUALPIPE_V:
        /* sends run beside the paired passes' compute: only the first forward's and the last
         * backward's crossings of the ranks wait on them */
        return 2.0 * (p - 1) * one;
    case ND_SCHEDULE_INTERLEAVED:
        if (tr->overlap_p2p_comm) {
            /* Megatron's overlap_p2p_comm: a chunk's send and the next chunk's receive run
             * beside the current chunk's compute; the fill and drain still wait, and a
             * transfer longer than a chunk's compute shows its excess */
            double chunk = straggler ? straggler->total_ms / v : 0;
            return 2.0 * (p - 1) * one + 2.0 * (m * v) * fmax(0.0, one - chunk);
        }
        break;
    default: break;
    }
    /* Blocking sends on the critical path: one forward and one backward per micro-batch chunk
     * crossing, plus the fill and drain across the stages (ZB-V's V crosses each rank twice). */
    double crossings = 2.0 * (m * v + p - 2);
    return crossings * one;
}

/* Pipeline time of m micro-batches over the stages (st: per-micro-batch stage times). */
double nd_pipeline_ms(const nd_strategy *s, const nd_stage_time *st, int straggler)
{
    double m = (double)s->mb, p = (double)s->pp, v = (double)s->vpp;
    const nd_stage_time *x = &st[straggler];
    double X = x->total_ms, sum = 0;
    for (int64_t i = 0; i < s->pp; i++) sum += st[i].total_ms;
    /* the other stages' idle time while the straggler fills and drains, less what weight
     * gradients (W) deferred into the bubble fill: ZB-H1 2 W, ZB-H2 3 W (Qi et al. 2023:
     * bubbles (p-1)(F+B-W) and (p-1)(F+B-2W), B there being the input gradients alone) */
    double idle = 0, w_fill = s->schedule == ND_SCHEDULE_ZB_H1 ? 2 : 3;
    for (int64_t i = 0; i < s->pp; i++)
        if (i != straggler) idle += fmax(0.0, st[i].total_ms - w_fill * st[i].weight_grad_ms);
    /* DualPipe's bubble, (PP/2 - 1)(F&B + B - 3W) (DeepSeek-V3 report, Table 2): F&B a paired
     * forward and backward, B a full backward, W its weight gradients */
    double fb = fmax(0.0, X + x->backward_ms + x->recompute_ms - 3 * x->weight_grad_ms);
    switch (s->schedule) {
    case ND_SCHEDULE_INTERLEAVED: return m * X + (sum - X) / v;
    case ND_SCHEDULE_ZB_H1:
    case ND_SCHEDULE_ZB_H2: return m * X + idle;
    case ND_SCHEDULE_ZB_V:
        /* two chunks a rank: every fill and drain step is half a rank's work (Qi et al. 2024) */
        return m * X + idle / 2;
    case ND_SCHEDULE_DUALPIPE: return m * X + fmax(0.0, p / 2 - 1) * fb;
    case ND_SCHEDULE_DUALPIPE_V:
        /* DualPipeV: a DualPipe of 2 PP chunks over PP ranks, each chunk half a rank's work */
        return m * X + (p - 1) * fb / 2;
    default: return sum + (m - 1) * X;
    }
}

/* Micro-batches of a rank's activations held at its peak: Narayanan et al. 2021 for 1F1B and
 * the interleaved schedule; Qi et al. 2023: ZB-H1 holds what 1F1B holds, ZB-H2 twice;
 * Qi et al. 2024: ZB-V what 1F1B holds on the first rank, on every rank; DeepSeek-V3 report
 * Table 2 and the DualPipe repository: DualPipe PP + 1 of one stage (its two stages hold the
 * rank's layers twice over), DualPipeV 2 PP + 1 chunks (half a rank's layers each). */
double nd_stage_inflight(const nd_strategy *s, int64_t stage)
{
    double m = (double)s->mb, p = (double)s->pp, v = (double)s->vpp, st = (double)stage;
    switch (s->schedule) {
    case ND_SCHEDULE_GPIPE: return m;
    case ND_SCHEDULE_INTERLEAVED: {
        double chunks = 2 * (p - st - 1) + (v - 1) * p + 1;
        if (chunks > m * v) chunks = m * v;
        return chunks / v;
    }
    case ND_SCHEDULE_ZB_H2: return fmin(m, 2 * (p - st) - 1);
    case ND_SCHEDULE_ZB_V: return fmin(m, p);
    case ND_SCHEDULE_DUALPIPE: return fmin(m, p + 1) / 2;
    case ND_SCHEDULE_DUALPIPE_V: return fmin(m, p + 0.5);
    default: return fmin(m, p - st);
    }
}

bool nd_stage_same_work(const nd_stage_work *a, const nd_stage_work *b)
{
    return !a->first && !a->last && !b->first && !b->last && a->params_ne == b->params_ne &&
           a->params_e == b->params_e && a->layers == b->layers && !memcmp(a->n, b->n, sizeof a->n) &&
           !memcmp(a->offloaded, b->offloaded, sizeof a->offloaded);
}
