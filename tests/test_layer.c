/* Activation memory and FLOPs of one layer against published formulas.
 *
 * Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models" (arXiv:2205.05198), §4, for a GPT layer in 16-bit with dropout and
 * without flash attention, per micro-batch (s sequence, b micro-batch, h hidden, a heads,
 * t tensor-parallel ranks):
 *   no parallelism           sbh(34 + 5as/h)                       eq. (1)
 *   tensor parallel          sbh(10 + 24/t + 5as/(ht))              eq. (2)
 *   tensor + sequence par.   sbh/t (34 + 5as/h)                     eq. (3)
 *   + selective recompute    34 sbh/t                               eq. (4)
 *   full recompute           2 sbh                                  §5
 * FLOPs of one GPT layer's forward: 24 b s h^2 + 4 b s^2 h (the matmuls of QKV, projection
 * and the 4h MLP, plus QK^T and AV; Narayanan et al. 2021, appendix), split over t ranks;
 * causal flash attention does half of the attention term. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nd/costmodel/collective.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/layer.h"
#include "nd/inputs/model_fields.h"
#include "layer_internal.h" /* nd_ring_merge_bytes */

static nd_model gpt;
static nd_train train;
static nd_device_table table;
static const double s = 2048, b = 2, h = 1024, a = 16;

static int setup(void **state)
{
    (void)state;
    nd_error err = {0};
    nd_model_set_type(&gpt, "gpt", "test", &err);
    gpt.hidden = 1024;
    gpt.layers = 24;
    gpt.heads = 16;
    gpt.ffn = 4096;
    gpt.vocab = 51200;
    gpt.max_positions = 2048;
    assert_int_equal(nd_model_validate(&gpt, "test", &err), 0);
    nd_train_init(&train);
    nd_train_set_precision(&train, "fp16");
    train.flash_attention = false;
    train.dropout = 0.1;
    train.seq_len = 2048;
    train.tp_comm_overlap = 0; /* the published formulas price exposed TP collectives */
    return nd_device_table_builtin(&table, &err);
}

static int teardown(void **state)
{
    (void)state;
    nd_device_table_free(&table);
    return 0;
}

static nd_layer_cost price(int64_t t, bool sp)
{
    nd_layer_inputs in = {&gpt, &train, nd_device_table_find(&table, "A100"), 2048};
    nd_layer_shape shape = {t, 1, 1, t, 2, sp};
    nd_layer_cost c;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &c);
    return c;
}

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * fabs(want)) fail_msg("got %.17g, want %.17g", got, want);
}

static void activations_no_parallelism(void **state)
{
    (void)state;
    nd_layer_cost c = price(1, false);
    assert_close(c.activation_bytes[ND_RECOMPUTE_OFF], s * b * h * (34 + 5 * a * s / h));
    assert_close(c.activation_bytes[ND_RECOMPUTE_FULL], 2 * s * b * h);
    /* Selective recompute drops exactly the 5as^2b attention terms. */
    assert_close(c.activation_bytes[ND_RECOMPUTE_SELECTIVE], 34 * s * b * h);
}

static void activations_tensor_parallel(void **state)
{
    (void)state;
    for (int64_t t = 2; t <= 8; t *= 2) {
        nd_layer_cost c = price(t, false);
        double td = (double)t;
        assert_close(c.activation_bytes[ND_RECOMPUTE_OFF], s * b * h * (10 + 24 / td + 5 * a * s / (h * td)));
        assert_close(c.activation_bytes[ND_RECOMPUTE_FULL], 2 * s * b * h);
    }
}

static void activations_sequence_parallel(void **state)
{
    (void)state;
    for (int64_t t = 2; t <= 8; t *= 2) {
        nd_layer_cost c = price(t, true);
        double td = (double)t;
        assert_close(c.activation_bytes[ND_RECOMPUTE_OFF], s * b * h / td * (34 + 5 * a * s / h));
        assert_close(c.activation_bytes[ND_RECOMPUTE_SELECTIVE], 34 * s * b * h / td);
    }
}

static void flops_of_a_gpt_layer(void **state)
{
    (void)state;
    for (int64_t t = 1; t <= 8; t *= 2) {
        nd_layer_cost c = price(t, t > 1);
        assert_close(c.model_flops, (24 * b * s * h * h + 4 * b * s * s * h) / (double)t);
    }
    train.flash_attention = true;
    nd_layer_cost c = price(1, false);
    assert_close(c.model_flops, 24 * b * s * h * h + 2 * b * s * s * h);
    train.flash_attention = false;
}

