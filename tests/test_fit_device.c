/* The fitted device: steps priced on a known device (the built-in A100 whose host takes
 * 1.4 x as long to issue an operator) with +-1 % noise are fitted from the unchanged A100;
 * the fit must find the changed field within its interval and reproduce the steps to the
 * noise. The strategies are the bundled vTrain round's (vtrain-gpt-h1024-l12.csv). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/calibrate/classified.h"
#include "nd/calibrate/compare.h"
#include "nd/calibrate/fit_device.h"
#include "nd/inputs/device_file.h"
#include "fit_out.h"

static int find_param(const char *name)
{
    for (size_t q = 0; q < nd_device_param_count; q++)
        if (!strcmp(nd_device_params[q].name, name)) return (int)q;
    return -1;
}

/* The vTrain GPT-h1024-L12 round priced on the built-in A100, as device-fit rows. */
typedef struct fixture {
    nd_run run;
    nd_device_table table;
    const nd_device *a100;
    nd_classified round;
    nd_compare cmp;
    nd_device_fit_row *rows;
} fixture;

static void setup(fixture *f)
{
    gsl_set_error_handler_off();
    char run_path[1024], csv_path[1024];
    snprintf(run_path, sizeof run_path, "%s/samples/runs/vtrain-gpt-h1024-l12.yaml", getenv("ND_SOURCE_DIR"));
    snprintf(csv_path, sizeof csv_path, "%s/samples/rounds/vtrain-gpt-h1024-l12.csv",
             getenv("ND_SOURCE_DIR"));
    nd_error err = {0};
    if (nd_run_load(&f->run, run_path, &err)) fail_msg("%s", err.message);
    assert_int_equal(nd_device_table_builtin(&f->table, &err), 0);
    f->a100 = nd_device_table_find(&f->table, "A100");
    if (nd_classified_load(csv_path, &f->round, &err)) fail_msg("%s", err.message);
    nd_compare_inputs in = {&f->run, f->a100, 81920, NULL, ND_PEAK_DEVICE, NULL, true};
    if (nd_compare_round(&in, &f->round, &f->cmp, &err)) fail_msg("%s", err.message);
    f->rows = calloc(f->cmp.count, sizeof *f->rows);
    assert_non_null(f->rows);
    nd_device_fit_rows(&f->cmp, &f->run, 0, f->rows);
}

static void teardown(fixture *f)
{
    free(f->rows);
    nd_compare_free(&f->cmp);
    nd_classified_free(&f->round);
    nd_device_table_free(&f->table);
}

static void recovers_a_known_device(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx);
    const nd_device *a100 = fx.a100;
    nd_compare cmp = fx.cmp;
    nd_error err = {0};
    nd_device truth = *a100;
    truth.host_dispatch_us = 1.4 * a100->host_dispatch_us;
    nd_device_fit_row *rows = fx.rows;
    unsigned seed = 7;
    for (size_t i = 0; i < cmp.count; i++) {
        if (nd_device_fit_price(&truth, &rows[i], &rows[i].time_ms, NULL, &err)) fail_msg("%s", err.message);
        seed = seed * 1103515245u + 12345u;
        rows[i].time_ms *= 1 + ((double)((seed >> 16) % 2001) / 1000.0 - 1.0) * 0.01;
    }

    nd_device_fit_options o;
    nd_device_fit_options_init(&o);
    nd_device_fit_result res;
    if (nd_device_fit(a100, rows, cmp.count, &o, &res, &err)) fail_msg("%s", err.message);
    assert_true(res.fitted_mape < 0.006); /* the noise's mean |e| is 0.5 % */
    assert_true(res.base_mape > 0.05);
    int found = 0;
    for (size_t j = 0; j < res.count; j++) {
        if (strcmp(nd_device_params[res.param[j]].name, "host_dispatch_us")) continue;
        found++;
        double want = truth.host_dispatch_us;
        if (!(res.lo[j] <= want && want <= res.hi[j]) || fabs(res.value[j] / want - 1) > 0.03)
            fail_msg("host_dispatch_us: %g [%g, %g], want %g", res.value[j], res.lo[j], res.hi[j], want);
    }
    assert_int_equal(found, 1);
    /* The fitted device holds the fitted values; fields never fitted keep the base's. */
    assert_true(fabs(res.device.host_dispatch_us / truth.host_dispatch_us - 1) < 0.03);
    assert_true(res.device.peak_tflops == a100->peak_tflops);
    assert_true(find_param("kernel_launch_us") >= 0);
    nd_device_fit_result_free(&res);
    teardown(&fx);
}

