/* The search's rules for fixed and listed dimensions, schedules and the run's uneven split;
 * offload priced and chosen only when it wins; the plan's layer order. Expected values are
 * counted by hand in each comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/inputs/model_fields.h"
#include "nd/planner/search.h"
#include "nd/costmodel/stage.h"

static nd_device_table table;

static int setup(void **state)
{
    (void)state;
    nd_error err = {0};
    return nd_device_table_builtin(&table, &err);
}

static int teardown(void **state)
{
    (void)state;
    nd_device_table_free(&table);
    return 0;
}

/* A tiny dense model: 2 heads (MHA), `layers` layers, sequence 6. */
static void tiny(nd_model *m, nd_train *t, int64_t layers)
{
    nd_error err = {0};
    nd_model_set_type(m, "llama", "test", &err);
    m->hidden = 64;
    m->layers = layers;
    m->heads = 2;
    m->kv_heads = 2;
    m->ffn = 128;
    m->vocab = 256;
    assert_int_equal(nd_model_validate(m, "test", &err), 0);
    nd_train_init(t);
    t->seq_len = 6;
    t->global_batch = 2;
}

typedef struct fixture {
    nd_model m;
    nd_train t;
    nd_context ctx;
    nd_search_config cfg;
} fixture;

static void fixture_init(fixture *f, int64_t layers, int64_t devices, int64_t gbs)
{
    tiny(&f->m, &f->t, layers);
    f->t.global_batch = gbs;
    nd_context_init(&f->ctx, &f->m, &f->t, nd_device_table_find(&table, "H100"), devices, 0, NULL);
    f->cfg = (nd_search_config){&f->ctx, {0}, gbs, {0}, 0, 1, NULL};
    nd_strategy_init(&f->cfg.base);
    nd_search_space_init(&f->cfg.space, &f->t);
}

static unsigned bit(nd_dim d)
{
    return 1u << d;
}

/* The run says SP = 1 and SP does not vary. 2 devices, batch 2, DP MP PP (and MB) vary:
 *   MP=1 PP=1 DP=2 MB=1   valid, SP off (no MP to shard over)
 *   MP=1 PP=2 DP=1 MB=2   valid, SP off
 *   MP=2 PP=1 DP=1 MB=2   valid, SP on
 * Three strategies: the run's SP restricts only layouts with MP > 1. */
static void fixed_sp_keeps_layouts_without_mp(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 2, 2, 2);
    f.cfg.base.sp = true;
    f.cfg.space.vary = bit(ND_DIM_DP) | bit(ND_DIM_MP) | bit(ND_DIM_PP) | bit(ND_DIM_MB);
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), 0);
    assert_int_equal(res.count, 3);
    int with_mp = 0;
    for (size_t i = 0; i < res.count; i++) {
        const nd_strategy *s = &res.items[i].s;
        assert_int_equal(s->sp, s->tp > 1);
        with_mp += s->tp > 1;
    }
    assert_int_equal(with_mp, 1);
    nd_search_result_free(&res);
}

/* Lists restrict the derived dimensions too: 4 devices, batch 4, a 4-layer model.
 * DP in {2}: every ranked strategy has DP 2; MB in {1}: every one has MB 1. */
static void lists_restrict_dp_and_mb(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 4, 4, 4);
    const int64_t two[] = {2}, one[] = {1};
    f.cfg.space.allowed[ND_DIM_DP] = two;
    f.cfg.space.n_allowed[ND_DIM_DP] = 1;
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), 0);
    assert_true(res.count > 0);
    for (size_t i = 0; i < res.count; i++) assert_int_equal(res.items[i].s.dp, 2);
    assert_true(res.stats.refused[ND_REFUSE_LIST] > 0);
    nd_search_result_free(&res);

    f.cfg.space.allowed[ND_DIM_DP] = NULL;
    f.cfg.space.n_allowed[ND_DIM_DP] = 0;
    f.cfg.space.allowed[ND_DIM_MB] = one;
    f.cfg.space.n_allowed[ND_DIM_MB] = 1;
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), 0);
    assert_true(res.count > 0);
    for (size_t i = 0; i < res.count; i++) assert_int_equal(res.items[i].s.mb, 1);
    nd_search_result_free(&res);

    /* MP in {3} divides no device count here: the message blames the limits, not the batch. */
    const int64_t three[] = {3};
    f.cfg.space.allowed[ND_DIM_MB] = NULL;
    f.cfg.space.n_allowed[ND_DIM_MB] = 0;
    f.cfg.space.allowed[ND_DIM_MP] = three;
    f.cfg.space.n_allowed[ND_DIM_MP] = 1;
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "within the search's limits"));
    assert_null(strstr(err.message, "global batch"));
}

/* GPipe has no interleaved form: with the search's schedules gpipe alone, no ranked strategy has
 * VPP > 1 and all keep gpipe. 2 devices, 4 layers, batch 4: PP=2 with VPP 2 exists for the
 * interleaved schedule, which is not tried; GPipe's one way to run PP 2 is the even split. */
