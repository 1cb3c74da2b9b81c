/*
 * layer.c — one decoder layer, the embedding and the head, priced for one
 * micro-batch on one device.
 *
 * The layer is walked operator by operator, as Megatron-LM runs it: GEMMs
 * (forward, input-gradient and weight-gradient shapes priced separately),
 * fused attention, memory-bound kernels, and the collectives TP/SP, EP and
 * CP add (layer_comm.c). The same walk records the activations each operator keeps for the
 * backward pass, following Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation in Large Transformer Models", arXiv:2205.05198, §4), so that
 * for a GPT layer without flash attention the totals are their
 * sbh(34 + 5as/h) and its TP, SP, selective and full-recompute variants.
 */
#include "nd/costmodel/layer.h"

#include <math.h>
#include <string.h>

#include "kernels.h"
#include "layer_internal.h"
#include "nd/costmodel/collective.h"

/* A GEMM of M x N x K in precision p, forward and both backward GEMMs: one kernel forward,
 * two backward, one host operator each way (the autograd node launches both). */
static void gemm_at(acc *a, const dims *x, nd_gemm_precision p, double M, double N, double K)
{
    if (M <= 0 || N <= 0 || K <= 0) return;
    double e = x->e;
    double fwd = nd_linear_ms(x->d, p, ND_PASS_FORWARD, M, K, N, e);
    a->fwd += fwd;
    double dgrad = nd_linear_ms(x->d, p, ND_PASS_INPUT_GRAD, M, K, N, e);  /* dX = dY W^T */
    double wgrad = nd_linear_ms(x->d, p, ND_PASS_WEIGHT_GRAD, M, K, N, e); /* dW = X^T dY */
    a->dgrad += dgrad;
    a->wgrad += wgrad;
    a->gemm_bwd += dgrad + wgrad;
    a->flops += 2.0 * M * N * K;
    a->kernels_fwd += 1;
    a->kernels_bwd += 2;
    a->ops_fwd += 1;
    a->ops_bwd += 1;
    a->gemm_fwd += fwd;
    a->mm_out_bytes += e * M * N;
}

/* A memory-bound operator of `kernels` kernels each way, priced as its class forward and
 * backward (the device's measured classes: docs/devices.md §Kernel tables). */
static void memory_op(acc *a, const dims *x, nd_memop fwd_class, nd_memop bwd_class, double fwd_bytes,
                      double bwd_bytes, double kernels)
{
    a->fwd += nd_memop_ms(x->d, fwd_class, fwd_bytes);
    a->dgrad += nd_memop_ms(x->d, bwd_class, bwd_bytes);
    a->kernels_fwd += kernels;
    a->kernels_bwd += kernels;
    a->ops_fwd += kernels;
    a->ops_bwd += kernels;
}

static void elementwise(acc *a, const dims *x, double fwd_bytes, double bwd_bytes, double kernels)
{
    memory_op(a, x, ND_MEMOP_DEFAULT, ND_MEMOP_DEFAULT, fwd_bytes, bwd_bytes, kernels);
}

/* A normalisation or softmax: a reduction along each row, which some devices' vector units
 * run below their memory's rate (Ascend's; devices.md, norm_hbm_efficiency). */
static void reduction(acc *a, const dims *x, double fwd_bytes, double bwd_bytes, double kernels)
{
    memory_op(a, x, ND_MEMOP_NORM, ND_MEMOP_NORM, fwd_bytes, bwd_bytes, kernels);
}

/* An activation or a rotary embedding: transcendental functions per element. */
static void activation(acc *a, const dims *x, double fwd_bytes, double bwd_bytes, double kernels)
{
    memory_op(a, x, ND_MEMOP_ACTIVATION, ND_MEMOP_ACTIVATION, fwd_bytes, bwd_bytes, kernels);
}

/* FP8 linear layers cast (and transpose, for the weight gradient) their input forward and
 * their output gradient backward: a 16-bit read and two 1-byte writes each, plus one more
 * read of the tensor for its amax under current scaling (Transformer Engine's
 * cast_transpose; Micikevicius et al. 2022, "FP8 Formats for Deep Learning"). Weights are
 * cast once per step (Megatron passes is_first_microbatch), not per micro-batch. */
static void fp8_casts(acc *a, const dims *x, double M, double N, double K, double splits)
{
    if (x->linear != ND_GEMM_FP8) return;
    bool current = x->t->fp8_recipe == ND_FP8_CURRENT;
    double per_element = x->e + 2 + (current ? x->e : 0), kernels = current ? 2 : 1;
    /* Transformer Engine casts a weight once per step; torchao's Float8Linear casts it (and
     * its transpose) in every forward and backward, amax first under dynamic scaling
     * (torchao/float8/float8_linear.py) */
    bool cached = nd_framework_profile_of(x->t->framework)->fp8_saves_fp8 && x->t->fp8_weight_cache;
    double weight = cached ? 0 : per_element * K * N * splits;
    elementwise(a, x, per_element * M * K + weight, per_element * M * N + weight,
                splits * kernels * (cached ? 1 : 2));
}

/* Transformer Engine's GroupedLinear casts each expert's slice from one call (fused_multi_quantize):
 * its C++ loop launches a kernel an expert at a launch's host time, not an operator's, so of the
 * `casts` kernels fp8_casts counted as operators each way only that share stays, plus the call;
 * and its Python loop looks up each expert's FP8 weight workspace every micro-batch
 * (get_weight_workspace, forward). */
static void grouped_fp8_host(acc *a, const dims *x, double groups)
{
    if (x->linear != ND_GEMM_FP8) return;
    bool cached = nd_framework_profile_of(x->t->framework)->fp8_saves_fp8 && x->t->fp8_weight_cache;
    double casts = groups * (x->t->fp8_recipe == ND_FP8_CURRENT ? 2 : 1) * (cached ? 1 : 2);
    double launch_ops = x->d->host_dispatch_us > 0 ? x->d->kernel_launch_us / x->d->host_dispatch_us : 0;
    double c_loop = 1 + casts * launch_ops - casts;
    a->ops_fwd += c_loop + groups;
    a->ops_bwd += c_loop;
}

