/*
 * layer_comm.c — the collectives a layer issues, and what of them its compute cannot hide:
 * TP/SP all-reduces or all-gathers and reduce-scatters, the expert dispatch and combine, and
 * context parallelism's ring, all-to-all or all-gather forms (docs/cost-model.md).
 */
#include "layer_internal.h"

#include <math.h>

#include "kernels.h"
#include "nd/costmodel/collective.h"

/* An exposed collective: hidden behind `window` ms of compute when overlap is on. */
static double exposed(double comm_ms, bool overlap, double window_ms)
{
    return nd_overlapped_ms(comm_ms, overlap, window_ms);
}

/* One block's TP collectives a pass: an all-reduce of T x h (Shoeybi et al. 2019), or under SP
 * an all-gather before and a reduce-scatter after (Korthikanti et al. 2022 §4.2.2): the same
 * bytes on a ring, but two collectives, each with its own set-up and, where the device file
 * measured them, its own rate. */
static double block_comm_ms(const nd_device *d, nd_group g, bool sp, double bytes)
{
    if (!sp) return nd_collective_ms(d, ND_COLL_ALL_REDUCE, g, bytes);
    return nd_collective_ms(d, ND_COLL_ALL_GATHER, g, bytes) +
           nd_collective_ms(d, ND_COLL_REDUCE_SCATTER, g, bytes);
}

/* TP/SP: each block's collectives forward and backward (block_comm_ms). Under SP the
 * backward gathers the column-parallel linears' inputs again for their weight gradients,
 * behind their input-gradient GEMMs (Megatron-LM's
 * LinearWithGradAccumulationAndAsyncCommunication; Transformer Engine likewise). A MoE
 * block needs them only when its experts or shared experts are tensor-split. */
comm nd_layer_tp_comm(const dims *x, nd_layer_kind kind, const acc *att, const acc *ffn, const acc *core)
{
    comm c = {0, 0, 0, 0, 0, 0};
    const nd_layer_shape *sh = &x->sh;
    const nd_device *d = x->d;
    bool overlap = nd_train_tp_comm_overlap(x->t);
    double bytes = x->e * x->T * x->h;
    nd_group tp = {sh->tp, 1}, etp = {sh->etp, 1};
    double att_comm = block_comm_ms(d, tp, sh->sp, bytes);
    bool ffn_split = kind == ND_LAYER_DENSE || sh->etp > 1 || (x->m->shared_experts && sh->tp > 1);
    double ffn_comm = !ffn_split                            ? 0.0
                      : kind == ND_LAYER_MOE && sh->etp > 1 ? block_comm_ms(d, etp, sh->sp, bytes)
                                                            : att_comm;
    c.fwd_ms = exposed(att_comm, overlap, att->fwd - core->fwd) + exposed(ffn_comm, overlap, ffn->fwd);
    c.bwd_ms = exposed(att_comm, overlap, att->dgrad + att->wgrad) +
               exposed(ffn_comm, overlap, ffn->dgrad + ffn->wgrad);
    double blocks = (sh->tp > 1 ? 1 : 0) + (ffn_comm > 0 ? 1 : 0);
    double per_block = sh->sp ? 2 : 1; /* all-gather + reduce-scatter, or one all-reduce */
    c.kernels_fwd = c.kernels_bwd = blocks * per_block;
    /* an all-reduce works in place on T x h; a gather or scatter reads or writes T x h / TP too */
    double tensor = sh->sp ? bytes * (1 + 1 / (double)sh->tp) : bytes;
    c.bytes_fwd = c.bytes_bwd = blocks * per_block * tensor;
    if (sh->sp && sh->tp > 1) {
        double regather = nd_collective_ms(d, ND_COLL_ALL_GATHER, tp, bytes);
        c.bwd_ms += exposed(regather, true, att->col_dgrad);
        if (ffn_comm > 0) c.bwd_ms += exposed(regather, true, ffn->col_dgrad);
        c.kernels_bwd += blocks;
        c.bytes_bwd += blocks * tensor;
    }
    return c;
}

double nd_moe_remote_nodes(const nd_model *m, double nodes)
{
    double k = (double)m->experts_per_token, A = nodes;
    if (m->router_groups > 0 && m->router_group_topk > 0) {
        double groups_per_node = (double)m->router_groups / nodes;
        A = fmin(nodes, groups_per_node >= 1 ? ceil((double)m->router_group_topk / groups_per_node)
                                             : (double)m->router_group_topk / groups_per_node);
    }
    if (A <= 1) return 0;
    return A * (1 - pow(1 - 1 / A, k)) * (nodes - 1) / nodes;
}

/* EP: the dispatch and combine forward, and again backward (the gradients, 16-bit both ways),
 * priced as the dispatcher runs them (nd_dispatch_ms); the busiest rank waits for its share. */