/* A stack on FlashAttention-2 (torchtitan's SDPA) runs H100's attention at FA2's 35 % of peak
 * forward and 30 % backward instead of FA3's 64 % and 55 %, one on cuDNN's kernel (Transformer
 * Engine's) at 57 % and 53 % (FA3 paper, arXiv:2407.08608, Figs 5-6). Causal flash attention
 * does 2bs^2h FLOPs forward, 2.5 times that backward, at the efficiency of s/2 keys:
 * sat = 1024 / (1024 + attention_half_seq 250). Only the attention kernel's time moves; A100,
 * whose best kernel is FA2, does not change. */
static void flash_attention_2_on_hopper(void **state)
{
    (void)state;
    nd_layer_shape shape = {1, 1, 1, 1, 2, false};
    nd_layer_inputs in = {&gpt, &train, nd_device_table_find(&table, "H100"), 2048};
    nd_layer_cost best, fa2, a100_best, a100_fa2;
    train.flash_attention = true;
    train.attention_kernel = ND_ATTENTION_BEST;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &best);
    train.attention_kernel = ND_ATTENTION_FA2;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &fa2);
    /* The isolated benchmarks' rates at the share of them Hopper sustains in training (0.78,
     * device_builtin.c), the 2023 Triton kernel's excepted. */
    double flops = 2 * b * s * s * h, rate = 989e12 * 1024 / (1024 + 250), trained = 0.78 * rate;
    assert_close(fa2.forward_ms - best.forward_ms, flops / trained * (1 / 0.35 - 1 / 0.64) * 1e3);
    assert_close(fa2.backward_ms - best.backward_ms, 2.5 * flops / trained * (1 / 0.30 - 1 / 0.55) * 1e3);
    nd_layer_cost cudnn;
    train.attention_kernel = ND_ATTENTION_CUDNN;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &cudnn);
    assert_close(cudnn.forward_ms - best.forward_ms, flops / trained * (1 / 0.57 - 1 / 0.64) * 1e3);
    assert_close(cudnn.backward_ms - best.backward_ms, 2.5 * flops / trained * (1 / 0.53 - 1 / 0.55) * 1e3);
    /* The 2023 Triton kernel: FA2's rates over 1.4 forward and 2 backward (FA2 paper §4.1). */
    nd_layer_cost triton;
    train.attention_kernel = ND_ATTENTION_TRITON;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &triton);
    assert_close(triton.forward_ms - fa2.forward_ms, flops * (1.4 / rate - 1 / trained) / 0.35 * 1e3);
    assert_close(triton.backward_ms - fa2.backward_ms, 2.5 * flops * (2 / rate - 1 / trained) / 0.30 * 1e3);
    train.attention_kernel = ND_ATTENTION_FA2;
    in.device = nd_device_table_find(&table, "A100");
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &a100_fa2);
    train.attention_kernel = ND_ATTENTION_BEST;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &a100_best);
    assert_close(a100_fa2.forward_ms, a100_best.forward_ms);
    train.attention_kernel = ND_ATTENTION_AUTO;
    train.flash_attention = false;
}

/* A sliding window of w = 256 keys on half the layers (layer_types, gpt-oss): such a layer's
 * queries see min(i, w) keys, s w - w^2 / 2 = 491,520 of the causal s^2 / 2 = 2,097,152, at the
 * efficiency of their mean key length (s w - w^2 / 2) / s = 240; the layer costs the mean of the
 * two. H100's best kernel at the in-training share: 0.78 x 0.64 x keys / (keys + 250) of 989 TFLOP/s
 * forward; the FLOPs counted (MFU) are the mean of the two too. */
