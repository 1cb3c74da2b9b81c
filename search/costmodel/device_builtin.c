/*
 * device_builtin.c — the built-in devices.
 *
 * Every figure is a datasheet figure or a kernel-level measurement (GEMM sweeps, flash-
 * attention benchmarks, nccl-tests and hccl-test tables, bandwidth and launch
 * microbenchmarks), named beside it by a source key; docs/devices.md lists the sources
 * in full and says, per device, which figures are measured and which are still
 * assumptions. No constant here was set from an end-to-end training step time: those are
 * what nd is checked against (bench_fidelity).
 */
#include "nd/costmodel/device.h"

#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/array.h"

/* Sources (keys used below; docs/devices.md gives them in full):
 *  [DS]      vendor datasheets: peaks (dense), HBM, NVLink, NICs (V100, A100, H100, H800, H200,
 *            DGX B200, DGX B300, GB200/GB300 NVL72; Huawei Atlas 800T A2, CloudMatrix384 paper
 *            arXiv:2506.12708 for the 910C die).
 *  [GEMM]    measured GEMM tables in samples/devices/gemm/ — OpenXLA's measured matmul tables
 *            (sm_90, sm_100), Azure AI-benchmarking-guide cuBLASLt sweeps, DeepGEMM's H800 table,
 *            S. Bekman's MAMF finder results — fitted with scripts/fit-gemm-table.py to
 *            t = launch + gemm_fixed + max(2mnk / (peak e sat(m) sat(n) sat(k)), bytes / bw).
 *  [TRAIN]   samples/devices/gemm/b200-training.csv: SimuMax's GEMMs measured in training on a
 *            DGX B200 (samples/devices/simumax/), as nd's M x N x K per pass.
 *  [FA2]     Dao 2023, FlashAttention-2 (arXiv:2307.08691) §4.1: A100 up to 73 % fwd, 63 % bwd.
 *  [FA3]     Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608) Figs 5-6: H100 hd128 BF16,
 *            fwd 63-66 %, bwd 55-57 % at 4k-16k (non-causal); causal hd64 43-48 %;
 *            FlashAttention-2 on the same H100 ~35 % fwd, ~30 % bwd.
 *  [FA4]     FlashAttention-4 (B200): up to 1613 TFLOP/s fwd, 1.1-1.3x cuDNN 9.13; the forward
 *            bound by the softmax's exponentials (MUFU), the backward by shared-memory traffic.
 *  [TE-LAYOUT] Transformer Engine (transformer_engine/pytorch/csrc, the Float8 quantizer):
 *            a tensor-scaled FP8 tensor's transposed copy is made only where
 *            nvte_is_non_tn_fp8_gemm_supported() is false; Blackwell's FP8 GEMMs take any
 *            layout, Hopper's only TN.
 *  [SFU]     NVIDIA, "Making Softmax More Efficient with NVIDIA Blackwell Ultra" (technical blog,
 *            2026): MUFU.EX2 throughput 2x GB200's; DeepSeek-V3's FP8 attention forward ~35 %
 *            faster on GB300 than on GB200.
 *  [TRAIN-ATTN] SimuMax's traced attention kernels on the same DGX B200 (samples/devices/simumax/,
 *            sdp_fwd/sdp_bwd: Transformer Engine's path, GQA hd 128, 4k-128k tokens, halved to
 *            causal FLOPs) fitted to e s_k / (s_k + 256): forward 0.54 where the tiles fill 13+
 *            waves of SMs, backward 0.43 (16-128 heads).
 *  [STREAM]  Azure AI-benchmarking-guide BabelStream: A100 0.79-0.83, H100 0.87-0.89, H200
 *            0.84-0.86 of datasheet HBM bandwidth.
 *  [LAUNCH]  kernel launch >= 2.6 us (persistent_kernel README); 2.5 us graph-replay gap (B200).
 *  [TRAIN-NPU] samples/devices/gemm/a2-training.csv: the MatMul and BatchMatMul tasks of one
 *            training step on a 910B (24 AI cores) in msprof-analyze's advisor sample (Ascend
 *            mstt, kernel_details.csv), FP16, 302-318 TFLOP/s at 4096 x 4608..12288 x 1536..12288.
 *  [TRAIN-NPU-ATTN] the FlashAttentionScore and FlashAttentionScoreGrad tasks of msprof-analyze's
 *            compute-advice sample (Ascend mstt, kernel_details.csv; a 20-core 910B, taken as the
 *            910B3 of 313 TFLOP/s): B 2, 4 heads of 128, 4096 queries over 4096 keys under a full
 *            boolean mask (every block computed), bf16: 405-410 us forward, 756-763 backward.
 *  [TRAIN-NPU-VEC] the vector tasks of the advisor sample's step (FP16, [4, 1024, 12288] a
 *            rank): LayerNormV3 315-360 us and ScaledMaskedSoftmax 91-92 us for their bytes, 0.38
 *            of the 1.6 TB/s HBM; FastGelu 86.5 us, 0.73; the residual Adds 189-237 us, 0.8-1.0,
 *            and AdamW 0.80 (the default's).
 *  [HCCL-A2] torch.distributed on 8 910B of one server (gameofdimension/limulidae README, CANN
 *            8.0.0.beta1, torch_npu 2.4.0.post2): all-gather 149 GB/s and all-reduce 72 GB/s
 *            algorithm bandwidth, 130 and 126 GB/s bus bandwidth; the best TP all-reduce of
 *            msprof-analyze's advisor sample (100.7 MB in 1.471 ms) 120 GB/s.
 *  [SUPERPOD] Atlas 900 A3 SuperPoD (CloudMatrix384): 48 servers of 8 910C (16 dies, two a
 *            package over SIO), every NPU on one UB plane, 392 GB/s a package, inter-server
 *            bandwidth within 3 % of intra-server and < 1 us extra latency (Zuo et al., arXiv:
 *            2506.12708 §3); nodes of one logical SuperPoD talk over HCCS, of two over RoCE
 *            (Huawei MindCluster 7.3 scheduling guide, "Atlas 900 A3 SuperPoD" node affinity).
 *  [EAGER]   PyTorch eager op: 8 us host submit per op on an A100 host (Torch-FL PR #27);
 *            4.5 us CPU-only on an i9 (dev-discuss "micro-optimizations"); torch_npu 12.1 us on a
 *            910B2 host (triton-ascend #1675).
 *  [NCCL-A100] nccl-tests all-reduce on 2..8 A100 of one node (shared/data/vtrain-a100-h1024,
 *            from vTrain): fitted below 64 MiB to base 44 us, 1.5 us per ring step, 0.69 of
 *            300 GB/s; 0.77 at 1 GiB.
 *  [NCCL-V100] the same on DGX-1 V100 (vTrain trace/v100): 8 GPUs 134.5 GB/s busbw (0.90 of
 *            150), 66 us at 1 MiB; 2 GPUs one 25 GB/s link.
 *  [NCCL-H]  nccl-tests on 8x H100/H200 (Azure; S. Bekman): ring all-gather/reduce-scatter 0.80-
 *            0.82 of 450 GB/s, NVLS all-reduce 1.06; 26-42 us small-message floor; B200 8 GPUs
 *            0.93 of 900 GB/s; 4 x B200 nodes 377 GB/s, 98 us at 32 KiB.
 *  [NCCL-B200] SimuMax's nccl-tests fits of the DGX B200 it trained on (samples/devices/simumax/
 *            b200_bf16_ceperm.json, networks.high_intra_node): all-gather and reduce-scatter
 *            0.674 and 0.673 of 900 GiB/s (0.72 of 900 GB/s), 9.2 and 8.0 us a ring step, 23.1
 *            and 25.6 us fixed; all-reduce 0.742 (0.80), 5.5 us, 22.2 us. Fitted over the sizes
 *            training sends, where NCCL runs its Simple protocol: [NCCL-H]'s 0.93 is the
 *            large-message asymptote.
 *  [NIC]     NCCL maintainers: 46-48 GB/s per NDR 400 Gb/s NIC (0.92-0.96 of line rate).
 *  [MARKIDIS] Markidis et al. 2018, "NVIDIA Tensor Core Programmability, Performance &
 *            Precision" (arXiv:1803.04014): V100 cuBLAS mixed-precision GEMM up to 83 TFLOP/s.
 *  [CTX]     CUDA context 0.3-0.4 GiB with lazy loading (PyTorch PR #86509), cuBLAS workspace.
 *  Assumed (no public kernel-level measurement found, docs/devices.md says so per device):
 *  V100, B300, GB300 GEMM curves; Blackwell and V100 HBM efficiency (0.80, 0.85); HDR/XDR/
 *  RoCE NIC efficiency (0.92); autograd per-node host cost (as a forward op); Ascend
 *  almost entirely (Huawei's own modelling placeholders: 0.7 compute, 0.7 communication). */

