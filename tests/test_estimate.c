/* One strategy priced end to end: the parts add up, ratios correct them, memory per stage
 * and the data-parallel all-reduce match hand derivations, and model FLOPs follow the
 * layer formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/collective.h"
#include "nd/costmodel/estimate.h"
#include "nd/costmodel/layer_cache.h"
#include "nd/inputs/model_fields.h"
#include "nd/costmodel/stage.h"
#include "nd/inputs/run.h"
#include "kernels.h" /* nd_memop_ms: the rate the step's bytes are priced at */

static nd_run run;
static nd_device_table table;
static const nd_device *h100;

static int setup(void **state)
{
    (void)state;
    char path[1024];
    nd_error err = {0};
    snprintf(path, sizeof path, "%s/samples/runs/llama3-8b.yaml", getenv("ND_SOURCE_DIR"));
    if (nd_run_load(&run, path, &err)) return -1;
    if (nd_device_table_builtin(&table, &err)) return -1;
    h100 = nd_device_table_find(&table, "H100");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    nd_device_table_free(&table);
    return 0;
}

static void price(const char *text, const nd_ratios *ratios, nd_estimate *est, nd_stage_memory *mem,
                  nd_stage_time *tm)
{
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    assert_int_equal(nd_strategy_parse(&s, text, &err), 0);
    if (nd_strategy_check(&s, &run.model, 64, 512, 8192, &err)) fail_msg("%s", err.message);
    nd_context ctx;
    nd_context_init(&ctx, &run.model, &run.train, h100, 64, 0, ratios);
    est->stage_memory = mem;
    est->stage_time = tm;
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, est, &err), 0);
}

/* DeepSpeed's ZeRO-3 fetches each module as it runs (6 a layer: four linears, two norms) and
 * waits for it, against FSDP's whole-layer gathers (here with overlap off, so both are fully
 * exposed). Collectives are alpha-beta: calls x AG(W / calls) = AG(W) + (calls - 1) x alpha, so
 * per micro-batch (2 gathers, 1 scatter) DeepSpeed pays 3 (calls - 1) alpha more, alpha the
 * fixed part of one 64-rank gather (its time on no bytes); 32 layers: calls = 192, MB 8. */
static void zero3_fetched_module_by_module(void **state)
{
    (void)state;
    nd_estimate fsdp, ds;
    nd_stage_memory mem[8];
    nd_stage_time tm[8];
    nd_train saved = run.train;
    run.train.overlap_grad_reduce = run.train.overlap_param_gather = false;
    run.train.framework = ND_FRAMEWORK_FSDP;
    price("DP=64 ZERO=3 OP=64 MB=8 MBS=1", NULL, &fsdp, mem, tm);
    run.train.framework = ND_FRAMEWORK_DEEPSPEED;
    price("DP=64 ZERO=3 OP=64 MB=8 MBS=1", NULL, &ds, mem, tm);
    run.train = saved;
    double alpha = nd_collective_ms(h100, ND_COLL_ALL_GATHER, (nd_group){64, 1}, 1e-6);
    double want = 8 * 3 * (192 - 1) * alpha;
    double got = ds.parts_ms[ND_PART_DP_COMM] - fsdp.parts_ms[ND_PART_DP_COMM];
    if (fabs(got - want) > 1e-6 * want)
        fail_msg("DeepSpeed's ZeRO-3 pays %.6f ms more, want %.6f", got, want);
}

/* The optimizer step's bytes for 10^9 non-expert parameters a device, by hand: AdamW (two fp32
 * moments), fp32 master weights and gradients, bf16 weights, clipping on. Adam reads the gradient
 * (4) and reads and writes the moments (16) and the master (8); the model copy reads the master
 * (4) and writes the weight (2); clipping reads the gradient and scales it (12): 46 bytes a
 * local parameter. The gradient buffer (4 bytes a held parameter) is zeroed by every framework;
 * Megatron also reads it for its NaN check and, where DP > 1, scales it by 1/DP before the
 * reduce-scatter. DP=8 OP=8: local 1.25e8, held 1e9 -> Megatron 5.75e9 + 4 x 4e9 = 21.75e9
 * bytes, FSDP 5.75e9 + 4e9 = 9.75e9; DP=1: Megatron 46e9 + 2 x 4e9 = 54e9 (no scaling);
 * Megatron-Bridge's settings (no NaN check, averaging collectives: no pre-scale of the dense
 * gradients) as FSDP, 9.75e9. */