static void sliding_window_layers(void **state)
{
    (void)state;
    nd_layer_shape shape = {1, 1, 1, 1, 2, false};
    nd_layer_inputs in = {&gpt, &train, nd_device_table_find(&table, "H100"), 2048};
    nd_layer_cost full, half;
    train.flash_attention = true;
    train.attention_kernel = ND_ATTENTION_BEST;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &full);
    gpt.sliding_window = 256;
    gpt.sliding_layers = 12;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &half);
    gpt.sliding_window = gpt.sliding_layers = 0;
    double rate_full = 989e12 * 0.78 * 0.64 * 1024 / (1024 + 250),
           rate_win = 989e12 * 0.78 * 0.64 * 240 / (240 + 250);
    double f_full = 2 * b * s * s * h, f_win = 2 * b * 2 * h * (s * 256 - 0.5 * 256 * 256);
    assert_close(full.forward_ms - half.forward_ms, 0.5 * (f_full / rate_full - f_win / rate_win) * 1e3);
    assert_close(full.model_flops - half.model_flops, 0.5 * (f_full - f_win));
}

static void recompute_repeats_the_forward(void **state)
{
    (void)state;
    nd_layer_cost c = price(4, false);
    assert_close(c.recompute_ms[ND_RECOMPUTE_FULL], c.forward_ms);
    assert_true(c.recompute_ms[ND_RECOMPUTE_SELECTIVE] > 0);
    assert_true(c.recompute_ms[ND_RECOMPUTE_SELECTIVE] < c.forward_ms);
    assert_close(c.recompute_ms[ND_RECOMPUTE_OFF], 0);
    /* Full recompute replays the forward's two TP collectives. */
    assert_close(c.tp_ms[ND_RECOMPUTE_FULL], 1.5 * c.tp_ms[ND_RECOMPUTE_OFF]);
    /* Backward GEMMs (input and weight gradients) are twice the forward's work. */
    assert_true(c.backward_ms > 1.5 * c.forward_ms);
    assert_true(c.weight_grad_ms > 0 && c.weight_grad_ms < c.backward_ms);
}

/* Under sequence parallelism the forward runs an all-gather and a reduce-scatter where
 * plain TP runs one all-reduce (the same ring time: an all-reduce is both halves, but two
 * collectives pay two set-ups: the A100's 44 us [NCCL-A100] once more a block), and the
 * backward gathers the QKV and FC1 inputs once more for their weight gradients, hidden only
 * behind those linears' input-gradient GEMMs (Megatron-LM's async all-gather): so SP's TP
 * time is plain TP's plus the set-ups plus what the two re-gathers leave exposed, at most two
 * all-gathers. */
static void sequence_parallel_regathers_for_weight_gradients(void **state)
{
    (void)state;
    nd_layer_cost plain = price(4, false), sp = price(4, true);
    const nd_device *d = nd_device_table_find(&table, "A100");
    double gather = nd_collective_ms(d, ND_COLL_ALL_GATHER, (nd_group){4, 1}, 2 * s * b * h);
    double extra = sp.tp_ms[ND_RECOMPUTE_OFF] - plain.tp_ms[ND_RECOMPUTE_OFF];
    double setups = 4 * 0.044; /* two blocks, forward and backward */
    assert_true(extra > setups);
    assert_true(extra <= setups + 2 * gather + 1e-12);
    /* The forward's share: the same ring time, plus one set-up for each of the two blocks. */
    assert_close(sp.comm_fwd_ms - plain.comm_fwd_ms, 2 * 0.044);
    /* and it launches twice the collectives: AG + RS per block, and the re-gathers */
    assert_true(sp.kernels[ND_RECOMPUTE_OFF] == plain.kernels[ND_RECOMPUTE_OFF] + 2 + 2 + 2);
}

/* FP8 with current scaling reads each linear's input once more for its amax (and its
 * output gradient backward): against delayed scaling the forward grows by exactly
 * e x T x (K_qkv + K_proj + K_fc1 + K_fc2) bytes through HBM, T = 4096 tokens, e = 2 bytes:
 * K = h, h/t, h and 4h/t at t = 2. */
static void fp8_current_scaling_reads_again(void **state)
{
    (void)state;
    const nd_device *d = nd_device_table_find(&table, "H100");
    nd_train t8 = train;
    t8.fp8 = true;
    nd_layer_inputs in = {&gpt, &t8, d, 2048};
    nd_layer_shape shape = {2, 1, 1, 2, 2, false};
    nd_layer_cost delayed, current;
    t8.fp8_recipe = ND_FP8_DELAYED;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &delayed);
    t8.fp8_recipe = ND_FP8_CURRENT;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &current);
    double T = 4096, bytes = 2 * T * (h + h / 2 + h + 4 * h / 2);
    double want = bytes / (d->hbm_gbps * d->hbm_efficiency * 1e9) * 1e3;
    assert_close(current.forward_ms - delayed.forward_ms, want);
    /* and FP8 adds one cast kernel per linear each way (4 forward, 4 backward) */
    nd_train t16 = train;
    nd_layer_inputs in16 = {&gpt, &t16, d, 2048};
    nd_layer_cost bf;
    nd_layer_cost_decoder(&in16, ND_LAYER_DENSE, &shape, &bf);
    assert_true(delayed.kernels[ND_RECOMPUTE_OFF] == bf.kernels[ND_RECOMPUTE_OFF] + 8);
}