/* The host and kernel figures of an NVIDIA device driven by PyTorch eager [LAUNCH], [EAGER]:
 * every kernel costs 3 us of device time beyond its work, every operator `host_us` of host
 * time; a device-to-host synchronisation about 40 us (the 17 us synchronised op of [EAGER]
 * plus the copy and the host's wake-up). */
#define NV_STACK(host_us)                                                                                    \
    .kernel_launch_us = 3, .host_dispatch_us = (host_us), .host_sync_us = 40, .microbatch_host_ms = 0.2,     \
    .step_host_ms = 5

/* NVIDIA links: inside an NVSwitch node a collective's set-up and ring steps [NCCL-H]; across
 * nodes a NIC per GPU at 0.92 of line rate [NIC] and a few us per ring step. */
#define NV_INTER(nic_gbps)                                                                                   \
    .inter_gbps = (nic_gbps), .inter_efficiency = 0.92, .inter_latency_us = 2, .inter_base_us = 25

/* Blackwell kernel curves. B200's 16-bit curve is fitted to the GEMMs SimuMax measured inside
 * training runs on a DGX B200 [TRAIN]: 432 shapes, e 0.52, half dimension 112, 1.5 us of fixed
 * time with the launch (so no more beyond it), where isolated sweeps of the chip [GEMM] fit 0.77
 * (the in-training rate: clocks and power under sustained load, real data; the sweeps stay the
 * upper bound). FP8 was not measured in training: its isolated curve (0.76, half dim. 128)
 * is scaled by the same in-training share, 0.52 / 0.77 (assumed). Attention as Megatron's
 * Transformer Engine path runs it in training [TRAIN-ATTN]; FlashAttention-4 [FA4], another
 * kernel, stays an upper bound; GB200's and GB300's scaled by their MAMF (0.935). The
 * rack-scale parts keep B200's shape dependence at their MAMF ceilings relative to B200's
 * (GB200 72.9 % against 77.6 % BF16), and B300 and GB300 take their sibling's curves (assumed:
 * MAMF measures B300 at 78.6 % of peak against B200's 77.6 %). torchao's B200 MXFP8 puts the
 * weight-gradient grouped GEMM at 1.31x the forward's time. */
