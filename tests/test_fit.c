/* The fit: ND's worked example in ratio-of-sums mode, least squares and leave-one-out by hand
 * and against brute-force refits, a total-mode fit recovering known ratios, and the ranking
 * metrics against hand counts. */
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
#include "nd/calibrate/metrics.h"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) fail_msg("got %.10g, want %.10g (tolerance %g)", got, want, tol);
}

static nd_fit_row nd_row(const char *label, double step, double fw, double bw, double dp_comm,
                         double dp_reduce, double ep, double bubble, double comp, double op, double dp,
                         double epw, double pp)
{
    nd_fit_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.label, sizeof r.label, "%s", label);
    r.est[ND_PART_FW_COMPUTE] = fw;
    r.est[ND_PART_BW_COMPUTE] = bw;
    r.est[ND_PART_DP_COMM] = dp_comm;
    r.est[ND_PART_DP_REDUCE] = dp_reduce;
    r.est[ND_PART_EP_COMM] = ep;
    r.est[ND_PART_BUBBLE] = bubble;
    r.measured[ND_MEAS_COMP] = comp;
    r.measured[ND_MEAS_OP_WAIT] = op;
    r.measured[ND_MEAS_DP_WAIT] = dp;
    r.measured[ND_MEAS_EP_WAIT] = epw;
    r.measured[ND_MEAS_PP_WAIT] = pp;
    r.time_ms = step;
    r.rank_ms = step;
    r.rank_scale = 1;
    r.busy_ms = comp + op + dp + epw + pp;
    r.idle_ms = step - r.busy_ms;
    return r;
}

/* docs/reference/nd-calibration.md §5.6 (ND's test_ratios.py), all at DP 64. Expected: COMPUTE
 * 1740/18, DP_COMM 150/1.9, DP_REDUCE 65/0.4, EP_COMM 9/2, MP, CP, PP, BUBBLE = COMPUTE; busy
 * 630, 629, 705; corrected 658.9, 640.2, 664.8; left out 666.7 (+5.8 %), 641.4 (+2.0 %),
 * 618.3 (-12.3 %); the corrected pick is the fastest (cost 0 %); Spearman +1. */
static void nd_worked_example(void **state)
{
    (void)state;
    nd_fit_row rows[3] = {
        nd_row("DP 64 OP 64", 700, 2, 4, 1, 0, 0, 1e-18, 540, 90, 0, 0, 0),
        nd_row("DP 64 EP 2 OP 32", 650, 2, 4, 0.5, 0.1, 1, 0, 600, 20, 5, 4, 0),
        nd_row("DP 64 EP 2", 720, 2, 4, 0.4, 0.3, 1, 0, 600, 40, 60, 5, 0),
    };
    nd_fit_options o = {.mode = ND_FIT_SUMS, .allow_fallback = true};
    o.column[ND_MEAS_COMP] = o.column[ND_MEAS_OP_WAIT] = o.column[ND_MEAS_DP_WAIT] = true;
    o.column[ND_MEAS_EP_WAIT] = o.column[ND_MEAS_PP_WAIT] = true;
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), 0);
    near(res.ratio[ND_RATIO_COMPUTE], 1740.0 / 18, 1e-9);
    near(res.ratio[ND_RATIO_DP_COMM], 150.0 / 1.9, 1e-9);
    near(res.ratio[ND_RATIO_DP_REDUCE], 65.0 / 0.4, 1e-9);
    near(res.ratio[ND_RATIO_EP_COMM], 4.5, 1e-12);
    near(res.ratio[ND_RATIO_MP_COMM], 1740.0 / 18, 1e-9);
    near(res.ratio[ND_RATIO_CP_COMM], 1740.0 / 18, 1e-9);
    near(res.ratio[ND_RATIO_PP_COMM], 1740.0 / 18, 1e-9); /* the 1e-18 bubble is below 1e-9 x W */
    near(res.ratio[ND_RATIO_BUBBLE], 1740.0 / 18, 1e-9);
    assert_int_equal(res.status[ND_RATIO_MP_COMM], ND_RATIO_FALLBACK);
    const double busy[] = {630, 629, 705}, corrected[] = {658.9, 640.2, 664.8};
    const double left_out[] = {666.7, 641.4, 618.3}, error[] = {0.058, 0.020, -0.123};
    for (int i = 0; i < 3; i++) {
        near(res.target_ms[i], busy[i], 1e-9);
        near(res.corrected_ms[i], corrected[i], 0.05);
        near(res.left_out_ms[i], left_out[i], 0.05);
        near(res.left_out_ms[i] / busy[i] - 1, error[i], 0.0005);
    }
    near(res.corrected_ms[0] + res.corrected_ms[1] + res.corrected_ms[2], 1964, 1e-9);
    assert_int_equal(res.pick, 1);
    assert_int_equal(res.fastest, 1);
    near(res.regret, 0, 1e-12);
    near(res.spearman, 1, 1e-12);
    nd_fit_result_free(&res);

    /* A round whose estimates price no compute cannot be fitted. */
    for (int i = 0; i < 3; i++) rows[i].est[ND_PART_FW_COMPUTE] = rows[i].est[ND_PART_BW_COMPUTE] = 0;
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "price no compute"));
}