static void optimizer_step_passes_by_framework(void **state)
{
    (void)state;
    nd_train saved = run.train;
    run.train.grad_clip = true;
    run.train.master_bytes = 4;
    run.train.grad_bytes = 4;
    run.train.param_bytes = 2;
    run.train.optimizer_states = 2;
    run.train.state_bytes = 4;
    run.train.swap_optimizer = false;
    struct {
        nd_framework framework;
        int64_t dp;
        double bytes;
        int nan_check;
        bool average;
    } cases[] = {{ND_FRAMEWORK_MEGATRON, 8, 21.75e9, -1, false},
                 {ND_FRAMEWORK_FSDP, 8, 9.75e9, -1, false},
                 {ND_FRAMEWORK_MEGATRON, 1, 54e9, -1, false},
                 {ND_FRAMEWORK_MEGATRON, 8, 9.75e9, 0, true}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run.train.framework = cases[i].framework;
        run.train.check_for_nan_in_grad = cases[i].nan_check;
        run.train.average_in_collective = cases[i].average;
        nd_strategy s;
        nd_strategy_init(&s);
        char text[64];
        snprintf(text, sizeof text, "DP=%lld OP=%lld ZERO=1 MP=1 PP=1 MB=%lld", (long long)cases[i].dp,
                 (long long)cases[i].dp, (long long)(512 / cases[i].dp));
        nd_error err = {0};
        assert_int_equal(nd_strategy_parse(&s, text, &err), 0);
        if (nd_strategy_check(&s, &run.model, cases[i].dp, 512, 8192, &err)) fail_msg("%s", err.message);
        nd_context ctx;
        nd_context_init(&ctx, &run.model, &run.train, h100, cases[i].dp, 0, NULL);
        nd_stage_work w;
        memset(&w, 0, sizeof w);
        w.params_ne = 1e9;
        w.layers = 1;
        nd_stage_time t;
        memset(&t, 0, sizeof t);
        nd_stage_sync_compute(&ctx, &s, &w, &t);
        double norm = nd_collective_ms(h100, ND_COLL_ALL_REDUCE, (nd_group){cases[i].dp, 1}, 8);
        double want = nd_memop_ms(h100, ND_MEMOP_OPTIMIZER, cases[i].bytes) + norm;
        if (fabs(t.optimizer_ms - want) > 1e-9 * want)
            fail_msg("case %zu: optimizer %.6f ms, want %.6f (%.3g bytes)", i, t.optimizer_ms, want,
                     cases[i].bytes);
    }
    run.train = saved;
}

/* Transformer Engine's FP8 weight copies, by hand: Llama-3-8B at MP=4, 54,534,144 parameters a
 * layer and device (above), 16 layers a stage of PP=2: 872,546,304 weights. On H100 (FP8 GEMMs
 * TN only) each keeps the FP8 weight and its transpose, 2 bytes: 1,745,092,608 bytes =
 * 1664.25 MiB more buffers than without the cache; on B200 (any layout) 1 byte, 832.125 MiB. */
static void fp8_weight_copies_by_device(void **state)
{
    (void)state;
    nd_train saved = run.train;
    run.train.fp8 = true;
    run.train.framework = ND_FRAMEWORK_MEGATRON;
    const char *devices[] = {"H100", "B200"};
    const double want_mib[] = {1664.25, 832.125};
    for (int i = 0; i < 2; i++) {
        const nd_device *d = nd_device_table_find(&table, devices[i]);
        double buffers[2];
        for (int cached = 0; cached < 2; cached++) {
            run.train.fp8_weight_cache = cached;
            nd_strategy s;
            nd_strategy_init(&s);
            nd_error err = {0};
            assert_int_equal(nd_strategy_parse(&s, "DP=8 MP=4 PP=2 MB=64 OP=8 SP=1", &err), 0);
            if (nd_strategy_check(&s, &run.model, 64, 512, 8192, &err)) fail_msg("%s", err.message);
            nd_context ctx;
            nd_context_init(&ctx, &run.model, &run.train, d, 64, 0, NULL);
            nd_stage_memory mem[2];
            nd_stage_time tm[2];
            nd_estimate est;
            est.stage_memory = mem;
            est.stage_time = tm;
            assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &est, &err), 0);
            buffers[cached] = mem[1].buffers_mib;
        }
        if (fabs(buffers[1] - buffers[0] - want_mib[i]) > 1e-6)
            fail_msg("%s: the cache adds %.6f MiB, want %.6f", devices[i], buffers[1] - buffers[0],
                     want_mib[i]);
    }
    run.train = saved;
}

static void parts_add_up_to_the_step(void **state)
{
    (void)state;
    nd_estimate est;
    nd_stage_memory mem[4];
    nd_stage_time tm[4];
    price("DP=4 MP=4 PP=4 MB=128 OP=4 SP=1 recompute=selective", NULL, &est, mem, tm);
    double sum = 0;
    for (int p = 0; p < ND_PARTS; p++) {
        assert_true(est.parts_ms[p] >= 0);
        sum += est.parts_ms[p];
    }
    assert_true(fabs(sum - est.step_ms) < 1e-9 * est.step_ms);
    assert_true(est.parts_ms[ND_PART_BUBBLE] > 0);
    assert_true(est.parts_ms[ND_PART_OVERHEAD] > 0);
    assert_true(est.parts_ms[ND_PART_OPTIMIZER] > 0);
    /* The pipeline part equals what the schedule adds beyond MB x the slowest stage. */
    int sx = est.straggler_stage;
    assert_true(fabs(est.parts_ms[ND_PART_BUBBLE] -
                     (nd_pipeline_ms(&(nd_strategy){.pp = 4, .mb = 128, .vpp = 1}, tm, sx) -
                      128 * tm[sx].total_ms)) < 1e-6);
}