#define BLACKWELL_GROUPED                                                                                    \
    .grouped_gemm_efficiency = 0.75, .grouped_wgrad_efficiency = 0.57, .attention_half_seq = 256
#define B200_CURVES                                                                                          \
    .gemm_efficiency = 0.52, .gemm_half_dim = 112, .gemm_fixed_us = 0, .fp8_gemm_efficiency = 0.51,          \
    .fp8_gemm_half_dim = 128, .attention_fwd_efficiency = 0.54, .attention_bwd_efficiency = 0.43,            \
    BLACKWELL_GROUPED
#define GB200_CURVES                                                                                         \
    .gemm_efficiency = 0.49, .gemm_half_dim = 112, .gemm_fixed_us = 0, .fp8_gemm_efficiency = 0.48,          \
    .fp8_gemm_half_dim = 128, .attention_fwd_efficiency = 0.50, .attention_bwd_efficiency = 0.40,            \
    BLACKWELL_GROUPED
/* B300: B200's curves (assumed, no Blackwell Ultra GEMM measured), its attention forward 1.35 x
 * B200's for the doubled SFUs [SFU], as GB300's below. */
#define B300_CURVES                                                                                          \
    .gemm_efficiency = 0.52, .gemm_half_dim = 112, .gemm_fixed_us = 0, .fp8_gemm_efficiency = 0.51,          \
    .fp8_gemm_half_dim = 128, .attention_fwd_efficiency = 0.73, .attention_bwd_efficiency = 0.43,            \
    BLACKWELL_GROUPED
/* GB300: GB200's curves (assumed, no Blackwell Ultra GEMM measured) at the higher board power,
 * by the in-training share's rule of HOPPER_TRAINING_SHARE below (linear in W per dense TFLOP/s
 * between the A100 and the B200): 1400 W / 2500 = 0.56 W gives 0.724 where GB200's 1200 W gives
 * 0.694, so its GEMMs run 1.044 x GB200's. Its attention forward runs 1.35 x GB200's [SFU]: the
 * forward is bound by the softmax's exponentials on Blackwell [FA4], which Blackwell Ultra's
 * doubled SFUs speed up; the backward, bound by shared-memory traffic [FA4], keeps GB200's. */
#define GB300_CURVES                                                                                         \
    .gemm_efficiency = 0.51, .gemm_half_dim = 112, .gemm_fixed_us = 0, .fp8_gemm_efficiency = 0.50,          \
    .fp8_gemm_half_dim = 128, .attention_fwd_efficiency = 0.675, .attention_bwd_efficiency = 0.40,           \
    BLACKWELL_GROUPED

