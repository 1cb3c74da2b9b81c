/*
 * test_split.c — pipeline layouts and schedules: which layers each rank and chunk holds
 * (split.h), Megatron's layout grammar (pipeline_layout.c), the pipeline time and the
 * micro-batches in flight of every schedule (stage.c). Expected numbers are worked by hand in
 * the comments, from the rules the code cites (Megatron-core's layer offsets, Narayanan et
 * al. 2021, Qi et al. 2023 and 2024, the DeepSeek-V3 report's Table 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nd/costmodel/split.h"
#include "nd/costmodel/stage.h"
#include "nd/costmodel/strategy.h"
#include "nd/inputs/run.h"

static nd_strategy pipe(int64_t pp, int64_t vpp)
{
    nd_strategy s;
    nd_strategy_init(&s);
    s.pp = pp;
    s.vpp = vpp;
    s.mb = 8;
    if (vpp > 1) s.schedule = ND_SCHEDULE_INTERLEAVED;
    return s;
}

static void chunk_is(const nd_strategy *s, int64_t layers, int64_t rank, int64_t chunk, int64_t first,
                     int64_t count)
{
    int64_t f, c;
    nd_split_chunk(s, layers, rank, chunk, &f, &c);
    assert_int_equal(f, first);
    assert_int_equal(c, count);
}

/* 32 layers in PP x VPP = 2 x 2 chunks of 8, in Megatron's order (virtual stage chunk x PP +
 * rank): rank 0 chunk 0 = 0-7, rank 1 chunk 0 = 8-15, rank 0 chunk 1 = 16-23, rank 1 chunk 1
 * = 24-31. */
static void even_interleaved(void **state)
{
    (void)state;
    nd_strategy s = pipe(2, 2);
    chunk_is(&s, 32, 0, 0, 0, 8);
    chunk_is(&s, 32, 1, 0, 8, 8);
    chunk_is(&s, 32, 0, 1, 16, 8);
    chunk_is(&s, 32, 1, 1, 24, 8);
    char why[320];
    assert_int_equal(nd_split_check(&s, 32, why, sizeof why), 0);
    assert_int_equal(nd_split_check(&s, 30, why, sizeof why), -1); /* 30 / 4 is not whole */
}

/* FIRST=6 LAST=4 of 30 layers, PP 4, VPP 2: the two middle ranks hold (30 - 10) / 2 = 10, each
 * rank's layers split in two chunks: 3, 5, 5, 2 a chunk, 15 a round of chunks. Offsets: rank 0
 * chunk 0 at 0, rank 1 at 3, rank 2 at 8, rank 3 at 13; chunk 1 starts at 15: 15, 18, 23, 28. */
static void ends_with_interleaving(void **state)
{
    (void)state;
    nd_strategy s = pipe(4, 2);
    s.first_stage_layers = 6;
    s.last_stage_layers = 4;
    char why[320];
    assert_int_equal(nd_split_check(&s, 30, why, sizeof why), 0);
    const int64_t first[2][4] = {{0, 3, 8, 13}, {15, 18, 23, 28}}, count[4] = {3, 5, 5, 2};
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 4; r++) chunk_is(&s, 30, r, c, first[c][r], count[r]);
    assert_int_equal(nd_split_rank_layers(&s, 30, 0), 6);
    assert_int_equal(nd_split_rank_layers(&s, 30, 3), 4);
    /* FIRST=5 does not split into VPP 2 chunks */
    s.first_stage_layers = 5;
    s.last_stage_layers = 5;
    assert_int_equal(nd_split_check(&s, 30, why, sizeof why), -1);
    assert_non_null(strstr(why, "virtual chunks"));
}

/* Llama 3 405B as Meta ran it (Llama 3 report §3.3.2): 126 layers on PP 16 with the embedding
 * and the loss each in a layer's place, 128 units: VPP 8 gives one unit a chunk; rank 0's first
 * chunk holds the embedding alone, the last rank's last chunk the loss alone. Rank 1 chunk 0 is
 * virtual stage 1, layer 0; rank 0 chunk 1 is virtual stage 16, layer 15. */
static void embedding_and_loss_in_the_split(void **state)
{
    (void)state;
    nd_strategy s = pipe(16, 8);
    s.embedding_in_split = s.loss_in_split = true;
    char why[320];
    assert_int_equal(nd_split_check(&s, 126, why, sizeof why), 0);
    chunk_is(&s, 126, 0, 0, 0, 0);
    chunk_is(&s, 126, 1, 0, 0, 1);
    chunk_is(&s, 126, 15, 0, 14, 1);
    chunk_is(&s, 126, 0, 1, 15, 1);
    chunk_is(&s, 126, 15, 7, 126, 0);
    assert_int_equal(nd_split_rank_layers(&s, 126, 0), 7);
    assert_int_equal(nd_split_rank_layers(&s, 126, 7), 8);
    assert_int_equal(nd_split_rank_layers(&s, 126, 15), 7);
    assert_true(nd_split_accounts(126, 16, 8));
    assert_false(nd_split_accounts(126, 16, 3)); /* 128 / 48 */
}

