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

/* The arithmetic a GEMM runs in: BF16/FP16, FP8 (Transformer Engine), TF32 or plain FP32. */
typedef enum { ND_GEMM_16BIT = 0, ND_GEMM_FP8, ND_GEMM_TF32, ND_GEMM_FP32 } nd_gemm_precision;

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

/* Time of a memory-bound kernel moving `bytes` through HBM. */
double nd_memory_ms(const nd_device *d, double bytes);

/* Time of fused (flash) attention doing `flops` on keys of length s_k: forward at
 * attention_fwd_efficiency, backward at attention_bwd_efficiency, each times
 * s_k / (s_k + attention_half_seq), of the 16-bit peak. */
double nd_attention_ms(const nd_device *d, double flops, double s_k, bool backward, bool fa2);

#endif