/* A linear layer's GEMM: in FP8 when the run trains in FP8, with its casts. */
static void gemm(acc *a, const dims *x, double M, double N, double K)
{
    gemm_at(a, x, x->linear, M, N, K);
    fp8_casts(a, x, M, N, K, 1);
}

static void dims_init(dims *x, const nd_layer_inputs *in, const nd_layer_shape *sh)
{
    memset(x, 0, sizeof *x);
    x->d = in->device;
    x->t = in->train;
    x->m = in->model;
    x->sh = *sh;
    x->e = in->train->param_bytes;
    /* fp32 runs multiply in TF32 when the run allows it, else in plain FP32; FP8 training
     * (Transformer Engine, DeepSeek-V3) runs the linear layers' GEMMs at the FP8 peak while
     * attention, norms and the rest stay in 16-bit. */
    x->other = in->train->param_bytes >= 4 ? (in->train->tf32 ? ND_GEMM_TF32 : ND_GEMM_FP32) : ND_GEMM_16BIT;
    x->linear = in->train->fp8 && in->device->fp8_tflops > 0 ? ND_GEMM_FP8 : x->other;
    x->eager = nd_framework_profile_of(in->train->framework)->eager_elementwise && !in->train->compile;
    x->s = (double)in->seq_len;
    x->s_q = x->s / (double)sh->cp;
    x->T = (double)sh->mbs * x->s_q;
    x->Tn = sh->sp ? x->T / (double)sh->tp : x->T;
    x->h = (double)in->model->hidden;
}

/* A pre-norm: reads and writes Tn x h; keeps its input (always) and its output, the next
 * GEMM's input (droppable under selective recompute of norms). */
static void norm(acc *a, kept *k, const dims *x, acc *norm_acc)
{
    double bytes = x->e * x->Tn * x->h;
    if (x->eager) {
        /* Eager RMSNorm (torchtitan, Hugging Face): upcast, square, mean, rsqrt, scale, cast
         * back, weight: about 36 bytes per 16-bit element forward in seven kernels, and their
         * gradients backward (18 and 27 element sizes). */
        reduction(a, x, 18 * bytes, 27 * bytes, 7);
        if (norm_acc) reduction(norm_acc, x, 18 * bytes, 0, 7);
    } else {
        reduction(a, x, 2 * bytes, 3 * bytes, 1);
        if (norm_acc) reduction(norm_acc, x, 2 * bytes, 0, 1);
    }
    k->always += bytes;
    k->norm += bytes;
}

/* Dropout (when the run uses it) and the residual add closing a block. */
static void residual(acc *a, kept *k, const dims *x)
{
    double bytes = x->e * x->Tn * x->h;
    elementwise(a, x, 3 * bytes, 3 * bytes, 1);
    if (x->t->dropout > 0) {
        elementwise(a, x, 2 * bytes + x->Tn * x->h, 2 * bytes + x->Tn * x->h, 0);
        k->always += x->Tn * x->h; /* one-byte mask */
    }
}

/* What a CP ring does beside its attention kernels, per rank and layer: `out` elements of the
 * local output, `kv` of the local K and V at the query's heads, `n` steps. Transformer Engine
 * (flash_attn_fwd_out_correction) merges each step's partial output into the running one by its
 * log-sum-exp in fp32, 12 bytes an element, and sums each block's dK, dV likewise. PyTorch's ring
 * (_templated_ring_attention and its backward, torchtitan's CP) works in fresh fp32 tensors:
 * forward, each later step upcasts the block's output (6 bytes an element), merges it (out - block
 * out: 12; times the sigmoid of the log-sum-exp difference: 8; subtracted: 12), and on the half of
 * the steps that update one chunk concatenates the whole output again (8, 4 on average), 42 in
 * all; each exchange concatenates K and V (4 bytes an element of them); the first upcast and the
 * last downcast 12. Backward, each step adds dQ into its fp32 sum (10, 14 with the chunk updates)
 * and dK, dV likewise (14), concatenates their fp32 sums for the rotation (8) and K, V again (4);
 * the zeroed sums and the final downcasts 10 an element of each. K and V are at every query head:
 * torchtitan repeats them (repeat_kv) before the attention. */
void nd_ring_merge_bytes(bool torch_ring, double out, double kv, double n, double *fwd_bytes,
                         double *bwd_bytes, double *kernels)
{
    if (torch_ring) {
        *fwd_bytes = (n - 1) * (42 * out + 4 * kv) + 12 * out;
        *bwd_bytes = n * (14 * out + 26 * kv) + 10 * (out + kv);
        *kernels = 8 * (n - 1) + 2;
        return;
    }
    *fwd_bytes = *bwd_bytes = (n - 1) * 12 * out;
    *kernels = 2 * (n - 1);
}

static void ring_merges(acc *a, const dims *x, double out, double kv, double n)
{
    double fwd, bwd, kernels;
    nd_ring_merge_bytes(nd_framework_profile_of(x->t->framework)->torch_ring_attention, out, kv, n, &fwd,
                        &bwd, &kernels);
    elementwise(a, x, fwd, bwd, kernels);
}

/* The share of the layers whose fused attention sees a sliding window of keys (layer_types'
 * sliding_attention: gpt-oss, Gemma). Under CP each rank's block would need the window's own
 * ring, which nd does not price: there, as unfused, every layer is full attention (an upper bound). */
