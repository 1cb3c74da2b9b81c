/* nd-search -c's odds (search/planner/search_odds.c) against the normal distribution: two candidates
 * of different layer shapes (MP 1 and MP 2) whose only uncertainty is their scatter (residual_sd
 * 2 %, no covariance, no shapes), steps 100 and 102 ms. Different shapes scatter independently:
 * the second beats the first when 102 (1 + 0.02 e2) < 100 (1 + 0.02 e1), a normal difference of
 * mean 2 and sd sqrt(2^2 + 2.04^2) = 2.857: P = Phi(-0.700) = 0.242. Two candidates of one shape
 * (they differ only in OP) share the draw e: 102 (1 + 0.02 e) < 100 (1 + 0.02 e) never holds
 * while 1 + 0.02 e > 0 (e > -50, always in practice), so P = 0 and they are told apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nd/planner/search_out.h"

static void odds_match_the_normal_law(void **state)
{
    (void)state;
    nd_ratios r;
    nd_ratios_init(&r);
    r.time.terms = 1;
    r.time.fixed[0] = -1;
    r.time.scales[0] = 1u << ND_RATIO_COMPUTE;
    r.time.cov[0][0] = 0;
    r.time.residual_sd = 0.02;
    r.time.t95 = 1.96;
    r.time.dof = 1000;
    nd_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.ratios = &r;
    nd_search_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.ctx = &ctx;
    nd_ranked items[2];
    memset(items, 0, sizeof items);
    for (int i = 0; i < 2; i++) {
        nd_strategy_init(&items[i].s);
        items[i].s.tp = 1 + i;
        items[i].step_ms = 100 + 2 * i;
        items[i].raw_parts_ms[ND_PART_FW_COMPUTE] = items[i].step_ms;
    }
    nd_search_result res = {items, 2, {0}};
    nd_search_odds odds;
    nd_error err = {0};
    assert_int_equal(nd_search_odds_compute(&cfg, &res, 10, &odds, &err), 0);
    assert_int_equal(odds.count, 2);
    double p = 0.5 * erfc(0.700 / sqrt(2.0)); /* Phi(-0.700) */
    if (fabs(odds.p_faster_than_best[1] - p) > 0.015)
        fail_msg("P = %g, want %g", odds.p_faster_than_best[1], p);
    assert_true(fabs(odds.p_fastest[0] + odds.p_fastest[1] - 1) < 1e-12);
    assert_true(odds.tied[1]); /* 24 % of draws: not told apart */
    /* The 95 % half-width: 1.96 x 0.02 x 100. */
    assert_true(fabs(odds.half[0] - 3.92) < 1e-9);
    /* A fixed seed: the same numbers again. */
    nd_search_odds again;
    assert_int_equal(nd_search_odds_compute(&cfg, &res, 10, &again, &err), 0);
    assert_true(again.p_faster_than_best[1] == odds.p_faster_than_best[1]);
    /* One shape (the second differs only in OP): one shared draw, told apart by the real 2 ms. */
    items[1].s.tp = 1;
    items[1].s.op = 2;
    assert_int_equal(nd_search_odds_compute(&cfg, &res, 10, &odds, &err), 0);
    assert_true(odds.p_faster_than_best[1] == 0);
    assert_true(odds.p_fastest[0] == 1);
    assert_false(odds.tied[1]);
    /* Without an uncertainty there are no odds. */
    r.time.terms = 0;
    assert_int_equal(nd_search_odds_compute(&cfg, &res, 10, &odds, &err), 0);
    assert_int_equal(odds.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(odds_match_the_normal_law),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