/* The share of the isolated sweeps' GEMM rates a Hopper sustains in training (assumed: no
 * in-training GEMM of a Hopper was found). Power caps the clocks of tensor-core work under
 * sustained load, so the share is taken linear in the board power per dense 16-bit TFLOP/s
 * between two chips where both rates are known: the A100 (400 W / 312 = 1.28 W, its sweeps
 * price vTrain's and SC21's training at +2.4 % and -6.7 %: share 1) and the B200 (1000 W / 2250
 * = 0.44 W, SimuMax's in-training GEMMs at 0.52 of peak against its sweeps' 0.77 [TRAIN]: share
 * 0.68). H100, H800 and H200: 700 W / 989 = 0.71 W, share 0.68 + 0.32 x (0.71 - 0.44) /
 * (1.28 - 0.44) = 0.78. The same share of the attention benchmarks' rates below, by the same
 * rule (assumed: the kernels run the same tensor cores under the same cap): it took NeMo's Llama 2
 * 7B at 16k-1M tokens from 14-31 % short to 5-15 %, and, not looked at before the choice,
 * torchtitan's 16 runs from 11.4 % to 6.3 % and NeMo 24.07's 12 dense ones from 6.4 % to 4.0 %
 * (docs/benchmarks.md). */
#define HOPPER_TRAINING_SHARE 0.78

/* Hopper's fused attention [FA3] (Figs 5-6, hd 128, BF16, sequences 512 to 16k): FlashAttention-3
 * 0.64 of peak forward and 0.55 backward at long sequences, cuDNN's kernel (Transformer Engine's)
 * 0.57 and 0.53 (its causal forward 484-539 TFLOP/s at 2k-16k, backward 465-518), FlashAttention-2
 * 0.35 and 0.30. All three are within 10 % of their long-sequence rate from 2k keys: a half
 * sequence of 250 keys fits the causal curves (FA3 forward 0.53 of peak at 2k, 0.61 at 8k
 * measured; 0.51 and 0.60 priced). Isolated benchmarks, so at the in-training share above. */
#define HOPPER_ATTENTION                                                                                     \
    .attention_fwd_efficiency = 0.64, .attention_bwd_efficiency = 0.55, .fa2_fwd_efficiency = 0.35,          \
    .fa2_bwd_efficiency = 0.30, .cudnn_fwd_efficiency = 0.57, .cudnn_bwd_efficiency = 0.53,                  \
    .attention_half_seq = 250, .attention_training_share = HOPPER_TRAINING_SHARE

/* Ascend 910B/910C die with torch_npu [EAGER]. GEMMs [TRAIN-NPU]: 0.83 of peak from 1536 to
 * 12288 in every dimension (1.5 % mean error over the 13 tasks, the 4 us each pays its
 * launch); no smaller GEMM measured, so no saturation is fitted (half_dim 0). Attention
 * [TRAIN-NPU-ATTN]: 0.54 forward and 0.72 backward of peak at 4096 keys, taken to the long-
 * sequence rate by the FlashAttention kernels' curve on GPUs (half at 256 keys, assumed):
 * the backward runs faster per FLOP than the forward here, unlike on GPUs. Norms, softmaxes
 * and activations below the memory's rate [TRAIN-NPU-VEC]: the vector units bound them. HCCS
 * [HCCL-A2]: 0.65 of the mesh's 196 GB/s. The 910C die is taken as the 910B's; its UB links,
 * its other memory and host figures stay assumed (Huawei's own modelling tool uses 0.7 of peak and 0.7
 * of link bandwidth, uncalibrated). */
#define ASCEND_DIE                                                                                           \
    .peak_tflops = 376, .fp32_tflops = 94, .gemm_efficiency = 0.83, .gemm_half_dim = 0, .gemm_fixed_us = 0,  \
    .attention_fwd_efficiency = 0.57, .attention_bwd_efficiency = 0.77, .attention_half_seq = 256,           \
    .kernel_launch_us = 4, .host_dispatch_us = 12.1, .host_sync_us = 80, .microbatch_host_ms = 0.5,          \
    .step_host_ms = 10, .hbm_gib = 64, .hbm_gbps = 1600, .hbm_efficiency = 0.80,                             \
    .norm_hbm_efficiency = 0.38, .activation_hbm_efficiency = 0.73, .runtime_reserve_mib = 1000,             \
    .comm_buffer_mib = 400, .intra_gbps = 196, .intra_latency_us = 2, .intra_base_us = 30, .inter_gbps = 25, \
    .inter_efficiency = 0.90, .inter_latency_us = 3, .inter_base_us = 30