/* Rounds with classified parts constrain the matching fields directly: the same strategies
 * on an A100 whose intra-node links reach 0.45 of their bandwidth (built in: 0.69), with
 * the measured MP wait beside the step. With the parts the fit finds 0.45 within 3 %; the
 * step times alone leave it traded against the other fields, further from the truth. */
static void parts_constrain_their_fields(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx);
    const nd_device *a100 = fx.a100;
    nd_compare cmp = fx.cmp;
    nd_error err = {0};
    nd_device truth = *a100;
    truth.intra_efficiency = 0.45;
    nd_device_fit_row *rows = fx.rows;
    double error[2];
    for (int with_parts = 0; with_parts < 2; with_parts++) {
        for (size_t i = 0; i < cmp.count; i++) {
            double parts[ND_FOLDS];
            if (nd_device_fit_price(&truth, &rows[i], &rows[i].time_ms, parts, &err))
                fail_msg("%s", err.message);
            rows[i].measured[ND_FOLD_MP] = parts[ND_FOLD_MP];
            rows[i].has_fold[ND_FOLD_MP] = with_parts;
        }
        nd_device_fit_options o;
        nd_device_fit_options_init(&o);
        nd_device_fit_result res;
        if (nd_device_fit(a100, rows, cmp.count, &o, &res, &err)) fail_msg("%s", err.message);
        error[with_parts] = fabs(res.device.intra_efficiency / 0.45 - 1);
        nd_device_fit_result_free(&res);
    }
    if (!(error[1] < 0.03 && error[1] < error[0]))
        fail_msg("intra_efficiency off by %.3f with the parts, %.3f without", error[1], error[0]);
    teardown(&fx);
}

/* The fixture's rows measured as `truth` prices them, then fitted from `base` (default options). */
static void fit_on_truth(fixture *fx, const nd_device *truth, const nd_device *base,
                         nd_device_fit_result *res)
{
    nd_error err = {0};
    for (size_t i = 0; i < fx->cmp.count; i++)
        if (nd_device_fit_price(truth, &fx->rows[i], &fx->rows[i].time_ms, NULL, &err))
            fail_msg("%s", err.message);
    nd_device_fit_options o;
    nd_device_fit_options_init(&o);
    if (nd_device_fit(base, fx->rows, fx->cmp.count, &o, res, &err)) fail_msg("%s", err.message);
}

/* Steps faster than the device's measured best GEMM rate can reach (an A100 with GEMMs at
 * 1.3 x its measured ceiling of 0.94, impossible: cuBLAS tops out there) cannot lift the
 * fitted rate above the ceiling: gemm_efficiency ends at most 2 % above the base's 0.94. */
static void ceilings_hold(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx);
    const nd_device *a100 = fx.a100;
    nd_device truth = *a100;
    truth.gemm_efficiency = fmin(1.0, 1.3 * a100->gemm_efficiency);
    nd_device_fit_result res;
    fit_on_truth(&fx, &truth, a100, &res);
    assert_true(res.device.gemm_efficiency <= a100->gemm_efficiency * ND_FIT_CEILING_SLACK + 1e-12);
    assert_true(res.device.gemm_efficiency >= a100->gemm_efficiency); /* it did push against it */
    nd_device_fit_result_free(&res);
    teardown(&fx);
}

/* A base whose GEMM curve is the isolated sweeps' and which assumes training sustains 0.8 of it
 * (gemm_training_share, as the built-in Hopper devices do): a round may show more of the sweeps'
 * rate than that, never more than the sweeps. Steps at 1.3 x the sweeps' rate lift the fitted
 * curve above the base's value, to at most its value x 1.02 / 0.8 (its sweeps' rate with the
 * slack), where the A100 above stopped at 1.02. */
