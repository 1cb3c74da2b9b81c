/* The identifiability rules of nd-fit (docs/calibration.md §Identifiability), the fixed
 * costs, the per-shape corrections and the memory ratios, each on rows whose expected
 * values are worked out by hand below (or generated from known values with no noise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/calibrate/fit.h"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) fail_msg("got %.10g, want %.10g (tolerance %g)", got, want, tol);
}

static nd_fit_row row(const char *label, double compute, double optimizer, double dp_reduce, double step)
{
    nd_fit_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.label, sizeof r.label, "%s", label);
    r.est[ND_PART_FW_COMPUTE] = compute / 3;
    r.est[ND_PART_BW_COMPUTE] = 2 * compute / 3;
    r.est[ND_PART_OPTIMIZER] = optimizer;
    r.est[ND_PART_DP_REDUCE] = dp_reduce;
    r.time_ms = r.rank_ms = step;
    r.rank_scale = 1;
    r.peak_mib = NAN;
    r.shape.tp = r.shape.cp = r.shape.ep = r.shape.etp = r.shape.mbs = 1;
    return r;
}

/* Issue 13, first failing case: three rows of one strategy (DP 8, 299-301 ms) give one
 * equation, which cannot separate COMPUTE, OPTIMIZER and DP_REDUCE, nor check any ratio:
 * refused, naming them and how many strategies to add; the ratios stay unwritten. */
static void one_strategy_measured_three_times(void **state)
{
    (void)state;
    nd_fit_row rows[3] = {row("DP 8", 250, 20, 15, 299), row("DP 8", 250, 20, 15, 300),
                          row("DP 8", 250, 20, 15, 301)};
    nd_fit_options o = {.mode = ND_FIT_TOTAL};
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "1 distinct strategy cannot fit and check 3 coefficients on time "
                                        "(COMPUTE, DP_REDUCE, OPTIMIZER)"));
    assert_non_null(strstr(err.message, "profile at least 3 more"));
    unsigned want = 1u << ND_RATIO_COMPUTE | 1u << ND_RATIO_OPTIMIZER | 1u << ND_RATIO_DP_REDUCE;
    assert_int_equal(res.unidentified & want, want);
    /* One ratio alone still cannot be checked on one strategy. */
    o.hold[ND_RATIO_OPTIMIZER] = o.hold[ND_RATIO_DP_REDUCE] = true;
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "1 distinct strategy cannot fit and check 1 coefficient"));
}

/* Two parts every strategy prices in the same proportion (OPTIMIZER = COMPUTE / 10 on rows
 * of different sizes) are confounded: the message names both and the --hold that leaves
 * one of them. */
static void proportional_parts_are_confounded(void **state)
{
    (void)state;
    nd_fit_row rows[4];
    const double c[] = {100, 180, 260, 400};
    for (int i = 0; i < 4; i++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", i);
        rows[i] = row(label, c[i], c[i] / 10, 0, 1.2 * c[i] + 0.1 * c[i] / 10);
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_fixed = true};
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 4, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "prices COMPUTE, OPTIMIZER in the same proportion"));
    assert_non_null(strstr(err.message, "--hold OPTIMIZER"));
    assert_int_equal(res.confounded, 1u << ND_RATIO_COMPUTE | 1u << ND_RATIO_OPTIMIZER);
}

/* --max-ci: one ratio through the origin on rows (x, y, t) = (100, 110, 200), (200, 190,
 * 400), (300, 345, 500), relative weights. By hand (test_fit.c): r = 0.9265 / 0.86,
 * s^2 = sum w e^2 / 2, half-width t(0.975, 2) sqrt(s^2 / 0.86). A limit just above half / r
 * writes the ratio; just below refuses it, quoting the width. */