static void ratios_scale_each_part(void **state)
{
    (void)state;
    nd_estimate raw, corrected;
    nd_stage_memory mem[2];
    nd_stage_time tm[2];
    price("DP=8 MP=4 PP=2 MB=64 OP=8 SP=1", NULL, &raw, mem, tm);
    nd_ratios r;
    nd_ratios_init(&r);
    r.value[ND_RATIO_COMPUTE] = 2.0;
    r.value[ND_RATIO_MP_COMM] = 0.5;
    price("DP=8 MP=4 PP=2 MB=64 OP=8 SP=1", &r, &corrected, mem, tm);
    assert_true(fabs(corrected.parts_ms[ND_PART_FW_COMPUTE] - 2 * raw.parts_ms[ND_PART_FW_COMPUTE]) < 1e-9);
    assert_true(fabs(corrected.parts_ms[ND_PART_BW_COMPUTE] - 2 * raw.parts_ms[ND_PART_BW_COMPUTE]) < 1e-9);
    assert_true(fabs(corrected.parts_ms[ND_PART_MP_COMM] - 0.5 * raw.parts_ms[ND_PART_MP_COMM]) < 1e-9);
    assert_true(corrected.parts_ms[ND_PART_BUBBLE] == raw.parts_ms[ND_PART_BUBBLE]);
    assert_true(corrected.raw_step_ms == raw.step_ms);
}

/* Llama-3-8B at DP=8 MP=4 PP=2, bf16: per layer (attention 41,943,040 + MLP 176,160,768) / 4
 * + norms 8,192 = 54,534,144 parameters per device; 16 layers = 872,546,304; stage 0 adds the
 * vocabulary-parallel embedding 128,256 x 4096 / 4 = 131,334,144: 1,003,880,448 parameters.
 * Weights 2 bytes, fp32 gradients 4 bytes, optimizer (fp32 master + two fp32 moments) 12 bytes
 * sharded over OP = 8 ranks. */
static void memory_of_static_state(void **state)
{
    (void)state;
    const double mib = 1024.0 * 1024.0, p0 = 1003880448.0;
    nd_estimate est;
    nd_stage_memory mem[2];
    nd_stage_time tm[2];
    price("DP=8 MP=4 PP=2 MB=64 OP=8 SP=1", NULL, &est, mem, tm);
    assert_true(fabs(mem[0].params_mib - 2 * p0 / mib) < 1e-6);
    assert_true(fabs(mem[0].grads_mib - 4 * p0 / mib) < 1e-6);
    assert_true(fabs(mem[0].optimizer_mib - 12 * p0 / 8 / mib) < 1e-6);
    price("DP=8 MP=4 PP=2 MB=64 OP=8 ZERO=3 SP=1", NULL, &est, mem, tm);
    assert_true(fabs(mem[0].params_mib - 2 * p0 / 8 / mib) < 1e-6);
    assert_true(fabs(mem[0].grads_mib - 4 * p0 / 8 / mib) < 1e-6);
    price("DP=8 MP=4 PP=2 MB=64 OP=1 SP=1", NULL, &est, mem, tm);
    assert_true(fabs(mem[0].optimizer_mib - 12 * p0 / mib) < 1e-6);
    /* 1F1B: stage 0 holds 2 micro-batches of activations, stage 1 one. */
    assert_true(mem[0].inflight == 2 && mem[1].inflight == 1);
    /* Total is the sum of its components. */
    double part[ND_MEMORY_COMPONENTS], sum = 0;
    nd_stage_memory_components(&mem[0], part);
    for (int c = 0; c < ND_MEMORY_COMPONENTS; c++) sum += part[c];
    assert_true(fabs(sum - mem[0].total_mib) < 1e-6);
    assert_true(fabs(mem[0].reserved_mib - mem[0].allocated_mib - mem[0].allocator_mib) < 1e-6);
    assert_true(fabs(mem[0].total_mib - mem[0].reserved_mib - mem[0].context_mib) < 1e-6);
    assert_true(est.peak_mib >= mem[0].total_mib && est.peak_mib >= mem[1].total_mib);
}

/* Without sharding and without overlap, DP_REDUCE is one ring all-reduce of the stage's fp32
 * gradients over the DP group: 8 ranks 4 apart (MP = 4 innermost), 2 per 8-GPU node, 4 nodes.
 * The ring crosses nodes on the NIC share of its 2 members per node: 2 x inter_gbps x
 * inter_efficiency (below NVLink's intra_gbps x intra_efficiency), and each of its 2 x 7 steps
 * waits for a node crossing: inter_base_us + 2 x (7 x inter_latency_us + 7/8 x bytes / ring).
 * Stage 1 (last) holds 1,003,884,544 parameters (16 layers, final norm 4,096, head
 * 128,256 x 4096 / 4): 4,015,538,176 bytes of gradients. */