/* Splits where the layers do not divide. 61 on PP 8, VPP 1: middle ranks 7 leave 19 for the two
 * ends, more than 2 x 7; 8 leave 13: first 7, last 6. With VPP 2 every rank's count is even
 * and 61 is odd: no split. 30 on PP 4 VPP 2: middle 6 leave 18 > 12; 8 leave 14: 8 and 6. */
static void uneven_splits(void **state)
{
    (void)state;
    int64_t f, l;
    assert_true(nd_split_uneven(61, 8, 1, &f, &l));
    assert_int_equal(f, 7);
    assert_int_equal(l, 6);
    assert_false(nd_split_uneven(61, 8, 2, &f, &l));
    assert_true(nd_split_uneven(30, 4, 2, &f, &l));
    assert_int_equal(f, 8);
    assert_int_equal(l, 6);
}

/* DeepSeek-V3 in Megatron-Bridge's H100 preset: "Et|(tt|)*30mL" on PP 8 is 32 virtual stages,
 * VPP 4: stage 0 the embedding and one layer, stages 1-30 two layers each (60), stage 31 the MTP
 * layer and the loss: 61 decoder layers. Rank 0 holds stages 0, 8, 16, 24: 1 + 2 + 2 + 2 = 7;
 * rank 7 holds 7, 15, 23, 31: 2 + 2 + 2 + 0 = 6 (and the MTP layer). */
static void megatron_layout_grammar(void **state)
{
    (void)state;
    static nd_pipeline_layout l;
    char why[320];
    assert_int_equal(nd_pipeline_layout_parse("Et|(tt|)*30mL", 8, 61, 1, &l, why, sizeof why), 0);
    assert_int_equal(l.vpp, 4);
    nd_strategy s = pipe(8, 4);
    s.layout = &l;
    assert_int_equal(nd_split_check(&s, 61, why, sizeof why), 0);
    assert_int_equal(nd_split_rank_layers(&s, 61, 0), 7);
    assert_int_equal(nd_split_rank_layers(&s, 61, 7), 6);
    chunk_is(&s, 61, 1, 0, 1, 2);  /* stage 1: layers 1-2 */
    chunk_is(&s, 61, 0, 1, 15, 2); /* stage 8: after 1 + 7 x 2 = 15 layers */
    /* written back, the split reads the same */
    char text[256];
    nd_split_layout_text(&s, 61, 1, text, sizeof text);
    assert_string_equal(text, "Et|(tt|)*30mL");
    /* Megatron's own example, PP 16 VPP 2, puts the MTP layer in a stage of its own before the
     * loss's: nd does not represent a standalone MTP stage, and says so */
    assert_int_equal(nd_pipeline_layout_parse("Et*3|(tt|)*29,m|L", 16, 61, 1, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "standalone MTP"));
    assert_int_equal(nd_pipeline_layout_parse("tt|L", 1, 2, 0, &l, why, sizeof why), -1);         /* no E */
    assert_int_equal(nd_pipeline_layout_parse("E((t)*2|)*2L", 1, 4, 0, &l, why, sizeof why), -1); /* nested */
    assert_int_equal(nd_pipeline_layout_parse("Et|tL", 2, 3, 0, &l, why, sizeof why),
                     -1); /* 2 layers, not 3 */
    assert_int_equal(nd_pipeline_layout_parse("Ex|tL", 2, 2, 0, &l, why, sizeof why), -1);
}

static nd_stage_time stage(double total, double backward, double weight_grad)
{
    nd_stage_time t;
    memset(&t, 0, sizeof t);
    t.total_ms = total;
    t.backward_ms = backward;
    t.weight_grad_ms = weight_grad;
    return t;
}

/* Four equal stages, 8 micro-batches, each micro-batch X = 10 ms of which backward B = 5 and its
 * weight gradients W = 2:
 *   1F1B: sum + (m - 1) X = 40 + 70 = 110;      interleaved (VPP 2): m X + (sum - X) / 2 = 95;
 *   ZB-H1: m X + 3 max(0, X - 2W) = 80 + 18 = 98;   ZB-H2: 80 + 3 (X - 3W) = 92;
 *   ZB-V: half ZB-H2's fill, 80 + 6 = 86;
 *   DualPipe: m X + (PP/2 - 1)(F&B + B - 3W) = 80 + 1 (10 + 5 - 6) = 89;
 *   DualPipeV: m X + (PP - 1)(F&B + B - 3W) / 2 = 80 + 13.5 = 93.5. */