/* What the published configurations (bench_decisions, docs/benchmarks.md) show of devices whose
 * rates were not measured in training. */
#define HOPPER_CAVEAT                                                                                        \
    "its GEMM and attention rates are isolated benchmarks' at an assumed in-training share of 0.78 (no "     \
    "in-training measurement of a Hopper found; the share interpolated by board power per TFLOP/s "          \
    "between the A100 and the B200): on 37 published H100/H800 configurations (NVIDIA's, Meta's, "           \
    "DeepSeek's, torchtitan's) nd's step was 9 % off and 6 % short on average (the 29 dense ones 6 % off, "  \
    "from 15 % short at a million tokens to 17 % long; the MoE ones 2-57 % short but one 20 % long); 52 "    \
    "MPT runs under FSDP on H100 within 3 %"
#define ULTRA_CAVEAT                                                                                         \
    "its GEMM rates are assumed, its Blackwell sibling's (no Blackwell Ultra GEMM measurement found), "      \
    "its attention forward 1.35x theirs for the doubled SFUs: on the 2 dense published GB300 "               \
    "configurations nd's step was 21 to 27 % long (its 2 MoE ones, which nd prices short elsewhere, 4 to "   \
    "7 % long)"
#define ASCEND_CAVEAT                                                                                        \
    "its GEMM, attention, norm and activation rates are one 910B's in training (msprof-analyze's "           \
    "samples: GEMMs 0.83 of peak from 1536 to 12288 a side), HCCS 0.65 of its mesh (torch.distributed "      \
    "on 8 NPUs), host rates assumed: on 28 published MindSpeed-LLM 1.0.RC3 runs (Atlas 900 A2) nd's "        \
    "step was 15 % off and 13 % short on average: the 24 dense ones 11 % off, 9 % short (13B to 110B "       \
    "within 10 %, 0.5B to 9B up to 25 % short, ChatGLM3's hybrid Ulysses-ring CP at 64k 39 %), the 4 MoE "   \
    "ones 17 to 55 % short (Mixtral 8x7B, DeepSeek-V2, MiniCPM-MoE, Grok-1; 8x22B from MindSpeed's later "   \
    "script 46 %); MindFormers' own Llama 2 7B config (MindSpore) 32 % short; a later MindSpeed-LLM README " \
    "puts Llama 2 7B at 69 % MFU where this table's run is near 54 %, so the release matters"
#define ASCEND_A3_CAVEAT                                                                                     \
    "its GEMM, attention, norm and activation rates are a 910B's in training (the 910C die taken as "        \
    "one), its UB links and host rates assumed (0.7, as Huawei's own modelling); its one published run "     \
    "priced, torchtitan-npu's DeepSeek-V3 671B on 128 dies, was 51 % long (546 tokens a second a die): "     \
    "its prices are indicative until a profiling round calibrates them"

