/* The search: a space small enough to count by hand, the ranking against independent
 * estimates, the knapsack against brute force, and best.yaml priced again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/costmodel/estimate.h"
#include "nd/planner/knapsack.h"
#include "nd/inputs/model_fields.h"
#include "nd/planner/search.h"
#include "nd/planner/search_out.h"
#include "nd/inputs/layout.h"

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

/* A tiny dense model: 2 heads sharing 1 KV head (MQA), 2 layers, sequence 6. */
static void tiny(nd_model *m, nd_train *t)
{
    nd_error err = {0};
    nd_model_set_type(m, "llama", "test", &err);
    m->hidden = 64;
    m->layers = 2;
    m->heads = 2;
    m->kv_heads = 1;
    m->ffn = 128;
    m->vocab = 256;
    assert_int_equal(nd_model_validate(m, "test", &err), 0);
    nd_train_init(t);
    t->seq_len = 6;
    t->global_batch = 2;
}

/* By hand, 2 devices, global batch 2, all dimensions, MB = 2 / (DP x MBS):
 *   MP=1 PP=1 CP=1 DP=2: MBS 1; OP 1, 2                      2 valid
 *   MP=1 PP=1 CP=2 DP=1: MBS 1, 2; OP 1, 2                   4 refused: sequence 6 % (2 x 2)
 *   MP=1 PP=2 CP=1 DP=1: MBS 1, 2; VPP 1 (1 layer a stage)   2 valid
 *                        VPP 2 interleaved, the embedding and the loss counted as layers (4
 *                        units, one a chunk): MBS 1 (MB 2) valid, MBS 2 (MB 1) refused:
 *                        interleaving needs MB a multiple of PP
 *   MP=2 PP=1 CP=1 DP=1: MBS 1, 2; SP 0, 1                   4 refused: 1 KV head over 2 ranks
 * 14 enumerated, 5 valid, all fit 80 GiB. */
static void hand_counted_space(void **state)
{
    (void)state;
    nd_model m;
    nd_train t;
    tiny(&m, &t);
    nd_context ctx;
    nd_context_init(&ctx, &m, &t, nd_device_table_find(&table, "H100"), 2, 0, NULL);
    nd_search_config cfg = {&ctx, {0}, 2, {0}, 0, 1, NULL};
    nd_strategy_init(&cfg.base);
    nd_search_space_init(&cfg.space, &t);
    nd_search_result res;
    nd_error err = {0};
    assert_int_equal(nd_search_run(&cfg, &res, &err), 0);
    assert_int_equal(res.stats.enumerated, 14);
    assert_int_equal(res.stats.refused[ND_REFUSE_SEQUENCE], 4);
    assert_int_equal(res.stats.refused[ND_REFUSE_HEADS], 4);
    assert_int_equal(res.stats.refused[ND_REFUSE_SCHEDULE], 1);
    assert_int_equal(res.stats.fitting, 5);
    assert_int_equal(res.count, 5);
    bool interleaved = false;
    for (size_t i = 0; i < res.count; i++) {
        const nd_strategy *r = &res.items[i].s;
        interleaved |= r->pp == 2 && r->vpp == 2 && r->mbs == 1 && r->embedding_in_split && r->loss_in_split;
    }
    assert_true(interleaved);
    /* Exactly the four valid strategies, and the first is the fastest by nd_estimate_strategy. */
    const char *valid[] = {"DP=2 MB=1 MBS=1 OP=1", "DP=2 MB=1 MBS=1 OP=2", "DP=1 PP=2 MB=2 MBS=1",
                           "DP=1 PP=2 MB=1 MBS=2"};
    double fastest = INFINITY;
    for (int v = 0; v < 4; v++) {
        nd_strategy s;
        nd_strategy_init(&s);
        assert_int_equal(nd_strategy_parse(&s, valid[v], &err), 0);
        if (nd_strategy_check(&s, &m, 2, 2, 6, &err)) fail_msg("%s: %s", valid[v], err.message);
        nd_estimate e = {0};
        assert_int_equal(nd_estimate_strategy(&ctx, &s, NULL, NULL, &e, &err), 0);
        fastest = fmin(fastest, e.step_ms);
        bool found = false;
        for (size_t i = 0; i < res.count; i++) {
            const nd_strategy *r = &res.items[i].s;
            found |= r->dp == s.dp && r->pp == s.pp && r->mbs == s.mbs && r->op == s.op && r->tp == 1 &&
                     r->cp == 1;
        }
        if (!found) fail_msg("%s is missing from the ranking", valid[v]);
    }
    assert_true(res.items[0].step_ms == fastest);
    for (size_t i = 1; i < res.count; i++)
        assert_true(nd_ranked_compare(&res.items[i - 1], &res.items[i]) < 0);
    nd_search_result_free(&res);

    /* 3 devices, sequence 4: MP <= 2 heads and PP <= 2 layers leave only MP = PP = 1, CP <= 2
     * leaves CP = 1, so DP = 3, which a global batch of 2 cannot split: nothing is valid, and
     * the message names the reachable data-parallel degree. */
    t.seq_len = 4;
    nd_context_init(&ctx, &m, &t, nd_device_table_find(&table, "H100"), 3, 0, NULL);
    assert_int_equal(nd_search_run(&cfg, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "no strategy reaches a global batch of 2 on 3 devices"));
    assert_non_null(strstr(err.message, "allows are 3,"));
}

