/*
 * layer.h — one decoder layer (or the embedding, or the output head) priced
 * for one micro-batch on one device: compute times, exposed communication,
 * kernel launches and the activation memory it keeps, for each recompute mode.
 *
 * A layer's cost depends only on its kind and the sharding (TP, CP, EP, ETP,
 * MBS, SP), not on PP, DP or the stage: the search prices each once and
 * reuses it. Equations and sources: docs/cost-model.md.
 */
#ifndef ND_LAYER_H
#define ND_LAYER_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/costmodel/device.h"
#include "nd/costmodel/model.h"
#include "nd/costmodel/train.h"
#include "nd/costmodel/strategy.h"

typedef struct nd_layer_shape {
    int64_t tp, cp, ep, etp, mbs;
    bool sp;
} nd_layer_shape;

typedef struct nd_layer_cost {
    double forward_ms;     /* compute of one forward pass */
    double backward_ms;    /* compute of one backward pass: input and weight gradients */
    double weight_grad_ms; /* the weight-gradient GEMMs inside backward_ms */
    double gemm_ms;        /* of forward_ms + backward_ms: the GEMMs (grouped ones too), not attention's */
    double attention_ms;   /* of forward_ms + backward_ms: the attention core (with a CP ring's merges) */
    double recompute_ms[ND_RECOMPUTE_MODES]; /* forward work repeated in backward */
    double tp_ms[ND_RECOMPUTE_MODES];        /* exposed TP/SP collectives, fwd + bwd (+ replay) */
    double ep_ms[ND_RECOMPUTE_MODES];        /* exposed expert all-to-alls */
    double cp_ms[ND_RECOMPUTE_MODES];        /* exposed context-parallel ring traffic */
    double kernels[ND_RECOMPUTE_MODES];      /* kernel launches, fwd + bwd (+ replay) */
    double host_ops[ND_RECOMPUTE_MODES];     /* operators the host issues, fwd + bwd (+ replay):
                                                kernel-launching ones and the framework's glue */
    double host_syncs[ND_RECOMPUTE_MODES];   /* device-to-host synchronisations (dropless MoE) */
    double host_ops_fwd;                     /* the forward pass's share of host_ops (every mode) */
    double comm_fwd_ms;                      /* the forward pass's share of the exposed TP, EP and CP time */
    double kernels_fwd;                      /* the forward pass's kernels */
    double activation_bytes[ND_RECOMPUTE_MODES];   /* kept from forward to backward */
    double activation_tensors[ND_RECOMPUTE_MODES]; /* how many tensors hold them */
    double working_bytes[ND_RECOMPUTE_MODES];      /* transient during this layer's backward */
    double buffer_bytes;         /* communication buffers alive during the layer (EP dispatch) */
    double collective_bytes_fwd; /* buffers its forward's collectives use (TP, EP, CP) */
    double collective_bytes_bwd[ND_RECOMPUTE_MODES]; /* ... its backward's (+ replay) */
    double model_flops;                              /* FLOPs of one forward pass (MFU counts 3x) */
} nd_layer_cost;

/* What the cost model needs about the run besides the model: sequence length,
 * precision, flash attention, dropout, selective modules, TP/EP overlap. */
typedef struct nd_layer_inputs {
    const nd_model *model;
    const nd_train *train;
    const nd_device *device;
    int64_t seq_len;
} nd_layer_inputs;

/* Other nodes one token's experts are on, over an EP group spanning `nodes` nodes. Its top-k
 * experts fall evenly over the nodes a token may reach: every node of the group, or with
 * DeepSeek's node-limited routing (router_groups, router_group_topk; DeepSeek-V3 report
 * §2.1.2, at most M = 4 nodes) the nodes of its chosen groups. k experts over A nodes reach
 * A (1 - (1 - 1/A)^k) of them, and one of the N nodes is the token's own: x (N - 1) / N. */
double nd_moe_remote_nodes(const nd_model *m, double nodes);

/* A decoder layer of `kind`. */
void nd_layer_cost_decoder(const nd_layer_inputs *in, nd_layer_kind kind, const nd_layer_shape *sh,
                           nd_layer_cost *out);

/* The input embedding (token and learned position tables), on the first stage. */
void nd_layer_cost_embedding(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out);

/* The final norm, output projection and loss, plus the MTP modules, on the last stage. */
void nd_layer_cost_head(const nd_layer_inputs *in, const nd_layer_shape *sh, nd_layer_cost *out);

#endif
