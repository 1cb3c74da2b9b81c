/* Pipeline schedules: step time and activations in flight, against the bubble formulas
 * worked out by hand. With PP = p stages of equal time x per micro-batch and MB = m:
 *   1F1B / GPipe: (m + p - 1) x  -> bubble (p - 1) x, a fraction (p - 1)/m of m x
 *     (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
 *     Clusters using Megatron-LM", §2.2.1)
 *   interleaved with v chunks: bubble (p - 1) x / v (same paper, §2.2.2)
 *   ZB-H1: bubble (p - 1)(x - 2W), W the weight-gradient time (Qi et al. 2023,
 *     "Zero Bubble Pipeline Parallelism", §3: (p-1)(T_F + T_B - T_W) with x = F + B + W). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nd/costmodel/stage.h"

static nd_strategy pipeline(int64_t p, int64_t m, int64_t v, nd_schedule sched)
{
    nd_strategy s;
    nd_strategy_init(&s);
    s.pp = p;
    s.mb = m;
    s.vpp = v;
    s.schedule = sched;
    return s;
}

static void uniform(nd_stage_time *st, int n, double x, double w)
{
    for (int i = 0; i < n; i++) {
        st[i] = (nd_stage_time){0};
        st[i].total_ms = x;
        st[i].weight_grad_ms = w;
    }
}

static void one_f_one_b(void **state)
{
    (void)state;
    nd_stage_time st[4];
    uniform(st, 4, 10, 3);
    nd_strategy s = pipeline(4, 8, 1, ND_SCHEDULE_1F1B);
    /* (8 + 4 - 1) x 10 = 110: bubble 30 = 3/8 of 80 */
    assert_true(fabs(nd_pipeline_ms(&s, st, 3) - 110) < 1e-12);
    s.schedule = ND_SCHEDULE_GPIPE;
    assert_true(fabs(nd_pipeline_ms(&s, st, 3) - 110) < 1e-12);
    /* One stage: no bubble, m x. */
    nd_strategy one = pipeline(1, 8, 1, ND_SCHEDULE_1F1B);
    assert_true(fabs(nd_pipeline_ms(&one, st, 0) - 80) < 1e-12);
}

static void uneven_stages(void **state)
{
    (void)state;
    nd_stage_time st[4];
    uniform(st, 4, 10, 3);
    st[1].total_ms = 12;
    nd_strategy s = pipeline(4, 8, 1, ND_SCHEDULE_1F1B);
    /* sum 42 + (8 - 1) x 12 = 126 */
    assert_true(fabs(nd_pipeline_ms(&s, st, 1) - 126) < 1e-12);
}

static void interleaved(void **state)
{
    (void)state;
    nd_stage_time st[4];
    uniform(st, 4, 10, 3);
    nd_strategy s = pipeline(4, 8, 2, ND_SCHEDULE_INTERLEAVED);
    /* 8 x 10 + 3 x 10 / 2 = 95 */
    assert_true(fabs(nd_pipeline_ms(&s, st, 3) - 95) < 1e-12);
}

static void zero_bubble(void **state)
{
    (void)state;
    nd_stage_time st[4];
    uniform(st, 4, 10, 3);
    nd_strategy s = pipeline(4, 8, 1, ND_SCHEDULE_ZB_H1);
    /* 8 x 10 + 3 x (10 - 2 x 3) = 92 */
    assert_true(fabs(nd_pipeline_ms(&s, st, 3) - 92) < 1e-12);
}

static void activations_in_flight(void **state)
{
    (void)state;
    nd_strategy s = pipeline(4, 8, 1, ND_SCHEDULE_1F1B);
    /* 1F1B: stage i holds p - i micro-batches (at most m). */
    assert_true(nd_stage_inflight(&s, 0) == 4);
    assert_true(nd_stage_inflight(&s, 3) == 1);
    s.mb = 2;
    assert_true(nd_stage_inflight(&s, 0) == 2);
    /* Interleaved, p = 4, v = 2, m = 8: stage 0 holds 2(p-1) + (v-1)p + 1 = 11 chunks = 5.5
     * stage-micro-batches, i.e. L/p x 5.5 = L(1 + (p-1)/(pv)) layer activations
     * (Korthikanti et al. 2022, §4.2.3). */
    s = pipeline(4, 8, 2, ND_SCHEDULE_INTERLEAVED);
    assert_true(fabs(nd_stage_inflight(&s, 0) - 5.5) < 1e-12);
    assert_true(fabs(nd_stage_inflight(&s, 0) / 4 - (1 + 3.0 / 8)) < 1e-12);
    s = pipeline(4, 8, 1, ND_SCHEDULE_GPIPE);
    assert_true(nd_stage_inflight(&s, 3) == 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_f_one_b), cmocka_unit_test(uneven_stages),         cmocka_unit_test(interleaved),
        cmocka_unit_test(zero_bubble), cmocka_unit_test(activations_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
