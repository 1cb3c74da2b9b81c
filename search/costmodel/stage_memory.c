/*
 * stage_memory.c — a pipeline stage's memory at its peak: parameters, gradients and
 * optimizer states by their sharding, activations in flight, transients, communication
 * buffers, what the caching allocator holds beyond its tensors, and the runtime's own.
 * docs/cost-model.md §Memory.
 */
#include "nd/costmodel/stage.h"

#include <math.h>
#include <string.h>

#include "nd/base/units.h"

/* The optimizer step's temporaries, bytes: the framework's own (legacy Megatron's local DDP
 * flattens the gradients to all-reduce them) and the optimizer's. A fused optimizer makes none;
 * torch's foreach AdamW materialises a list the size of the local shard (sqrt of the second
 * moments, 4 bytes); a loop over the tensors (Composer's DecoupledAdamW) two temporaries of
 * one tensor, the largest: a layer's or the embedding's shard under ZeRO (FSDP's flat
 * parameters), else a layer's largest matrix, about a quarter of it. */
static double step_transient_bytes(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                   double local_params)
{
    const nd_train *tr = ctx->train;
    double bytes = local_params * nd_framework_profile_of(tr->framework)->optimizer_temp_bytes;
    switch (nd_train_optimizer_impl(tr)) {
    case ND_OPTIMIZER_FOREACH: return bytes + 4.0 * local_params;
    case ND_OPTIMIZER_PER_TENSOR: {
        double layer = 0;
        for (int k = 0; k < ND_LAYER_KINDS; k++) layer = fmax(layer, w->layer_ne[k] + w->layer_e[k]);
        double embedding = (double)ctx->model->vocab * (double)ctx->model->hidden / (double)s->tp;
        double tensor = s->zero >= 1 ? fmax(layer, embedding) / (double)s->op : fmax(layer / 4, embedding);
        return bytes + 2 * 4.0 * tensor;
    }
    default: return bytes;
    }
}

/* Communicators the strategy opens on a device: one per parallel group wider than one rank
 * (TP, CP, DP x CP, PP neighbours, EP, ETP, the embedding pair). Each holds the library's
 * buffers (comm_buffer_mib: NCCL channels x peers x NCCL_BUFFSIZE; HCCL 2 x HCCL_BUFFSIZE). */
static double communicators(const nd_context *ctx, const nd_strategy *s)
{
    double n = 0;
    n += s->tp > 1;
    n += s->cp > 1;
    n += s->dp * s->cp > 1;
    n += s->pp > 1;
    n += s->ep > 1;
    n += s->etp > 1 && s->etp != s->tp;
    n += s->pp > 1 && (ctx->model->tied_embeddings || ctx->model->mtp_layers);
    return n;
}

/* The dynamic memory of a stage, bytes: activations in flight, the largest transient of a
 * layer's backward and of the embedding or head, communication buffers in tensors. */
typedef struct dynamic_bytes {
    double act, layer_working, ends_working, buffers, tensors;
    double collective; /* buffers the collectives of one micro-batch's pass(es) use */
} dynamic_bytes;