static void training_share_leaves_room_to_the_sweeps(void **state)
{
    (void)state;
    fixture fx;
    setup(&fx);
    nd_device base = *fx.a100;
    base.gemm_training_share = 0.8;
    nd_device truth = base;
    truth.gemm_training_share = 0;
    truth.gemm_efficiency = fmin(1.0, 1.3 * base.gemm_efficiency);
    nd_device_fit_result res;
    fit_on_truth(&fx, &truth, &base, &res);
    double fitted = res.device.gemm_efficiency;
    if (!(fitted <= base.gemm_efficiency * ND_FIT_CEILING_SLACK / 0.8 + 1e-12 &&
          fitted > base.gemm_efficiency * ND_FIT_CEILING_SLACK))
        fail_msg("fitted gemm_efficiency %.4f, base %.4f", fitted, base.gemm_efficiency);
    nd_device_fit_result_free(&res);
    teardown(&fx);
}

/* A fitted rate of the best attention kernel carries the others' the base states by the same
 * factor (fit_device.c), and the written file states them so that it reads as the device fitted:
 * H100's FA3 forward 0.64 fitted to 0.48 (x 0.75) writes FA2's 0.35 as 0.2625 and cuDNN's 0.57 as
 * 0.4275, and --device-file reads them back. A file that would read otherwise is refused. */
static void carried_kernel_rates_are_written(void **state)
{
    (void)state;
    nd_device_table t;
    nd_error err = {0};
    assert_int_equal(nd_device_table_builtin(&t, &err), 0);
    const nd_device *h100 = nd_device_table_find(&t, "H100");
    nd_device_fit_result res;
    memset(&res, 0, sizeof res);
    res.device = *h100;
    res.device.attention_fwd_efficiency = 0.48;
    res.device.fa2_fwd_efficiency = 0.35 * 0.75;
    res.device.cudnn_fwd_efficiency = 0.57 * 0.75;
    res.count = 1;
    res.param[0] = (size_t)find_param("attention_fwd_efficiency");
    res.base[0] = 0.64;
    res.value[0] = 0.48;
    res.lo[0] = res.hi[0] = NAN;
    res.models = 1;
    char path[] = "/tmp/nd-test-carried-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    nd_fit_device_context ctx = {"H100-carried", NULL, 0, NULL, NULL, NULL};
    nd_device fitted;
    FILE *sink = fopen("/dev/null", "w");
    assert_int_equal(nd_fit_device_write(path, h100, &res, NULL, &ctx, sink, sink, &fitted, &err), 0);
    nd_device_table back;
    assert_int_equal(nd_device_table_builtin(&back, &err), 0);
    assert_int_equal(nd_device_table_load(&back, path, &err), 0);
    const nd_device *d = nd_device_table_find(&back, "H100-carried");
    assert_non_null(d);
    assert_true(fabs(d->fa2_fwd_efficiency - 0.2625) < 1e-12);
    assert_true(fabs(d->cudnn_fwd_efficiency - 0.4275) < 1e-12);
    assert_true(fabs(d->fa2_bwd_efficiency - 0.30) < 1e-12); /* not moved, not written */
    /* a moved figure the file would not state (no fitted field carries intra_gbps) */
    res.device.intra_gbps = 123;
    assert_int_equal(nd_fit_device_write(path, h100, &res, NULL, &ctx, sink, sink, &fitted, &err), ND_EIO);
    assert_non_null(strstr(err.message, "intra_gbps is not the one fitted"));
    fclose(sink);
    remove(path);
    nd_device_table_free(&back);
    nd_device_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recovers_a_known_device),
        cmocka_unit_test(ceilings_hold),
        cmocka_unit_test(training_share_leaves_room_to_the_sweeps),
        cmocka_unit_test(carried_kernel_rates_are_written),
        cmocka_unit_test(parts_constrain_their_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