/* Ulysses context parallelism swaps Q, K, V (one fused all-to-all) to head sharding and the
 * output back, forward and again backward, with nothing to hide behind: per pass
 * a2a(e T (q + kv widths) / t) + a2a(e T o / t) on the CP group (stride t). Ring CP keeps
 * some behind the attention blocks. */
static void context_parallel_all_to_all(void **state)
{
    (void)state;
    const nd_device *d = nd_device_table_find(&table, "A100");
    nd_train tc = train;
    tc.flash_attention = true;
    tc.cp_comm = ND_CP_A2A;
    nd_layer_inputs in = {&gpt, &tc, d, 2048};
    nd_layer_shape shape = {2, 4, 1, 2, 2, false};
    nd_layer_cost c;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &c);
    double T = 2 * 2048 / 4.0; /* MBS x s / CP */
    nd_group cp = {4, 2};
    double pass = nd_collective_ms(d, ND_COLL_ALL_TO_ALL, cp, 2 * T * (h + 2 * h) / 2) +
                  nd_collective_ms(d, ND_COLL_ALL_TO_ALL, cp, 2 * T * h / 2);
    assert_close(c.cp_ms[ND_RECOMPUTE_OFF], 2 * pass);
    assert_close(c.cp_ms[ND_RECOMPUTE_FULL], 3 * pass); /* full recompute replays the forward */
}

/* MindSpeed's hybrid CP: Ulysses' all-to-alls within groups of u ranks (stride t), a ring of
 * CP / u across them. At u = CP it is Ulysses, at u = 1 the ring, to the last bit; at CP 4, u 2
 * the forward pays the all-to-alls over 2 ranks, a2a(e T (q + kv) / t) + a2a(e T o / t) on
 * the group {2, t}, and one ring step beside them, so it costs more than those all-to-alls and
 * no more than them plus a ring step fully exposed. */
static void context_parallel_hybrid(void **state)
{
    (void)state;
    const nd_device *d = nd_device_table_find(&table, "A100");
    nd_train th = train, ta = train, tr = train;
    th.flash_attention = ta.flash_attention = tr.flash_attention = true;
    th.cp_comm = ND_CP_HYBRID;
    ta.cp_comm = ND_CP_A2A;
    tr.cp_comm = ND_CP_RING;
    nd_layer_shape shape = {2, 4, 1, 2, 2, false};
    nd_layer_cost hyb, a2a, rng;
    nd_layer_inputs ih = {&gpt, &th, d, 2048}, ia = {&gpt, &ta, d, 2048}, ir = {&gpt, &tr, d, 2048};
    nd_layer_cost_decoder(&ia, ND_LAYER_DENSE, &shape, &a2a);
    nd_layer_cost_decoder(&ir, ND_LAYER_DENSE, &shape, &rng);
    th.cp_ulysses_degree = 4;
    nd_layer_cost_decoder(&ih, ND_LAYER_DENSE, &shape, &hyb);
    assert_true(hyb.cp_ms[ND_RECOMPUTE_OFF] == a2a.cp_ms[ND_RECOMPUTE_OFF] &&
                hyb.forward_ms == a2a.forward_ms);
    th.cp_ulysses_degree = 1;
    nd_layer_cost_decoder(&ih, ND_LAYER_DENSE, &shape, &hyb);
    assert_true(hyb.cp_ms[ND_RECOMPUTE_OFF] == rng.cp_ms[ND_RECOMPUTE_OFF] &&
                hyb.forward_ms == rng.forward_ms);
    th.cp_ulysses_degree = 2;
    nd_layer_cost_decoder(&ih, ND_LAYER_DENSE, &shape, &hyb);
    double T = 2 * 2048 / 4.0;
    nd_group ulysses = {2, 2}, ring = {2, 4};
    double pass = nd_collective_ms(d, ND_COLL_ALL_TO_ALL, ulysses, 2 * T * (h + 2 * h) / 2) +
                  nd_collective_ms(d, ND_COLL_ALL_TO_ALL, ulysses, 2 * T * h / 2);
    double step = nd_collective_ms(d, ND_COLL_P2P, ring, 2 * T * 2 * h / 2);
    assert_true(hyb.cp_ms[ND_RECOMPUTE_OFF] > 2 * pass);
    assert_true(hyb.cp_ms[ND_RECOMPUTE_OFF] <= 2 * pass + 3 * step + 1e-12);
}

