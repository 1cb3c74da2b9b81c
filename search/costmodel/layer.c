/*
 * layer.c — one decoder layer, the embedding and the head, priced for one
 * micro-batch on one device.
 *
 * The layer is walked operator by operator, as Megatron-LM runs it: GEMMs
 * (forward, input-gradient and weight-gradient shapes priced separately),
 * fused attention, memory-bound kernels, and the collectives TP/SP, EP and
 * CP add. The same walk records the activations each operator keeps for the
 * backward pass, following Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation in Large Transformer Models", arXiv:2205.05198, §4), so that
 * for a GPT layer without flash attention the totals are their
 * sbh(34 + 5as/h) and its TP, SP, selective and full-recompute variants.
 */
#include "nd/layer.h"

#include <string.h>

#include "nd/collective.h"
#include "kernels.h"

/* Work of one pass, split the way the schedule and the parts need it. */
typedef struct acc {
    double fwd, dgrad, wgrad; /* ms */
    double flops;             /* forward FLOPs */
    double kernels_fwd, kernels_bwd;
} acc;

/* Activation bytes a layer keeps, by what selective recompute may drop. */
typedef struct kept {
    double always;     /* kept in every mode but full */
    double core_attn;  /* attention scores/softmax/dropout (s^2 terms), flash's softmax stats */
    double activation; /* the MLP activation function's output */
    double norm;       /* the norms' outputs */
    double score_grads; /* transient in backward: unfused attention's score gradients */
} kept;

/* Derived sizes of one micro-batch on one device. */
typedef struct dims {
    const nd_device *d;
    nd_device gemm_device; /* d with the peak GEMMs run at (FP8 when the run uses it) */
    const nd_train *t;
    const nd_model *m;
    nd_layer_shape sh;
    double e;      /* bytes per activation element */
    double T;      /* tokens through the GEMMs: MBS x seq / CP */
    double Tn;     /* tokens through norms, dropout, residual: T / TP under SP */
    double s, s_q; /* sequence, and queries per CP rank */
    double h;
} dims;

/* `count` GEMMs of M x N x K, forward and both backward GEMMs, at device g's peak. */
static void gemm_at(acc *a, const dims *x, const nd_device *g, double M, double N, double K, double count)
{
    if (count <= 0 || M <= 0 || N <= 0 || K <= 0) return;
    int e = (int)x->e;
    a->fwd += count * nd_gemm_ms(g, M, N, K, e);
    a->dgrad += count * nd_gemm_ms(g, M, K, N, e); /* dX = dY W^T */
    a->wgrad += count * nd_gemm_ms(g, K, N, M, e); /* dW = X^T dY */
    a->flops += count * 2.0 * M * N * K;
    a->kernels_fwd += 1, a->kernels_bwd += 2; /* grouped GEMMs: one launch per kind */
}

/* A linear layer's GEMMs: at the FP8 peak when the run trains in FP8. */
static void gemm(acc *a, const dims *x, double M, double N, double K, double count)
{
    gemm_at(a, x, &x->gemm_device, M, N, K, count);
}

static void elementwise(acc *a, const dims *x, double fwd_bytes, double bwd_bytes, double kernels)
{
    a->fwd += nd_memory_ms(x->d, fwd_bytes);
    a->dgrad += nd_memory_ms(x->d, bwd_bytes);
    a->kernels_fwd += kernels, a->kernels_bwd += kernels;
}