static void data_parallel_all_reduce(void **state)
{
    (void)state;
    run.train.overlap_grad_reduce = false;
    nd_estimate est;
    nd_stage_memory mem[2];
    nd_stage_time tm[2];
    price("DP=8 MP=4 PP=2 MB=64 SP=1", NULL, &est, mem, tm);
    run.train.overlap_grad_reduce = true;
    double bytes = 1003884544.0 * 4;
    double ring = 2 * h100->inter_gbps * h100->inter_efficiency * 1e6; /* bytes per ms */
    assert_true(ring < h100->intra_gbps * h100->intra_efficiency * 1e6);
    double want = h100->inter_base_us / 1e3 + 2 * (7 * h100->inter_latency_us / 1e3 + 7.0 / 8 * bytes / ring);
    assert_true(fabs(tm[1].dp_reduce_ms - want) < 1e-6);
    assert_true(est.parts_ms[ND_PART_DP_COMM] == 0);
}

/* A small GPT without flash attention on one device: model FLOPs per step are
 * 3 x MB x [L (24 b s h^2 + 4 b s^2 h) + 2 b s h v] (layers and the output projection). */
static void model_flops_follow_the_layer_formula(void **state)
{
    (void)state;
    nd_model gpt;
    nd_error err = {0};
    nd_model_set_type(&gpt, "gpt", "test", &err);
    gpt.hidden = 1024;
    gpt.layers = 4;
    gpt.heads = 16;
    gpt.ffn = 4096;
    gpt.vocab = 50304;
    gpt.max_positions = 1024;
    assert_int_equal(nd_model_validate(&gpt, "test", &err), 0);
    nd_train t;
    nd_train_init(&t);
    t.flash_attention = false;
    t.seq_len = 1024;
    nd_strategy s;
    nd_strategy_init(&s);
    s.mb = 4;
    s.mbs = 2;
    assert_int_equal(nd_strategy_check(&s, &gpt, 1, 8, 1024, &err), 0);
    nd_context ctx;
    nd_context_init(&ctx, &gpt, &t, h100, 1, 0, NULL);
    nd_estimate est = {0};
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &est, &err), 0);
    double b = 2, sq = 1024, h = 1024, v = 50304;
    double want = 3 * 4 * (4 * (24 * b * sq * h * h + 4 * b * sq * sq * h) + 2 * b * sq * h * v);
    assert_true(fabs(est.model_flops_per_step / want - 1) < 1e-12);
    assert_true(est.mfu > 0 && est.mfu < 1);
}

static void cache_gives_identical_results(void **state)
{
    (void)state;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    nd_strategy_parse(&s, "DP=8 MP=4 PP=2 MB=64 OP=8 SP=1 recompute=full", &err);
    assert_int_equal(nd_strategy_check(&s, &run.model, 64, 512, 8192, &err), 0);
    nd_context ctx;
    nd_context_init(&ctx, &run.model, &run.train, h100, 64, 0, NULL);
    nd_layer_cache *cache = nd_layer_cache_alloc();
    nd_estimate a = {0}, b = {0};
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &a, &err), 0);
    assert_int_equal(nd_estimate_strategy(&ctx, &s, cache, NULL, &b, &err), 0);
    assert_int_equal(nd_estimate_strategy(&ctx, &s, cache, NULL, &b, &err), 0);
    assert_memory_equal(a.parts_ms, b.parts_ms, sizeof a.parts_ms);
    assert_true(a.peak_mib == b.peak_mib);
    nd_layer_cache_free(cache);
}

/* The cache answers each sharding with what pricing it afresh gives, across the growth of its
 * index (256 slots, half full) and of its entries (64 first): 6 x 5 x 2 x 2 x 2 = 240 shardings
 * asked twice, in an order that interleaves them. */
static void cache_keeps_every_sharding_through_growth(void **state)
{
    (void)state;
    nd_layer_inputs in = {.model = &run.model, .train = &run.train, .device = h100, .seq_len = 8192};
    nd_layer_cache *cache = nd_layer_cache_alloc();
    assert_non_null(cache);
    const int64_t tps[] = {1, 2, 4, 8, 16, 32}, mbss[] = {1, 2, 3, 4, 8};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 240; i++) {
            int k = (i * 97) % 240; /* 97 is prime to 240: every sharding once a pass */
            nd_layer_shape sh = {.tp = tps[k % 6],
                                 .mbs = mbss[k / 6 % 5],
                                 .cp = 1 + k / 30 % 2,
                                 .ep = 1,
                                 .etp = 1 + k / 60 % 2,
                                 .sp = k / 120 % 2};
            nd_layer_cache_entry fresh, scratch;
            const nd_layer_cache_entry *fresh_p = nd_layer_cache_get(NULL, &in, &sh, &fresh);
            const nd_layer_cache_entry *got = nd_layer_cache_get(cache, &in, &sh, &scratch);
            assert_ptr_not_equal(got, &scratch);
            assert_true(got->shape.tp == sh.tp && got->shape.mbs == sh.mbs && got->shape.cp == sh.cp &&
                        got->shape.etp == sh.etp && got->shape.sp == sh.sp);
            assert_memory_equal(got->layer, fresh_p->layer, sizeof got->layer);
            assert_memory_equal(&got->head, &fresh_p->head, sizeof got->head);
        }
    assert_int_equal(nd_layer_cache_count(cache), 240); /* each priced once, the second pass all hits */
    nd_layer_cache_free(cache);
}