static void gpipe_is_not_interleaved(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 4, 2, 4);
    f.cfg.base.schedule = ND_SCHEDULE_GPIPE;
    f.cfg.space.schedules = 1u << ND_SCHEDULE_GPIPE;
    nd_pipeline_choice pipes[8];
    assert_int_equal(nd_search_pipelines(&f.cfg, 2, pipes, 8), 1);
    assert_int_equal(pipes[0].schedule, ND_SCHEDULE_GPIPE);
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), 0);
    bool pipelined = false;
    for (size_t i = 0; i < res.count; i++) {
        assert_int_equal(res.items[i].s.vpp, 1);
        assert_int_equal(res.items[i].s.schedule, ND_SCHEDULE_GPIPE);
        pipelined |= res.items[i].s.pp == 2;
    }
    assert_true(pipelined);
    nd_search_result_free(&res);
}

/* A 3-layer model on PP = 2: the automatic split is 2 + 1; the run's FIRST=1 LAST=2 is kept
 * for its own PP. */
static void run_split_is_kept(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 3, 2, 2);
    f.cfg.base.pp = 2;
    f.cfg.base.first_stage_layers = 1;
    f.cfg.base.last_stage_layers = 2;
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&f.cfg, &res, &err), 0);
    int seen = 0;
    for (size_t i = 0; i < res.count; i++) {
        if (res.items[i].s.pp != 2) continue;
        assert_int_equal(res.items[i].s.first_stage_layers, 1);
        assert_int_equal(res.items[i].s.last_stage_layers, 2);
        seen++;
    }
    assert_true(seen > 0);
    nd_search_result_free(&res);
}

/* The plan's layer order: 2 offloaded, 1 selective, 2 full, 3 kept off (8 layers). Turning the
 * selective layer or the first kept-off layer to full changes exactly one position. */
static void plan_order_changes_one_layer(void **state)
{
    (void)state;
    int64_t layers[1][ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = {{{5, 1, 2}, {0, 0, 0}}};
    int64_t off[1][ND_LAYER_KINDS] = {{2, 0}};
    nd_recompute_plan plan = {1, layers, off, 0};
    const nd_recompute want[8] = {ND_RECOMPUTE_OFF,  ND_RECOMPUTE_OFF,  ND_RECOMPUTE_SELECTIVE,
                                  ND_RECOMPUTE_FULL, ND_RECOMPUTE_FULL, ND_RECOMPUTE_OFF,
                                  ND_RECOMPUTE_OFF,  ND_RECOMPUTE_OFF};
    nd_recompute before[8];
    for (int64_t i = 0; i < 8; i++) {
        bool host;
        before[i] = nd_plan_layer_mode(&plan, 0, ND_LAYER_DENSE, i, &host);
        assert_int_equal(before[i], want[i]);
        assert_int_equal(host, i < 2);
    }
    for (int from = ND_RECOMPUTE_OFF; from <= ND_RECOMPUTE_SELECTIVE; from++) {
        layers[0][0][from]--;
        layers[0][0][ND_RECOMPUTE_FULL]++;
        int changed = 0;
        for (int64_t i = 0; i < 8; i++) {
            bool host;
            changed += nd_plan_layer_mode(&plan, 0, ND_LAYER_DENSE, i, &host) != before[i];
        }
        assert_int_equal(changed, 1);
        layers[0][0][from]++;
        layers[0][0][ND_RECOMPUTE_FULL]--;
    }
}

/* Interleaved layer numbering: 8 layers, PP 2, VPP 2, chunks of 2. Stage 1 holds chunks 1 and
 * 3: layers 2, 3, 6, 7. */
static void interleaved_stage_layers(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 8, 2, 4);
    nd_strategy s;
    nd_strategy_init(&s);
    s.pp = 2;
    s.vpp = 2;
    s.mb = 4;
    s.schedule = ND_SCHEDULE_INTERLEAVED;
    nd_stage_work w;
    nd_stage_work_init(&f.ctx, &s, NULL, 1, &w);
    assert_int_equal(nd_stage_layer_count(&f.ctx, &w), 4);
    const int64_t want[4] = {2, 3, 6, 7};
    for (int64_t j = 0; j < 4; j++) assert_int_equal(nd_stage_layer_at(&f.ctx, &s, &w, j), want[j]);
}

/* A tied embedding (or one an MTP module shares) is copied to the last stage only where
 * another rank holds it: the tiny model's 256 x 64 = 16,384-parameter matrix, its final norm
 * 64. 1F1B over PP 4, two layers a stage: stage 3 holds the norm and the copy, 16,448 more
 * than stage 1; stage 0 the embedding, 16,384 more. DualPipe over PP 4: stage 0 holds chunks
 * 0 and 3, both ends, and so one matrix and the norm, 16,448 more than stage 1 (chunks 1 and
 * 2, four layers each) -- not two matrices (the DeepSeek-V3 report, §3.2.1: the first rank
 * shares the embedding and output head physically). */