/* A CP ring's merges, by hand from the code (layer.c): Transformer Engine's 12 bytes an output
 * element a later step each way; PyTorch's, out = 1,000 and kv = 2,000 elements over 4 steps:
 * forward 3 x (42 x 1,000 + 4 x 2,000) + 12 x 1,000 = 162,000 bytes, backward
 * 4 x (14 x 1,000 + 26 x 2,000) + 10 x 3,000 = 294,000. */
static void ring_merges_by_implementation(void **state)
{
    (void)state;
    double fwd, bwd, kernels;
    nd_ring_merge_bytes(false, 1000, 2000, 4, &fwd, &bwd, &kernels);
    assert_close(fwd, 36000);
    assert_close(bwd, 36000);
    assert_close(kernels, 6);
    nd_ring_merge_bytes(true, 1000, 2000, 4, &fwd, &bwd, &kernels);
    assert_close(fwd, 162000);
    assert_close(bwd, 294000);
    assert_close(kernels, 26);
}

/* A ring's backward passes K and V and their gradients a step. Megatron's: K and V at their 4
 * heads of 64 (GQA), gradients in the 16-bit type: a block of 2 bytes x 1,024 tokens (MBS 1 x
 * 2,048 / CP 2) x 2 x 4 x 64 = 1,048,576 bytes, sent and received with its gradients, 2 x 2 x
 * 1,048,576 = 4,194,304 over the one step. torchtitan's (PyTorch's ring): K and V repeated to
 * the 16 query heads (4,194,304 bytes a block) and the gradients' sums in fp32 (twice that):
 * 2 x 3 x 4,194,304 = 25,165,824. */
static void ring_exchange_by_implementation(void **state)
{
    (void)state;
    nd_model gqa = gpt;
    gqa.kv_heads = 4;
    nd_train t = train;
    t.flash_attention = true;
    t.dropout = 0;
    t.cp_comm = ND_CP_RING;
    nd_layer_inputs in = {&gqa, &t, nd_device_table_find(&table, "H100"), 2048};
    nd_layer_shape shape = {1, 2, 1, 1, 1, false};
    nd_layer_cost c;
    t.framework = ND_FRAMEWORK_MEGATRON;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &c);
    assert_close(c.collective_bytes_bwd[ND_RECOMPUTE_OFF], 4194304);
    t.framework = ND_FRAMEWORK_TORCHTITAN;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &c);
    assert_close(c.collective_bytes_bwd[ND_RECOMPUTE_OFF], 25165824);
}

/* The GPT layer with 8 experts of 4096, two a token, in place of its MLP. */
static nd_model moe_gpt(void)
{
    nd_model moe = gpt;
    moe.experts = 8;
    moe.experts_per_token = 2;
    moe.moe_ffn = 4096;
    nd_error err = {0};
    assert_int_equal(nd_model_validate(&moe, "test", &err), 0);
    return moe;
}

/* After the all-to-all the tokens arrive grouped by the rank they came from; Megatron's
 * dispatcher sorts them by local expert and back (sort_chunks_by_idxs), a read and a write of
 * them each way: with a capacity factor of 1, T x k = 4096 x 2 tokens of h = 1024 in 2 bytes,
 * 4 x 2 x 8192 x 1024 = 67,108,864 bytes more each way at the A100's HBM rate. DeepEP lands them
 * grouped; one local expert (EP 8 of 8) needs no sort. */