static void budget_decides_the_fit(void **state)
{
    (void)state;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    nd_strategy_parse(&s, "DP=8 MP=4 PP=2 MB=64 OP=8 SP=1", &err);
    assert_int_equal(nd_strategy_check(&s, &run.model, 64, 512, 8192, &err), 0);
    nd_context ctx;
    nd_estimate est = {0};
    nd_context_init(&ctx, &run.model, &run.train, h100, 64, 1024, NULL);
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &est, &err), 0);
    assert_false(est.fits);
    nd_context_init(&ctx, &run.model, &run.train, h100, 64, 0, NULL); /* 80 GiB */
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &est, &err), 0);
    assert_true(est.fits);
    assert_true(ctx.budget_mib == 80 * 1024.0);
}

/* Llama-3-8B under torchtitan: FSDP over 8 GPUs (ZeRO-3), local batch 2 at 8k tokens, the
 * per-op selective AC. Each layer keeps its input (T h 2 bytes), the odd matmul outputs of
 * wq, wk, wv, wo, w1, w3, w2 (torchtitan's policy recomputes every second mm: wq, wv, w1 and w2
 * kept, T x 2 x (4096 + 1024 + 14336 + 4096) = T x 47104 bytes), the attention output
 * (T x 4096 x 2) and flash attention's fp32 log-sum-exp (T x 32 x 4): with T = 16384 tokens,
 * 16384 x 63616 bytes = 994 MiB a layer, 31808 MiB for 32, plus the final
 * norm's input and output on the last stage (2 x T x 4096 x 2 = 256 MiB). The weights, sharded
 * 8 ways, hold 8,030,261,248 / 8 x 2 bytes; torchtitan's launcher sets expandable segments, so
 * the allocator caches only a partly used 2 MiB page beyond the allocated peak. FSDP's buffers
 * at the peak: the largest unit, the 128256 x 4096 = 525,336,576-parameter output projection,
 * gathered in bf16 with its bf16 gradient and the fp32 reduce-scatter input (2 + 2 + 4 bytes),
 * and the next 218,112,000-parameter layer prefetched (2 bytes). */
static void torchtitan_per_op_selective_memory(void **state)
{
    (void)state;
    nd_train saved = run.train;
    run.train.framework = ND_FRAMEWORK_TORCHTITAN;
    run.train.seq_len = 8192;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    assert_int_equal(nd_strategy_parse(&s, "DP=8 MB=1 MBS=2 OP=8 ZERO=3 recompute=selective", &err), 0);
    if (nd_strategy_check(&s, &run.model, 8, 16, 8192, &err)) fail_msg("%s", err.message);
    nd_context ctx;
    nd_context_init(&ctx, &run.model, &run.train, h100, 8, 0, NULL);
    nd_stage_memory mem[1];
    nd_estimate est = {0};
    est.stage_memory = mem;
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &est, &err), 0);
    run.train = saved;
    double mib = 1024.0 * 1024.0;
    assert_true(fabs(mem[0].activations_mib - (32 * 16384.0 * 63616 + 2 * 16384.0 * 4096 * 2) / mib) < 1e-6);
    assert_true(fabs(mem[0].params_mib - 8030261248.0 / 8 * 2 / mib) < 1e-6);
    assert_true(fabs(mem[0].allocator_mib - 2) < 1e-9);
    assert_true(fabs(mem[0].buffers_mib - (525336576.0 * 8 + 218112000.0 * 2) / mib) < 1e-6);
    assert_true(fabs(est.peak_allocated_mib - mem[0].allocated_mib) < 1e-9);
}

/* DLPerf's GPT-h1536-L16 under Megatron-LM of 2020 (samples/runs/dlperf-gpt-h1536-l16.yaml:
 * megatron-legacy, fp16, full activation checkpointing) on V100s, priced at stage 0. */
static void price_dlperf(nd_run *r, const char *text, double budget_mib, nd_estimate *est,
                         nd_stage_memory *mem)
{
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    assert_int_equal(nd_strategy_parse(&s, text, &err), 0);
    if (nd_strategy_check(&s, &r->model, s.dp * s.tp, s.dp * s.mbs, 2048, &err)) fail_msg("%s", err.message);
    nd_context ctx;
    nd_context_init(&ctx, &r->model, &r->train, nd_device_table_find(&table, "V100"), s.dp * s.tp, budget_mib,
                    NULL);
    memset(est, 0, sizeof *est);
    est->stage_memory = mem;
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, est, &err), 0);
}

