/*
 * train.c — the training defaults, the precisions they imply, and what each framework does
 * beyond the arithmetic (its profile): the engine's view of how a model is trained.
 */
#include "nd/costmodel/train.h"

#include <math.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/units.h"

const char *const nd_framework_names[ND_FRAMEWORKS] = {
    "megatron", "megatron-legacy", "megatron-deepspeed", "torchtitan", "fsdp", "deepspeed", "mindspeed",
};

const char *nd_framework_name(nd_framework f)
{
    return f >= 0 && f < ND_FRAMEWORKS ? nd_framework_names[f] : "?";
}

void nd_train_init(nd_train *t)
{
    memset(t, 0, sizeof *t);
    t->seq_len = 4096;
    nd_train_set_precision(t, "bf16");
    t->optimizer = ND_OPTIMIZER_ADAMW;
    t->optimizer_states = 2;
    t->state_bytes = 4;
    t->grad_clip = true;
    t->recompute = ND_RECOMPUTE_OFF;
    t->selective_modules = ND_SELECTIVE_CORE_ATTN;
    t->schedule = ND_SCHEDULE_1F1B;
    t->flash_attention = true;
    t->dropout = 0.0;
    t->overlap_grad_reduce = true;
    t->overlap_param_gather = true;
    t->overlap_p2p_comm = true;
    t->tp_comm_overlap = -1;
    t->moe_imbalance = 1.0;
    t->grad_accumulation_fusion = true;
    t->framework = ND_FRAMEWORK_MEGATRON;
    t->fp8_recipe = ND_FP8_DELAYED;
    t->cp_comm = ND_CP_RING;
    t->moe_grouped_gemm = true;
    t->fused_cross_entropy = false;
    t->expandable_segments = -1;
    t->record_streams = -1;
    t->check_for_nan_in_grad = -1;
    t->fp8_weight_cache = true;
    t->moe_probs_in_expert = -1;
    t->reshard_after_forward = -1;
    t->optimizer_impl = -1;
}

bool nd_train_expandable_segments(const nd_train *t)
{
    if (t->expandable_segments >= 0) return t->expandable_segments;
    return nd_framework_profile_of(t->framework)->expandable_segments;
}

const char *nd_optimizer_impl_name(nd_optimizer_impl impl)
{
    static const char *const names[] = {"fused", "foreach", "per_tensor"};
    return impl >= 0 && impl <= ND_OPTIMIZER_PER_TENSOR ? names[impl] : NULL;
}

nd_optimizer_impl nd_train_optimizer_impl(const nd_train *t)
{
    if (t->optimizer_impl >= 0) return (nd_optimizer_impl)t->optimizer_impl;
    return nd_framework_profile_of(t->framework)->optimizer_impl;
}

/* Megatron-core runs Transformer Engine's attention (cuDNN's fused kernel on Hopper and
 * Blackwell: TE prefers it to FlashAttention on Hopper), MindSpeed Ascend's FlashAttentionScore;
 * torchtitan and the Hugging Face stacks PyTorch's SDPA, whose flash backend is
 * FlashAttention-2; llm-foundry's MPT runs of 2023 a Triton flash kernel (attn_impl: triton),
 * priced as FA2 (pytorch/benchmark's H100 table: the Triton FA2 forward 0.33-0.48 of peak). */
nd_attention_kernel nd_train_attention_kernel(const nd_train *t)
{
    if (t->attention_kernel != ND_ATTENTION_AUTO) return t->attention_kernel;
    return nd_framework_profile_of(t->framework)->attention;
}

const char *nd_train_attention_text(const nd_train *t)
{
    if (!t->flash_attention) return "unfused (flash_attention false: score GEMMs and a softmax kernel)";
    switch (nd_train_attention_kernel(t)) {
    case ND_ATTENTION_CUDNN: return "cuDNN's fused attention (Transformer Engine's)";
    case ND_ATTENTION_FA2: return "FlashAttention-2 (or SDPA's flash backend)";
    case ND_ATTENTION_TRITON: return "the 2023 Triton FlashAttention";
    default: return "the device's best fused kernel (FlashAttention-3 on Hopper, -4 or cuDNN on Blackwell)";
    }
}

