/*
 * kernel_table.h — kernels measured on a machine, beside a device's curves: GEMMs per shape,
 * pass and precision, grouped (MoE expert) GEMMs, fused attention per shape, memory-bound
 * operators per class, and collectives per operation and link tier. A device that has tables
 * prices a measured shape at its measured rate, a shape between measured ones by
 * interpolation, and any other on its curve (docs/devices.md §Kernel tables).
 *
 * Tables belong to the device table that loaded them (nd_device_table_adopt_tables); a device
 * borrows them (nd_device.tables) for as long as that table lives.
 */
#ifndef ND_COSTMODEL_KERNEL_TABLE_H
#define ND_COSTMODEL_KERNEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* The arithmetic a GEMM runs in: BF16/FP16, FP8 (Transformer Engine), TF32 or plain FP32. */
typedef enum { ND_GEMM_16BIT = 0, ND_GEMM_FP8, ND_GEMM_TF32, ND_GEMM_FP32 } nd_gemm_precision;

/* Which GEMM of a linear layer: forward Y = X W (SimuMax's layout TN), input gradient
 * dX = dY W^T (NN), weight gradient dW = X^T dY (NT, accumulating into fp32). */
typedef enum { ND_PASS_FORWARD = 0, ND_PASS_INPUT_GRAD, ND_PASS_WEIGHT_GRAD, ND_PASS_ANY } nd_gemm_pass;

/* A measured GEMM C[M,N] = A[M,K] B[K,N] as nd runs it for `pass` (forward: tokens x out x in;
 * input gradient: tokens x in x out; weight gradient: in x out x tokens), or for any pass
 * (a profiled shape whose pass the trace does not say), and the fraction of the precision's
 * peak it reached. */
typedef struct nd_gemm_point {
    double m, n, k;
    double efficiency;
    nd_gemm_pass pass;
    nd_gemm_precision precision;
    double key[3]; /* log m, log n, log k (nd_kernel_tables_index) */
} nd_gemm_point;

/* A measured grouped GEMM: `groups` experts, each the M x N x K GEMM of its pass. */
typedef struct nd_grouped_point {
    double groups, m, n, k;
    double efficiency;
    nd_gemm_pass pass;
    nd_gemm_precision precision;
    double key[4];
} nd_grouped_point;

/* A measured fused-attention kernel, causal; efficiency is on nd's causal FLOPs
 * (2 b s^2 a (d_qk + d_v) / 2 forward, 2.5 times that backward). */
typedef struct nd_attention_point {
    double batch, seq, heads, kv_heads, qk_dim, v_dim;
    double efficiency;
    bool backward;
    double key[6];
} nd_attention_point;

/* Classes of memory-bound operators, each with its measured bandwidth share and fixed time. */
typedef enum {
    ND_MEMOP_DEFAULT = 0, /* residual adds, dropout, casts, copies; and what a table does not
                             measure of the classes below */
    ND_MEMOP_PERMUTE_FWD, /* MoE token permutation (dispatch order) */
    ND_MEMOP_PERMUTE_BWD,
    ND_MEMOP_CROSS_ENTROPY,       /* the loss, unfused */
    ND_MEMOP_CROSS_ENTROPY_FUSED, /* the fused loss (Megatron's cross_entropy_loss_fusion) */
    ND_MEMOP_OPTIMIZER,           /* the optimizer step's passes */
    ND_MEMOP_NORM,                /* normalisations and softmaxes: reductions along a row */
    ND_MEMOP_ACTIVATION,          /* activations (gated or not) and rotary embeddings */
    ND_MEMOP_CLASSES
} nd_memop;

typedef struct nd_memop_rate {
    bool stated;
    double gbps;       /* the bandwidth the share is of, GB/s */
    double efficiency; /* fraction of gbps */
    double fixed_us;   /* per kernel */
} nd_memop_rate;

/* Link tiers a collective runs on: inside a node, or across nodes. */
typedef enum { ND_TIER_INTRA = 0, ND_TIER_INTER } nd_link_tier;
#define ND_LINK_TIERS        2
#define ND_COLLECTIVES       5 /* nd_collective's values */
#define ND_FIXED_BY_SIZE_MAX 16