static void load_dlperf(nd_run *r)
{
    char path[1024];
    nd_error err = {0};
    snprintf(path, sizeof path, "%s/samples/runs/dlperf-gpt-h1536-l16.yaml", getenv("ND_SOURCE_DIR"));
    if (nd_run_load(r, path, &err)) fail_msg("%s", err.message);
}

/* Megatron's fp16 optimizer of 2020 allocates the fp32 gradient copies at the first step and
 * zeroes them after, never freeing them (megatron/fp16/fp16util.py model_grads_to_master_grads;
 * FP16_Optimizer.zero_grad): 4 bytes per parameter beside the 2-byte fp16 gradients, all the
 * time. The model has L(12h^2 + 13h) + Vh + s h + 2h = 16 x 28,331,520 + 78,643,200 + 3,145,728
 * + 3,072 = 535,096,320 parameters; on one GPU its gradients hold 535,096,320 x 6 bytes. */
static void legacy_fp32_gradient_copies_are_kept(void **state)
{
    (void)state;
    nd_run r;
    load_dlperf(&r);
    nd_estimate est;
    nd_stage_memory mem[1];
    price_dlperf(&r, "DP=1 MP=1 MBS=2 recompute=full", 0, &est, mem);
    assert_true(fabs(mem[0].grads_mib - 535096320.0 * 6 / (1024.0 * 1024.0)) < 1e-6);
}

/* PyTorch 1.x's NCCL process group records each collective's tensors on its stream, so the
 * allocator reuses a freed one only once the device has run the collective; legacy Megatron
 * synchronises around each pass, so the host leads by one backward pass. With TP 8 and full
 * recompute that pass runs, per layer, the two all-reduces of the replayed forward (attention
 * and MLP outputs) and the two of the backward (the column-parallel inputs' gradients), each of
 * T x h x 2 bytes = 32768 x 1536 x 2 = 96 MiB: 16 layers x 4 x 96 = 6144 MiB held. They are
 * given back before a request would fail, so `fits` does not count them. */
static void legacy_collective_buffers_are_held(void **state)
{
    (void)state;
    nd_run r;
    load_dlperf(&r);
    nd_estimate est;
    nd_stage_memory mem[1];
    price_dlperf(&r, "DP=1 MP=8 MBS=16 recompute=full", 0, &est, mem);
    assert_true(fabs(mem[0].held_mib - 6144.0) < 1e-6);
    assert_true(fabs(est.peak_mib - est.peak_firm_mib - 6144.0) < 1e-6);
    double firm = est.peak_firm_mib, total = est.peak_mib;

    price_dlperf(&r, "DP=1 MP=8 MBS=16 recompute=full", firm + 1, &est,
                 mem); /* under the total: still fits */
    assert_true(est.fits);
    price_dlperf(&r, "DP=1 MP=8 MBS=16 recompute=full", firm - 1, &est, mem);
    assert_false(est.fits);

    r.train.record_streams = 0; /* TORCH_NCCL_AVOID_RECORD_STREAMS=1 */
    price_dlperf(&r, "DP=1 MP=8 MBS=16 recompute=full", 0, &est, mem);
    assert_true(mem[0].held_mib == 0);
    assert_true(fabs(est.peak_mib - (total - 6144.0)) < 1e-6);

    /* Without the pass synchronisations the host leads by the whole micro-batch: the first
     * forward's two all-reduces a layer join them, 16 x 6 x 96 = 9216 MiB. */
    r.train.record_streams = 1;
    r.train.framework = ND_FRAMEWORK_MEGATRON;
    price_dlperf(&r, "DP=1 MP=8 MBS=16 recompute=full", 0, &est, mem);
    assert_true(fabs(mem[0].held_mib - 9216.0) < 1e-6);
}

/* Without fused accumulation every linear's weight gradient is written to a fresh fp16 tensor
 * and added into the gradient buffer; the allocator keeps a block of each distinct size. In
 * GPT-h1536-L16 on one GPU: QKV 1536 x 4608, output 1536 x 1536, the two MLP matrices
 * 1536 x 6144 (one size), the tied embedding 51200 x 1536: 97,517,568 elements x 2 bytes. */
static void unfused_weight_gradients_keep_a_block_per_size(void **state)
{
    (void)state;
    nd_run r;
    load_dlperf(&r);
    nd_estimate est;
    nd_stage_memory unfused[1], fused[1];
    price_dlperf(&r, "DP=1 MP=1 MBS=2 recompute=full", 0, &est, unfused);
    r.train.grad_accumulation_fusion = true;
    price_dlperf(&r, "DP=1 MP=1 MBS=2 recompute=full", 0, &est, fused);
    assert_true(fabs(unfused[0].allocator_mib - fused[0].allocator_mib - 97517568.0 * 2 / (1024.0 * 1024.0)) <
                1e-6);
}

