/*
 * test_parallel_costs.c — expert and context parallelism as implemented, and what the
 * activations keep under FP8 and the new recompute modules. Every expected number is worked by
 * hand in the comments from the formulas docs/cost-model.md gives (§Expert parallel, §Context
 * parallel, §Activation memory and recompute).
 */
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

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol) fail_msg("got %.9g, want %.9g", got, want);
}

/* A device of round numbers: 8 a node, links of 100 GB/s inside and 10 GB/s across, no
 * latencies. 1 GB/s = 1e6 bytes/ms. */
static nd_device round_device(void)
{
    nd_device d;
    memset(&d, 0, sizeof d);
    d.devices_per_node = 8;
    d.intra_gbps = 100;
    d.intra_efficiency = 1;
    d.inter_gbps = 10;
    d.inter_efficiency = 1;
    return d;
}

/* 16 EP ranks over 2 nodes, 1,000 tokens of 1,000 bytes, each for 8 experts. Of a token's 8
 * copies, 8 x 7/16 = 3.5 go to the node's other ranks and 8 x 8/16 = 4 to the other node.
 *   all-to-all: NIC 1000 x 4 x 1000 B / 1e7 B/ms = 0.4 ms, NVLink 1000 x 3.5 x 1000 / 1e8 =
 *   0.035 ms: 0.4 ms.
 *   DeepEP, the token reaching 1 other node: NIC 1000 x 1 x 1000 / 1e7 = 0.1 ms; NVLink the
 *   node's 3.5 copies and the 4 x 7/8 fanned out from the arrivals, 7 x 1000 x 1000 / 1e8 =
 *   0.07 ms: 0.1 ms. */
static void dispatch_forms(void **state)
{
    (void)state;
    nd_device d = round_device();
    nd_group ep = {16, 1};
    near(nd_dispatch_ms(&d, ep, 1000, 8, 1, 1000, false), 0.4, 1e-12);
    near(nd_dispatch_ms(&d, ep, 1000, 8, 1, 1000, true), 0.1, 1e-12);
    /* inside one node both forms send the 7/8 of the copies for the other ranks over NVLink:
     * 1000 x 8 x 7/8 x 1000 / 1e8 = 0.07 ms */
    nd_group node = {8, 1};
    near(nd_dispatch_ms(&d, node, 1000, 8, 0, 1000, false), 0.07, 1e-12);
    near(nd_dispatch_ms(&d, node, 1000, 8, 0, 1000, true), 0.07, 1e-12);
}

/* DeepSeek-V3's routing on EP 64 over 8 nodes (256 experts in 8 groups, top-4 groups, top-8
 * experts): a group a node, a token reaches at most 4 nodes, 4 (1 - (3/4)^8) = 3.59955 of them,
 * 7/8 others: 3.14961. Without the group limit, 8 (1 - (7/8)^8) x 7/8 = 8 x 0.656391 x 0.875 =
 * 4.59474. */
static void node_limited_routing(void **state)
{
    (void)state;
    nd_model m;
    memset(&m, 0, sizeof m);
    m.experts = 256;
    m.experts_per_token = 8;
    m.router_groups = 8;
    m.router_group_topk = 4;
    near(nd_moe_remote_nodes(&m, 8), 4 * (1 - pow(0.75, 8)) * 7 / 8, 1e-12);
    near(nd_moe_remote_nodes(&m, 8), 3.14961, 1e-5);
    m.router_groups = m.router_group_topk = 0;
    near(nd_moe_remote_nodes(&m, 8), 4.59474, 1e-5);
    near(nd_moe_remote_nodes(&m, 1), 0, 0);
}

/* A tiny Llama layer (h 64, 4 heads of 16, MLP 128, 6 tokens) under Transformer Engine's FP8 keeps
 * the output projection's input (e T h), the down projection's input (e T w) and the two norms'
 * outputs (2 e T h) in one byte instead of two: (T h + T w + 2 T h) = 6 (192 + 128) = 1,920
 * bytes fewer. */
static void fp8_keeps_gemm_inputs_in_fp8(void **state)
{
    (void)state;
    nd_error err = {0};
    nd_model m;
    memset(&m, 0, sizeof m);
    nd_model_set_type(&m, "llama", "test", &err);
    m.hidden = 64;
    m.layers = 2;
    m.heads = m.kv_heads = 4;
    m.ffn = 128;
    m.vocab = 256;
    assert_int_equal(nd_model_validate(&m, "test", &err), 0);
    nd_train t;
    nd_train_init(&t);
    t.seq_len = 6;
    nd_device_table table;
    assert_int_equal(nd_device_table_builtin(&table, &err), 0);
    nd_layer_inputs in = {&m, &t, nd_device_table_find(&table, "H100"), 6};
    nd_layer_shape sh = {1, 1, 1, 1, 1, false};
    nd_layer_cost bf16, fp8;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &bf16);
    t.fp8 = true;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &fp8);
    near(bf16.activation_bytes[ND_RECOMPUTE_OFF] - fp8.activation_bytes[ND_RECOMPUTE_OFF], 1920, 1e-9);
    /* torchtitan's float8 (torchao) keeps the 16-bit inputs: no change */
    t.framework = ND_FRAMEWORK_TORCHTITAN;
    nd_layer_cost tt8;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &tt8);
    t.fp8 = false;
    nd_layer_cost tt16;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &tt16);
    near(tt8.activation_bytes[ND_RECOMPUTE_OFF], tt16.activation_bytes[ND_RECOMPUTE_OFF], 1e-9);
    nd_device_table_free(&table);
}

