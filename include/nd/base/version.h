/*
 * version.h — versions stamped into outputs. ND_COST_MODEL_VERSION changes whenever
 * the cost model's equations change in a way that invalidates fitted ratios.
 */
#ifndef ND_VERSION_H
#define ND_VERSION_H

#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif
/* nd-cost-10: the A3's node is its SuperPoD's UB fabric (768 dies), not a server of 16; Mistral's
 * window on every layer, Gemma 2's and GLM-4-0414's sandwich norms, the virtual optimizer's
 * moments across the host link: a ratio fitted on an A3 round, or on such a model, before would
 * correct what the estimate now prices.
 * (nd-cost-9: the Ascend devices' GEMMs, attention, norms and activations at a 910B's rates in
 * training (norm_hbm_efficiency, activation_hbm_efficiency) and A2's HCCS at torch.distributed's;
 * nd-cost-8: Hopper's attention kernels at the in-training share of their benchmarks' rates;
 * nd-cost-7: an MoE layer's host
 * work per local expert as Transformer Engine's GroupedLinear runs it, and PyTorch's ring
 * attention as its code runs it; nd-cost-6: the optimizer step's passes and TE's FP8 weight
 * copies; nd-cost-5: TE's placeholder weight gradients, SP's two collectives, the B200's
 * measured NVLink; nd-cost-4: Hopper's GEMMs at an in-training share of their sweeps.) */
#define ND_COST_MODEL_VERSION "nd-cost-10"

#endif