static dynamic_bytes stage_dynamic(const nd_context *ctx, const nd_strategy *s,
                                   const nd_layer_cache_entry *costs, const nd_stage_work *w, int zero)
{
    const nd_train *tr = ctx->train;
    dynamic_bytes m = {0, 0, 0, 0, 0, 0};
    /* With each pass bracketed by synchronisations the host leads the device by one pass:
     * the backward, the longer; otherwise by the micro-batch's forward and backward. */
    bool both_passes = !nd_framework_profile_of(tr->framework)->pass_syncs;
    double layer_params_max = 0, in_transit = 0;
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_layer_cost *c = &costs->layer[k];
        int64_t kind_total = 0;
        /* Offloaded layers keep nothing on the device but the one being copied. */
        if (w->offloaded[k]) {
            m.act -= (double)w->offloaded[k] * c->activation_bytes[ND_RECOMPUTE_OFF];
            in_transit = fmax(in_transit, c->activation_bytes[ND_RECOMPUTE_OFF]);
        }
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
            int64_t n = w->n[k][r];
            kind_total += n;
            if (!n) continue;
            m.act += (double)n * c->activation_bytes[r];
            m.tensors += (double)n * c->activation_tensors[r];
            m.collective +=
                (double)n * (c->collective_bytes_bwd[r] + (both_passes ? c->collective_bytes_fwd : 0));
            m.layer_working = fmax(m.layer_working, c->working_bytes[r]);
        }
        if (kind_total) {
            m.buffers = fmax(m.buffers, c->buffer_bytes);
            layer_params_max = fmax(layer_params_max, w->layer_ne[k] + w->layer_e[k]);
        }
    }
    m.act = m.act * w->inflight + in_transit;
    m.collective /= (double)(s->vpp > 1 ? s->vpp : 1); /* one chunk's layers per pass */
    m.tensors *= w->inflight;
    if (w->first) {
        m.act += w->inflight * costs->embedding.activation_bytes[0];
        m.ends_working = fmax(m.ends_working, costs->embedding.working_bytes[0]);
    }
    if (w->last) {
        m.act += w->inflight * costs->head.activation_bytes[0];
        m.ends_working = fmax(m.ends_working, costs->head.working_bytes[0]);
    }
    double T = (double)s->mbs * (double)tr->seq_len / (double)s->cp;
    if (s->pp > 1) /* send and receive buffers of activations and their gradients */
        m.buffers += 4.0 * tr->param_bytes * T * (double)ctx->model->hidden / (s->sp ? (double)s->tp : 1);
    if (zero == 3 && nd_train_reshard_after_forward(tr, s->pp)) {
        /* FSDP: the largest unit gathered (a layer, or the embedding or output projection:
         * their own units), its unsharded gradient in the compute precision and the
         * reduce-scatter's input in the reduce precision, and the next layer prefetched. */
        double v = (double)nd_train_padded_vocab(tr, ctx->model->vocab, s->tp),
               h = (double)ctx->model->hidden;
        double ends = (w->first || w->last) ? v * h / (double)s->tp : 0;
        double unit = fmax(layer_params_max, ends);
        m.buffers += unit * (2.0 * tr->param_bytes + tr->grad_bytes) + layer_params_max * tr->param_bytes;
    } else if (zero == 3 && s->mb == 1) { /* the weights stay gathered (below): a layer's gradients */
        m.buffers += layer_params_max * tr->grad_bytes;
    }
    return m;
}

/* Collective buffers the caching allocator holds after they are freed. Where the process group
 * records a collective's tensors on its stream (recordStream), a freed buffer is not reused
 * until the device has run that collective; the host, launching ahead of a device-bound step,
 * frees every buffer of the pass it leads by before the device gets there, so the pass's
 * buffers stay reserved beside its peak (pytorch#76861; torchtitan#735). They are the first
 * thing the allocator gives back: before failing a request it waits for the device and frees
 * them, so they fill at most the device and never make a strategy not fit. */
static void held_buffers(const nd_context *ctx, double collective_bytes, nd_stage_memory *mem)
{
    mem->held_mib = 0;
    if (!nd_train_record_streams(ctx->train)) return;
    double room = nd_device_capacity_mib(ctx->device) - mem->total_mib;
    mem->held_mib = fmax(0.0, fmin(collective_bytes / ND_MIB, room));
    mem->allocator_mib += mem->held_mib;
    mem->reserved_mib += mem->held_mib;
    mem->total_mib += mem->held_mib;
}

/* Adds a block of `bytes` to the distinct sizes seen (the caching allocator serves a request
 * from a cached block of its size, so each size is cached once). */
static void add_block(double *sizes, int *n, double bytes)
{
    if (bytes <= 0) return;
    for (int i = 0; i < *n; i++)
        if (sizes[i] == bytes) return;
    sizes[(*n)++] = bytes;
}

/* The distinct shapes of the stage's linear weights, bytes summed in the compute precision:
 * attention input and output projections, the MLP's, the experts' (all local experts' as one
 * grouped weight, or one expert's), and with `ends` the embedding or output projection. */