static void alltoall_dispatch_sorts_by_local_expert(void **state)
{
    (void)state;
    nd_model moe = moe_gpt();
    moe.capacity_factor = 1;
    nd_train t = train;
    const nd_device *a100 = nd_device_table_find(&table, "A100");
    nd_layer_inputs in = {&moe, &t, a100, 2048};
    nd_layer_shape ep2 = {1, 1, 2, 1, 2, false}, ep8 = {1, 1, 8, 1, 2, false};
    nd_layer_cost sorted, grouped, one_sorted, one_grouped;
    t.moe_dispatcher = ND_MOE_ALLTOALL;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep2, &sorted);
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep8, &one_sorted);
    t.moe_dispatcher = ND_MOE_DEEPEP;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep2, &grouped);
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep8, &one_grouped);
    double ms = 67108864.0 / (a100->hbm_gbps * a100->hbm_efficiency * 1e9) * 1e3;
    assert_close(sorted.forward_ms - grouped.forward_ms, ms);
    assert_close(sorted.backward_ms - grouped.backward_ms, ms);
    assert_close(sorted.kernels[ND_RECOMPUTE_OFF] - grouped.kernels[ND_RECOMPUTE_OFF], 4);
    assert_close(one_sorted.forward_ms, one_grouped.forward_ms);
}

/* Dropless MoE reads each expert's token count on the host once per forward (Megatron's
 * token dispatcher); full recompute runs the forward twice. Dropping (a capacity factor)
 * needs none. */
static void dropless_moe_synchronises_the_host(void **state)
{
    (void)state;
    nd_model moe = moe_gpt();
    nd_layer_inputs in = {&moe, &train, nd_device_table_find(&table, "A100"), 2048};
    nd_layer_shape shape = {1, 1, 2, 1, 2, false};
    nd_layer_cost c;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &shape, &c);
    assert_true(c.host_syncs[ND_RECOMPUTE_OFF] == 1 && c.host_syncs[ND_RECOMPUTE_FULL] == 2);
    moe.capacity_factor = 1.25;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &shape, &c);
    assert_true(c.host_syncs[ND_RECOMPUTE_OFF] == 0);
}

/* Megatron-core's MoE backward runs, per local expert, four host calls in its two
 * GroupedLinears (an empty buffer and a clear_tensor_data each) and two AccumulateGrad nodes
 * with their DDP hooks (fc1's and fc2's weights): 6 (train.c, MCORE_MOE_EXPERT_BWD, counted
 * from megatron/core/transformer/moe and Transformer Engine's grouped_linear.py). Transformer
 * Engine runs a GEMM per expert, each launched from its C++ loop: fc1 and fc2, 1 forward and 2
 * backward each, 6 host calls and 6 kernels an expert. From EP 2 to EP 4 a device's 8 experts go
 * from 4 to 2 local: (6 + 6) x 2 = 24 host operators fewer, 2 x 2 = 4 of them forward, and
 * 6 x 2 = 12 kernels. In FP8 (delayed scaling, the weights' casts cached) each expert's slice of
 * fc1's and fc2's input is cast forward and of their output gradient backward, a kernel each
 * (4 an expert) launched from one C++ loop at a launch's host time (H100: 3 of an operator's
 * 10 us, 0.3 each), and each GroupedLinear looks up the expert's FP8 weight in a Python loop
 * (1 call forward, 2 an expert): 24 + (4 x 0.3 + 2) x 2 = 30.4 host operators fewer,
 * 4 + (2 x 0.3 + 2) x 2 = 9.2 forward, 12 + 4 x 2 = 20 kernels. MindSpeed's grouped matmul is
 * one kernel and one call however many experts, so there only the 12 backward calls follow
 * the experts. */