comm nd_layer_ep_comm(const dims *x, double dispatch_bytes)
{
    comm c = {0, 0, 0, 0, 0, 0};
    const nd_train *t = x->t;
    nd_group ep = {x->sh.ep, x->sh.etp};
    double tokens = x->T * (double)x->sh.etp / (double)x->sh.tp; /* entering one rank's dispatch */
    double copies = (double)x->m->experts_per_token, h = x->h, e = x->e;
    bool dedup = t->moe_dispatcher == ND_MOE_DEEPEP;
    double remote = nd_moe_remote_nodes(x->m, nd_group_nodes(x->d, ep));
    double dispatch =
        nd_dispatch_ms(x->d, ep, tokens, copies, remote, h * (t->moe_dispatch_fp8 ? 1 : e), dedup);
    double combine = nd_dispatch_ms(x->d, ep, tokens, copies, remote, h * e, dedup);
    /* exposed here; a schedule that pairs micro-batches hides it at the stage (stage.c) */
    c.fwd_ms = t->moe_imbalance * (dispatch + combine);
    c.bwd_ms = t->moe_imbalance * 2 * combine;
    c.kernels_fwd = c.kernels_bwd = 2;
    c.bytes_fwd = c.bytes_bwd = 2 * dispatch_bytes; /* each exchange's input and output */
    return c;
}

/* CP. Ring (Liu et al. 2023, Ring Attention; Megatron's p2p): CP-1 steps, each passing one
 * K/V block to the next rank while the current block's attention runs; backward also
 * returns the K/V gradients. What a step's transfer takes beyond its block's attention is
 * exposed. All-to-all (Jacobs et al. 2023, DeepSpeed-Ulysses): Q, K, V (one fused exchange)
 * are swapped from sequence to head sharding before attention and the output back after,
 * and the same backward, with nothing to hide behind. */
comm nd_layer_cp_comm(const dims *x, const acc *core)
{
    comm c = {0, 0, 0, 0, 0, 0};
    const nd_model *m = x->m;
    const nd_layer_shape *sh = &x->sh;
    double kv_width =
        m->attention == ND_ATTN_MLA
            ? (double)m->heads * (double)(m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim)
            : 2.0 * (double)(m->kv_heads * m->head_dim);
    double q_width = m->attention == ND_ATTN_MLA
                         ? (double)m->heads * (double)(m->qk_nope_head_dim + m->qk_rope_head_dim)
                         : (double)(m->heads * m->head_dim);
    double o_width = m->attention == ND_ATTN_MLA ? (double)(m->heads * m->v_head_dim) : q_width;
    double tp = (double)sh->tp;
    if (x->t->cp_comm == ND_CP_ALLGATHER) {
        /* All-gather (Llama 3 §3.3.2, torchtitan's allgather rotation): K and V gathered from
         * every rank before the attention, their gradients reduce-scattered after the
         * backward; nothing to hide behind (the attention needs all of it). */
        nd_group cp = {sh->cp, sh->tp};
        double n = (double)sh->cp, block = x->e * x->T * kv_width / tp;
        c.fwd_ms = nd_collective_ms(x->d, ND_COLL_ALL_GATHER, cp, block * n);
        c.bwd_ms = c.fwd_ms + nd_collective_ms(x->d, ND_COLL_REDUCE_SCATTER, cp, block * n);
        c.kernels_fwd = 1;
        c.kernels_bwd = 2;
        c.bytes_fwd = 2 * block * n;
        c.bytes_bwd = 4 * block * n;
        return c;
    }
    /* Ulysses' all-to-alls over the first u ranks of the CP group, the ring over the r = CP / u
     * groups (stride u): pure Ulysses u = CP, a pure ring r = CP */
    int64_t r = nd_train_cp_ring_degree(x->t, sh->cp), u = sh->cp / r;
    if (u > 1) {
        nd_group ulysses = {u, sh->tp};
        double qkv =
            nd_collective_ms(x->d, ND_COLL_ALL_TO_ALL, ulysses, x->e * x->T * (q_width + kv_width) / tp);
        double out = nd_collective_ms(x->d, ND_COLL_ALL_TO_ALL, ulysses, x->e * x->T * o_width / tp);
        c.fwd_ms = c.bwd_ms = qkv + out;
        c.kernels_fwd = c.kernels_bwd = 2;
        c.bytes_fwd = c.bytes_bwd = 2 * x->e * x->T * (q_width + kv_width + o_width) / tp;
        if (r == 1) return c;
    }
    nd_group cp = {r, sh->tp * u};
    double steps = (double)(r - 1), n = (double)r;
    double block = x->e * x->T * kv_width / tp;
    /* A step's transfer runs beside the block's attention: what it takes beyond it is
     * exposed, and every step pays its set-up (the collective's fixed cost) whatever the block:
     * at 2-8k tokens the blocks are too short to hide it. PyTorch's ring (torchtitan) passes K
     * and V repeated to every query head, and their gradients' sums in fp32 (twice the bytes). */
    double grads = 1; /* the K/V gradients, as many bytes as K and V */
    if (nd_framework_profile_of(x->t->framework)->torch_ring_attention && m->attention != ND_ATTN_MLA) {
        block = x->e * x->T * 2.0 * (double)(m->heads * m->head_dim) / tp;
        grads = 4.0 / x->e;
    }
    double p2p = nd_collective_ms(x->d, ND_COLL_P2P, cp, block),
           p2p_b = nd_collective_ms(x->d, ND_COLL_P2P, cp, (1 + grads) * block);
    c.fwd_ms += steps * exposed(p2p, true, core->fwd / n);
    c.bwd_ms += steps * exposed(p2p_b, true, core->dgrad / n);
    c.kernels_fwd += 2 * steps; /* a send and a receive per step */
    c.kernels_bwd += 2 * steps;
    c.bytes_fwd += 2 * steps * block;
    c.bytes_bwd += 2 * steps * (1 + grads) * block;
    return c;
}