/* One part (COMPUTE) through the origin with relative weights w = 1/step^2:
 *   r = sum(w x y) / sum(w x^2);  leverage h_i = w_i x_i^2 / sum(w x^2);
 *   left-out prediction y_i - e_i / (1 - h_i).
 * Rows (x estimated compute, y measured comp, step): (100, 110, 200), (200, 190, 400),
 * (300, 345, 500). sum w x^2 = 0.25 + 0.25 + 0.36 = 0.86; sum w x y = 0.275 + 0.2375 + 0.414
 * = 0.9265; r = 1.07732558... */
static nd_fit_row compute_row(double x, double y, double step)
{
    nd_fit_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.label, sizeof r.label, "x=%g", x);
    r.est[ND_PART_FW_COMPUTE] = x / 3;
    r.est[ND_PART_BW_COMPUTE] = 2 * x / 3;
    r.measured[ND_MEAS_COMP] = y;
    r.time_ms = r.rank_ms = step;
    r.rank_scale = 1;
    r.busy_ms = y;
    r.idle_ms = step - y;
    return r;
}

static void least_squares_by_hand(void **state)
{
    (void)state;
    nd_fit_row rows[3] = {compute_row(100, 110, 200), compute_row(200, 190, 400), compute_row(300, 345, 500)};
    nd_fit_options o = {.mode = ND_FIT_PARTS};
    o.column[ND_MEAS_COMP] = true;
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), 0);
    double r = 0.9265 / 0.86;
    near(res.ratio[ND_RATIO_COMPUTE], r, 1e-12);
    const double x[] = {100, 200, 300}, y[] = {110, 190, 345}, w[] = {1 / 4e4, 1 / 16e4, 1 / 25e4};
    for (int i = 0; i < 3; i++) {
        double h = w[i] * x[i] * x[i] / 0.86, e = y[i] - r * x[i];
        double loo = y[i] - e / (1 - h);
        near(res.group_left_out[i * ND_RATIO_KEYS + ND_RATIO_COMPUTE], loo, 1e-9);
        /* Brute force: refit without row i and predict it. */
        double sxy = 0, sxx = 0;
        for (int j = 0; j < 3; j++)
            if (j != i) {
                sxy += w[j] * x[j] * y[j];
                sxx += w[j] * x[j] * x[j];
            }
        near(loo, sxy / sxx * x[i], 1e-9);
    }
    /* 95 % interval: r +- t(0.975, 2) x sqrt(s^2 / sum w x^2), s^2 = sum w e^2 / (n - 1). */
    double s2 = 0;
    for (int i = 0; i < 3; i++) s2 += w[i] * pow(y[i] - r * x[i], 2);
    s2 /= 2;
    double half = 4.302652729749464 * sqrt(s2 / 0.86);
    near(res.lo[ND_RATIO_COMPUTE], r - half, 1e-9);
    near(res.hi[ND_RATIO_COMPUTE], r + half, 1e-9);
    /* Parts the round does not measure are held at 1 and say why. */
    assert_int_equal(res.status[ND_RATIO_EP_COMM], ND_RATIO_HELD);
    assert_non_null(strstr(res.why[ND_RATIO_EP_COMM], "does not measure"));
    nd_fit_result_free(&res);
}

