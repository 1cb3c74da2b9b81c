/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-8: Hopper's attention kernels at the in-training share of their benchmarks' rates
 * (attention_training_share), as its GEMMs: a COMPUTE ratio fitted on an H100, H800 or H200
 * round before would correct what the estimate now prices. (nd-cost-7: an MoE layer's host
 * work per local expert as Transformer Engine's GroupedLinear runs it, and PyTorch's ring
 * attention as its code runs it; nd-cost-6: the optimizer step's passes and TE's FP8 weight
 * copies; nd-cost-5: TE's placeholder weight gradients, SP's two collectives, the B200's
 * measured NVLink; nd-cost-4: Hopper's GEMMs at an in-training share of their sweeps.) */
#define ND_COST_MODEL_VERSION "nd-cost-8"

#endif