static void dims_init(dims *x, const nd_layer_inputs *in, const nd_layer_shape *sh)
{
    memset(x, 0, sizeof *x);
    x->d = in->device, x->t = in->train, x->m = in->model, x->sh = *sh;
    x->e = in->train->param_bytes;
    /* FP8 training (Transformer Engine, DeepSeek-V3) runs the linear layers' GEMMs at the FP8
     * peak; attention, norms and the rest stay in 16-bit. */
    x->gemm_device = *in->device;
    if (in->train->fp8 && in->device->fp8_tflops > 0) x->gemm_device.peak_tflops = in->device->fp8_tflops;
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
    elementwise(a, x, 2 * bytes, 3 * bytes, 1);
    if (norm_acc) elementwise(norm_acc, x, 2 * bytes, 0, 1);
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

/* The attention core: scores, softmax, dropout, weighted values. */
static void attention_core(acc *a, kept *k, const dims *x, double heads, double dqk, double dv,
                           acc *core)
{
    double b = (double)x->sh.mbs;
    if (x->t->flash_attention) {
        /* Causal masking halves the work; the backward recomputes the scores: five
         * matmuls against the forward's two (Dao 2023, FlashAttention-2 §3). */
        double flops = 2.0 * b * x->s_q * x->s * heads * (dqk + dv) * 0.5;
        double fwd = nd_attention_ms(x->d, flops, x->s_q, x->s);
        a->fwd += fwd, a->dgrad += 2.5 * fwd, a->flops += flops;
        a->kernels_fwd += 1, a->kernels_bwd += 2;
        core->fwd += fwd, core->kernels_fwd += 1, core->flops += flops;
        k->core_attn += 4.0 * x->T * heads; /* fp32 log-sum-exp per query and head */
        return;
    }
    /* Unfused: two batched GEMMs over the full (masked) score matrix, softmax and dropout
     * as memory-bound kernels on b x heads x s_q x s elements. */
    double rows = b * heads * x->s_q, S = rows * x->s;
    acc tmp = {0};
    gemm_at(&tmp, x, x->d, rows, x->s, dqk, 1); /* 16-bit even under FP8 */
    gemm_at(&tmp, x, x->d, rows, dv, x->s, 1);
    elementwise(&tmp, x, 2 * x->e * S, 3 * x->e * S, 1);
    k->core_attn += x->e * S; /* softmax output */
    k->score_grads += 2 * x->e * S; /* backward: gradients of the probabilities and scores */
    if (x->t->dropout > 0) {
        elementwise(&tmp, x, 2 * x->e * S + S, 2 * x->e * S + S, 1);
        k->core_attn += S + x->e * S; /* mask and dropout output */
    }
    a->fwd += tmp.fwd, a->dgrad += tmp.dgrad + tmp.wgrad, a->flops += tmp.flops;
    a->kernels_fwd += tmp.kernels_fwd, a->kernels_bwd += tmp.kernels_bwd;
    core->fwd += tmp.fwd, core->kernels_fwd += tmp.kernels_fwd, core->flops += tmp.flops;
}

static void attention_mha(acc *a, kept *k, const dims *x, acc *core)
{
    const nd_model *m = x->m;
    double t = (double)x->sh.tp, heads = (double)m->heads / t, kvh = (double)m->kv_heads / t;
    double dh = (double)m->head_dim, T = x->T;
    gemm(a, x, T, (heads + 2 * kvh) * dh, x->h, 1);
    if (m->max_positions == 0) elementwise(a, x, 2 * x->e * T * (heads + kvh) * dh,
                                           2 * x->e * T * (heads + kvh) * dh, 1); /* rotary */
    if (m->qk_norm) {
        elementwise(a, x, 2 * x->e * T * (heads + kvh) * dh, 3 * x->e * T * (heads + kvh) * dh, 2);
        k->always += x->e * T * (heads + kvh) * dh;
    }
    k->always += x->e * T * (heads + 2 * kvh) * dh; /* Q, K, V */
    attention_core(a, k, x, heads, dh, dh, core);
    k->always += x->e * T * heads * dh; /* context: the output projection's input */
    gemm(a, x, T, x->h, heads * dh, 1);
}

static void attention_mla(acc *a, kept *k, const dims *x, acc *core)
{
    const nd_model *m = x->m;
    double t = (double)x->sh.tp, heads = (double)m->heads / t, T = x->T, e = x->e;
    double dqk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim), dv = (double)m->v_head_dim;
    double ckv = (double)m->kv_lora_rank, cq = (double)m->q_lora_rank;
    double rope = (double)m->qk_rope_head_dim;
    /* The down-projections are small and replicated on every TP rank (Megatron-core MLA). */
    if (cq > 0) {
        gemm(a, x, T, cq, x->h, 1);
        elementwise(a, x, 2 * e * T * cq, 3 * e * T * cq, 1);
        k->always += 2 * e * T * cq; /* latent query, normed */
        gemm(a, x, T, heads * dqk, cq, 1);
    } else {
        gemm(a, x, T, heads * dqk, x->h, 1);
    }
    gemm(a, x, T, ckv + rope, x->h, 1);
    elementwise(a, x, 2 * e * T * ckv, 3 * e * T * ckv, 1);
    k->always += e * T * (ckv + rope) + e * T * ckv; /* latent KV, normed */
    gemm(a, x, T, heads * ((double)m->qk_nope_head_dim + dv), ckv, 1);
    elementwise(a, x, 2 * e * T * (heads + 1) * rope, 2 * e * T * (heads + 1) * rope, 1);
    k->always += e * T * heads * (2 * dqk + dv); /* Q, K, V per head */
    attention_core(a, k, x, heads, dqk, dv, core);
    k->always += e * T * heads * dv;
    gemm(a, x, T, x->h, heads * dv, 1);
}

