/*
 * train.h — how a model is trained, as far as the cost model reads it: precisions, the
 * optimizer, recompute, the schedule, the overlap switches, the framework and what its
 * profile does beyond the arithmetic. The run file (nd/inputs/run.h) fills one from its
 * `train:` keys; the engine reads nothing else of the run.
 */
#ifndef ND_COSTMODEL_TRAIN_H
#define ND_COSTMODEL_TRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/costmodel/strategy.h"

typedef enum { ND_OPTIMIZER_ADAMW = 0, ND_OPTIMIZER_SGD = 1, ND_OPTIMIZER_MUON = 2 } nd_optimizer;

/* How the optimizer step runs over the tensors, which decides its temporaries: one fused kernel
 * (none), torch's foreach lists (one list the size of the local shard), or a loop over the
 * tensors (one tensor's at a time). */
typedef enum {
    ND_OPTIMIZER_FUSED = 0,
    ND_OPTIMIZER_FOREACH = 1,
    ND_OPTIMIZER_PER_TENSOR = 2
} nd_optimizer_impl;

/* Modules recomputed under selective recompute (a bit set). */
enum {
    ND_SELECTIVE_CORE_ATTN = 1,  /* attention scores, softmax, dropout (Korthikanti et al.) */
    ND_SELECTIVE_ACTIVATION = 2, /* the MLP activation function's output */
    ND_SELECTIVE_NORM = 4,       /* the norms' outputs */
    ND_SELECTIVE_MLA_UP = 8,     /* MLA's up-projections and rotary (Megatron's mla_up_proj) */
    ND_SELECTIVE_MOE_ACT = 16,   /* the routed experts' activation alone (Megatron's moe_act) */
};

/* The training framework, for what it does beyond the arithmetic: the host operators it issues
 * per layer, the vocabulary padding, whether pipeline sends synchronise the host.
 * docs/cost-model.md §Host and fixed costs. */
typedef enum {
    ND_FRAMEWORK_MEGATRON = 0,       /* Megatron-core with Transformer Engine (2023-), NeMo */
    ND_FRAMEWORK_MEGATRON_LEGACY,    /* Megatron-LM before Megatron-core (2019-2022): Python
                                        layers, apex fused kernels, TorchScript fusions */
    ND_FRAMEWORK_MEGATRON_DEEPSPEED, /* Megatron-DeepSpeed: the legacy layers under DeepSpeed's
                                        engine and activation checkpointing */
    ND_FRAMEWORK_TORCHTITAN,         /* torchtitan: FSDP2, DTensor TP, torch.distributed pipelining */
    ND_FRAMEWORK_FSDP,               /* PyTorch FSDP (llm-foundry, Hugging Face Accelerate) */
    ND_FRAMEWORK_DEEPSPEED,          /* DeepSpeed's engine and ZeRO on Hugging Face-style models */
    ND_FRAMEWORK_MINDSPEED,          /* MindSpeed / MindFormers on Ascend */
    ND_FRAMEWORKS
} nd_framework;

/* FP8 scaling recipes (Transformer Engine names): per-tensor scales from an amax history
 * (delayed), per-tensor scales from this tensor's amax (current: one more read), per-block
 * scales (blockwise, DeepSeek-V3 / MXFP8). */
typedef enum { ND_FP8_DELAYED = 0, ND_FP8_CURRENT, ND_FP8_BLOCKWISE } nd_fp8_recipe;

/* train.virtual_optimizer: all — more than any device holds (MindSpeed reads "all" as 65). */
#define ND_VIRTUAL_OPTIMIZER_ALL 1e6

/* Context-parallel attention: a ring passing K/V blocks (Ring Attention, Megatron's
 * "p2p"), all-to-alls that swap sequence for heads (DeepSpeed-Ulysses, "a2a"), K and V
 * gathered from every rank (Llama 3's, torchtitan's "allgather"), or both of the first two
 * (MindSpeed's hybrid_cp_algo: all-to-alls within groups of cp_ulysses_degree ranks, a ring
 * across them). Every form runs a blockwise fused attention kernel: unfused attention has no CP
 * (Megatron requires Transformer Engine's). */
typedef enum { ND_CP_RING = 0, ND_CP_A2A, ND_CP_ALLGATHER, ND_CP_HYBRID } nd_cp_comm;

