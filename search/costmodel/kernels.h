/*
 * kernels.h — time of one kernel on a device, ms: a roofline with a shape
 * penalty for matrix multiplications, bandwidth for memory-bound kernels, and
 * fused (flash) attention. docs/cost-model.md §Compute.
 */
#ifndef ND_KERNELS_H
#define ND_KERNELS_H

#include "nd/device.h"

/* Time of C[M,N] = A[M,K] B[K,N] with elements of elem_bytes: the larger of the FLOP time
 * (2MNK at peak x efficiency) and the time to move A, B and C through HBM. */
double nd_gemm_ms(const nd_device *d, double m, double n, double k, int elem_bytes);

/* Time of a memory-bound kernel moving `bytes` through HBM. */
double nd_memory_ms(const nd_device *d, double bytes);

/* Time of fused attention forward: `flops` at peak x gemm efficiency of the (s_q x s_k)
 * score shape x the device's attention_efficiency. */
double nd_attention_ms(const nd_device *d, double flops, double s_q, double s_k);

#endif