/* A dense MLP of `width` over `tokens`, TP-split by `split`. */
static void mlp(acc *a, kept *k, const dims *x, double tokens, double width, double split,
                double count, acc *act)
{
    double w = width / split, e = x->e;
    if (x->m->mlp == ND_MLP_GATED) {
        gemm(a, x, tokens / count, 2 * w, x->h, count);
        elementwise(a, x, 3 * e * tokens * w, 5 * e * tokens * w, 1);
        if (act) elementwise(act, x, 3 * e * tokens * w, 0, 1);
        k->always += 2 * e * tokens * w; /* gate and up outputs */
    } else {
        gemm(a, x, tokens / count, w, x->h, count);
        elementwise(a, x, 2 * e * tokens * w, 3 * e * tokens * w, 1);
        if (act) elementwise(act, x, 2 * e * tokens * w, 0, 1);
        k->always += e * tokens * w; /* activation input */
    }
    k->activation += e * tokens * w; /* activation output: the down projection's input */
    gemm(a, x, tokens / count, x->h, w, count);
}

/* Tokens one device's experts process per micro-batch (balanced routing):
 * T x top-k x ETP / TP, padded to the capacity factor when tokens are dropped. */
static double expert_tokens(const dims *x)
{
    const nd_model *m = x->m;
    double tokens = x->T * (double)m->experts_per_token * (double)x->sh.etp / (double)x->sh.tp;
    return m->capacity_factor > 0 ? tokens * m->capacity_factor : tokens;
}

static void moe(acc *a, kept *k, const dims *x, acc *act, double *dispatch_bytes)
{
    const nd_model *m = x->m;
    double e = x->e, E = (double)m->experts, Tr = x->Tn;
    gemm(a, x, Tr, E, x->h, 1); /* router */
    elementwise(a, x, 3 * 4 * Tr * E, 3 * 4 * Tr * E, 3);
    k->always += 4 * Tr * E;
    double M = expert_tokens(x), local = E / (double)x->sh.ep;
    elementwise(a, x, 4 * e * M * x->h, 4 * e * M * x->h, 2); /* permute and unpermute */
    k->always += 2 * e * M * x->h; /* expert inputs and outputs (for the combine weights) */
    mlp(a, k, x, M, (double)m->moe_ffn, (double)x->sh.etp, local, act);
    if (m->shared_experts) {
        mlp(a, k, x, x->T, (double)(m->shared_experts * m->shared_ffn), (double)x->sh.tp, 1, act);
        if (m->shared_expert_gate) gemm(a, x, x->T, 1, x->h, 1);
    }
    *dispatch_bytes = 2 * e * M * x->h;
}