static void max_ci_is_the_limit(void **state)
{
    (void)state;
    const double x[] = {100, 200, 300}, y[] = {110, 190, 345}, t[] = {200, 400, 500};
    nd_fit_row rows[3];
    double r = 0.9265 / 0.86, s2 = 0;
    for (int i = 0; i < 3; i++) {
        char label[16];
        snprintf(label, sizeof label, "x=%g", x[i]);
        rows[i] = row(label, x[i], 0, 0, t[i]);
        rows[i].est[ND_PART_OVERHEAD] = 0;
        rows[i].measured[ND_MEAS_COMP] = y[i];
        rows[i].idle_ms = t[i] - y[i];
        s2 += pow(y[i] - r * x[i], 2) / (t[i] * t[i]) / 2;
    }
    double relative = 4.302652729749464 * sqrt(s2 / 0.86) / r;
    nd_fit_options o = {.mode = ND_FIT_PARTS, .no_fixed = true, .max_ci = relative * 1.001};
    o.column[ND_MEAS_COMP] = true;
    nd_fit_result res;
    nd_error err = {0};
    if (nd_fit_run(rows, 3, &o, &res, &err)) fail_msg("%s", err.message);
    near(res.ratio[ND_RATIO_COMPUTE], r, 1e-12);
    nd_fit_result_free(&res);
    o.max_ci = relative * 0.999;
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), ND_EINPUT);
    char want[64];
    snprintf(want, sizeof want, "COMPUTE (95 %% interval +-%.0f %%", 100 * relative);
    assert_non_null(strstr(err.message, want));
}

/* Fixed costs: steps = 1.1 x compute + 2 us per kernel + 20 ms per step, kernels and
 * compute varying independently, every row one micro-batch slot. The fit recovers 1.1,
 * KERNEL_US 2 and STEP_MS 20 (no noise: exactly); MICROBATCH_MS, which every row counts
 * once just as it counts STEP_MS once, cannot be told from it and is held at 0. */
static void fixed_costs_recovered(void **state)
{
    (void)state;
    nd_fit_row rows[8];
    const double c[] = {100, 150, 220, 300, 360, 420, 500, 610},
                 k[] = {4000, 9000, 3000, 12000, 7000, 15000, 5000, 11000};
    for (int i = 0; i < 8; i++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", i);
        rows[i] = row(label, c[i], 0, 0, 1.1 * c[i] + 2e-3 * k[i] + 20);
        rows[i].kernels = k[i];
        rows[i].slots = 1;
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_shapes = true};
    nd_fit_result res;
    nd_error err = {0};
    if (nd_fit_run(rows, 8, &o, &res, &err)) fail_msg("%s", err.message);
    near(res.ratio[ND_RATIO_COMPUTE], 1.1, 1e-9);
    assert_int_equal(res.fixed[ND_FIXED_KERNEL].status, ND_RATIO_FITTED);
    near(res.fixed[ND_FIXED_KERNEL].value, 2, 1e-6);
    near(res.fixed[ND_FIXED_STEP].value, 20, 1e-6);
    assert_int_equal(res.fixed[ND_FIXED_MICROBATCH].status, ND_RATIO_HELD);
    near(res.loo_total.mape, 0, 1e-9);
    nd_fit_result_free(&res);
}

/* Shapes: three layer shardings, six strategies each, whose steps are (1 + d_s) x their
 * compute with d = +10 %, -5 %, 0 %, the ratio fit seeing COMPUTE only. Each shape's
 * correction is the ridge formula of fit_shapes.c evaluated here on the ratio fit's
 * residuals, and with the shapes the left-out error is smaller than without. */