static const nd_device builtin[] = {
    {
        .name = "V100",
        .description = "NVIDIA V100-SXM2-16GB (DGX-1, NVLink hybrid cube mesh)",
        .peak_tflops = 125,
        .fp32_tflops = 15.7, /* [DS]: FP16 tensor, no BF16, no TF32 */
        /* [MARKIDIS]: cuBLAS tensor-core GEMMs up to 83 TFLOP/s (0.66, CUDA 9); the curve's
         * shape assumed as the A100's */
        .gemm_efficiency = 0.72,
        .gemm_half_dim = 96,
        .gemm_fixed_us = 5,
        /* assumed: no flash attention on Volta; memory-efficient attention ~40 % of peak */
        .attention_fwd_efficiency = 0.40,
        .attention_bwd_efficiency = 0.30,
        .attention_half_seq = 512,
        NV_STACK(12), /* assumed: 2017-20 hosts and PyTorch 1.x, 1.5x the A100 host's 8 us */
        .hbm_gib = 16,
        .hbm_gbps = 900,
        .hbm_efficiency = 0.85, /* [DS]; efficiency assumed */
        .runtime_reserve_mib = 1100,
        .comm_buffer_mib = 200,
        /* [NCCL-V100]: 6 NVLink 2 links of 25 GB/s; a group of k reaches (k-1) links */
        .devices_per_node = 8,
        .intra_gbps = 150,
        .intra_efficiency = 0.90,
        .intra_latency_us = 3.3,
        .intra_base_us = 20,
        .intra_link_gbps = 25,
        .inter_gbps = 6.25,
        .inter_efficiency = 0.92,
        .inter_latency_us = 3,
        .inter_base_us = 25,
        .host_gbps = 12, /* [DS] DGX-1: 4 x EDR 100 Gb/s per 8 GPUs; PCIe Gen3 x16 */
    },
    {
        .name = "A100",
        .description = "NVIDIA A100-SXM4-80GB (DGX A100)",
        .peak_tflops = 312,
        .tf32_tflops = 156,
        .fp32_tflops = 19.5, /* [DS] */
        .gemm_efficiency = 0.84,
        .gemm_half_dim = 96,
        .gemm_fixed_us = 5.5, /* [GEMM] a100.csv, below its MAMF best (271 TFLOP/s) */
        .grouped_gemm_efficiency = 0.80,
        .grouped_wgrad_efficiency = 0.60, /* assumed */
        .attention_fwd_efficiency = 0.76,
        .attention_bwd_efficiency = 0.66, /* [FA2] */
        .attention_half_seq = 512,
        NV_STACK(10),
        .hbm_gib = 80,
        .hbm_gbps = 2039,
        .hbm_efficiency = 0.83, /* [DS], [STREAM] */
        .runtime_reserve_mib = 600,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 300,
        .intra_efficiency = 0.69,
        .intra_latency_us = 1.5,
        .intra_base_us = 44, /* [NCCL-A100] */
        NV_INTER(25),        /* 1 x HDR 200 Gb/s per GPU */
        .host_gbps = 25,
    },
    {
        .name = "A100-40GB",
        .description = "NVIDIA A100-SXM4-40GB (DGX A100 320GB)",
        .peak_tflops = 312,
        .tf32_tflops = 156,
        .fp32_tflops = 19.5,
        .gemm_efficiency = 0.84,
        .gemm_half_dim = 96,
        .gemm_fixed_us = 5.5,
        .grouped_gemm_efficiency = 0.80,
        .grouped_wgrad_efficiency = 0.60,
        .attention_fwd_efficiency = 0.76,
        .attention_bwd_efficiency = 0.66,
        .attention_half_seq = 512,
        NV_STACK(10),
        .hbm_gib = 40,
        .hbm_gbps = 1555,
        .hbm_efficiency = 0.83,
        .runtime_reserve_mib = 600,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 300,
        .intra_efficiency = 0.69,
        .intra_latency_us = 1.5,
        .intra_base_us = 44,
        NV_INTER(25),
        .host_gbps = 25,
    },
    {
        .name = "H100",
        .rates_caveat = HOPPER_CAVEAT,
        .description = "NVIDIA H100-SXM5-80GB (DGX H100)",
        .peak_tflops = 989,
        .fp8_tflops = 1979,
        .tf32_tflops = 494.5,
        .fp32_tflops = 67, /* [DS] */
        .gemm_efficiency = 0.80,
        .gemm_half_dim = 16,
        .gemm_fixed_us = 3, /* [GEMM] h100.csv, below its MAMF best (794.5 TFLOP/s) */
        .fp8_gemm_efficiency = 0.69,
        .fp8_gemm_half_dim = 0, /* [GEMM] h100.csv, below its MAMF best (1402.6 TFLOP/s) */
        .grouped_gemm_efficiency = 0.90,
        .grouped_wgrad_efficiency = 0.70, /* DeepGEMM ~ dense */
        HOPPER_ATTENTION,                 /* [FA3] */
        .gemm_training_share = HOPPER_TRAINING_SHARE,
        NV_STACK(10),
        .hbm_gib = 80,
        .hbm_gbps = 3350,
        .hbm_efficiency = 0.89, /* [DS], [STREAM] */
        .runtime_reserve_mib = 600,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 450,
        .intra_efficiency = 0.81,
        .intra_latency_us = 1.5,
        .intra_base_us = 20, /* [NCCL-H] */
        NV_INTER(50),        /* 1 x NDR 400 Gb/s per GPU */
        .host_gbps = 50,
    },
    {
        .name = "H800",
        .rates_caveat = HOPPER_CAVEAT,
        .description = "NVIDIA H800-SXM5-80GB (NVLink 200 GB/s per direction)",
        .peak_tflops = 989,
        .fp8_tflops = 1979,
        .tf32_tflops = 494.5,
        .fp32_tflops = 67,
        .gemm_efficiency = 0.80,
        .gemm_half_dim = 16,
        .gemm_fixed_us = 3,
        .fp8_gemm_efficiency = 0.60,
        .fp8_gemm_half_dim = 112, /* [GEMM] h800.csv (DeepGEMM) */
        .grouped_gemm_efficiency = 0.90,
        .grouped_wgrad_efficiency = 0.70,
        HOPPER_ATTENTION,
        .gemm_training_share = HOPPER_TRAINING_SHARE,
        NV_STACK(10),
        .hbm_gib = 80,
        .hbm_gbps = 3350,
        .hbm_efficiency = 0.89,
        .runtime_reserve_mib = 600,
        .comm_buffer_mib = 200,
        /* DeepEP intranode EP8: 153-158 GB/s of ~160 */
        .devices_per_node = 8,
        .intra_gbps = 200,
        .intra_efficiency = 0.78,
        .intra_latency_us = 1.5,
        .intra_base_us = 20,
        NV_INTER(50),
        .host_gbps = 50,
    },
    {
        .name = "H200",
        .rates_caveat = HOPPER_CAVEAT,
        .description = "NVIDIA H200-SXM-141GB (HGX H200)",
        .peak_tflops = 989,
        .fp8_tflops = 1979,
        .tf32_tflops = 494.5,
        .fp32_tflops = 67,
        .gemm_efficiency = 0.80,
        .gemm_half_dim = 16,
        .gemm_fixed_us = 3,
        .fp8_gemm_efficiency = 0.71,
        .fp8_gemm_half_dim = 128, /* [GEMM] h200.csv, below its MAMF best (1453.4 TFLOP/s) */
        .grouped_gemm_efficiency = 0.90,
        .grouped_wgrad_efficiency = 0.70,
        HOPPER_ATTENTION,
        .gemm_training_share = HOPPER_TRAINING_SHARE,
        NV_STACK(10),
        .hbm_gib = 139.8,
        .hbm_gbps = 4800,
        .hbm_efficiency = 0.86, /* 143155 MiB visible */
        .runtime_reserve_mib = 600,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 450,
        .intra_efficiency = 0.81,
        .intra_latency_us = 1.5,
        .intra_base_us = 20,
        NV_INTER(50),
        .host_gbps = 50,
    },
    {
        .name = "B200",
        .fp8_weight_copies = 1, /* [TE-LAYOUT] */
        .description = "NVIDIA B200-180GB (DGX B200)",
        .peak_tflops = 2250,
        .fp8_tflops = 4500,
        .tf32_tflops = 1125,
        .fp32_tflops = 80, /* [DS] */
        B200_CURVES,       /* [TRAIN], [TRAIN-ATTN] */
        NV_STACK(10),
        .hbm_gib = 179,
        .hbm_gbps = 8000,
        .hbm_efficiency = 0.80, /* 183359 MiB; efficiency assumed */
        .runtime_reserve_mib = 700,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 900,
        .intra_efficiency = 0.72, /* [NCCL-B200]: the all-gathers and reduce-scatters SP and */
        .intra_latency_us = 8.5,  /* the distributed optimizer run, the all-reduce a little */
        .intra_base_us = 24,      /* faster */
        NV_INTER(50),
        .host_gbps = 50,
    },
    {
        .name = "B300",
        .fp8_weight_copies = 1, /* [TE-LAYOUT] */
        .rates_caveat = ULTRA_CAVEAT,
        .description = "NVIDIA B300-288GB (HGX B300, Blackwell Ultra)",
        .peak_tflops = 2250,
        .fp8_tflops = 4500,
        .tf32_tflops = 1125,
        .fp32_tflops = 80, /* [DS] */
        B300_CURVES,       /* assumed but the attention forward [SFU] */
        NV_STACK(10),
        .hbm_gib = 268,
        .hbm_gbps = 8000,
        .hbm_efficiency = 0.80, /* visible memory assumed */
        .runtime_reserve_mib = 700,
        .comm_buffer_mib = 200,
        .devices_per_node = 8,
        .intra_gbps = 900,
        .intra_efficiency = 0.80,
        .intra_latency_us = 1.5,
        .intra_base_us = 20,
        NV_INTER(100), /* 1 x ConnectX-8 800 Gb/s per GPU */
        .host_gbps = 50,
    },
    {
        .name = "GB200",
        .fp8_weight_copies = 1, /* [TE-LAYOUT] */
        .description = "NVIDIA GB200 NVL72 (72 B200 in one NVLink domain)",
        .peak_tflops = 2500,
        .fp8_tflops = 5000,
        .tf32_tflops = 1250,
        .fp32_tflops = 80, /* [DS] */
        GB200_CURVES,      /* MAMF: 1822 BF16 TFLOP/s, 3616 FP8 */
        NV_STACK(10),
        .hbm_gib = 184.6,
        .hbm_gbps = 8000,
        .hbm_efficiency = 0.80,
        .runtime_reserve_mib = 700,
        .comm_buffer_mib = 200,
        /* 72-GPU NVLink domain: ring 680 GB/s of 900 (NVIDIA GTC25), 15 us on 4 GPUs (Azure);
         * NVLS/tree keep the small-message latency from growing with the ring */
        .devices_per_node = 72,
        .intra_gbps = 900,
        .intra_efficiency = 0.76,
        .intra_latency_us = 0.5,
        .intra_base_us = 15,
        NV_INTER(50),
        .host_gbps = 190, /* NVLink-C2C to Grace: 193-201 GB/s measured (nvbandwidth) */
    },
    {
        .name = "GB300",
        .fp8_weight_copies = 1, /* [TE-LAYOUT] */
        .rates_caveat = ULTRA_CAVEAT,
        .description = "NVIDIA GB300 NVL72 (72 B300 in one NVLink domain)",
        .peak_tflops = 2500,
        .fp8_tflops = 5000,
        .tf32_tflops = 1250,
        .fp32_tflops = 80, /* [DS] */
        GB300_CURVES,      /* assumed: GB200's at 1400 W */
        NV_STACK(10),
        .hbm_gib = 268,
        .hbm_gbps = 8000,
        .hbm_efficiency = 0.80,
        .runtime_reserve_mib = 700,
        .comm_buffer_mib = 200,
        .devices_per_node = 72,
        .intra_gbps = 900,
        .intra_efficiency = 0.76,
        .intra_latency_us = 0.5,
        .intra_base_us = 15,
        NV_INTER(100),
        .host_gbps = 190,
    },
    {
        .name = "A2",
        .rates_caveat = ASCEND_CAVEAT,
        .description = "Ascend 910B (Atlas 800T A2)",
        ASCEND_DIE,               /* [DS] peaks (bin-dependent: 313 or 376 FP16), [EAGER] */
        .intra_efficiency = 0.65, /* [HCCL-A2] */
        /* HCCS full mesh: 7 links of 28 GB/s */
        .devices_per_node = 8,
        .intra_link_gbps = 28,
        .host_gbps = 17.2,
    },
    {
        .name = "A3",
        .rates_caveat = ASCEND_A3_CAVEAT,
        .description = "Ascend 910C, one die (Atlas 900 A3 SuperPoD)",
        ASCEND_DIE,               /* [DS] per die */
        .intra_efficiency = 0.70, /* assumed (Huawei's modelling tool) */
        /* [SUPERPOD]: one UB domain of 384 NPUs, 768 dies, 196 GB/s a die; RoCE only between
         * SuperPoDs */
        .devices_per_node = 768,
        .devices_per_server = 16,
        .host_gbps = 7.43,
    },
};