/* How routed tokens reach their experts: an NCCL all-to-all of every token copy (Megatron's
 * alltoall dispatcher), or DeepEP-style kernels that send a token once to each node holding its
 * experts over the NIC and fan it out over NVLink there (DeepEP, Megatron's flex dispatcher with
 * deepep or hybridep backends). */
typedef enum { ND_MOE_ALLTOALL = 0, ND_MOE_DEEPEP } nd_moe_dispatcher;

/* The fused attention kernel a stack runs: the device's best (FlashAttention-3 on Hopper, -4 or
 * cuDNN on Blackwell), cuDNN's fused attention (Transformer Engine's; on Hopper 0.57 of peak
 * forward where FA3 reaches 0.64, FA3 paper, arXiv:2407.08608, Figs 5-6), FlashAttention-2 and
 * its kin (SDPA's flash backend; the same figures: about 35 % of H100's peak), or the Triton
 * FlashAttention of 2023 (flash-attn's flash_attn_triton.py, MPT's attn_impl: triton), slower
 * than FA2 by the FA2 paper's measured factors (kernels.h). */
typedef enum {
    ND_ATTENTION_AUTO = 0,
    ND_ATTENTION_BEST,
    ND_ATTENTION_FA2,
    ND_ATTENTION_TRITON,
    ND_ATTENTION_CUDNN
} nd_attention_kernel;