static void schedule_times(void **state)
{
    (void)state;
    nd_stage_time st[4];
    for (int i = 0; i < 4; i++) st[i] = stage(10, 5, 2);
    const struct {
        nd_schedule schedule;
        int64_t vpp;
        double want;
    } cases[] = {{ND_SCHEDULE_1F1B, 1, 110},       {ND_SCHEDULE_INTERLEAVED, 2, 95},
                 {ND_SCHEDULE_ZB_H1, 1, 98},       {ND_SCHEDULE_ZB_H2, 1, 92},
                 {ND_SCHEDULE_ZB_V, 2, 86},        {ND_SCHEDULE_DUALPIPE, 1, 89},
                 {ND_SCHEDULE_DUALPIPE_V, 2, 93.5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_strategy s = pipe(4, cases[i].vpp);
        s.schedule = cases[i].schedule;
        assert_true(fabs(nd_pipeline_ms(&s, st, 0) - cases[i].want) < 1e-9);
    }
}

/* Micro-batches of a rank's layers in flight at its peak, PP 4, MB 8, rank 0:
 *   1F1B: min(m, PP - stage) = 4; ZB-H2: 2 (PP - stage) - 1 = 7; ZB-V: PP = 4 on every rank;
 *   interleaved VPP 2: (2 (PP - 1) + (VPP - 1) PP + 1) / VPP = 11 / 2 = 5.5;
 *   DualPipe: PP + 1 = 5 of one stage, the rank holding two: 2.5; DualPipeV: 2 PP + 1 = 9 chunks,
 *   two a rank: 4.5. */
static void schedule_inflight(void **state)
{
    (void)state;
    const struct {
        nd_schedule schedule;
        int64_t vpp;
        double want;
    } cases[] = {{ND_SCHEDULE_1F1B, 1, 4},       {ND_SCHEDULE_ZB_H2, 1, 7},
                 {ND_SCHEDULE_ZB_V, 2, 4},       {ND_SCHEDULE_INTERLEAVED, 2, 5.5},
                 {ND_SCHEDULE_DUALPIPE, 1, 2.5}, {ND_SCHEDULE_DUALPIPE_V, 2, 4.5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_strategy s = pipe(4, cases[i].vpp);
        s.schedule = cases[i].schedule;
        assert_true(fabs(nd_stage_inflight(&s, 0) - cases[i].want) < 1e-9);
    }
}

/* Which virtual stages a rank holds: interleaved rank 1 of PP 4 VPP 2 holds 1 and 5; in a V
 * (DualPipeV) 1 and 2 x 4 - 1 - 1 = 6; DualPipe holds stage 1 and its mirror 4 - 1 - 1 = 2. */
static void held_chunks(void **state)
{
    (void)state;
    nd_held_chunks h;
    nd_strategy s = pipe(4, 2);
    nd_stage_held_chunks(&s, 1, &h);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.v[0], 1);
    assert_int_equal(h.v[1], 5);
    s.schedule = ND_SCHEDULE_DUALPIPE_V;
    nd_stage_held_chunks(&s, 1, &h);
    assert_int_equal(h.v[1], 6);
    s = pipe(4, 1);
    s.schedule = ND_SCHEDULE_DUALPIPE;
    nd_stage_held_chunks(&s, 1, &h);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.v[0], 1);
    assert_int_equal(h.v[1], 2);
}

/* The schedules' rules, each with its message (DualPipe repository: even PP, micro-batches from
 * both ends; the V schedules: two chunks a rank). */
static void schedule_rules(void **state)
{
    (void)state;
    nd_model m;
    memset(&m, 0, sizeof m);
    m.layers = 32;
    m.heads = m.kv_heads = 32;
    m.hidden = 4096;
    nd_error err = {0};
    nd_strategy s = pipe(3, 1);
    s.schedule = ND_SCHEDULE_DUALPIPE;
    s.mb = 12;
    m.layers = 33;
    assert_int_equal(nd_strategy_check(&s, &m, 0, 0, 4096, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "even PP"));
    m.layers = 32;
    s = pipe(4, 1);
    s.schedule = ND_SCHEDULE_DUALPIPE_V;
    s.mb = 8;
    assert_int_equal(nd_strategy_check(&s, &m, 0, 0, 4096, &err), 0);
    assert_int_equal(s.vpp, 2); /* its two chunks a rank */
    s = pipe(4, 1);
    s.schedule = ND_SCHEDULE_DUALPIPE_V;
    s.mb = 6;
    assert_int_equal(nd_strategy_check(&s, &m, 0, 0, 4096, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "2 x PP"));
    nd_schedule sc;
    assert_int_equal(nd_schedule_parse("ZBVZeroBubble", &sc), 0);
    assert_int_equal(sc, ND_SCHEDULE_ZB_V);
    assert_int_equal(nd_schedule_parse("DualPipeV", &sc), 0);
    assert_int_equal(sc, ND_SCHEDULE_DUALPIPE_V);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_interleaved),
        cmocka_unit_test(ends_with_interleaving),
        cmocka_unit_test(embedding_and_loss_in_the_split),
        cmocka_unit_test(uneven_splits),
        cmocka_unit_test(megatron_layout_grammar),
        cmocka_unit_test(schedule_times),
        cmocka_unit_test(schedule_inflight),
        cmocka_unit_test(held_chunks),
        cmocka_unit_test(schedule_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
