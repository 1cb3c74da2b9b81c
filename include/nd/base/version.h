/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-5: Transformer Engine's placeholder weight gradients held in memory, SP's
 * all-gathers and reduce-scatters priced as two collectives, the B200's NVLink collectives
 * from SimuMax's nccl-tests fits, Blackwell's attention from its traced kernels, the all-to-all
 * dispatcher's sort by local expert
 * (docs/benchmarks.md): a Megatron round's memory ratios and an
 * SP round's MP_COMM ratio fitted before would correct what no longer needs it. (nd-cost-4:
 * Hopper's GEMMs at an in-training share of their sweeps, its attention from the
 * FlashAttention-3 paper's curves; GB300 at its board power.) */
#define ND_COST_MODEL_VERSION "nd-cost-5"

#endif