/* Guards of the parts mode. One row cannot check a ratio: an error, unless --allow-fallback.
 * An optimizer the round measures at 0 while nd prices 5 ms fits to 0: an error, or with
 * --allow-fallback COMPUTE's ratio, which is the hand value 0.9265 / 0.86 above. */
static void parts_mode_guards(void **state)
{
    (void)state;
    nd_fit_row rows[3] = {compute_row(100, 110, 200), compute_row(200, 190, 400), compute_row(300, 345, 500)};
    nd_fit_options o = {.mode = ND_FIT_PARTS};
    o.column[ND_MEAS_COMP] = true;
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 1, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "1 distinct strategy cannot fit and check 1 coefficient on comp"));
    o.allow_fallback = true;
    assert_int_equal(nd_fit_run(rows, 1, &o, &res, &err), 0);
    near(res.ratio[ND_RATIO_COMPUTE], 1.1, 1e-12);
    nd_fit_result_free(&res);

    for (int i = 0; i < 3; i++) rows[i].est[ND_PART_OPTIMIZER] = 5 + i;
    o.column[ND_MEAS_OPTIMIZER] = true;
    o.allow_fallback = false;
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "OPTIMIZER (fits to 0"));
    o.allow_fallback = true;
    assert_int_equal(nd_fit_run(rows, 3, &o, &res, &err), 0);
    near(res.ratio[ND_RATIO_COMPUTE], 0.9265 / 0.86, 1e-12);
    near(res.ratio[ND_RATIO_OPTIMIZER], 0.9265 / 0.86, 1e-12);
    assert_int_equal(res.status[ND_RATIO_OPTIMIZER], ND_RATIO_FALLBACK);
    nd_fit_result_free(&res);
}

/* --robust leave-one-out is a robust fit of the other rows: checked against fitting those
 * rows alone (an independent call) and predicting the left-out row. Row 3 is an outlier. */
static void robust_leave_one_out_refits(void **state)
{
    (void)state;
    enum { N = 6 };
    const double x[N] = {100, 150, 200, 250, 300, 350}, y[N] = {111, 164, 219, 410, 331, 384};
    nd_fit_row rows[N], rest[N - 1];
    for (int i = 0; i < N; i++) rows[i] = compute_row(x[i], y[i], 2 * x[i]);
    nd_fit_options o = {.mode = ND_FIT_PARTS, .robust = true};
    o.column[ND_MEAS_COMP] = true;
    nd_fit_result res, part;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, N, &o, &res, &err), 0);
    for (int i = 0; i < N; i++) {
        for (int j = 0, k = 0; j < N; j++)
            if (j != i) rest[k++] = rows[j];
        assert_int_equal(nd_fit_run(rest, N - 1, &o, &part, &err), 0);
        near(res.group_left_out[i * ND_RATIO_KEYS + ND_RATIO_COMPUTE], part.ratio[ND_RATIO_COMPUTE] * x[i],
             1e-9);
        nd_fit_result_free(&part);
    }
    /* The outlier barely moves the robust ratio: the other rows sit at 1.10 (within 1 %). */
    near(res.ratio[ND_RATIO_COMPUTE], 1.10, 0.011);
    nd_fit_result_free(&res);
}