static double sliding_share(const dims *x, bool ring)
{
    const nd_model *m = x->m;
    if (ring || x->s_q != x->s || m->sliding_window <= 0 || (double)m->sliding_window >= x->s ||
        m->layers <= 0)
        return 0;
    return (double)m->sliding_layers / (double)m->layers;
}

/* The attention core: scores, softmax, dropout, weighted values. `core` receives the same
 * work (selective recompute repeats it; context parallelism overlaps its blocks). */
static void attention_core(acc *a, kept *k, const dims *x, double heads, double dqk, double dv, acc *core)
{
    double b = (double)x->sh.mbs;
    acc tmp = {0};
    if (x->t->flash_attention) {
        /* Causal masking halves the work; the backward recomputes the scores: five
         * matmuls against the forward's two (Dao 2023, FlashAttention-2 §3). Forward and
         * backward kernels reach different fractions of peak (docs/devices.md). A ring of CP
         * ranks runs one kernel per K/V block. */
        double flops = 2.0 * b * x->s_q * x->s * heads * (dqk + dv) * 0.5;
        double blocks = (double)nd_train_cp_ring_degree(x->t, x->sh.cp);
        bool ring = blocks > 1;
        /* Causal attention runs like full attention over half the keys (the diagonal
         * blocks' imbalance), so its efficiency is that of s / 2. A CP ring's kernel sees one
         * rank's block of keys, s / CP, split in the two halves of the load-balanced layout. */
        double keys = ring ? x->s / (2 * blocks) : x->s / 2;
        nd_attention_kernel kernel = nd_train_attention_kernel(x->t);
        nd_attention_rates rates = kernel == ND_ATTENTION_TRITON  ? ND_ATTN_RATES_TRITON
                                   : kernel == ND_ATTENTION_FA2   ? ND_ATTN_RATES_FA2
                                   : kernel == ND_ATTENTION_CUDNN ? ND_ATTN_RATES_CUDNN
                                                                  : ND_ATTN_RATES_BEST;
        double kv_heads = x->m->attention == ND_ATTN_MLA ? heads : (double)x->m->kv_heads / (double)x->sh.tp;
        nd_attention_shape shape = {b, heads, kv_heads, dqk, dv};
        /* A window of w keys: query i sees min(i, w) of them, s w - w^2 / 2 in all. */
        double slide = sliding_share(x, ring), w = (double)x->m->sliding_window;
        double window_keys = slide > 0 ? x->s * w - 0.5 * w * w : 0;
        double window_flops = 2.0 * b * heads * (dqk + dv) * window_keys;
        tmp.fwd = (1 - slide) * nd_attention_ms(x->d, flops, keys, false, rates, &shape);
        tmp.dgrad = (1 - slide) * nd_attention_ms(x->d, 2.5 * flops, keys, true, rates, &shape);
        if (slide > 0) {
            double mean_keys = window_keys / x->s;
            tmp.fwd += slide * nd_attention_ms(x->d, window_flops, mean_keys, false, rates, &shape);
            tmp.dgrad += slide * nd_attention_ms(x->d, 2.5 * window_flops, mean_keys, true, rates, &shape);
        }
        tmp.flops = (1 - slide) * flops + slide * window_flops;
        tmp.kernels_fwd = blocks;
        tmp.kernels_bwd = 3 * blocks; /* FA2: dO.O, dQdKdV, dQ cast */
        tmp.ops_fwd = blocks;
        tmp.ops_bwd = blocks;
        if (ring) ring_merges(&tmp, x, b * x->s_q * heads * dv, b * x->s_q * heads * (dqk + dv), blocks);
        k->core_attn += 4.0 * x->T * heads; /* fp32 log-sum-exp per query and head */
    } else {
        /* Unfused: two batched GEMMs over the full (masked) score matrix, softmax and
         * dropout as memory-bound kernels on b x heads x s_q x s elements. */
        double rows = b * heads * x->s_q, S = rows * x->s;
        gemm_at(&tmp, x, x->other, rows, x->s, dqk); /* 16-bit even under FP8 */
        gemm_at(&tmp, x, x->other, rows, dv, x->s);
        reduction(&tmp, x, 2 * x->e * S, 3 * x->e * S, 1); /* the softmax */
        k->core_attn += x->e * S;                          /* softmax output */
        k->score_grads += 2 * x->e * S; /* backward: gradients of the probabilities and scores */
        if (x->t->dropout > 0) {
            elementwise(&tmp, x, 2 * x->e * S + S, 2 * x->e * S + S, 1);
            k->core_attn += S + x->e * S; /* mask and dropout output */
        }
        tmp.dgrad += tmp.wgrad;
        tmp.wgrad = 0; /* no weights: both GEMMs are input gradients */
    }
    a->fwd += tmp.fwd;
    a->dgrad += tmp.dgrad;
    a->flops += tmp.flops;
    a->kernels_fwd += tmp.kernels_fwd;
    a->kernels_bwd += tmp.kernels_bwd;
    a->ops_fwd += tmp.ops_fwd;
    a->ops_bwd += tmp.ops_bwd;
    core->fwd += tmp.fwd;
    core->dgrad += tmp.dgrad;
    core->flops += tmp.flops;
    core->kernels_fwd += tmp.kernels_fwd;
    core->ops_fwd += tmp.ops_fwd;
}