/* With fused accumulation Transformer Engine hands autograd a placeholder weight gradient, one
 * cached tensor per weight shape (module/base.py, get_dummy_wgrad): in GPT-h1536-L16 QKV
 * 1536 x 4608, output 1536 x 1536 and the MLP's 1536 x 6144 (both matrices one shape), not
 * the output layer (Megatron's own linear): 18,874,368 elements x 2 bytes = 36 MiB, halved
 * under TP 2. Megatron without Transformer Engine (legacy) allocates none. */
static void te_placeholder_weight_gradients_one_per_shape(void **state)
{
    (void)state;
    nd_run r;
    load_dlperf(&r);
    r.train.grad_accumulation_fusion = true;
    nd_estimate est;
    nd_stage_memory legacy[1], te[1], te_tp2[1], legacy_tp2[1];
    r.train.framework = ND_FRAMEWORK_MEGATRON_LEGACY;
    price_dlperf(&r, "DP=1 MP=1 MBS=2 recompute=full", 0, &est, legacy);
    price_dlperf(&r, "DP=1 MP=2 MBS=2 recompute=full", 0, &est, legacy_tp2);
    r.train.framework = ND_FRAMEWORK_MEGATRON;
    price_dlperf(&r, "DP=1 MP=1 MBS=2 recompute=full", 0, &est, te);
    price_dlperf(&r, "DP=1 MP=2 MBS=2 recompute=full", 0, &est, te_tp2);
    assert_true(fabs(te[0].buffers_mib - legacy[0].buffers_mib - 36.0) < 1e-6);
    assert_true(fabs(te_tp2[0].buffers_mib - legacy_tp2[0].buffers_mib - 18.0) < 1e-6);
}

/* The held buffers fill at most the device: past its 16 GiB the allocator frees them instead of
 * failing. TP 8 with a micro-batch of 32 would hold 12288 MiB beside ~9 GiB of firm memory. */
static void held_buffers_fill_at_most_the_device(void **state)
{
    (void)state;
    nd_run r;
    load_dlperf(&r);
    nd_estimate est;
    nd_stage_memory mem[1];
    price_dlperf(&r, "DP=1 MP=8 MBS=32 recompute=full", 0, &est, mem);
    assert_true(est.peak_firm_mib < 16384 && est.peak_firm_mib + 12288 > 16384);
    assert_true(fabs(est.peak_mib - 16384.0) < 1e-6);
    assert_true(fabs(mem[0].held_mib - (16384.0 - est.peak_firm_mib)) < 1e-6);
    assert_true(est.fits);
}

/* torchtitan under pipeline parallelism keeps FSDP's gathered weights from forward to backward
 * (fsdp_reshard_after_forward "default" is "never" with PP), and the pipeline schedule turns
 * the gradient sync off until the last micro-batch, so the gradients accumulate unsharded in
 * fp32. Stage 0 of Llama-3-8B over PP 2 holds 16 layers of 2 x 4096 x 4096 + 2 x 4096 x 1024
 * + 3 x 4096 x 14336 + 2 x 4096 = 218,112,000 parameters and the 128256 x 4096 embedding:
 * 4,015,128,576, so the gathered copies add 2 bytes and the gradients 4 bytes a parameter. */
static void torchtitan_pipelined_fsdp_keeps_weights_gathered(void **state)
{
    (void)state;
    nd_train saved = run.train;
    run.train.framework = ND_FRAMEWORK_TORCHTITAN;
    nd_estimate est = {0};
    nd_stage_memory kept[2], resharded[2];
    nd_stage_time tm[2];
    price("DP=32 PP=2 MB=16 MBS=1 OP=32 ZERO=3 SP=0", NULL, &est, kept, tm);
    run.train.reshard_after_forward = 1;
    price("DP=32 PP=2 MB=16 MBS=1 OP=32 ZERO=3 SP=0", NULL, &est, resharded, tm);
    run.train = saved;
    double mib = 1024.0 * 1024.0, stage0 = 4015128576.0;
    assert_true(fabs(kept[0].params_mib - resharded[0].params_mib - stage0 * 2 / mib) < 1e-6);
    assert_true(fabs(kept[0].grads_mib - resharded[0].grads_mib - stage0 * 4 / mib) < 1e-6);
}

/* The optimizer step's temporaries, where the caching allocator cannot fit them in the blocks
 * the backward left (a layer's fp32-sized tensors exceed one layer input's block), take new
 * segments: the reserved peak grows by them. Llama-3-8B, optimizer sharded 64 ways (ZeRO-1):
 * 8,030,261,248 / 64 = 125,472,832 local parameters. torch's foreach AdamW holds a 4-byte list of
 * them (478.6 MiB); a per-tensor loop (Composer's DecoupledAdamW) two temporaries of the largest
 * shard, the 128256 x 4096 embedding's / 64 (2 x 4 x 8,208,384 bytes = 62.6 MiB); a fused one
 * none. */