/* Brute force over every per-layer assignment (3^n for n <= 7 layers of two kinds). */
static double brute(const nd_knapsack_kind k[2], double inflight, double budget, double floor_w)
{
    int64_t n = k[0].layers + k[1].layers, total = 1;
    for (int64_t i = 0; i < n; i++) total *= 3;
    double best = INFINITY;
    for (int64_t code = 0; code < total; code++) {
        double time = 0, act = 0, work = floor_w;
        int64_t c = code;
        for (int64_t i = 0; i < n; i++, c /= 3) {
            int kind = i < k[0].layers ? 0 : 1, mode = (int)(c % 3);
            time += k[kind].time_ms[mode];
            act += k[kind].act_bytes[mode];
            work = fmax(work, k[kind].working_bytes[mode]);
        }
        if (inflight * act + work <= budget) best = fmin(best, time);
    }
    return best;
}

static void knapsack_is_optimal(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int trial = 0; trial < 400; trial++) {
        nd_knapsack_kind k[2];
        for (int i = 0; i < 2; i++) {
            seed = seed * 1103515245u + 12345u;
            k[i].layers = (int64_t)((seed >> 16) % 4);
            double act_off = 50 + (seed >> 8) % 50, t_sel = 1 + (seed >> 4) % 5;
            k[i].time_ms[0] = 0;
            k[i].time_ms[1] = t_sel;
            k[i].time_ms[2] = t_sel + 3 + (seed % 7);
            k[i].act_bytes[0] = act_off;
            k[i].act_bytes[1] = act_off * 0.6;
            k[i].act_bytes[2] = act_off * 0.1;
            k[i].working_bytes[0] = 5;
            k[i].working_bytes[1] = 10 + (seed >> 3) % 20;
            k[i].working_bytes[2] = 40 + (seed >> 5) % 40;
        }
        seed = seed * 1103515245u + 12345u;
        double inflight = 1 + (seed >> 16) % 3, budget = 100 + (double)((seed >> 8) % 700),
               floor_w = (seed >> 4) % 30;
        int64_t counts[2][3];
        double got;
        double want = brute(k, inflight, budget, floor_w);
        int rc = nd_knapsack_stage(k, inflight, budget, floor_w, counts, &got);
        if (isinf(want)) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        if (fabs(got - want) > 1e-9) fail_msg("trial %d: knapsack %g, brute force %g", trial, got, want);
        for (int i = 0; i < 2; i++) assert_int_equal(counts[i][0] + counts[i][1] + counts[i][2], k[i].layers);
    }
}

/* Every (full, selective) split of one kind of n layers, the fewest selective layers that
 * fit for each number of full ones: the exhaustive answer the windowed knapsack must reach
 * to within one selective layer's time (docs/search.md, "Many layers"). */
static double exhaustive_single(const nd_knapsack_kind *k, double cap)
{
    double best = INFINITY, saving = k->act_bytes[0] - k->act_bytes[1];
    for (int64_t f = 0; f <= k->layers; f++) {
        int64_t rest = k->layers - f;
        double base = (double)rest * k->act_bytes[0] + (double)f * k->act_bytes[2];
        double need = base > cap ? ceil((base - cap) / saving - 1e-9) : 0;
        if (need > (double)rest) continue;
        best = fmin(best, (double)(rest - (int64_t)need) * k->time_ms[0] + need * k->time_ms[1] +
                              (double)f * k->time_ms[2]);
    }
    return best;
}

static void knapsack_many_layers_within_a_layer(void **state)
{
    (void)state;
    unsigned seed = 11;
    for (int trial = 0; trial < 200; trial++) {
        nd_knapsack_kind k[2];
        memset(k, 0, sizeof k);
        seed = seed * 1103515245u + 12345u;
        k[0].layers = 200 + (int64_t)((seed >> 8) % 20000);
        double act = 50 + (seed >> 4) % 50, t_sel = 0.5 + (seed % 9) * 0.25;
        k[0].time_ms[0] = 0;
        k[0].time_ms[1] = t_sel;
        k[0].time_ms[2] = t_sel + 0.5 + (seed >> 12) % 7;
        k[0].act_bytes[0] = act;
        k[0].act_bytes[1] = act * (0.3 + (seed >> 3) % 6 * 0.1);
        k[0].act_bytes[2] = act * 0.1;
        seed = seed * 1103515245u + 12345u;
        double cap = (double)k[0].layers * act * (0.12 + (seed >> 8) % 80 * 0.01);
        int64_t counts[2][3];
        double got, want = exhaustive_single(&k[0], cap);
        int rc = nd_knapsack_stage(k, 1, cap, 0, counts, &got);
        if (isinf(want)) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(counts[0][0] + counts[0][1] + counts[0][2], k[0].layers);
        double mem = counts[0][0] * k[0].act_bytes[0] + counts[0][1] * k[0].act_bytes[1] +
                     counts[0][2] * k[0].act_bytes[2];
        assert_true(mem <= cap * (1 + 1e-12) + 1e-9);
        if (got < want - 1e-6 || got > want + t_sel + 1e-6)
            fail_msg("trial %d (n %lld): windowed %g, exhaustive %g", trial, (long long)k[0].layers, got,
                     want);
    }
}