static void attention_mha(acc *a, kept *k, const dims *x, acc *core)
{
    const nd_model *m = x->m;
    double t = (double)x->sh.tp, heads = (double)m->heads / t, kvh = (double)m->kv_heads / t;
    double dh = (double)m->head_dim, T = x->T;
    gemm(a, x, T, (heads + 2 * kvh) * dh, x->h);
    a->col_dgrad += nd_linear_ms(x->d, x->linear, ND_PASS_INPUT_GRAD, T, x->h, (heads + 2 * kvh) * dh, x->e);
    if (m->max_positions == 0) { /* rotary, fused; eager: upcast, complex multiply, cast back */
        double rot = x->e * T * (heads + kvh) * dh;
        if (x->eager)
            activation(a, x, 14 * rot, 14 * rot, 6);
        else
            activation(a, x, 2 * rot, 2 * rot, 1);
    }
    if (m->qk_norm) {
        reduction(a, x, 2 * x->e * T * (heads + kvh) * dh, 3 * x->e * T * (heads + kvh) * dh, 2);
        k->always += x->e * T * (heads + kvh) * dh;
    }
    k->always += x->e * T * (heads + 2 * kvh) * dh; /* Q, K, V */
    attention_core(a, k, x, heads, dh, dh, core);
    k->always += x->e * T * heads * dh; /* context: the output projection's input */
    k->fp8_able += x->e * T * heads * dh;
    gemm(a, x, T, x->h, heads * dh);
}

static void attention_mla(acc *a, kept *k, const dims *x, acc *core, acc *up)
{
    const nd_model *m = x->m;
    double t = (double)x->sh.tp, heads = (double)m->heads / t, T = x->T, e = x->e;
    double dqk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim), dv = (double)m->v_head_dim;
    double ckv = (double)m->kv_lora_rank, cq = (double)m->q_lora_rank;
    double rope = (double)m->qk_rope_head_dim;
    /* The down-projections are small and replicated on every TP rank (Megatron-core MLA). */
    if (cq > 0) {
        gemm(a, x, T, cq, x->h);
        reduction(a, x, 2 * e * T * cq, 3 * e * T * cq, 1);
        k->always += 2 * e * T * cq; /* latent query, normed */
        gemm(a, x, T, heads * dqk, cq);
        gemm(up, x, T, heads * dqk, cq);
    } else {
        gemm(a, x, T, heads * dqk, x->h);
    }
    gemm(a, x, T, ckv + rope, x->h);
    reduction(a, x, 2 * e * T * ckv, 3 * e * T * ckv, 1);
    k->always += e * T * (ckv + rope) + e * T * ckv; /* latent KV, normed */
    gemm(a, x, T, heads * ((double)m->qk_nope_head_dim + dv), ckv);
    gemm(up, x, T, heads * ((double)m->qk_nope_head_dim + dv), ckv);
    activation(a, x, 2 * e * T * (heads + 1) * rope, 2 * e * T * (heads + 1) * rope, 1); /* rotary */
    activation(up, x, 2 * e * T * (heads + 1) * rope, 0, 1);
    k->mla_up += e * T * heads * (2 * dqk + dv); /* Q, K, V per head */
    attention_core(a, k, x, heads, dqk, dv, core);
    k->always += e * T * heads * dv;
    k->fp8_able += e * T * heads * dv;
    gemm(a, x, T, x->h, heads * dv);
}

/* `groups` GEMMs sharing M tokens (the local experts: M / groups tokens each) of N x K: one
 * grouped kernel (moe_grouped_gemm) or one GEMM per expert. groups 1: a plain linear. */
static void gemm_groups(acc *a, const dims *x, double groups, double M, double N, double K)
{
    if (groups <= 1) {
        gemm(a, x, M, N, K);
        return;
    }
    if (M <= 0 || N <= 0 || K <= 0) return;
    double m = M / groups, e = x->e;
    nd_gemm_precision p = x->linear;
    bool per_expert = nd_framework_profile_of(x->t->framework)->grouped_gemm_per_expert;
    if (x->t->moe_grouped_gemm) {
        double fwd = nd_grouped_linear_ms(x->d, p, ND_PASS_FORWARD, groups, m, K, N, e);
        a->gemm_fwd += fwd;
        a->fwd += fwd;
        double bwd = nd_grouped_linear_ms(x->d, p, ND_PASS_INPUT_GRAD, groups, m, K, N, e),
               wgrad = nd_grouped_linear_ms(x->d, p, ND_PASS_WEIGHT_GRAD, groups, m, K, N, e);
        a->dgrad += bwd;
        a->wgrad += wgrad;
        a->gemm_bwd += bwd + wgrad;
        /* Transformer Engine's GroupedLinear runs a GEMM per expert, each launched from its C++
         * loop (general_grouped_gemm: cuBLASLt's descriptors and launch per GEMM, on the host
         * like an operator); a grouped kernel is one call */
        double kernels = per_expert ? groups : 1;
        a->kernels_fwd += kernels;
        a->kernels_bwd += 2 * kernels;
        a->ops_fwd += kernels;
        a->ops_bwd += 2 * kernels;
    } else {
        double fwd = groups * nd_linear_ms(x->d, p, ND_PASS_FORWARD, m, K, N, e);
        a->gemm_fwd += fwd;
        a->fwd += fwd;
        double bwd = groups * nd_linear_ms(x->d, p, ND_PASS_INPUT_GRAD, m, K, N, e),
               wgrad = groups * nd_linear_ms(x->d, p, ND_PASS_WEIGHT_GRAD, m, K, N, e);
        a->dgrad += bwd;
        a->wgrad += wgrad;
        a->gemm_bwd += bwd + wgrad;
        a->kernels_fwd += groups;
        a->kernels_bwd += 2 * groups;
        a->ops_fwd += groups;
        a->ops_bwd += groups;
    }
    a->flops += 2.0 * M * N * K;
    a->mm_out_bytes += e * M * N;
    fp8_casts(a, x, M, N, K, x->t->moe_grouped_gemm && !per_expert ? 1 : groups);
    if (x->t->moe_grouped_gemm && per_expert) grouped_fp8_host(a, x, groups);
}