static void both_ends_on_a_rank_share_the_embedding(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 8, 4, 8);
    f.m.tied_embeddings = true;
    nd_strategy s;
    nd_strategy_init(&s);
    s.pp = 4;
    s.mb = 8;
    nd_stage_work w0, w1, w3;
    nd_stage_work_init(&f.ctx, &s, NULL, 0, &w0);
    nd_stage_work_init(&f.ctx, &s, NULL, 1, &w1);
    nd_stage_work_init(&f.ctx, &s, NULL, 3, &w3);
    assert_true(w3.params_ne - w1.params_ne == 16448);
    assert_true(w0.params_ne - w1.params_ne == 16384);
    s.schedule = ND_SCHEDULE_DUALPIPE;
    nd_stage_work_init(&f.ctx, &s, NULL, 0, &w0);
    nd_stage_work_init(&f.ctx, &s, NULL, 1, &w1);
    assert_true(w0.first && w0.last && w0.layers == 4 && w1.layers == 4);
    assert_true(w0.params_ne - w1.params_ne == 16448);
}

static nd_run load_llama(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/runs/llama3-8b.yaml", getenv("ND_SOURCE_DIR"));
    nd_run run;
    nd_error err = {0};
    if (nd_run_load(&run, path, &err)) fail_msg("%s", err.message);
    return run;
}

/* Offloading k layers of a stage: activations fall by (inflight x k - 1) layers' worth (one
 * layer is always in transit), and each micro-batch pays 2 x bytes x cost per GiB. */
static void offload_prices_memory_and_copies(void **state)
{
    (void)state;
    nd_run run = load_llama();
    nd_context ctx;
    nd_context_init(&ctx, &run.model, &run.train, nd_device_table_find(&table, "H100"), 8, 0, NULL);
    nd_strategy s;
    nd_strategy_init(&s);
    s.dp = 4;
    s.pp = 2;
    s.mb = 16;
    s.recompute = ND_RECOMPUTE_OFF;
    nd_error err = {0};
    assert_int_equal(nd_strategy_check(&s, &run.model, 8, 64, run.train.seq_len, &err), 0);
    int64_t layers[2][ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = {{{16, 0, 0}, {0}}, {{16, 0, 0}, {0}}};
    int64_t none[2][ND_LAYER_KINDS] = {{0}}, four[2][ND_LAYER_KINDS] = {{4, 0}, {0, 0}};
    nd_recompute_plan kept = {2, layers, none, 0.5}, moved = {2, layers, four, 0.5};
    nd_stage_memory mk[2], mm[2];
    nd_stage_time tk[2], tm[2];
    nd_estimate ek = {0}, em = {0};
    ek.stage_memory = mk;
    ek.stage_time = tk;
    em.stage_memory = mm;
    em.stage_time = tm;
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, &kept, &ek, &err), 0);
    assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, &moved, &em, &err), 0);

    nd_layer_inputs in = {&run.model, &run.train, ctx.device, run.train.seq_len};
    nd_layer_shape shape = {1, 1, 1, 1, 1, false};
    nd_layer_cost c;
    nd_layer_cost_decoder(&in, ND_LAYER_DENSE, &shape, &c);
    double layer_mib = c.activation_bytes[ND_RECOMPUTE_OFF] / (1024.0 * 1024.0);
    double saved = (mk[0].inflight * 4 - 1) * layer_mib;
    assert_true(fabs((mk[0].activations_mib - mm[0].activations_mib) - saved) < 1e-6 * saved);
    assert_true(mk[1].activations_mib == mm[1].activations_mib);
    double copies_ms = 2.0 * 4 * c.activation_bytes[ND_RECOMPUTE_OFF] / (1024.0 * 1024.0 * 1024.0) * 0.5;
    assert_true(fabs((tm[0].overhead_ms - tk[0].overhead_ms) - copies_ms) < 1e-9 * (1 + copies_ms));
}

/* With -ar -ao and memory to spare (10 TiB a device), offloading buys nothing: no ranked strategy
 * offloads. */
static void offload_only_when_it_wins(void **state)
{
    (void)state;
    nd_run run = load_llama();
    nd_context ctx;
    nd_context_init(&ctx, &run.model, &run.train, nd_device_table_find(&table, "H100"), 8, 1e7, NULL);
    nd_search_config cfg = {&ctx, run.strategy, 64, {0}, 20, 1, NULL};
    nd_search_space_init(&cfg.space, &run.train);
    cfg.space.per_layer = cfg.space.offload = true;
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&cfg, &res, &err), 0);
    assert_true(res.count > 0);
    for (size_t i = 0; i < res.count; i++) assert_int_equal(res.items[i].offloaded_layers, 0);
    nd_search_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_sp_keeps_layouts_without_mp),
        cmocka_unit_test(lists_restrict_dp_and_mb),
        cmocka_unit_test(gpipe_is_not_interleaved),
        cmocka_unit_test(run_split_is_kept),
        cmocka_unit_test(plan_order_changes_one_layer),
        cmocka_unit_test(interleaved_stage_layers),
        cmocka_unit_test(both_ends_on_a_rank_share_the_embedding),
        cmocka_unit_test(offload_prices_memory_and_copies),
        cmocka_unit_test(offload_only_when_it_wins),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
