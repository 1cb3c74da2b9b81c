/*
 * layer_internal.h — what the layer walk (layer.c) and the collectives it prices
 * (layer_comm.c) share: one pass's work, the activations it keeps, the micro-batch's sizes,
 * and the exposed communication of a pass.
 */
#ifndef ND_COSTMODEL_LAYER_INTERNAL_H
#define ND_COSTMODEL_LAYER_INTERNAL_H

#include <stdbool.h>

#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"
#include "nd/costmodel/layer.h"
#include "nd/costmodel/model.h"
#include "nd/costmodel/train.h"

/* Work of one pass, split the way the schedule and the parts need it. */
typedef struct acc {
    double fwd, dgrad, wgrad; /* ms */
    double flops;             /* forward FLOPs */
    double kernels_fwd, kernels_bwd;
    double ops_fwd, ops_bwd; /* host operators (each kernel-launching call counts one) */
    double col_dgrad;        /* input-gradient GEMMs of the column-parallel linears (QKV, FC1):
                                what SP's weight-gradient re-gather overlaps */
    double gemm_fwd;         /* the forward GEMMs' share of fwd */
    double gemm_bwd;         /* the backward GEMMs' share of dgrad + wgrad */
    double mm_out_bytes;     /* the forward GEMMs' outputs */
} acc;

/* Activation bytes a layer keeps, by what selective recompute may drop. */
typedef struct kept {
    double always;      /* kept in every mode but full */
    double core_attn;   /* attention scores/softmax/dropout (s^2 terms), flash's softmax stats */
    double activation;  /* the MLP activation function's output */
    double norm;        /* the norms' outputs */
    double mla_up;      /* MLA's per-head Q, K, V from the up-projections (and rotary) */
    double moe_act;     /* the routed experts' activation output (Megatron's moe_act) */
    double fp8_able;    /* of `always`: GEMM inputs Transformer Engine keeps in FP8 under FP8 */
    double swiglu_in;   /* of `always`: the routed experts' gated-activation inputs */
    double score_grads; /* transient in backward: unfused attention's score gradients */
} kept;

/* Derived sizes of one micro-batch on one device. */
typedef struct dims {
    const nd_device *d;
    nd_gemm_precision linear; /* the linear layers' GEMMs (FP8 when the run uses it) */
    nd_gemm_precision other;  /* attention's batched GEMMs, router, head: never FP8 */
    bool eager;               /* norms, rotary and gated activations as eager PyTorch ops */
    const nd_train *t;
    const nd_model *m;
    nd_layer_shape sh;
    double e;      /* bytes per activation element */
    double T;      /* tokens through the GEMMs: MBS x seq / CP */
    double Tn;     /* tokens through norms, dropout, residual: T / TP under SP */
    double s, s_q; /* sequence, and queries per CP rank */
    double h;
} dims;

/* Exposed communication of one layer pass, and the collectives it launches. */
typedef struct comm {
    double fwd_ms, bwd_ms;
    double kernels_fwd, kernels_bwd;
    double bytes_fwd, bytes_bwd; /* the tensors the collectives read and write (held buffers) */
} comm;

/* TP/SP, EP and CP: each pass's exposed time, the collectives launched and the bytes they
 * hold (layer_comm.c). */
comm nd_layer_tp_comm(const dims *x, nd_layer_kind kind, const acc *att, const acc *ffn, const acc *core);
comm nd_layer_ep_comm(const dims *x, double dispatch_bytes);
comm nd_layer_cp_comm(const dims *x, const acc *core);

/* The bytes a CP ring of n steps moves beside its attention kernels, forward and backward, and
 * its kernels: `out` elements of the local output, `kv` of the local K and V at the query's
 * heads; PyTorch's ring (torch_ring) or Transformer Engine's (layer.c says how). */
void nd_ring_merge_bytes(bool torch_ring, double out, double kv, double n, double *fwd_bytes,
                         double *bwd_bytes, double *kernels);

#endif