typedef struct nd_train {
    int64_t seq_len;      /* tokens per sequence */
    int64_t global_batch; /* sequences per optimizer step; 0 = not stated */
    char precision[8];    /* "bf16", "fp16" or "fp32": parameters and activations */
    int param_bytes;      /* bytes per parameter and per activation element */
    int grad_bytes;       /* gradient accumulation and reduction precision */
    int master_bytes;     /* master copy of the weights kept by the optimizer (0: none) */
    nd_optimizer optimizer;
    int optimizer_states; /* states per parameter (Adam 2, SGD momentum 1, Muon 1) */
    int state_bytes;      /* bytes per optimizer state */
    bool grad_clip;       /* gradient-norm clipping (the norm's read, the scale's read and write) */
    nd_recompute recompute;
    unsigned selective_modules; /* ND_SELECTIVE_* */
    nd_schedule schedule;
    bool flash_attention;
    nd_attention_kernel attention_kernel; /* which fused kernel; AUTO: the framework's */
    double dropout;                       /* hidden and attention dropout probability */
    bool overlap_grad_reduce;             /* gradient reduction behind the last backward */
    bool overlap_param_gather;            /* sharded-parameter all-gather behind the next forward */
    int tp_comm_overlap;                  /* TP collectives behind the GEMMs (userbuffers, AsyncTP); -1:
                                             the framework's (nd_train_tp_comm_overlap) */
    bool ep_comm_overlap;             /* EP all-to-all of one micro-batch behind another's compute (Megatron's
                                         --overlap-moe-expert-parallel-comm; DualPipe does it by design) */
    bool overlap_p2p_comm;            /* interleaved pipeline sends behind the next chunk's compute
                                         (Megatron's default, --no-overlap-p2p-communication to stop) */
    nd_moe_dispatcher moe_dispatcher; /* how tokens reach their experts */
    bool moe_dispatch_fp8;            /* dispatch sends FP8 tokens (DeepEP), the combine 16-bit ones */
    double moe_imbalance;             /* tokens the busiest rank's experts get over the balanced share
                                         (1: balanced, as Megatron-Bridge's benchmarks force it) */
    bool account_embedding;           /* the embedding counts as a layer of the pipeline split */
    bool account_loss;                /* the loss likewise (Megatron's account_for_*_in_pipeline_split) */
    bool swap_optimizer;              /* optimizer states live in host memory (ND's -swap_os) */
    double virtual_optimizer_gib;     /* GiB of AdamW's moments a device keeps in host memory mapped
                                         into it (torch_npu's swapped memory: MindSpeed's and
                                         torchtitan-npu's virtual optimizer); the master weights stay.
                                         0: none; ND_VIRTUAL_OPTIMIZER_ALL: every moment */
    bool fp8;                         /* linear-layer GEMMs in FP8 (Transformer Engine), the rest 16-bit */
    bool grad_accumulation_fusion;    /* weight-gradient GEMMs add into the fp32 gradient buffer
                                         (Megatron); false: an extra pass per micro-batch */
    int check_for_nan_in_grad;        /* the gradient buffer's norm is read for NaNs before each
                                         reduction (Megatron's check_for_nan_in_grad); -1: the
                                         framework's (nd_train_check_for_nan_in_grad) */
    bool fp8_weight_cache;            /* under FP8 Transformer Engine casts each weight once per step and
                                         keeps the copies (false: Megatron's
                                         --disable-parameter-transpose-cache, a cast every micro-batch) */
    bool average_in_collective;       /* the data-parallel reduction averages (Megatron's
                                         --ddp-average-in-collective): no 1/(DP x CP) pre-scale of the
                                         non-expert gradients, the experts' by EDP/(DP x CP) */
    nd_framework framework;
    bool tf32; /* fp32 runs: matmuls on TF32 tensor cores (PyTorch's default
                  since 1.12 is false: plain FP32) */
    nd_fp8_recipe fp8_recipe;
    nd_cp_comm cp_comm;
    int64_t cp_ulysses_degree;  /* hybrid CP: the all-to-all groups' size (MindSpeed's
                              --ulysses-degree-in-cp); 0 under the other forms */
    bool cuda_graphs;           /* the step is captured in CUDA graphs: no per-operator host dispatch */
    bool moe_grouped_gemm;      /* experts run as one grouped GEMM (false: a GEMM per local expert) */
    int expandable_segments;    /* PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: freed pages
                                   serve any request, so the allocator caches little beyond the
                                   allocated peak. -1: the framework's default */
    int optimizer_impl;         /* nd_optimizer_impl; -1: the framework's */
    int record_streams;         /* NCCL collectives record their buffers on the communication
                                   stream (PyTorch's recordStream, before
                                   TORCH_NCCL_AVOID_RECORD_STREAMS became the default): the
                                   allocator cannot reuse a freed buffer until the device has run
                                   its collective. -1: the framework's default */
    int reshard_after_forward;  /* ZeRO-3 (FSDP) frees a layer's gathered weights after its
                                   forward and gathers them again for its backward. -1: the
                                   framework's (torchtitan: not under pipeline parallelism) */
    bool compile;               /* torch.compile: elementwise chains fused, fewer host operators */
    int64_t selective_every;    /* torchtitan's per-layer selective AC: every N-th layer fully
                                   recomputed, the others not (0: the framework's per-op or
                                   per-module selective recompute) */
    bool fp32_grad_copy;        /* the optimizer keeps fp32 copies of the gradients, allocated at
                                   the first step and zeroed, never freed (Megatron's fp16
                                   optimizer before main_grad buffers, 2020-21) */
    bool fused_cross_entropy;   /* the loss reads the 16-bit logits once and writes their
                                   gradient in place (Megatron's cross_entropy_loss_fusion, Liger,
                                   TE); false: the framework's fp32 cross entropy */
    int64_t vocab_divisible_by; /* the vocabulary is padded to a multiple of this x TP
                                   (0: the framework's: Megatron 128, others 1) */
    int moe_probs_in_expert;    /* the routing weights scale the experts' activation (the down
                                   projection's input) rather than their outputs, so no expert
                                   output is kept for the weights' gradient. -1: the framework's */
} nd_train;

/* The vocabulary the run trains at tensor-parallel degree tp: the model's, padded as the
 * framework pads it (Megatron: to a multiple of 128 x TP). */
int64_t nd_train_padded_vocab(const nd_train *t, int64_t vocab, int64_t tp);

/* The ranks of a CP group the K/V ring passes through: CP for the ring, 1 for the all-to-all
 * and all-gather forms, CP over its Ulysses part for the hybrid (the degree's greatest common
 * divisor with CP, so a CP it does not divide keeps a whole Ulysses group). */
int64_t nd_train_cp_ring_degree(const nd_train *t, int64_t cp);

/* The ranks of a CP group its all-to-alls split the heads over: CP for the all-to-all, the
 * Ulysses part for the hybrid, 1 for the ring and the all-gather. Each such rank computes
 * whole heads, so the attention heads must divide over MP times it (Megatron's and
 * DeepSpeed-Ulysses' asserts). */