static double distinct_weight_bytes(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                    bool experts_grouped, bool ends)
{
    const nd_model *m = ctx->model;
    double t = (double)s->tp, h = (double)m->hidden, d = (double)m->head_dim,
           gate = m->mlp == ND_MLP_GATED ? 2 : 1;
    double sizes[12];
    int n = 0;
    if (m->attention == ND_ATTN_MLA) {
        add_block(sizes, &n, (double)ctx->params.attention / t);
    } else {
        add_block(sizes, &n, h * (double)(m->heads + 2 * m->kv_heads) * d / t);
        add_block(sizes, &n, (double)m->heads * d * h / t);
    }
    int64_t kinds[ND_LAYER_KINDS] = {0, 0};
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) kinds[k] += w->n[k][r];
    if (kinds[ND_LAYER_DENSE]) {
        add_block(sizes, &n, h * (double)m->ffn * gate / t);
        add_block(sizes, &n, (double)m->ffn * h / t);
    }
    if (kinds[ND_LAYER_MOE]) {
        double local = experts_grouped ? (double)m->experts / (double)s->ep : 1,
               etp = (double)(s->etp ? s->etp : s->tp);
        add_block(sizes, &n, local * h * (double)m->moe_ffn * gate / etp);
        add_block(sizes, &n, local * (double)m->moe_ffn * h / etp);
        if (m->shared_experts)
            add_block(sizes, &n, (double)m->shared_experts * h * (double)m->shared_ffn * gate / t);
    }
    if (ends && (w->first || w->last)) add_block(sizes, &n, (double)m->vocab * h / t);
    double bytes = 0;
    for (int i = 0; i < n; i++) bytes += sizes[i];
    return bytes * ctx->train->param_bytes;
}

/* Weight-gradient blocks, bytes. Without fused accumulation (Megatron's
 * gradient_accumulation_fusion off; Megatron before main_grad, whose autograd accumulates into
 * zeroed .grad tensors, had none) each linear's weight gradient is written to a fresh tensor in the compute
 * precision and then added into the gradient buffer; the caching allocator keeps a block of
 * every distinct size for the next layer: the stage's distinct linear shapes (attention input
 * and output projections, the MLP's, the local experts' grouped weights, the embedding or
 * output projection) stay reserved. Under ZeRO-3 FSDP's own buffers hold them. */
static double weight_gradient_blocks(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                     int zero)
{
    const nd_train *tr = ctx->train;
    if (tr->grad_accumulation_fusion || zero == 3) return 0;
    nd_framework f = tr->framework;
    if (f != ND_FRAMEWORK_MEGATRON && f != ND_FRAMEWORK_MEGATRON_LEGACY &&
        f != ND_FRAMEWORK_MEGATRON_DEEPSPEED && f != ND_FRAMEWORK_MINDSPEED)
        return 0;
    return distinct_weight_bytes(ctx, s, w, true, true);
}

/* Transformer Engine's stand-in weight gradients, bytes. With fused accumulation its linear
 * layers add the weight gradient into main_grad and hand autograd a placeholder of the weight's
 * shape instead, one cached tensor per shape and dtype for the life of the process
 * (transformer_engine/pytorch/module/base.py, get_dummy_wgrad; GroupedLinear's experts share
 * one): allocated from the first backward on. Megatron's output layer is its own
 * ColumnParallelLinear, which allocates no placeholder. */
static double dummy_weight_gradients(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w,
                                     int zero)
{
    const nd_train *tr = ctx->train;
    if (!tr->grad_accumulation_fusion || zero == 3 || tr->framework != ND_FRAMEWORK_MEGATRON) return 0;
    return distinct_weight_bytes(ctx, s, w, false, false);
}

/* Memory per device at the stage's peak: what tensors hold, what the caching allocator holds
 * beyond it, and the runtime's own. The allocator (PyTorch's CUDACachingAllocator, and
 * torch_npu's) keeps freed blocks cached for later requests of their size or smaller: the
 * transients of one step (a layer's backward, the logits) reuse each other's blocks, the
 * head's being the larger and the first. The optimizer step's temporaries come last, as
 * tensors the size of parameters: where one is larger than the activation blocks the
 * backward left cached, it cannot split them and takes new segments, so the reserved peak
 * holds both. With expandable segments freed pages serve any request. Large blocks are rounded
 * to 2 MiB: half of that per live activation tensor. docs/cost-model.md §Memory. */