/* An exposed collective: hidden behind `window` ms of compute when overlap is on. */
static double exposed(double comm_ms, bool overlap, double window_ms)
{
    if (!overlap) return comm_ms;
    return comm_ms > window_ms ? comm_ms - window_ms : 0.0;
}

void nd_layer_cost_decoder(const nd_layer_inputs *in, nd_layer_kind kind, const nd_layer_shape *sh,
                           nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    const nd_model *m = in->model;
    const nd_train *t = in->train;
    const nd_device *d = in->device;
    acc att = {0}, ffn = {0}, core = {0}, act = {0}, norms = {0};
    kept k = {0};

    norm(&att, &k, &x, &norms);
    if (m->attention == ND_ATTN_MLA) attention_mla(&att, &k, &x, &core);
    else attention_mha(&att, &k, &x, &core);
    residual(&att, &k, &x);

    norm(&ffn, &k, &x, &norms);
    double dispatch = 0;
    if (kind == ND_LAYER_MOE) moe(&ffn, &k, &x, &act, &dispatch);
    else mlp(&ffn, &k, &x, x.T, (double)m->ffn, (double)sh->tp, 1, &act);
    residual(&ffn, &k, &x);

    acc all = att;
    all.fwd += ffn.fwd, all.dgrad += ffn.dgrad, all.wgrad += ffn.wgrad, all.flops += ffn.flops;
    all.kernels_fwd += ffn.kernels_fwd, all.kernels_bwd += ffn.kernels_bwd;
    out->forward_ms = all.fwd;
    out->backward_ms = all.dgrad + all.wgrad;
    out->weight_grad_ms = all.wgrad;
    out->model_flops = all.flops;

    /* TP/SP: one all-reduce (or all-gather + reduce-scatter) of T x h per block and pass
     * (Shoeybi et al. 2019; Korthikanti et al. 2022 §4.2.2). A MoE block needs one only when
     * its experts or shared experts are tensor-split. */
    double bytes = x.e * x.T * x.h;
    nd_group tp = {sh->tp, 1}, etp = {sh->etp, 1};
    double att_comm = nd_collective_ms(d, ND_COLL_ALL_REDUCE, tp, bytes);
    double ffn_comm = kind == ND_LAYER_DENSE ? att_comm
                      : sh->etp > 1 ? nd_collective_ms(d, ND_COLL_ALL_REDUCE, etp, bytes)
                      : (m->shared_experts && sh->tp > 1) ? att_comm : 0.0;
    double tp_fwd = exposed(att_comm, t->tp_comm_overlap, att.fwd - core.fwd) +
                    exposed(ffn_comm, t->tp_comm_overlap, ffn.fwd);
    double tp_bwd = exposed(att_comm, t->tp_comm_overlap, att.dgrad + att.wgrad) +
                    exposed(ffn_comm, t->tp_comm_overlap, ffn.dgrad + ffn.wgrad);

    /* EP: dispatch and combine all-to-alls forward, and again backward. */
    double ep_fwd = 0, ep_bwd = 0;
    if (kind == ND_LAYER_MOE && sh->ep > 1) {
        nd_group ep = {sh->ep, sh->etp};
        double a2a = 2 * nd_collective_ms(d, ND_COLL_ALL_TO_ALL, ep, dispatch / 2);
        ep_fwd = exposed(a2a, t->ep_comm_overlap, att.fwd);
        ep_bwd = exposed(a2a, t->ep_comm_overlap, att.dgrad + att.wgrad);
        out->buffer_bytes = 2 * dispatch;
    }

    /* CP ring attention: CP-1 steps, each passing one K/V block to the next rank while the
     * current block's attention runs (Liu et al. 2023, Ring Attention); backward also
     * returns the K/V gradients. */
    double cp_fwd = 0, cp_bwd = 0;
    if (sh->cp > 1) {
        double kv_width = m->attention == ND_ATTN_MLA
                              ? (double)m->heads * (double)(m->qk_nope_head_dim +
                                                            m->qk_rope_head_dim + m->v_head_dim)
                              : 2.0 * (double)(m->kv_heads * m->head_dim);
        double block = x.e * x.T * kv_width / (double)sh->tp;
        nd_group cp = {sh->cp, sh->tp};
        double steps = (double)(sh->cp - 1), c = (double)sh->cp;
        cp_fwd = steps * exposed(nd_collective_ms(d, ND_COLL_P2P, cp, block), true, core.fwd / c);
        cp_bwd = steps * exposed(nd_collective_ms(d, ND_COLL_P2P, cp, 2 * block), true,
                                 2.5 * core.fwd / c);
    }

    /* Recompute modes: what each repeats in backward, and what each keeps. */
    unsigned sel = t->selective_modules;
    acc replay_sel = {0};
    if (sel & ND_SELECTIVE_CORE_ATTN) replay_sel.fwd += core.fwd, replay_sel.kernels_fwd += core.kernels_fwd;
    if (sel & ND_SELECTIVE_ACTIVATION) replay_sel.fwd += act.fwd, replay_sel.kernels_fwd += act.kernels_fwd;
    if (sel & ND_SELECTIVE_NORM) replay_sel.fwd += norms.fwd, replay_sel.kernels_fwd += norms.kernels_fwd;
    double dropped = ((sel & ND_SELECTIVE_CORE_ATTN) ? k.core_attn : 0) +
                     ((sel & ND_SELECTIVE_ACTIVATION) ? k.activation : 0) +
                     ((sel & ND_SELECTIVE_NORM) ? k.norm : 0);
    double kept_off = k.always + k.core_attn + k.activation + k.norm;
    double layer_input = x.e * x.Tn * x.h;
    double grads = 2 * x.e * x.T * x.h + k.score_grads; /* gradients in and out of the layer */

    double tp_once = tp_fwd + tp_bwd, ep_once = ep_fwd + ep_bwd, cp_once = cp_fwd + cp_bwd;
    double k_once = all.kernels_fwd + all.kernels_bwd;
    out->recompute_ms[ND_RECOMPUTE_OFF] = 0;
    out->recompute_ms[ND_RECOMPUTE_SELECTIVE] = replay_sel.fwd;
    out->recompute_ms[ND_RECOMPUTE_FULL] = all.fwd;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        out->tp_ms[r] = tp_once + (r == ND_RECOMPUTE_FULL ? tp_fwd : 0);
        out->ep_ms[r] = ep_once + (r == ND_RECOMPUTE_FULL ? ep_fwd : 0);
        out->cp_ms[r] = cp_once + (r == ND_RECOMPUTE_FULL ? cp_fwd : 0);
    }
    double tp_kernels = (sh->tp > 1 ? 2 : 0) + (sh->ep > 1 && kind == ND_LAYER_MOE ? 2 : 0) +
                        (sh->cp > 1 ? 2.0 * (double)(sh->cp - 1) : 0);
    out->kernels[ND_RECOMPUTE_OFF] = k_once + 2 * tp_kernels;
    out->kernels[ND_RECOMPUTE_SELECTIVE] = out->kernels[0] + replay_sel.kernels_fwd;
    out->kernels[ND_RECOMPUTE_FULL] = out->kernels[0] + all.kernels_fwd + tp_kernels;
    out->activation_bytes[ND_RECOMPUTE_OFF] = kept_off;
    out->activation_bytes[ND_RECOMPUTE_SELECTIVE] = kept_off - dropped;
    out->activation_bytes[ND_RECOMPUTE_FULL] = layer_input;
    out->working_bytes[ND_RECOMPUTE_OFF] = grads;
    out->working_bytes[ND_RECOMPUTE_SELECTIVE] = grads + dropped;
    out->working_bytes[ND_RECOMPUTE_FULL] = grads + kept_off;
}