/* A collective measured on one tier (nccl-tests fitted): time = fixed(n) + steps x step_us +
 * bytes x scale x (n + offset) / n / (gbps x efficiency), steps n - 1 for rings. */
typedef struct nd_collective_rate {
    bool stated;
    double gbps;       /* the tier's link, per device and direction */
    double efficiency; /* of gbps, on the bytes the operation moves */
    double step_us;    /* per ring step (per peer for an all-to-all) */
    double fixed_us;   /* per call, when fixed_by_size does not name the group size */
    double scale, offset;
    int sizes_count;
    int sizes[ND_FIXED_BY_SIZE_MAX];
    double fixed_by_size_us[ND_FIXED_BY_SIZE_MAX];
    double gbps_by_size[ND_FIXED_BY_SIZE_MAX]; /* 0, or the rate measured at sizes[i] (x efficiency) */
} nd_collective_rate;

#define ND_TABLE_FILES_MAX 8

typedef struct nd_kernel_tables {
    char source[512]; /* the (first) file they came from, for messages */
    /* every file they were read from, absolute, in order (a device file's kernel_tables list):
       what a fitted device file names again */
    char files[ND_TABLE_FILES_MAX][512];
    int files_count;
    nd_gemm_point *gemm;
    size_t gemm_count;
    nd_grouped_point *grouped;
    size_t grouped_count;
    nd_attention_point *attention;
    size_t attention_count;
    nd_memop_rate memop[ND_MEMOP_CLASSES];
    nd_collective_rate collective[ND_LINK_TIERS][ND_COLLECTIVES];
    /* filled by nd_kernel_tables_index: the points grouped by precision x 4 + pass (GEMMs,
       grouped GEMMs) or backward (attention), and where each group begins */
#define ND_TABLE_GROUPS 16
    size_t gemm_from[ND_TABLE_GROUPS + 1], grouped_from[ND_TABLE_GROUPS + 1], attention_from[3];
    struct nd_kernel_memo *memo; /* answers already looked up; may be NULL */
} nd_kernel_tables;

/* A measured rate near a query: the measured efficiency where the query is a measured shape,
 * else the measured points' ratios to the curve interpolated to the query (inverse squared
 * distance in log shape over the nearest four) when the query lies within the measured range
 * of every dimension, else none. `curve` gives the curve's efficiency at a shape. */
typedef double (*nd_curve_fn)(const void *ctx, const double *shape);

/* GEMM: the efficiency to use for the M x N x K GEMM of `pass` in `precision`: curve_here
 * (the curve at the query) scaled by what the table measured, or curve_here itself when the
 * table has nothing near. curve receives shapes as (m, n, k). */
double nd_kernel_tables_gemm(const nd_kernel_tables *t, nd_gemm_precision precision, nd_gemm_pass pass,
                             double m, double n, double k, double curve_here, nd_curve_fn curve,
                             const void *ctx);

/* The same for a grouped GEMM of `groups` experts; curve receives (groups, m, n, k). */
double nd_kernel_tables_grouped(const nd_kernel_tables *t, nd_gemm_precision precision, nd_gemm_pass pass,
                                double groups, double m, double n, double k, double curve_here,
                                nd_curve_fn curve, const void *ctx);

/* Fused attention: forward or backward of `batch` sequences of `seq` tokens (causal). */
double nd_kernel_tables_attention(const nd_kernel_tables *t, bool backward, double batch, double seq,
                                  double heads, double kv_heads, double qk_dim, double v_dim,
                                  double curve_here, nd_curve_fn curve, const void *ctx);

/* Fills every point's key (the logs of its shape) once the points are in, and makes the memo of
 * answers (a search asks the same shapes many times; threads share it under a lock): lookups
 * compare keys, so a reader calls this before the tables are used. ND_ENOMEM leaves the tables
 * usable without a memo; 0 otherwise. */
int nd_kernel_tables_index(nd_kernel_tables *t);

void nd_kernel_tables_free(nd_kernel_tables *t);

#endif
