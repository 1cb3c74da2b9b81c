/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-6: the optimizer step's passes (the master weights read again for the model copy,
 * Megatron's NaN check and 1/DP pre-scale of the gradient buffer, clipping's scale) and
 * Transformer Engine's FP8 weight copies and their casts (docs/benchmarks.md): an OPTIMIZER
 * ratio, and a memory ratio of an FP8 round, fitted before would correct what no longer needs
 * it. (nd-cost-5: TE's placeholder weight gradients, SP's two collectives, the B200's measured
 * NVLink; nd-cost-4: Hopper's GEMMs at an in-training share of their sweeps.) */
#define ND_COST_MODEL_VERSION "nd-cost-6"

#endif