static void shapes_take_what_the_ratios_leave(void **state)
{
    (void)state;
    enum { N = 18 };
    nd_fit_row rows[N];
    const double d[] = {0.10, -0.05, 0};
    for (int i = 0; i < N; i++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", i);
        double c = 100 + 37 * i;
        rows[i] = row(label, c, 0, 0, (1 + d[i % 3]) * c);
        rows[i].shape.mbs = 1 + i % 3;
        rows[i].mb_work = c;
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_fixed = true};
    nd_fit_result with, without;
    nd_error err = {0};
    if (nd_fit_run(rows, N, &o, &with, &err)) fail_msg("%s", err.message);
    o.no_shapes = true;
    if (nd_fit_run(rows, N, &o, &without, &err)) fail_msg("%s", err.message);
    assert_int_equal(with.shapes, 3);
    assert_true(with.loo_total.mape < without.loo_total.mape / 2);
    /* delta_s = sum_s w e W / (sum_s w W^2 + lambda S), e the residual of the ratio fit. */
    double S = 0, r = without.ratio[ND_RATIO_COMPUTE];
    for (int i = 0; i < N; i++) S += pow(rows[i].mb_work / rows[i].time_ms, 2) / N;
    for (int s = 0; s < 3; s++) {
        double wwe = 0, www = 0;
        for (int i = s; i < N; i += 3) {
            double w = 1 / (rows[i].time_ms * rows[i].time_ms), W = rows[i].mb_work;
            wwe += w * W * (rows[i].time_ms - r * W);
            www += w * W * W;
        }
        near(with.shape[s].delta, wwe / (www + with.shape_ridge_rows * S), 1e-12);
        assert_int_equal(with.shape[s].rows, 6);
    }
    /* MBS 1 ran 10 % slow, MBS 2 5 % fast, MBS 3 as priced: their order survives the ratio. */
    assert_true(with.shape[1].delta < with.shape[2].delta && with.shape[2].delta < with.shape[0].delta);
    nd_fit_result_free(&with);
    nd_fit_result_free(&without);
}

/* Memory: peaks = static + 1.5 x activations + 0.8 x transient exactly, on rows whose
 * activations and transient vary apart; the fit recovers both ratios, and rows without a
 * measured peak take no part. */
static void memory_ratios_recovered(void **state)
{
    (void)state;
    nd_fit_row rows[7];
    const double a[] = {1000, 3000, 2000, 5000, 800, 4000, 2500},
                 tr[] = {500, 400, 1500, 900, 2000, 300, 1200};
    for (int i = 0; i < 7; i++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", i);
        rows[i] = row(label, 100 + 10 * i, 0, 0, 120 + 11 * i);
        rows[i].mem_static_mib = 8000;
        rows[i].mem_activations_mib = a[i];
        rows[i].mem_transient_mib = tr[i];
        rows[i].peak_mib = i == 6 ? NAN : 8000 + 1.5 * a[i] + 0.8 * tr[i];
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_fixed = true, .no_shapes = true};
    nd_fit_result res;
    nd_error err = {0};
    if (nd_fit_run(rows, 7, &o, &res, &err)) fail_msg("%s", err.message);
    assert_int_equal(res.memory_rows, 6);
    near(res.memory[ND_MEM_ACTIVATIONS].value, 1.5, 1e-9);
    near(res.memory[ND_MEM_TRANSIENT].value, 0.8, 1e-9);
    assert_true(isnan(res.memory_fitted[6]));
    nd_fit_result_free(&res);
}

/* --hold auto holds what the round does not identify: in the one-strategy round nothing
 * (all ratios held at 1, nothing written but ones), in the fitted-to-0 round of test_fit.c
 * MP_COMM. */
static void hold_auto_holds_what_is_not_identified(void **state)
{
    (void)state;
    const double c[] = {100, 200, 300, 400, 500}, m[] = {10, 22, 29, 41, 50};
    nd_fit_row rows[5];
    for (int i = 0; i < 5; i++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", i);
        rows[i] = row(label, c[i], 0, 0, 1.12 * c[i] - 0.2 * m[i]);
        rows[i].est[ND_PART_MP_COMM] = m[i];
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_fixed = true, .hold_auto = true};
    nd_fit_result res;
    nd_error err = {0};
    if (nd_fit_run(rows, 5, &o, &res, &err)) fail_msg("%s", err.message);
    assert_int_equal(res.status[ND_RATIO_MP_COMM], ND_RATIO_HELD);
    assert_non_null(strstr(res.why[ND_RATIO_MP_COMM], "--hold auto"));
    assert_int_equal(res.status[ND_RATIO_COMPUTE], ND_RATIO_FITTED);
    nd_fit_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_strategy_measured_three_times),
        cmocka_unit_test(proportional_parts_are_confounded),
        cmocka_unit_test(max_ci_is_the_limit),
        cmocka_unit_test(fixed_costs_recovered),
        cmocka_unit_test(shapes_take_what_the_ratios_leave),
        cmocka_unit_test(memory_ratios_recovered),
        cmocka_unit_test(hold_auto_holds_what_is_not_identified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