/* A dense MLP of `width` over `tokens`, TP-split by `split`, as `groups` experts. */
static void mlp(acc *a, kept *k, const dims *x, double tokens, double width, double split, double groups,
                acc *act, bool routed)
{
    double w = width / split, e = x->e;
    double up = x->m->mlp == ND_MLP_GATED ? 2 * w : w; /* gate and up, or up alone */
    gemm_groups(a, x, groups, tokens, up, x->h);
    if (groups <= 1) a->col_dgrad += nd_linear_ms(x->d, x->linear, ND_PASS_INPUT_GRAD, tokens, x->h, up, e);
    if (x->m->mlp == ND_MLP_GATED) {
        double kernels = x->eager ? 2 : 1; /* eager: silu, then the product */
        double fwd = (x->eager ? 5 : 3) * e * tokens * w, bwd = (x->eager ? 8 : 5) * e * tokens * w;
        activation(a, x, fwd, bwd, kernels);
        if (act) activation(act, x, fwd, 0, kernels);
        k->always += 2 * e * tokens * w; /* gate and up outputs */
        if (routed) k->swiglu_in += 2 * e * tokens * w;
    } else {
        activation(a, x, 2 * e * tokens * w, 3 * e * tokens * w, 1);
        if (act) activation(act, x, 2 * e * tokens * w, 0, 1);
        k->always += e * tokens * w; /* activation input */
    }
    /* activation output: the down projection's input */
    if (routed)
        k->moe_act += e * tokens * w;
    else
        k->activation += e * tokens * w;
    gemm_groups(a, x, groups, tokens, x->h, w);
}

/* Tokens one device's experts process per micro-batch (balanced routing):
 * T x top-k x ETP / TP, padded to the capacity factor when tokens are dropped. */
static double expert_tokens(const dims *x)
{
    const nd_model *m = x->m;
    double tokens = x->T * (double)m->experts_per_token * (double)x->sh.etp / (double)x->sh.tp;
    /* dropless, the busiest rank gets its imbalance; capacity pads every expert alike */
    return m->capacity_factor > 0 ? tokens * m->capacity_factor : tokens * x->t->moe_imbalance;
}

static void moe(acc *a, kept *k, const dims *x, acc *act, acc *act_moe, double *dispatch_bytes)
{
    const nd_model *m = x->m;
    double e = x->e, E = (double)m->experts, Tr = x->Tn;
    gemm_at(a, x, x->other, Tr, E, x->h); /* router */
    /* Router softmax or sigmoid, top-k, the load-balancing loss: small fp32 kernels. */
    elementwise(a, x, 3 * 4 * Tr * E, 3 * 4 * Tr * E, 6);
    k->always += 4 * Tr * E;
    double M = expert_tokens(x), local = E / (double)x->sh.ep;
    /* Token permutation before the experts and its inverse after: sort, gather, scatter. */
    memory_op(a, x, ND_MEMOP_PERMUTE_FWD, ND_MEMOP_PERMUTE_BWD, 4 * e * M * x->h, 4 * e * M * x->h, 6);
    /* An all-to-all lands the tokens grouped by the rank they came from: the dispatcher sorts
     * them by local expert for the grouped GEMM and back before the combine, each way a read and
     * a write of them (Megatron-core's token_dispatcher.py, sort_chunks_by_idxs; the host calls
     * are among the framework's MoE glue). DeepEP's dispatch lands them grouped by expert. */
    if (x->t->moe_dispatcher == ND_MOE_ALLTOALL && x->sh.ep > 1 && local > 1) {
        a->fwd += nd_memop_ms(x->d, ND_MEMOP_PERMUTE_FWD, 4 * e * M * x->h);
        a->dgrad += nd_memop_ms(x->d, ND_MEMOP_PERMUTE_BWD, 4 * e * M * x->h);
        a->kernels_fwd += 2;
        a->kernels_bwd += 2;
    }
    /* the experts' inputs; their outputs too where the combine applies the routing weights
     * (the weights' gradient needs them), not where the experts' activation does */
    k->always += (nd_train_moe_probs_in_expert(x->t) ? 1 : 2) * e * M * x->h;
    k->fp8_able += e * M * x->h;
    mlp(a, k, x, M, (double)m->moe_ffn, (double)x->sh.etp, local, act_moe, true);
    /* the router's and dispatcher's host bookkeeping, as the framework's code runs it */
    const nd_framework_profile *fw = nd_framework_profile_of(x->t->framework);
    a->ops_fwd += fw->moe_glue_ops_fwd;
    a->ops_bwd += fw->moe_glue_ops_bwd + fw->moe_expert_ops_bwd * local;
    if (m->shared_experts) {
        mlp(a, k, x, x->T, (double)(m->shared_experts * m->shared_ffn), (double)x->sh.tp, 1, act, false);
        if (m->shared_expert_gate) gemm_at(a, x, x->other, x->T, 1, x->h);
    }
    *dispatch_bytes = 2 * e * M * x->h;
}

/* Time, launches and host work of each recompute mode: what the layer runs once (forward,
 * backward, their communication), plus what each mode repeats in backward. */