/* Total mode: steps generated from known ratios (COMPUTE 1.2, DP_REDUCE 1.5, MP_COMM 0.8,
 * PP_COMM 1.3) with 0.5 % noise; the fit recovers each within its 95 % interval. */
static void total_mode_recovers_known_ratios(void **state)
{
    (void)state;
    enum { N = 40 };
    nd_fit_row rows[N];
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        snprintf(rows[i].label, sizeof rows[i].label, "row %d", i);
        seed = seed * 1103515245u + 12345u;
        double a = 100 + (seed >> 16) % 400;
        seed = seed * 1103515245u + 12345u;
        double b = 10 + (seed >> 16) % 80;
        seed = seed * 1103515245u + 12345u;
        double c = 10 + (seed >> 16) % 120;
        seed = seed * 1103515245u + 12345u;
        double d = 5 + (seed >> 16) % 60;
        seed = seed * 1103515245u + 12345u;
        double noise = ((double)((seed >> 16) % 2001) / 1000.0 - 1.0) * 0.005;
        rows[i].est[ND_PART_FW_COMPUTE] = a / 3;
        rows[i].est[ND_PART_BW_COMPUTE] = 2 * a / 3;
        rows[i].est[ND_PART_DP_REDUCE] = b;
        rows[i].est[ND_PART_MP_COMM] = c;
        rows[i].est[ND_PART_PP_COMM] = d / 2;
        rows[i].est[ND_PART_BUBBLE] = d / 2;
        double t = 1.2 * a + 1.5 * b + 0.8 * c + 1.3 * d;
        rows[i].time_ms = rows[i].rank_ms = t * (1 + noise);
        rows[i].rank_scale = 1;
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL};
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, N, &o, &res, &err), 0);
    const nd_ratio_key keys[] = {ND_RATIO_COMPUTE, ND_RATIO_DP_REDUCE, ND_RATIO_MP_COMM, ND_RATIO_PP_COMM};
    const double truth[] = {1.2, 1.5, 0.8, 1.3};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(res.status[keys[k]], ND_RATIO_FITTED);
        if (!(res.lo[keys[k]] <= truth[k] && truth[k] <= res.hi[keys[k]]))
            fail_msg("%s: %g outside [%g, %g]", nd_ratio_key_name(keys[k]), truth[k], res.lo[keys[k]],
                     res.hi[keys[k]]);
        near(res.ratio[keys[k]], truth[k], 0.05);
    }
    assert_true(res.loo_total.mape < 0.01);
    nd_fit_result_free(&res);

    /* Too few rows for the ratios is a clear error, not a fallback. */
    assert_int_equal(nd_fit_run(rows, 4, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "4 distinct strategies cannot fit and check 4 coefficients on time"));
}

/* Total mode when the step times pin a ratio at 0: compute and MP communication nearly
 * proportional (MP ~ 0.1 x compute) and steps of 1.12 x compute - 0.2 x MP. Non-negative
 * least squares gives MP_COMM 0, a part that costs nothing, which the estimate contradicts:
 * the fit is refused, naming MP_COMM and the --hold that the round supports; with it,
 * COMPUTE alone is the weighted ratio of steps to compute (least squares through the origin,
 * hand formula below); --allow-fallback gives MP_COMM COMPUTE's coefficient instead. */