int64_t nd_train_cp_head_split(const nd_train *t, int64_t cp);

/* Bytes of AdamW's moments a device keeps in host memory under the virtual optimizer, of a
 * local shard of local_params parameters: the moments up to the stated GiB (0 when the whole
 * optimizer is swapped, or none is virtual). */
double nd_train_host_moment_bytes(const nd_train *t, double local_params);

/* Whether the caching allocator runs with expandable segments (the run's choice, else the
 * framework's). */
bool nd_train_expandable_segments(const nd_train *t);

/* "fused", "foreach", "per_tensor"; NULL past the last. */
const char *nd_optimizer_impl_name(nd_optimizer_impl impl);

/* How the optimizer step runs (the run's choice, else the framework's). */
nd_optimizer_impl nd_train_optimizer_impl(const nd_train *t);

/* Whether collectives hold their buffers until the device has run them (the run's choice,
 * else the framework's). */
bool nd_train_record_streams(const nd_train *t);

/* Whether each step reads the gradient buffer for NaNs (the run's choice, else the framework's). */
bool nd_train_check_for_nan_in_grad(const nd_train *t);

/* Whether the routing weights are applied inside the experts (the run's choice, else the
 * framework's). */
bool nd_train_moe_probs_in_expert(const nd_train *t);

/* Whether ZeRO-3 reshards a layer's weights after its forward at pipeline degree pp (the
 * run's choice, else the framework's). */
bool nd_train_reshard_after_forward(const nd_train *t, int64_t pp);

/* "megatron", "megatron-legacy", "megatron-deepspeed", "torchtitan", "fsdp", "deepspeed",
 * "mindspeed". */
const char *nd_framework_name(nd_framework f);

/* The same names, indexed by nd_framework (the run file's `framework:` words). */
extern const char *const nd_framework_names[ND_FRAMEWORKS];

/* What a framework does on the host around the kernels, per decoder layer: dispatcher calls
 * that launch no kernel (views, splits, transposes, empty buffers, RNG-state saves and
 * restores, autograd Function applies, TorchScript calls), counted from each framework's
 * layer code (docs/cost-model.md §Host). */