void nd_layer_cost_embedding(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    acc a = {0};
    kept k = {0};
    double bytes = x.e * x.T * x.h;
    /* Vocabulary-parallel lookup: each TP rank fills the rows of its vocabulary shard; a
     * reduction (reduce-scatter under SP) completes the output. */
    elementwise(&a, &x, 2 * bytes, 2 * bytes, 1);
    if (in->model->max_positions > 0) elementwise(&a, &x, 3 * bytes, 2 * bytes, 1);
    if (in->train->dropout > 0) {
        double nb = x.e * x.Tn * x.h;
        elementwise(&a, &x, 2 * nb + x.Tn * x.h, 2 * nb + x.Tn * x.h, 1);
        k.always += x.Tn * x.h;
    }
    nd_group tp = {sh->tp, 1};
    double comm = sh->sp ? nd_collective_ms(in->device, ND_COLL_REDUCE_SCATTER, tp, bytes)
                         : nd_collective_ms(in->device, ND_COLL_ALL_REDUCE, tp, bytes);
    out->forward_ms = a.fwd;
    out->backward_ms = a.dgrad;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        out->tp_ms[r] = comm + (sh->sp ? comm : 0);
        out->kernels[r] = a.kernels_fwd + a.kernels_bwd + (sh->tp > 1 ? 2 : 0);
        out->activation_bytes[r] = k.always;
        out->working_bytes[r] = bytes;
    }
}

