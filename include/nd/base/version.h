/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-7: an MoE layer's host work per local expert as Transformer Engine's GroupedLinear
 * runs it (each expert's GEMMs launched from its C++ loop; in FP8 each expert's casts and its
 * weight workspace), and PyTorch's ring attention (torchtitan's CP) as its code runs it (fp32
 * merges, K and V at every query head, fp32 gradient rotation): a COMPUTE, OVERHEAD or CP_COMM
 * ratio fitted on such a round before would correct what the estimate now prices. (nd-cost-6:
 * the optimizer step's passes and TE's FP8 weight copies; nd-cost-5: TE's placeholder weight
 * gradients, SP's two collectives, the B200's measured NVLink; nd-cost-4: Hopper's GEMMs at an
 * in-training share of their sweeps.) */
#define ND_COST_MODEL_VERSION "nd-cost-7"

#endif