static void moe_host_work_follows_the_local_experts(void **state)
{
    (void)state;
    nd_model moe = moe_gpt();
    nd_train t = train;
    t.framework = ND_FRAMEWORK_MEGATRON;
    nd_layer_inputs in = {&moe, &t, nd_device_table_find(&table, "A100"), 2048};
    nd_layer_shape ep2 = {1, 1, 2, 1, 2, false}, ep4 = {1, 1, 4, 1, 2, false};
    nd_layer_cost c2, c4;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep2, &c2);
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep4, &c4);
    assert_close(c2.host_ops[ND_RECOMPUTE_OFF] - c4.host_ops[ND_RECOMPUTE_OFF], 24);
    assert_close(c2.host_ops_fwd - c4.host_ops_fwd, 4);
    assert_close(c2.kernels[ND_RECOMPUTE_OFF] - c4.kernels[ND_RECOMPUTE_OFF], 12);
    nd_train fp8 = t;
    fp8.fp8 = true;
    fp8.fp8_recipe = ND_FP8_DELAYED;
    nd_layer_inputs in_fp8 = {&moe, &fp8, nd_device_table_find(&table, "H100"), 2048};
    nd_layer_cost_decoder(&in_fp8, ND_LAYER_MOE, &ep2, &c2);
    nd_layer_cost_decoder(&in_fp8, ND_LAYER_MOE, &ep4, &c4);
    assert_close(c2.host_ops[ND_RECOMPUTE_OFF] - c4.host_ops[ND_RECOMPUTE_OFF], 30.4);
    assert_close(c2.host_ops_fwd - c4.host_ops_fwd, 9.2);
    assert_close(c2.kernels[ND_RECOMPUTE_OFF] - c4.kernels[ND_RECOMPUTE_OFF], 20);
    t.framework = ND_FRAMEWORK_MINDSPEED;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep2, &c2);
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep4, &c4);
    assert_close(c2.host_ops[ND_RECOMPUTE_OFF] - c4.host_ops[ND_RECOMPUTE_OFF], 12);
    assert_close(c2.kernels[ND_RECOMPUTE_OFF] - c4.kernels[ND_RECOMPUTE_OFF], 0);
    /* torchtitan's MoE bookkeeping is not counted: its backward does not follow the experts */
    t.framework = ND_FRAMEWORK_TORCHTITAN;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep2, &c2);
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &ep4, &c4);
    assert_close(c2.host_ops[ND_RECOMPUTE_OFF] - c4.host_ops[ND_RECOMPUTE_OFF], 0);
}

/* Where the experts' activation carries the routing weights (Megatron-Core >= 0.13, MindSpeed),
 * the combine keeps no expert outputs for the weights' gradient: the layer keeps e M h bytes
 * fewer, M = tokens x top-k routed rows of h (by hand: 2 bytes x 4096 tokens x 2 x 1024 =
 * 16 MiB), unless the whole layer is recomputed (then only its input is kept either way). */
static void moe_weights_in_the_expert_keep_no_outputs(void **state)
{
    (void)state;
    nd_model moe = moe_gpt();
    nd_train t = train;
    nd_layer_inputs in = {&moe, &t, nd_device_table_find(&table, "A100"), 2048};
    nd_layer_shape shape = {1, 1, 2, 1, 2, false};
    nd_layer_cost after, inside;
    t.moe_probs_in_expert = 0;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &shape, &after);
    t.moe_probs_in_expert = 1;
    nd_layer_cost_decoder(&in, ND_LAYER_MOE, &shape, &inside);
    double outputs = 2.0 * (s * b) * 2 * h;
    assert_close(after.activation_bytes[ND_RECOMPUTE_OFF] - inside.activation_bytes[ND_RECOMPUTE_OFF],
                 outputs);
    assert_close(after.activation_bytes[ND_RECOMPUTE_SELECTIVE] -
                     inside.activation_bytes[ND_RECOMPUTE_SELECTIVE],
                 outputs);
    assert_close(after.activation_bytes[ND_RECOMPUTE_FULL], inside.activation_bytes[ND_RECOMPUTE_FULL]);
    /* the framework's default: Megatron's experts carry the weights */
    t.moe_probs_in_expert = -1;
    assert_true(nd_train_moe_probs_in_expert(&t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(activations_no_parallelism),
        cmocka_unit_test(activations_tensor_parallel),
        cmocka_unit_test(activations_sequence_parallel),
        cmocka_unit_test(flops_of_a_gpt_layer),
        cmocka_unit_test(flash_attention_2_on_hopper),
        cmocka_unit_test(sliding_window_layers),
        cmocka_unit_test(recompute_repeats_the_forward),
        cmocka_unit_test(sequence_parallel_regathers_for_weight_gradients),
        cmocka_unit_test(fp8_current_scaling_reads_again),
        cmocka_unit_test(context_parallel_all_to_all),
        cmocka_unit_test(context_parallel_hybrid),
        cmocka_unit_test(ring_merges_by_implementation),
        cmocka_unit_test(ring_exchange_by_implementation),
        cmocka_unit_test(dropless_moe_synchronises_the_host),
        cmocka_unit_test(moe_host_work_follows_the_local_experts),
        cmocka_unit_test(alltoall_dispatch_sorts_by_local_expert),
        cmocka_unit_test(moe_weights_in_the_expert_keep_no_outputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