static void layer_modes(const dims *x, nd_layer_kind kind, const acc *all, const acc *replay_sel,
                        const comm *tp, const comm *ep, const comm *cp, nd_layer_cost *out)
{
    const nd_framework_profile *fw = nd_framework_profile_of(x->t->framework);
    double comm_k_fwd = tp->kernels_fwd + ep->kernels_fwd + cp->kernels_fwd;
    double comm_k_bwd = tp->kernels_bwd + ep->kernels_bwd + cp->kernels_bwd;
    /* Dropless MoE reads the tokens each expert got on the host, to size the grouped GEMM and
     * the all-to-all splits: one synchronisation per forward (Megatron's token dispatcher). */
    double syncs_fwd = kind == ND_LAYER_MOE && x->m->capacity_factor <= 0 ? 1 : 0;
    double k_once = all->kernels_fwd + all->kernels_bwd + comm_k_fwd + comm_k_bwd;
    /* A collective call costs the host more than an operator (collective_host_us). */
    double per_call = x->d->host_dispatch_us > 0 ? fw->collective_host_us / x->d->host_dispatch_us : 0;
    double ops_fwd = all->ops_fwd + per_call * comm_k_fwd + fw->glue_ops_fwd;
    double ops_once = ops_fwd + all->ops_bwd + per_call * comm_k_bwd + fw->glue_ops_bwd;
    out->host_ops_fwd = ops_fwd;
    out->comm_fwd_ms = tp->fwd_ms + ep->fwd_ms + cp->fwd_ms;
    out->kernels_fwd = all->kernels_fwd + comm_k_fwd;
    out->recompute_ms[ND_RECOMPUTE_OFF] = 0;
    out->recompute_ms[ND_RECOMPUTE_SELECTIVE] = replay_sel->fwd;
    out->recompute_ms[ND_RECOMPUTE_FULL] = all->fwd;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        bool full = r == ND_RECOMPUTE_FULL;
        out->tp_ms[r] = tp->fwd_ms + tp->bwd_ms + (full ? tp->fwd_ms : 0);
        out->ep_ms[r] = ep->fwd_ms + ep->bwd_ms + (full ? ep->fwd_ms : 0);
        out->cp_ms[r] = cp->fwd_ms + cp->bwd_ms + (full ? cp->fwd_ms : 0);
        out->host_syncs[r] = syncs_fwd * (full ? 2 : 1);
        out->collective_bytes_bwd[r] = tp->bytes_bwd + ep->bytes_bwd + cp->bytes_bwd +
                                       (full ? tp->bytes_fwd + ep->bytes_fwd + cp->bytes_fwd : 0);
    }
    out->collective_bytes_fwd = tp->bytes_fwd + ep->bytes_fwd + cp->bytes_fwd;
    out->kernels[ND_RECOMPUTE_OFF] = k_once;
    out->kernels[ND_RECOMPUTE_SELECTIVE] = k_once + replay_sel->kernels_fwd;
    out->kernels[ND_RECOMPUTE_FULL] = k_once + all->kernels_fwd + comm_k_fwd;
    out->host_ops[ND_RECOMPUTE_OFF] = ops_once;
    out->host_ops[ND_RECOMPUTE_SELECTIVE] = ops_once + replay_sel->ops_fwd + fw->checkpoint_ops;
    out->host_ops[ND_RECOMPUTE_FULL] = ops_once + ops_fwd + fw->checkpoint_ops;
}

/* torchtitan's per-op policy saves the 1st, 3rd, 5th ... aten.mm output of a layer (its
 * _get_custom_policy counts them: "every second mm" is recomputed). A dense GQA layer runs wq,
 * wk, wv, wo, then w1, w3, w2 (w1, w2 without a gate), so it keeps wq, wv, w1 and w2's; where
 * the order is not fixed here (MLA, MoE) half of the outputs stand for the odd ones. */
static double op_sac_saved_mm_bytes(const dims *x, nd_layer_kind kind, double all_mm_out_bytes)
{
    const nd_model *m = x->m;
    if (m->attention == ND_ATTN_MLA || kind != ND_LAYER_DENSE) return 0.5 * all_mm_out_bytes;
    double t = (double)x->sh.tp, dh = (double)m->head_dim, f = (double)m->ffn / t;
    double widths[7] = {(double)m->heads * dh / t,
                        (double)m->kv_heads * dh / t,
                        (double)m->kv_heads * dh / t,
                        x->h,
                        f,
                        f,
                        x->h};
    if (m->mlp != ND_MLP_GATED) widths[5] = x->h; /* w1, w2: six matmuls */
    int n = m->mlp == ND_MLP_GATED ? 7 : 6;
    double saved = 0;
    for (int i = 0; i < n; i += 2) saved += widths[i];
    return x->e * x->T * saved;
}

static void acc_add(acc *a, const acc *b)
{
    a->fwd += b->fwd;
    a->dgrad += b->dgrad;
    a->wgrad += b->wgrad;
    a->flops += b->flops;
    a->kernels_fwd += b->kernels_fwd;
    a->kernels_bwd += b->kernels_bwd;
    a->ops_fwd += b->ops_fwd;
    a->ops_bwd += b->ops_bwd;
    a->col_dgrad += b->col_dgrad;
    a->gemm_fwd += b->gemm_fwd;
    a->gemm_bwd += b->gemm_bwd;
    a->mm_out_bytes += b->mm_out_bytes;
}