const nd_device *nd_device_builtin_named(const char *name)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(builtin); i++)
        if (!strcmp(builtin[i].name, name)) return &builtin[i];
    return NULL;
}

int nd_device_table_builtin(nd_device_table *table, nd_error *err)
{
    table->owned_tables = NULL;
    table->owned_tables_count = 0;
    table->count = (int)(ND_ARRAY_LEN(builtin));
    table->items = malloc(sizeof builtin);
    if (!table->items) {
        table->count = 0;
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    memcpy(table->items, builtin, sizeof builtin);
    return ND_OK;
}

static const struct {
    const char *alias, *name;
} aliases[] = {
    {"ascend", "A2"},
    {"ascend910", "A2"},
    {"ascend910b", "A2"},
    {"910b", "A2"},
    {"ascend910c", "A3"},
    {"ascend910_93", "A3"},
    {"910c", "A3"},
    {"V100-SXM2", "V100"},
    {"V100-SXM2-16GB", "V100"},
    {"A100-80GB", "A100"},
    {"A100-SXM", "A100"},
    {"A100-SXM4-80GB", "A100"},
    {"A100-SXM4-40GB", "A100-40GB"},
    {"H100-SXM", "H100"},
    {"H100-SXM5", "H100"},
    {"H100-SXM5-80GB", "H100"},
    {"H800-SXM", "H800"},
    {"H200-SXM", "H200"},
    {"B200-SXM", "B200"},
    {"B300-SXM", "B300"},
    {"GB200-NVL72", "GB200"},
    {"GB300-NVL72", "GB300"},
};

const char *nd_device_alias(const char *name)
{
    for (size_t a = 0; a < ND_ARRAY_LEN(aliases); a++)
        if (nd_text_equal_nocase(aliases[a].alias, name)) return aliases[a].name;
    return NULL;
}