typedef struct nd_framework_profile {
    double glue_ops_fwd;               /* per layer forward */
    double glue_ops_bwd;               /* per layer backward */
    double checkpoint_ops;             /* per recomputed layer: the checkpoint's own bookkeeping */
    bool p2p_sync;                     /* pipeline sends end with a device synchronisation (Megatron's
                                          batch_p2p_sync, DeepSpeed's blocking sends) */
    bool pass_syncs;                   /* each micro-batch's forward and backward are bracketed by device
                                          synchronisations (legacy Megatron's timers call
                                          torch.cuda.synchronize), so host and device overlap only within
                                          a pass */
    double collective_host_us;         /* host time of one torch.distributed collective call */
    double microbatch_ops;             /* host operators per micro-batch outside the layers: the batch's
                                          load and broadcast, the loss function and its averaging, the
                                          engine's forward and backward wrappers */
    double ce_fwd_bytes, ce_bwd_bytes; /* unfused cross entropy: HBM bytes per logit, forward
                                          and backward (fp32 upcast, max, shift, exp, sum, normalise) */
    double ce_fwd_kernels, ce_bwd_kernels;
    double optimizer_temp_bytes;      /* the step's temporaries beside the optimizer's own, bytes per
                                         local parameter (legacy Megatron's flattened gradients 2) */
    nd_optimizer_impl optimizer_impl; /* the optimizer it runs by default */
    double ce_working_bytes;          /* the unfused loss's peak working set per logit (16-bit logits):
                                         Megatron's fp32 logits in place 2 + 2 + 4 = 8; torch's upcast and
                                         log_softmax 2 + 4 + 4 + 4 = 14 */
    bool eager_elementwise;           /* norms, rotary embeddings and gated activations run as PyTorch
                                         eager ops, several kernels each (no fused kernels) unless compiled */
    bool op_selective;                /* `selective` recompute is torchtitan's per-op policy: every other
                                         matmul output kept, the non-matmul ops recomputed */
    bool expandable_segments;         /* the framework's launcher sets expandable_segments:True */
    bool record_streams;              /* its collectives' buffers are recordStream'ed (PyTorch 1.x era;
                                         docs/cost-model.md §Memory, held collective buffers) */
    unsigned schedules;               /* 1 << nd_schedule of each pipeline schedule it runs, which a search
                                         tries (the run's own is always tried) */
    bool split_accounts;              /* it can count the embedding and loss as layers of the split */
    bool fp8_saves_fp8;               /* under FP8 its linear layers keep their inputs in FP8 (Transformer
                                         Engine), not the 16-bit tensors */
    bool tp_comm_overlap;             /* its current recipes overlap TP communication with the GEMMs */
    nd_attention_kernel attention;    /* the fused attention kernel it runs by default */
    bool pp_reduce_once;              /* under pipeline parallelism its sharded gradients are reduced
                                         once, after the last micro-batch's backward, not after each
                                         (torch.distributed.pipelining's backward_maybe_with_nosync:
                                         FSDP's gradient sync off until the last backward) */
    bool moe_probs_in_expert;         /* its experts multiply their activation by the routing weights
                                         (Megatron-Core's activation_func_with_probs, MindSpeed's), so
                                         the combine keeps no expert outputs */
    double moe_glue_ops_fwd;          /* host calls of an MoE block's forward that nd's operator walk
                                         does not see (the router's and dispatcher's bookkeeping: token
                                         counts, splits, index maps, the load-balancing loss), counted
                                         from the framework's code; 0: not counted */
    double moe_glue_ops_bwd;          /* likewise backward, beside moe_expert_ops_bwd */
    double moe_expert_ops_bwd;        /* backward host calls per local expert (a grouped linear's
                                         per-expert buffers, each weight's autograd accumulation node) */
    bool grouped_gemm_per_expert;     /* its grouped expert GEMM launches one GEMM kernel per expert
                                         (Transformer Engine's GroupedLinear), not one grouped kernel */
    bool torch_ring_attention;        /* its context parallelism is PyTorch's ring attention
                                         (torch.distributed.tensor.experimental._attention): partial
                                         outputs merged in fp32 into fresh tensors a step, K and V
                                         (repeated to every query head) concatenated for each exchange,
                                         their gradients accumulated and rotated in fp32 */
    int zero3_fetches_per_layer;      /* ZeRO-3 fetches each module's weights as it runs (DeepSpeed):
                                         this many gathers (and gradient scatters) a layer, each
                                         waited for; 0: whole-layer gathers prefetched (FSDP) */
    bool grad_nan_check;              /* by default each step reads its whole gradient buffer for a norm
                                         that finds NaNs before the reduction (Megatron-LM's
                                         check_for_nan_in_grad: --no-check-for-nan-in-loss-and-grad) */
    bool grad_prescale;               /* the gradient buffer is multiplied by its scaling factor before
                                         the reduction where the factor is not 1, a read and a write
                                         (Megatron's gradient_scaling_factor; average_in_collective) */
} nd_framework_profile;

const nd_framework_profile *nd_framework_profile_of(nd_framework f);

/* The fused attention kernel (the run's choice, else the framework's). */
nd_attention_kernel nd_train_attention_kernel(const nd_train *t);

/* What the run's attention runs, in words: the kernel nd_train_attention_kernel gives, or
 * "unfused" when flash_attention is false (a static string). */
const char *nd_train_attention_text(const nd_train *t);

/* Whether TP collectives run behind the GEMMs (the run's choice, else the framework's). */
bool nd_train_tp_comm_overlap(const nd_train *t);

/* The device memory a strategy should leave free beyond what nd prices: the fragmentation a
 * framework's caching allocator really leaves, 3 % of the device (2 % with expandable
 * segments), MiB. docs/cost-model.md §Memory per stage and the fits rule. */
double nd_train_memory_margin_mib(const nd_train *t, double capacity_mib);

/* Training defaults: bf16, fp32 gradients and master weights, AdamW, flash attention,
 * no dropout, selective = core attention, 1F1B, overlaps on except TP and EP. */
void nd_train_init(nd_train *t);

/* Sets precision-derived sizes (param/grad/master bytes) from train.precision. */
int nd_train_set_precision(nd_train *t, const char *precision);

#endif