static void total_mode_refuses_a_ratio_fitted_to_0(void **state)
{
    (void)state;
    const double c[] = {100, 200, 300, 400, 500}, m[] = {10, 22, 29, 41, 50};
    nd_fit_row rows[5];
    for (int i = 0; i < 5; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        snprintf(rows[i].label, sizeof rows[i].label, "row %d", i);
        rows[i].est[ND_PART_FW_COMPUTE] = c[i] / 3;
        rows[i].est[ND_PART_BW_COMPUTE] = 2 * c[i] / 3;
        rows[i].est[ND_PART_MP_COMM] = m[i];
        rows[i].time_ms = rows[i].rank_ms = 1.12 * c[i] - 0.2 * m[i];
        rows[i].rank_scale = 1;
    }
    nd_fit_options o = {.mode = ND_FIT_TOTAL, .no_fixed = true};
    nd_fit_result res;
    nd_error err = {0};
    assert_int_equal(nd_fit_run(rows, 5, &o, &res, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "MP_COMM (fits to 0"));
    assert_non_null(strstr(err.message, "with --hold MP_COMM"));
    assert_true(res.unidentified & 1u << ND_RATIO_MP_COMM);

    o.hold[ND_RATIO_MP_COMM] = true;
    if (nd_fit_run(rows, 5, &o, &res, &err)) fail_msg("%s", err.message);
    /* y_i = t_i - m_i (MP held at 1), w_i = 1/t_i^2: r = sum(w c y) / sum(w c^2). */
    double sxy = 0, sxx = 0;
    for (int i = 0; i < 5; i++) {
        double t = rows[i].time_ms, w = 1 / (t * t);
        sxy += w * c[i] * (t - m[i]);
        sxx += w * c[i] * c[i];
    }
    near(res.ratio[ND_RATIO_COMPUTE], sxy / sxx, 1e-12);
    assert_int_equal(res.status[ND_RATIO_MP_COMM], ND_RATIO_HELD);
    nd_fit_result_free(&res);

    o.hold[ND_RATIO_MP_COMM] = false;
    o.allow_fallback = true;
    if (nd_fit_run(rows, 5, &o, &res, &err)) fail_msg("%s", err.message);
    assert_int_equal(res.status[ND_RATIO_MP_COMM], ND_RATIO_FALLBACK);
    near(res.ratio[ND_RATIO_MP_COMM], res.ratio[ND_RATIO_COMPUTE], 0);
    nd_fit_result_free(&res);
}

/* Spearman with ties: x = (1, 2, 2, 3) has ranks (1, 2.5, 2.5, 4); y = (10, 20, 30, 40) ranks
 * (1, 2, 3, 4). Pearson of the ranks: mean 2.5 each; sum dx dy = (-1.5)(-1.5) + 0 + 0 + 1.5 x 1.5
 * = 4.5; sum dx^2 = 4.5; sum dy^2 = 5: rho = 4.5 / sqrt(22.5) = 0.9486833. */
static void spearman_with_ties(void **state)
{
    (void)state;
    const double x[] = {1, 2, 2, 3}, y[] = {10, 20, 30, 40};
    near(nd_metric_spearman(x, y, 4), 4.5 / sqrt(22.5), 1e-12);
    const double c[] = {5, 5, 5, 5};
    assert_true(isnan(nd_metric_spearman(x, c, 4)));
    assert_true(isnan(nd_metric_pearson(x, y, 1)));
    /* ND's top-k: measured order 0, 1, 2; the estimate ranks 0 lowest, then 2 below 1. */
    const double est[] = {1, 3, 2}, meas[] = {10, 20, 30};
    assert_int_equal(nd_metric_top_k(est, meas, 3), 1);
    size_t pick, fastest;
    near(nd_metric_regret(est, meas, 3, &pick, &fastest), 0, 0);
    const double est2[] = {3, 1, 2};
    near(nd_metric_regret(est2, meas, 3, &pick, &fastest), 1.0, 1e-12); /* picks 20 over 10 */
    assert_int_equal(pick, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nd_worked_example),
        cmocka_unit_test(least_squares_by_hand),
        cmocka_unit_test(parts_mode_guards),
        cmocka_unit_test(robust_leave_one_out_refits),
        cmocka_unit_test(total_mode_recovers_known_ratios),
        cmocka_unit_test(total_mode_refuses_a_ratio_fitted_to_0),
        cmocka_unit_test(spearman_with_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