/* MLA (DeepSeek-V2-Lite-like: 16 heads, nope 128 + rope 64, v 128), 8 tokens: Megatron's
 * mla_up_proj recompute drops the per-head Q, K and V, e T heads (2 dqk + dv) = 2 x 8 x 16 x
 * (384 + 128) = 131,072 bytes, and repeats the up-projections in backward. */
static void mla_up_projection_recompute(void **state)
{
    (void)state;
    nd_error err = {0};
    nd_model m;
    memset(&m, 0, sizeof m);
    nd_model_set_type(&m, "deepseek_v2", "test", &err);
    m.hidden = 512;
    m.layers = 2;
    m.heads = m.kv_heads = 16;
    m.ffn = 1024;
    m.vocab = 256;
    m.kv_lora_rank = 64;
    m.qk_nope_head_dim = 128;
    m.qk_rope_head_dim = 64;
    m.v_head_dim = 128;
    assert_int_equal(nd_model_validate(&m, "test", &err), 0);
    nd_train t;
    nd_train_init(&t);
    t.seq_len = 8;
    nd_device_table table;
    assert_int_equal(nd_device_table_builtin(&table, &err), 0);
    nd_layer_inputs in = {&m, &t, nd_device_table_find(&table, "H100"), 8};
    nd_layer_shape sh = {1, 1, 1, 1, 1, false};
    nd_layer_cost core, up;
    t.selective_modules = ND_SELECTIVE_CORE_ATTN;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &core);
    t.selective_modules = ND_SELECTIVE_CORE_ATTN | ND_SELECTIVE_MLA_UP;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &sh, &up);
    near(core.activation_bytes[ND_RECOMPUTE_SELECTIVE] - up.activation_bytes[ND_RECOMPUTE_SELECTIVE], 131072,
         1e-9);
    assert_true(up.recompute_ms[ND_RECOMPUTE_SELECTIVE] > core.recompute_ms[ND_RECOMPUTE_SELECTIVE]);
    nd_device_table_free(&table);
}

/* Context parallelism is never free: a ring of CP 2 at 2k tokens halves each rank's queries,
 * but its attention kernels see 2048 / (2 x 2) = 512 keys (the load-balanced halves of a
 * rank's block) where one rank's see 1024, at a lower fraction of peak (attention_half_seq
 * 1024 on H100: 512/1536 against 1024/2048), and the steps' partial outputs are merged: more
 * than half of CP 1's attention time. All-gather CP exposes its gathers. */
static void ring_pays_for_its_blocks(void **state)
{
    (void)state;
    nd_error err = {0};
    nd_model m;
    memset(&m, 0, sizeof m);
    nd_model_set_type(&m, "llama", "test", &err);
    m.hidden = 4096;
    m.layers = 32;
    m.heads = 32;
    m.kv_heads = 8;
    m.ffn = 14336;
    m.vocab = 128256;
    assert_int_equal(nd_model_validate(&m, "test", &err), 0);
    nd_train t;
    nd_train_init(&t);
    t.seq_len = 2048;
    t.selective_modules = ND_SELECTIVE_CORE_ATTN;
    nd_device_table table;
    assert_int_equal(nd_device_table_builtin(&table, &err), 0);
    nd_layer_inputs in = {&m, &t, nd_device_table_find(&table, "H100"), 2048};
    nd_layer_shape one = {1, 1, 1, 1, 1, false}, two = {1, 2, 1, 1, 1, false};
    nd_layer_cost c1, c2;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &one, &c1);
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &two, &c2);
    /* selective recompute repeats the attention core alone: its time, per CP rank */
    double core1 = c1.recompute_ms[ND_RECOMPUTE_SELECTIVE], core2 = c2.recompute_ms[ND_RECOMPUTE_SELECTIVE];
    assert_true(core2 > 0.5 * core1 * (1024.0 / 2048) / (512.0 / 1536) * 0.999);
    t.cp_comm = ND_CP_ALLGATHER;
    nd_layer_cost g;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &two, &g);
    assert_true(g.cp_ms[ND_RECOMPUTE_OFF] > 0);
    nd_device_table_free(&table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dispatch_forms),
        cmocka_unit_test(node_limited_routing),
        cmocka_unit_test(fp8_keeps_gemm_inputs_in_fp8),
        cmocka_unit_test(mla_up_projection_recompute),
        cmocka_unit_test(ring_pays_for_its_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