/* Megatron-Bridge's and NeMo's recipes switch TP overlap on (userbuffers) wherever TP > 1;
 * Megatron-LM's own default (--tp-comm-overlap) is off, and legacy Megatron, DeepSpeed and
 * torchtitan (AsyncTP, enable_async_tensor_parallel) leave it off unless asked. */
bool nd_train_tp_comm_overlap(const nd_train *t)
{
    if (t->tp_comm_overlap >= 0) return t->tp_comm_overlap;
    return nd_framework_profile_of(t->framework)->tp_comm_overlap;
}

/* What nd's memory peaks leave unexplained is of the order of their benchmarked error
 * (docs/benchmarks.md: 3-9 % on measured peaks): 3 % of the device keeps a pick off the edge;
 * expandable segments (freed pages serve any request) fragment less, 2 %. */
#define MARGIN_SHARE            0.03
#define MARGIN_SHARE_EXPANDABLE 0.02

double nd_train_memory_margin_mib(const nd_train *t, double capacity_mib)
{
    return capacity_mib * (nd_train_expandable_segments(t) ? MARGIN_SHARE_EXPANDABLE : MARGIN_SHARE);
}

static int64_t common_divisor(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

int64_t nd_train_cp_ring_degree(const nd_train *t, int64_t cp)
{
    if (t->cp_comm == ND_CP_RING) return cp;
    if (t->cp_comm != ND_CP_HYBRID || t->cp_ulysses_degree <= 0) return 1;
    return cp / common_divisor(cp, t->cp_ulysses_degree);
}

int64_t nd_train_cp_head_split(const nd_train *t, int64_t cp)
{
    if (t->cp_comm == ND_CP_A2A) return cp;
    return t->cp_comm == ND_CP_HYBRID ? cp / nd_train_cp_ring_degree(t, cp) : 1;
}

double nd_train_host_moment_bytes(const nd_train *t, double local_params)
{
    if (t->swap_optimizer || t->virtual_optimizer_gib <= 0) return 0;
    double moments = local_params * (double)(t->optimizer_states * t->state_bytes);
    return fmin(moments, t->virtual_optimizer_gib * ND_GIB);
}

bool nd_train_record_streams(const nd_train *t)
{
    if (t->record_streams >= 0) return t->record_streams;
    return nd_framework_profile_of(t->framework)->record_streams;
}

bool nd_train_check_for_nan_in_grad(const nd_train *t)
{
    if (t->check_for_nan_in_grad >= 0) return t->check_for_nan_in_grad;
    return nd_framework_profile_of(t->framework)->grad_nan_check;
}

bool nd_train_moe_probs_in_expert(const nd_train *t)
{
    if (t->moe_probs_in_expert >= 0) return t->moe_probs_in_expert;
    return nd_framework_profile_of(t->framework)->moe_probs_in_expert;
}

/* torchtitan keeps the gathered weights from forward to backward when it pipelines, to spare
 * an all-gather per micro-batch (its fsdp_reshard_after_forward = "default"); FSDP and
 * DeepSpeed reshard. */
bool nd_train_reshard_after_forward(const nd_train *t, int64_t pp)
{
    if (t->reshard_after_forward >= 0) return t->reshard_after_forward;
    return !(t->framework == ND_FRAMEWORK_TORCHTITAN && pp > 1);
}

/* Megatron-core's MoE block as its code runs it (megatron/core/transformer/moe: router.py's
 * TopKRouter, token_dispatcher.py's all-to-all dispatcher, moe_utils.py's permute, unpermute and
 * sort_chunks_by_idxs, experts.py's TEGroupedMLP; Transformer Engine's GroupedLinear), counted
 * call by call at the dispatcher: forward, the router 32 (unfused, with its load-balancing loss),
 * the dispatch preprocessing 31, the two all-to-alls 8, sorting the chunks by expert and back 10,
 * the experts 18, the combine's all-to-all 4, the unpermute 3: 106, of which nd's walk counts 18
 * (the router GEMM and its six kernels, the permutation's six, the two expert GEMMs, the
 * activation, the two all-to-alls): 88 glue. Backward 128 autograd calls, 64 of them the two
 * GroupedLinears' per-expert empty buffers and clear_tensor_data (4 an expert), and one
 * AccumulateGrad node with its DDP hook per expert weight (2 an expert) and the router's (1):
 * 128 - 64 + 1 - 18 = 47 glue, plus 6 per local expert. MindSpeed's dispatcher is Megatron's. */
#define MCORE_MOE_GLUE_FWD   88
#define MCORE_MOE_GLUE_BWD   47
#define MCORE_MOE_EXPERT_BWD 6

/* Counted from each framework's decoder layer and loss (see docs/cost-model.md §Host for the
 * lists). Megatron's vocab-parallel cross entropy on fp32 logits: cast (2 read, 4 written),
 * max (4), shift (8), exp (8), sum (4), normalise (8) = 38 bytes per logit forward; the
 * gradient (8), its scaling (8) and the cast back (4 read... 2 written) ~20 backward. PyTorch's
 * cross_entropy on upcast logits: cast 6, log_softmax 8, nll 4 forward; 14 backward.
 * A torch.distributed collective costs the host 20-30 us per call (S. Bekman's all_reduce
 * benchmark notes): 25. */
/* The pipeline schedules each framework runs: Megatron-core 1F1B and its interleaved form
 * (schedules.py); torchtitan torch.distributed.pipelining's 1F1B, Interleaved1F1B,
 * ZBVZeroBubble and DualPipeV (GPipe too, never faster than 1F1B); MindSpeed adds
 * --schedules-method dualpipev; DeepSpeed's pipeline engine 1F1B. Megatron-core alone splits
 * with the embedding and loss counted as layers (account_for_*_in_pipeline_split). */
#define SCHEDULE_BIT(s)    (1u << (s))
#define MEGATRON_SCHEDULES (SCHEDULE_BIT(ND_SCHEDULE_1F1B) | SCHEDULE_BIT(ND_SCHEDULE_INTERLEAVED))
#define TORCHTITAN_SCHEDULES                                                                                 \
    (MEGATRON_SCHEDULES | SCHEDULE_BIT(ND_SCHEDULE_ZB_V) | SCHEDULE_BIT(ND_SCHEDULE_DUALPIPE_V))
#define MINDSPEED_SCHEDULES (MEGATRON_SCHEDULES | SCHEDULE_BIT(ND_SCHEDULE_DUALPIPE_V))

static const nd_framework_profile profiles[ND_FRAMEWORKS] = {
    /* Legacy Megatron's local DDP flattens every gradient into one buffer for its all-reduce
     * at the end of the step (2 bytes); legacy Megatron and Megatron-DeepSpeed ran on
     * PyTorch 1.x, whose NCCL process group records every collective's buffers on its
     * stream (recordStream; pytorch#76861). Optimizers: Megatron's and DeepSpeed's
     * FusedAdam, torchtitan's fused AdamW (its default implementation), llm-foundry's
     * DecoupledAdamW a loop over the tensors (Composer). */
    [ND_FRAMEWORK_MEGATRON] =
        {
            .glue_ops_fwd = 35,
            .glue_ops_bwd = 55,
            .checkpoint_ops = 15,
            .p2p_sync = true,
            .pass_syncs = false,
            .collective_host_us = 25,
            .microbatch_ops = 80,
            .ce_fwd_bytes = 38,
            .ce_bwd_bytes = 20,
            .ce_fwd_kernels = 10,
            .ce_bwd_kernels = 4,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 8,
            .eager_elementwise = false,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = false,
            .schedules = MEGATRON_SCHEDULES,
            .split_accounts = true,
            .fp8_saves_fp8 = true,
            .tp_comm_overlap = true,
            .attention = ND_ATTENTION_CUDNN,
            .moe_probs_in_expert = true,
            .moe_glue_ops_fwd = MCORE_MOE_GLUE_FWD,
            .moe_glue_ops_bwd = MCORE_MOE_GLUE_BWD,
            .moe_expert_ops_bwd = MCORE_MOE_EXPERT_BWD,
            .grouped_gemm_per_expert = true,
            .grad_nan_check = true,
            .grad_prescale = true,
        },
    [ND_FRAMEWORK_MEGATRON_LEGACY] =
        {
            .glue_ops_fwd = 75,
            .glue_ops_bwd = 110,
            .checkpoint_ops = 25,
            .p2p_sync = true,
            .pass_syncs = true,
            .collective_host_us = 25,
            .microbatch_ops = 120,
            .ce_fwd_bytes = 38,
            .ce_bwd_bytes = 20,
            .ce_fwd_kernels = 10,
            .ce_bwd_kernels = 4,
            .optimizer_temp_bytes = 2,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 8,
            .eager_elementwise = false,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = true,
            .schedules = MEGATRON_SCHEDULES,
            .split_accounts = false,
            .fp8_saves_fp8 = true,
            .attention = ND_ATTENTION_FA2,
            .grad_prescale = true,
        },
    [ND_FRAMEWORK_MEGATRON_DEEPSPEED] =
        {
            .glue_ops_fwd = 75,
            .glue_ops_bwd = 110,
            .checkpoint_ops = 35,
            .p2p_sync = true,
            .pass_syncs = true,
            .collective_host_us = 25,
            .microbatch_ops = 200,
            .ce_fwd_bytes = 38,
            .ce_bwd_bytes = 20,
            .ce_fwd_kernels = 10,
            .ce_bwd_kernels = 4,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 8,
            .eager_elementwise = false,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = true,
            .schedules = SCHEDULE_BIT(ND_SCHEDULE_1F1B),
            .split_accounts = false,
            .fp8_saves_fp8 = false,
            .attention = ND_ATTENTION_FA2,
        },
    [ND_FRAMEWORK_TORCHTITAN] =
        {
            .glue_ops_fwd = 45,
            .glue_ops_bwd = 70,
            .checkpoint_ops = 15,
            .p2p_sync = false,
            .pass_syncs = false,
            .collective_host_us = 25,
            .microbatch_ops = 60,
            .ce_fwd_bytes = 18,
            .ce_bwd_bytes = 14,
            .ce_fwd_kernels = 4,
            .ce_bwd_kernels = 3,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 14,
            .eager_elementwise = true,
            .op_selective = true,
            .expandable_segments = true,
            .record_streams = false,
            .schedules = TORCHTITAN_SCHEDULES,
            .split_accounts = false,
            .fp8_saves_fp8 = false,
            .attention = ND_ATTENTION_FA2,
            .pp_reduce_once = true,
            .torch_ring_attention = true,
        },
    [ND_FRAMEWORK_FSDP] =
        {
            .glue_ops_fwd = 50,
            .glue_ops_bwd = 75,
            .checkpoint_ops = 15,
            .p2p_sync = false,
            .pass_syncs = false,
            .collective_host_us = 25,
            .microbatch_ops = 80,
            .ce_fwd_bytes = 18,
            .ce_bwd_bytes = 14,
            .ce_fwd_kernels = 4,
            .ce_bwd_kernels = 3,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_PER_TENSOR,
            .ce_working_bytes = 14,
            .eager_elementwise = true,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = false,
            .schedules = SCHEDULE_BIT(ND_SCHEDULE_1F1B),
            .split_accounts = false,
            .fp8_saves_fp8 = false,
            .attention = ND_ATTENTION_FA2,
        },
    /* DeepSpeed's ZeRO-3 adds its per-module fetch and release hooks to the model's eager ops */
    [ND_FRAMEWORK_DEEPSPEED] =
        {
            .glue_ops_fwd = 80,
            .glue_ops_bwd = 115,
            .checkpoint_ops = 15,
            .p2p_sync = true,
            .pass_syncs = false,
            .collective_host_us = 25,
            .microbatch_ops = 150,
            .ce_fwd_bytes = 18,
            .ce_bwd_bytes = 14,
            .ce_fwd_kernels = 4,
            .ce_bwd_kernels = 3,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 14,
            .eager_elementwise = true,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = false,
            .schedules = SCHEDULE_BIT(ND_SCHEDULE_1F1B),
            .split_accounts = false,
            .fp8_saves_fp8 = false,
            .attention = ND_ATTENTION_FA2,
            /* DeepSpeed's ZeRO-3 hooks gather a module's partitioned parameters as it is entered
             * and release them after: a layer's four linear modules and its two norms, forward and
             * again backward, with the gradients reduce-scattered per module (deepspeed/runtime/
             * zero/partitioned_param_coordinator.py); the 2021 Megatron-LM comparison (Narayanan
             * et al., SC21, Fig. 10) measured ZeRO-3 at scale well below its bandwidth bound */
            .zero3_fetches_per_layer = 6,
        },
    [ND_FRAMEWORK_MINDSPEED] =
        {
            .glue_ops_fwd = 35,
            .glue_ops_bwd = 55,
            .checkpoint_ops = 15,
            .p2p_sync = true,
            .pass_syncs = false,
            .collective_host_us = 25,
            .microbatch_ops = 80,
            .ce_fwd_bytes = 38,
            .ce_bwd_bytes = 20,
            .ce_fwd_kernels = 10,
            .ce_bwd_kernels = 4,
            .optimizer_temp_bytes = 0,
            .optimizer_impl = ND_OPTIMIZER_FUSED,
            .ce_working_bytes = 8,
            .eager_elementwise = false,
            .op_selective = false,
            .expandable_segments = false,
            .record_streams = false,
            .schedules = MINDSPEED_SCHEDULES,
            .split_accounts = false,
            .fp8_saves_fp8 = false,
            .attention = ND_ATTENTION_BEST,
            .moe_probs_in_expert = true,
            .moe_glue_ops_fwd = MCORE_MOE_GLUE_FWD,
            .moe_glue_ops_bwd = MCORE_MOE_GLUE_BWD,
            .moe_expert_ops_bwd = MCORE_MOE_EXPERT_BWD,
            .grouped_gemm_per_expert = false,
            .grad_nan_check = true,
            .grad_prescale = true,
        },
};

const nd_framework_profile *nd_framework_profile_of(nd_framework f)
{
    return &profiles[f >= 0 && f < ND_FRAMEWORKS ? f : 0];
}

int64_t nd_train_padded_vocab(const nd_train *t, int64_t vocab, int64_t tp)
{
    int64_t by = t->vocab_divisible_by;
    if (by <= 0)
        by = t->framework == ND_FRAMEWORK_TORCHTITAN || t->framework == ND_FRAMEWORK_FSDP ||
                     t->framework == ND_FRAMEWORK_DEEPSPEED
                 ? 1
                 : 128;
    int64_t multiple = by * (tp > 0 ? tp : 1);
    return (vocab + multiple - 1) / multiple * multiple;
}

int nd_train_set_precision(nd_train *t, const char *precision)
{
    /* Mixed precision as Megatron-LM runs it: bf16 weights with fp32 gradient
     * accumulation and an fp32 master copy; fp16 keeps fp16 gradients. */
    if (nd_text_equal_nocase(precision, "bf16")) {
        t->param_bytes = 2;
        t->grad_bytes = 4;
        t->master_bytes = 4;
    } else if (nd_text_equal_nocase(precision, "fp16")) {
        t->param_bytes = 2;
        t->grad_bytes = 2;
        t->master_bytes = 4;
    } else if (nd_text_equal_nocase(precision, "fp32")) {
        t->param_bytes = 4;
        t->grad_bytes = 4;
        t->master_bytes = 0;
    } else {
        return -1;
    }
    nd_text_copy(t->precision, precision, sizeof t->precision);
    for (char *p = t->precision; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    return 0;
}