void nd_layer_cost_decoder(const nd_layer_inputs *in, nd_layer_kind kind, const nd_layer_shape *sh,
                           nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    const nd_model *m = in->model;
    const nd_train *t = in->train;
    acc att = {0}, ffn = {0}, core = {0}, act = {0}, act_moe = {0}, norms = {0}, mla_up = {0};
    kept k = {0};

    norm(&att, &k, &x, &norms);
    if (m->attention == ND_ATTN_MLA)
        attention_mla(&att, &k, &x, &core, &mla_up);
    else
        attention_mha(&att, &k, &x, &core);
    if (m->post_norms) norm(&att, &k, &x, &norms); /* Gemma 2's sandwich: the block's output normed */
    residual(&att, &k, &x);

    norm(&ffn, &k, &x, &norms);
    double dispatch = 0;
    if (kind == ND_LAYER_MOE)
        moe(&ffn, &k, &x, &act, &act_moe, &dispatch);
    else
        mlp(&ffn, &k, &x, x.T, (double)m->ffn, (double)sh->tp, 1, &act, false);
    if (m->post_norms) norm(&ffn, &k, &x, &norms);
    residual(&ffn, &k, &x);

    acc all = att;
    acc_add(&all, &ffn);
    out->forward_ms = all.fwd;
    out->backward_ms = all.dgrad + all.wgrad;
    out->weight_grad_ms = all.wgrad;
    out->gemm_ms = all.gemm_fwd + all.gemm_bwd;
    out->attention_ms = core.fwd + core.dgrad;
    out->model_flops = all.flops;

    comm none = {0, 0, 0, 0, 0, 0};
    comm tp = sh->tp > 1 || (kind == ND_LAYER_MOE && sh->etp > 1)
                  ? nd_layer_tp_comm(&x, kind, &att, &ffn, &core)
                  : none;
    comm ep = kind == ND_LAYER_MOE && sh->ep > 1 ? nd_layer_ep_comm(&x, dispatch) : none;
    comm cp = sh->cp > 1 ? nd_layer_cp_comm(&x, &core) : none;
    if (kind == ND_LAYER_MOE && sh->ep > 1) out->buffer_bytes = 2 * dispatch;

    /* Recompute modes: what each repeats in backward, and what each keeps. Selective is
     * Megatron's per-module recompute (selective_modules), or torchtitan's per-op policy:
     * the attention's output and every other matmul output saved, every other op replayed. */
    unsigned sel = t->selective_modules;
    /* Transformer Engine under FP8 keeps the linear layers' inputs as the FP8 copies their
     * GEMMs read (its Linear and LayerNormLinear save the cast input for the weight gradient):
     * one byte where the 16-bit tensor took e. */
    if (t->fp8 && nd_framework_profile_of(t->framework)->fp8_saves_fp8) {
        double f = 1.0 / x.e;
        k.always -= k.fp8_able * (1 - f);
        /* DeepSeek-V3's recipe (blockwise scales) caches the experts' SwiGLU inputs in FP8 too
         * (the V3 report §3.3.2) */
        if (t->fp8_recipe == ND_FP8_BLOCKWISE) k.always -= k.swiglu_in * (1 - f);
        k.activation *= f;
        k.moe_act *= f;
        k.norm *= f;
    }
    double kept_off = k.always + k.core_attn + k.activation + k.norm + k.mla_up + k.moe_act;
    double layer_input = x.e * x.Tn * x.h;
    acc replay_sel = {0};
    double dropped;
    if (nd_framework_profile_of(t->framework)->op_selective) {
        double attn_out = x.e * x.T *
                          (double)(m->heads * (m->attention == ND_ATTN_MLA ? m->v_head_dim : m->head_dim)) /
                          (double)sh->tp;
        replay_sel.fwd = all.fwd - core.fwd - 0.5 * all.gemm_fwd;
        replay_sel.kernels_fwd = all.kernels_fwd - core.kernels_fwd;
        replay_sel.ops_fwd = all.ops_fwd - core.ops_fwd;
        double saved =
            layer_input + op_sac_saved_mm_bytes(&x, kind, all.mm_out_bytes) + attn_out + k.core_attn;
        dropped = fmax(0.0, kept_off - saved);
    } else {
        bool moe_act = sel & (ND_SELECTIVE_ACTIVATION | ND_SELECTIVE_MOE_ACT);
        if (sel & ND_SELECTIVE_CORE_ATTN) acc_add(&replay_sel, &core);
        if (sel & ND_SELECTIVE_ACTIVATION) acc_add(&replay_sel, &act);
        if (moe_act) acc_add(&replay_sel, &act_moe);
        if (sel & ND_SELECTIVE_NORM) acc_add(&replay_sel, &norms);
        if (sel & ND_SELECTIVE_MLA_UP) acc_add(&replay_sel, &mla_up);
        dropped = ((sel & ND_SELECTIVE_CORE_ATTN) ? k.core_attn : 0) +
                  ((sel & ND_SELECTIVE_ACTIVATION) ? k.activation : 0) + (moe_act ? k.moe_act : 0) +
                  ((sel & ND_SELECTIVE_NORM) ? k.norm : 0) + ((sel & ND_SELECTIVE_MLA_UP) ? k.mla_up : 0);
    }
    layer_modes(&x, kind, &all, &replay_sel, &tp, &ep, &cp, out);

    double grads = 2 * x.e * x.T * x.h + k.score_grads; /* gradients in and out of the layer */
    out->activation_bytes[ND_RECOMPUTE_OFF] = kept_off;
    out->activation_bytes[ND_RECOMPUTE_SELECTIVE] = kept_off - dropped;
    out->activation_bytes[ND_RECOMPUTE_FULL] = layer_input;
    /* Megatron's layer saves about sixteen tensors for its backward, twelve once selective
     * recompute drops the attention core's, one (its input) under full recompute. */
    out->activation_tensors[ND_RECOMPUTE_OFF] = 16;
    out->activation_tensors[ND_RECOMPUTE_SELECTIVE] = 12;
    out->activation_tensors[ND_RECOMPUTE_FULL] = 1;
    out->working_bytes[ND_RECOMPUTE_OFF] = grads;
    out->working_bytes[ND_RECOMPUTE_SELECTIVE] = grads + dropped;
    out->working_bytes[ND_RECOMPUTE_FULL] = grads + kept_off;
}

/* Host operators of the embedding or the head beyond their kernels: the module calls, the
 * loss function's Python, the pipeline's input handling (a few per pass). */
#define ENDS_GLUE_OPS 10