static void optimizer_temporaries_by_implementation(void **state)
{
    (void)state;
    nd_train saved = run.train;
    run.train.framework = ND_FRAMEWORK_FSDP;
    const char *strategy = "DP=64 MB=8 MBS=1 OP=64 ZERO=1 recompute=full";
    nd_estimate est = {0};
    nd_stage_memory fused[1], foreach[1], loop[1];
    nd_stage_time tm[1];
    run.train.optimizer_impl = ND_OPTIMIZER_FUSED;
    price(strategy, NULL, &est, fused, tm);
    run.train.optimizer_impl = ND_OPTIMIZER_FOREACH;
    price(strategy, NULL, &est, foreach, tm);
    run.train.optimizer_impl = -1; /* fsdp's default: the per-tensor loop */
    price(strategy, NULL, &est, loop, tm);
    run.train = saved;
    double mib = 1024.0 * 1024.0;
    assert_true(fabs(foreach[0].allocator_mib - fused[0].allocator_mib - 8030261248.0 / 64 * 4 / mib) < 1e-6);
    assert_true(fabs(loop[0].allocator_mib - fused[0].allocator_mib - 2 * 4 * 128256.0 * 4096 / 64 / mib) <
                1e-6);
}

/* ZeRO-2 under a pipeline: FSDP (no pipelining runtime of its own) scatters the gradients after
 * every micro-batch's backward, so with the overlaps off DP_COMM grows by one reduce-scatter rs
 * a micro-batch (the batch of 512 at DP 32 as MB x MBS = 4 x 4, 8 x 2, 16 x 1): DP(8) - DP(4) =
 * 4 rs and DP(16) - DP(8) = 8 rs. torch.distributed.pipelining (torchtitan) keeps FSDP's
 * gradient sync off until the last backward (backward_maybe_with_nosync): one rs a step, so
 * torchtitan's DP(m) is FSDP's less the m - 1 scatters it does not run. */
static void pipelined_fsdp_reduces_once(void **state)
{
    (void)state;
    nd_estimate e[3], tt[3];
    nd_stage_memory mem[8];
    nd_stage_time tm[8];
    nd_train saved = run.train;
    run.train.overlap_grad_reduce = run.train.overlap_param_gather = false;
    const char *text[3] = {"DP=32 PP=2 ZERO=2 OP=32 MB=4 MBS=4", "DP=32 PP=2 ZERO=2 OP=32 MB=8 MBS=2",
                           "DP=32 PP=2 ZERO=2 OP=32 MB=16 MBS=1"};
    const double m[3] = {4, 8, 16};
    for (int i = 0; i < 3; i++) {
        run.train.framework = ND_FRAMEWORK_FSDP;
        price(text[i], NULL, &e[i], mem, tm);
        run.train.framework = ND_FRAMEWORK_TORCHTITAN;
        price(text[i], NULL, &tt[i], mem, tm);
    }
    run.train = saved;
    double d0 = e[0].parts_ms[ND_PART_DP_COMM], d1 = e[1].parts_ms[ND_PART_DP_COMM];
    double d2 = e[2].parts_ms[ND_PART_DP_COMM], rs = (d1 - d0) / 4;
    assert_true(rs > 0);
    assert_true(fabs((d2 - d1) - 8 * rs) < 1e-9 * d2);
    for (int i = 0; i < 3; i++) {
        double want = e[i].parts_ms[ND_PART_DP_COMM] - (m[i] - 1) * rs;
        if (fabs(tt[i].parts_ms[ND_PART_DP_COMM] - want) > 1e-9 * want)
            fail_msg("MB=%g: %.9f ms, want %.9f", m[i], tt[i].parts_ms[ND_PART_DP_COMM], want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_add_up_to_the_step),
        cmocka_unit_test(zero3_fetched_module_by_module),
        cmocka_unit_test(pipelined_fsdp_reduces_once),
        cmocka_unit_test(ratios_scale_each_part),
        cmocka_unit_test(memory_of_static_state),
        cmocka_unit_test(data_parallel_all_reduce),
        cmocka_unit_test(model_flops_follow_the_layer_formula),
        cmocka_unit_test(cache_gives_identical_results),
        cmocka_unit_test(cache_keeps_every_sharding_through_growth),
        cmocka_unit_test(budget_decides_the_fit),
        cmocka_unit_test(torchtitan_per_op_selective_memory),
        cmocka_unit_test(legacy_fp32_gradient_copies_are_kept),
        cmocka_unit_test(legacy_collective_buffers_are_held),
        cmocka_unit_test(held_buffers_fill_at_most_the_device),
        cmocka_unit_test(unfused_weight_gradients_keep_a_block_per_size),
        cmocka_unit_test(te_placeholder_weight_gradients_one_per_shape),
        cmocka_unit_test(torchtitan_pipelined_fsdp_keeps_weights_gathered),
        cmocka_unit_test(optimizer_temporaries_by_implementation),
        cmocka_unit_test(optimizer_step_passes_by_framework),
        cmocka_unit_test(fp8_weight_copies_by_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