void nd_layer_cost_head(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out)
{
    memset(out, 0, sizeof *out);
    dims x;
    dims_init(&x, in, sh);
    const nd_model *m = in->model;
    acc a = {0};
    kept k = {0};
    double v = (double)m->vocab / (double)sh->tp, T = x.T, e = x.e;
    double heads = 1.0 + (double)m->mtp_layers; /* the main head, then one per MTP module */
    for (int64_t i = 0; i < m->mtp_layers; i++) {
        /* MTP module (DeepSeek-V3 §2.2): normed embedding and hidden state, concatenated and
         * projected 2h -> h; its decoder layer is priced as a layer of the last stage. */
        norm(&a, &k, &x, NULL);
        norm(&a, &k, &x, NULL);
        elementwise(&a, &x, 2 * e * T * x.h, 2 * e * T * x.h, 1); /* shared embedding lookup */
        gemm(&a, &x, T, x.h / (double)sh->tp, 2 * x.h, 1);
        k.always += 2 * e * T * x.h;
    }
    double logits = 0;
    for (int i = 0; i < (int)heads; i++) {
        norm(&a, &k, &x, NULL);
        gemm(&a, &x, T, v, x.h, 1);
        /* Vocabulary-parallel cross entropy in fp32: cast, max, exp-sum, loss; backward
         * writes the logits' gradient (Megatron's vocab_parallel_cross_entropy). */
        elementwise(&a, &x, (e + 16) * T * v, (e + 8) * T * v, 4);
        /* One head's logits at a time: the 16-bit output, the fp32 softmax (turned into the
         * gradient in place) and the gradient cast back for the projection's backward. */
        logits = (2 * e + 4) * T * v;
    }
    nd_group tp = {sh->tp, 1};
    double gather = sh->sp ? nd_collective_ms(in->device, ND_COLL_ALL_GATHER, tp, e * T * x.h) : 0;
    double stats = 3 * nd_collective_ms(in->device, ND_COLL_ALL_REDUCE, tp, 4 * T);
    double proj = m->mtp_layers ? nd_collective_ms(in->device, ND_COLL_ALL_GATHER, tp, e * T * x.h) : 0;
    out->forward_ms = a.fwd;
    out->backward_ms = a.dgrad + a.wgrad;
    out->weight_grad_ms = a.wgrad;
    out->model_flops = a.flops;
    for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
        out->tp_ms[r] = heads * (2 * gather + stats) + 2 * (double)m->mtp_layers * proj;
        out->kernels[r] = a.kernels_fwd + a.kernels_bwd + (sh->tp > 1 ? 4 * heads : 0);
        out->activation_bytes[r] = k.always + k.norm;
        out->working_bytes[r] = logits;
    }
}