/* Two kinds of 64 to 160 layers each (past the exhaustive pairs of the rarer kind): the grid
 * and pattern search against every split, within 1 % of the exhaustive time. */
static void knapsack_two_large_kinds_near_optimal(void **state)
{
    (void)state;
    unsigned seed = 5;
    for (int trial = 0; trial < 6; trial++) {
        nd_knapsack_kind k[2];
        memset(k, 0, sizeof k);
        for (int i = 0; i < 2; i++) {
            seed = seed * 1103515245u + 12345u;
            k[i].layers = 64 + (int64_t)((seed >> 8) % 97);
            double act = 40 + (seed >> 4) % 60, t_sel = 0.5 + (seed % 7) * 0.3;
            k[i].time_ms[1] = t_sel;
            k[i].time_ms[2] = t_sel + 1 + (seed >> 12) % 5;
            k[i].act_bytes[0] = act;
            k[i].act_bytes[1] = act * 0.6;
            k[i].act_bytes[2] = act * 0.15;
        }
        double total = k[0].layers * k[0].act_bytes[0] + k[1].layers * k[1].act_bytes[0];
        double cap = total * (0.3 + trial * 0.1), want = INFINITY;
        for (int64_t f = 0; f <= k[0].layers; f++)
            for (int64_t sel = 0; sel + f <= k[0].layers; sel++) {
                double mem = (double)(k[0].layers - f - sel) * k[0].act_bytes[0] + sel * k[0].act_bytes[1] +
                             f * k[0].act_bytes[2];
                if (mem > cap) continue;
                double rest = exhaustive_single(&k[1], cap - mem);
                want = fmin(want, sel * k[0].time_ms[1] + f * k[0].time_ms[2] + rest);
            }
        int64_t counts[2][3];
        double got;
        assert_int_equal(nd_knapsack_stage(k, 1, cap, 0, counts, &got), 0);
        if (got < want - 1e-6 || got > want * 1.01 + 1e-6)
            fail_msg("trial %d: searched %g, exhaustive %g", trial, got, want);
    }
}

/* best.yaml, read back by the run loader and priced by nd-estimate's path, gives the same ms. */
static void best_yaml_round_trip(void **state)
{
    (void)state;
    char run_path[1024];
    snprintf(run_path, sizeof run_path, "%s/samples/runs/deepseek-v3.yaml", getenv("ND_SOURCE_DIR"));
    for (int per_layer = 0; per_layer <= 1; per_layer++) {
        nd_run run;
        nd_error err = {0};
        assert_int_equal(nd_run_load(&run, run_path, &err), 0);
        nd_context ctx;
        const nd_device *a3 = nd_device_table_find(&table, "A3");
        nd_context_init(&ctx, &run.model, &run.train, a3, 1024, 0, NULL);
        nd_search_config cfg = {&ctx, run.strategy, 2048, {0}, 3, 2, NULL};
        nd_search_space_init(&cfg.space, &run.train);
        cfg.space.per_layer = per_layer;
        nd_search_result res;
        assert_int_equal(nd_search_run(&cfg, &res, &err), 0);
        char path[] = "/tmp/nd_test_best_XXXXXX";
        int fd = mkstemp(path);
        close(fd);
        assert_int_equal(nd_search_write_best(path, &cfg, &run, &res, NULL, NULL, &err), 0);
        nd_run back;
        int rc = nd_run_load(&back, path, &err);
        if (rc) fail_msg("%s", err.message);
        nd_strategy s = back.strategy;
        assert_int_equal(nd_strategy_check(&s, &back.model, back.devices, back.train.global_batch,
                                           back.train.seq_len, &err),
                         0);
        nd_context again;
        nd_context_init(&again, &back.model, &back.train, a3, back.devices, back.memory_budget_mib, NULL);
        nd_recompute_plan plan;
        if (back.has_plan) assert_int_equal(nd_plan_from_run(&back, &s, &plan, &err), 0);
        nd_estimate e = {0};
        assert_int_equal(nd_estimate_strategy(&again, &s, NULL, back.has_plan ? &plan : NULL, &e, &err), 0);
        if (e.step_ms != res.items[0].step_ms || e.peak_mib != res.items[0].peak_mib)
            fail_msg("best.yaml prices %.17g ms / %.17g MiB, the search %.17g / %.17g", e.step_ms, e.peak_mib,
                     res.items[0].step_ms, res.items[0].peak_mib);
        assert_int_equal(back.has_plan, per_layer);
        unlink(path);
        nd_search_result_free(&res);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_counted_space),
        cmocka_unit_test(knapsack_is_optimal),
        cmocka_unit_test(knapsack_many_layers_within_a_layer),
        cmocka_unit_test(knapsack_two_large_kinds_near_optimal),
        cmocka_unit_test(best_yaml_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