void nd_stage_memory_compute(const nd_context *ctx, const nd_strategy *s, const nd_layer_cache_entry *costs,
                             const nd_stage_work *w, nd_stage_memory *mem)
{
    const nd_train *tr = ctx->train;
    const nd_device *d = ctx->device;
    memset(mem, 0, sizeof *mem);
    mem->first_layer = w->first_layer;
    mem->layers = w->layers;
    mem->inflight = w->inflight;
    int zero = s->zero < 0 ? 0 : s->zero;
    double op = (double)s->op;
    double op_e = (double)nd_strategy_expert_op(s);
    double ne = w->params_ne, e = w->params_e;
    mem->params_mib = (ne / (zero >= 3 ? op : 1) + e / (zero >= 3 ? op_e : 1)) * tr->param_bytes / ND_MIB;
    mem->grads_mib = (ne / (zero >= 2 ? op : 1) + e / (zero >= 2 ? op_e : 1)) * tr->grad_bytes / ND_MIB;
    double local = ne / (zero >= 1 ? op : 1) + e / (zero >= 1 ? op_e : 1);
    if (tr->fp32_grad_copy) mem->grads_mib += local * 4.0 / ND_MIB; /* kept from step to step */
    if (zero == 3 && !nd_train_reshard_after_forward(tr, s->pp)) {
        /* The stage's weights stay gathered from a layer's first forward to its last backward;
         * across micro-batches the gradients accumulate unsharded, reduced at the last
         * (torch.distributed.pipelining turns FSDP's gradient sync off until then; FSDP2
         * accumulates in the reduce dtype). */
        mem->params_mib += (ne + e) * tr->param_bytes / ND_MIB;
        if (s->mb > 1) mem->grads_mib += (ne + e) * tr->grad_bytes / ND_MIB;
    }
    if (!tr->swap_optimizer)
        mem->optimizer_mib = (local * (tr->master_bytes + tr->optimizer_states * tr->state_bytes) -
                              nd_train_host_moment_bytes(tr, local)) /
                             ND_MIB;

    dynamic_bytes m = stage_dynamic(ctx, s, costs, w, zero);
    m.buffers += dummy_weight_gradients(ctx, s, w, zero);
    double fp8_copy_bytes, fp8_weights = nd_stage_fp8_weight_cache(ctx, s, w, &fp8_copy_bytes);
    m.buffers += fp8_weights * fp8_copy_bytes;
    double transient = step_transient_bytes(ctx, s, w, local);
    double working = fmax(m.layer_working, m.ends_working);
    double dynamic = m.act + working + m.buffers;
    mem->activations_mib = m.act / ND_MIB;
    mem->buffers_mib = m.buffers / ND_MIB;
    mem->working_mib = fmax(working, transient - m.act - m.buffers) / ND_MIB;
    double rounding = m.tensors * 1.0 * ND_MIB;
    double cached = 0;
    if (!nd_train_expandable_segments(tr)) {
        /* a parameter-sized temporary against the activation blocks the backward leaves */
        double block = m.tensors > 0 ? m.act / m.tensors : 0;
        double weight = 0; /* the largest fp32 parameter-sized temporary: about a layer's params
                              over its four big matrices, x 4 bytes */
        for (int k = 0; k < ND_LAYER_KINDS; k++) weight = fmax(weight, w->layer_ne[k] + w->layer_e[k]);
        if (transient > 0 && weight > block) cached = fmin(transient, dynamic);
        cached += rounding + weight_gradient_blocks(ctx, s, w, zero);
    } else {
        cached = 2.0 * ND_MIB * (m.tensors > 0 ? 1 : 0); /* one partly used page */
    }
    mem->allocator_mib = cached / ND_MIB;
    mem->allocated_mib = mem->params_mib + mem->grads_mib + mem->optimizer_mib + mem->activations_mib +
                         mem->working_mib + mem->buffers_mib;
    mem->reserved_mib = mem->allocated_mib + mem->allocator_mib;
    mem->context_mib = d->runtime_reserve_mib + communicators(ctx, s) * d->comm_buffer_mib;
    mem->total_mib = mem->reserved_mib + mem->context_mib;
    held_buffers(ctx, m.collective, mem);
}

double nd_stage_memory_firm_mib(const nd_stage_memory *m)
{
    return m->total_mib - m->held_mib;
}

void nd_stage_memory_components(const nd_stage_memory *m, double out[ND_MEMORY_COMPONENTS])
{
    const double v[ND_MEMORY_COMPONENTS] = {m->params_mib,
                                            m->grads_mib,
                                            m->optimizer_mib,
                                            m->activations_mib,
                                            m->working_mib,
                                            m->buffers_mib,
                                            m->allocator_mib - m->held_mib,
                                            m->context_mib,
                                            m->held_mib};
    memcpy(out, v, sizeof v);
}
