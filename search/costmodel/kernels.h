/*
 * kernels.h — time of one kernel on a device, ms: GEMMs on a measured efficiency curve of
 * their shape and precision, grouped (MoE expert) GEMMs, fused attention forward and
 * backward, and memory-bound kernels at the bandwidth they reach. The fixed cost every
 * kernel adds (kernel_launch_us) and the host's dispatch are counted by the caller.
 * docs/cost-model.md §Compute kernels; the constants and their sources: docs/devices.md.
 */
#ifndef ND_KERNELS_H
#define ND_KERNELS_H

#include <stdbool.h>
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"

/* The device's peak for precision p, TFLOP/s (TF32 falls back to FP32 on devices without it,
 * FP8 to 16-bit). */
double nd_gemm_peak_tflops(const nd_device *d, nd_gemm_precision p);

/* Time of C[M,N] = A[M,K] B[K,N] with elements of elem_bytes: the device's fixed GEMM time
 * (gemm_fixed_us) plus the larger of the FLOP time (2MNK at the peak x efficiency) and the
 * time to move A, B and C through HBM (FP8 inputs are one byte). The curve and the fixed
 * time are fitted to measured GEMM tables (samples/devices/gemm/, docs/devices.md). */
double nd_gemm_ms(const nd_device *d, nd_gemm_precision p, double m, double n, double k, double elem_bytes);

/* Time of a grouped GEMM: `groups` GEMMs of M x N x K (one per local expert, M its tokens)
 * in one kernel, at the per-expert shape's efficiency times the device's grouped factor
 * (grouped_wgrad_efficiency for the weight gradient, whose reduction runs over the few
 * tokens each expert receives). */
double nd_grouped_gemm_ms(const nd_device *d, nd_gemm_precision p, double groups, double m, double n,
                          double k, double elem_bytes, bool weight_grad);

/* Communication that runs beside compute still slows it: its kernels take SMs and HBM
 * bandwidth. Hu et al. 2025 (arXiv:2507.03114) measure compute kernels 18.9 % slower on average
 * while a collective overlaps them; nd charges that share of every hidden millisecond. */
#define ND_OVERLAP_SLOWDOWN 0.189

/* What `comm_ms` of communication costs a pass when it may run behind `window_ms` of compute
 * (overlap): its excess over the window, plus the slowdown of the compute it hides behind. */
double nd_overlapped_ms(double comm_ms, bool overlap, double window_ms);

/* Time of the GEMM that `pass` of a linear layer (tokens x in -> out) runs: at the rate the
 * device's kernel tables measured for it, interpolated between measured shapes, or on the
 * curve (nd_gemm_ms) where they have nothing near. */
double nd_linear_ms(const nd_device *d, nd_gemm_precision p, nd_gemm_pass pass, double tokens, double in,
                    double out, double elem_bytes);

/* The same for a grouped GEMM of `groups` experts, each tokens x in -> out. */
double nd_grouped_linear_ms(const nd_device *d, nd_gemm_precision p, nd_gemm_pass pass, double groups,
                            double tokens, double in, double out, double elem_bytes);

/* Time of a memory-bound kernel moving `bytes` through HBM. */
double nd_memory_ms(const nd_device *d, double bytes);

/* Time of one memory-bound operator of class `op` moving `bytes`: at the rate and with the
 * fixed time the device's kernel tables measured for the class (its default class where the
 * tables do not name it), else nd_memory_ms. 0 bytes cost 0. */
double nd_memop_ms(const nd_device *d, nd_memop op, double bytes);

/* The kernel's shape, for a device's measured attention table: sequences, heads, head dims. */
typedef struct nd_attention_shape {
    double batch, heads, kv_heads, qk_dim, v_dim;
} nd_attention_shape;

/* The Triton FlashAttention of 2023 against FlashAttention-2 on the same GPU: "around 1.3-1.5x"
 * slower forward and "around 2x" backward (Dao 2023, arXiv:2307.08691 §4.1, A100; the midpoint
 * forward). Measured on A100 and assumed on the GPUs after it. */
#define ND_TRITON_FWD_SLOWDOWN 1.4
#define ND_TRITON_BWD_SLOWDOWN 2.0

/* Which fused kernel's rates nd_attention_ms uses. */
typedef enum {
    ND_ATTN_RATES_BEST = 0,
    ND_ATTN_RATES_FA2,
    ND_ATTN_RATES_TRITON,
    ND_ATTN_RATES_CUDNN
} nd_attention_rates;

/* Time of fused (flash) attention doing `flops` on keys of mean length s_k: forward at
 * attention_fwd_efficiency, backward at attention_bwd_efficiency (FlashAttention-2's where
 * the rates are FA2's or Triton's and the device states them, cuDNN's likewise; Triton's divided
 * by the slowdowns above), each times s_k / (s_k + attention_half_seq), of the 16-bit peak, over
 * the padding of the head dimension FA2 and Triton compute with (kernels.c); or at the device's
 * measured rate for the shape (shape NULL: the curve, unpadded). */
double nd_attention_ms(const nd_device *d, double flops, double s_k, bool backward, nd_attention_rates rates,
                       const nd_attention_shape *shape);

#endif
