/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-4: Hopper's GEMMs at an in-training share of their sweeps, its attention from the
 * FlashAttention-3 paper's curves with cuDNN's kernel for Megatron-core, FA2's and Triton's
 * padded head dimensions, GB300 at its board power (docs/benchmarks.md): an H100 round's
 * ratios fitted before would correct what no longer needs it. */
#define ND_COST_MODEL_VERSION "nd-cost-4"

#endif