void nd_layer_cost_embedding(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    acc a = {0};
    kept k = {0};
    double bytes = x.e * x.T * x.h;
    double v = (double)nd_train_padded_vocab(in->train, in->model->vocab, sh->tp) / (double)sh->tp;
    /* Vocabulary-parallel lookup: each TP rank fills the rows of its vocabulary shard; a
     * reduction (reduce-scatter under SP) completes the output. Backward scatters the
     * gradient into the whole (fp32) table gradient: sort, segment sums, a pass over the
     * table (PyTorch's embedding_dense_backward). */
    elementwise(&a, &x, 2 * bytes, 2 * bytes + v * x.h * in->train->grad_bytes, 1);
    a.kernels_bwd += 4;
    a.ops_bwd += 1;
    if (in->model->max_positions > 0) elementwise(&a, &x, 3 * bytes, 2 * bytes, 1);
    if (in->train->dropout > 0) {
        double nb = x.e * x.Tn * x.h;
        elementwise(&a, &x, 2 * nb + x.Tn * x.h, 2 * nb + x.Tn * x.h, 1);
        k.always += x.Tn * x.h;
    }
    nd_group tp = {sh->tp, 1};
    double comm_ms = sh->sp ? nd_collective_ms(in->device, ND_COLL_REDUCE_SCATTER, tp, bytes)
                            : nd_collective_ms(in->device, ND_COLL_ALL_REDUCE, tp, bytes);
    double comm_kernels = sh->tp > 1 ? 2 : 0;
    out->forward_ms = a.fwd;
    out->backward_ms = a.dgrad;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        out->tp_ms[r] = comm_ms + (sh->sp ? comm_ms : 0);
        out->kernels[r] = a.kernels_fwd + a.kernels_bwd + comm_kernels;
        out->host_ops[r] = a.ops_fwd + a.ops_bwd + comm_kernels + ENDS_GLUE_OPS;
        out->activation_bytes[r] = k.always;
        out->working_bytes[r] = bytes;
    }
    out->host_ops_fwd = a.ops_fwd + comm_kernels / 2 + ENDS_GLUE_OPS / 2;
    out->comm_fwd_ms = comm_ms;
    out->kernels_fwd = a.kernels_fwd + comm_kernels / 2;
}

void nd_layer_cost_head(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    const nd_model *m = in->model;
    acc a = {0};
    kept k = {0};
    double v = (double)nd_train_padded_vocab(in->train, m->vocab, sh->tp) / (double)sh->tp;
    double T = x.T, e = x.e;
    double heads = 1.0 + (double)m->mtp_layers; /* the main head, then one per MTP module */
    const nd_framework_profile *fw = nd_framework_profile_of(in->train->framework);
    for (int64_t i = 0; i < m->mtp_layers; i++) {
        /* MTP module (DeepSeek-V3 §2.2): normed embedding and hidden state, concatenated and
         * projected 2h -> h; its decoder layer is priced as a layer of the last stage. */
        norm(&a, &k, &x, NULL);
        norm(&a, &k, &x, NULL);
        elementwise(&a, &x, 2 * e * T * x.h, 2 * e * T * x.h, 1); /* shared embedding lookup */
        gemm(&a, &x, T, x.h / (double)sh->tp, 2 * x.h);
        k.always += 2 * e * T * x.h;
    }
    double logits = 0;
    for (int i = 0; i < (int)heads; i++) {
        norm(&a, &k, &x, NULL);
        gemm_at(&a, &x, x.other, T, v, x.h);
        /* Cross entropy: fused, one read of the 16-bit logits and the gradient written in
         * place; else the framework's fp32 loss, pass by pass (nd_framework_profile). */
        if (in->train->fused_cross_entropy) {
            memory_op(&a, &x, ND_MEMOP_CROSS_ENTROPY_FUSED, ND_MEMOP_CROSS_ENTROPY_FUSED, e * T * v,
                      2 * e * T * v, 1);
        } else {
            memory_op(&a, &x, ND_MEMOP_CROSS_ENTROPY, ND_MEMOP_DEFAULT, fw->ce_fwd_bytes * T * v,
                      fw->ce_bwd_bytes * T * v, 1);
            a.kernels_fwd += fw->ce_fwd_kernels - 1;
            a.ops_fwd += fw->ce_fwd_kernels - 1;
            a.kernels_bwd += fw->ce_bwd_kernels - 1;
            a.ops_bwd += fw->ce_bwd_kernels - 1;
        }
        /* One head's logits at a time: the 16-bit output and the loss's working set (Megatron:
         * the fp32 softmax turned into the gradient in place, and the gradient cast back;
         * torch: the fp32 upcast, log_softmax and its gradient); fused: the logits and their
         * gradient written in place. */
        logits = (in->train->fused_cross_entropy ? 2 * e : fw->ce_working_bytes * e / 2) * T * v;
    }
    nd_group tp = {sh->tp, 1};
    double gather = sh->sp ? nd_collective_ms(in->device, ND_COLL_ALL_GATHER, tp, e * T * x.h) : 0;
    double stats = 3 * nd_collective_ms(in->device, ND_COLL_ALL_REDUCE, tp, 4 * T);
    double proj = m->mtp_layers ? nd_collective_ms(in->device, ND_COLL_ALL_GATHER, tp, e * T * x.h) : 0;
    double comm_kernels = sh->tp > 1 ? (sh->sp ? 5 : 3) * heads + 2 * (double)m->mtp_layers : 0;
    out->forward_ms = a.fwd;
    out->backward_ms = a.dgrad + a.wgrad;
    out->weight_grad_ms = a.wgrad;
    out->gemm_ms = a.gemm_fwd + a.gemm_bwd;
    out->model_flops = a.flops;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        out->tp_ms[r] = heads * (2 * gather + stats) + 2 * (double)m->mtp_layers * proj;
        out->kernels[r] = a.kernels_fwd + a.kernels_bwd + comm_kernels;
        out->host_ops[r] = a.ops_fwd + a.ops_bwd + comm_kernels + ENDS_GLUE_OPS * heads;
        out->activation_bytes[r] = k.always + k.norm;
        out->working_bytes[r] = logits;
    }
    out->host_ops_fwd = a.ops_fwd + comm_kernels / 2 + ENDS_GLUE_OPS * heads / 2;
    out->comm_fwd_ms = out->tp_ms[0] / 2;
    out->kernels_fwd = a.kernels_fwd + comm_kernels / 2;
}
