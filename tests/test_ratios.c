/* What -c does with a ratios file (search/costmodel/parts.c, ratios.c): the ratios, the
 * fixed costs and a shape's correction applied to the parts, and the 95 % prediction
 * interval from the file's covariance, each against a hand computation. */
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

#include "nd/costmodel/parts.h"
#include "nd/inputs/ratios.h"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) fail_msg("got %.10g, want %.10g (tolerance %g)", got, want, tol);
}

/* COMPUTE 1.2, KERNEL_US 3, STEP_MS 10, and the strategy's shape (MP 2, MBS 4) +0.1:
 * FW 100 -> 100 x (1.2 + 0.1) = 130; DP_REDUCE 50 (not a micro-batch part) stays 50;
 * OVERHEAD 20 -> 20 x (1 + 0.1) + 3 us x 4000 kernels + 10 = 22 + 12 + 10 = 44. */
static void applies_ratios_fixed_costs_and_shape(void **state)
{
    (void)state;
    nd_ratios r;
    nd_ratios_init(&r);
    r.value[ND_RATIO_COMPUTE] = 1.2;
    r.fixed[ND_FIXED_KERNEL] = 3;
    r.fixed[ND_FIXED_STEP] = 10;
    nd_strategy s;
    nd_strategy_init(&s);
    s.tp = 2;
    s.mbs = 4;
    r.shapes = 1;
    nd_shape_key_of(&s, &r.shape[0].key);
    r.shape[0].delta = 0.1;
    double parts[ND_PARTS] = {0};
    parts[ND_PART_FW_COMPUTE] = 100;
    parts[ND_PART_DP_REDUCE] = 50;
    parts[ND_PART_OVERHEAD] = 20;
    nd_ratios_apply(&r, &s, 4000, 3, parts);
    near(parts[ND_PART_FW_COMPUTE], 130, 1e-12);
    near(parts[ND_PART_DP_REDUCE], 50, 1e-12);
    near(parts[ND_PART_OVERHEAD], 44, 1e-12);
    /* Another shape gets the ratios alone. */
    s.mbs = 2;
    double other[ND_PARTS] = {0};
    other[ND_PART_FW_COMPUTE] = 100;
    nd_ratios_apply(&r, &s, 0, 1, other);
    near(other[ND_PART_FW_COMPUTE], 120, 1e-12);
}

/* A file with one term (COMPUTE, variance 0.0004), residual_sd 0.05, t95 2: a step of
 * 1000 ms whose raw compute is 800 ms has half-width 2 x sqrt(800^2 x 0.0004 + (0.05 x
 * 1000)^2) = 2 x sqrt(256 + 2500) = 105.0 ms. */
static void prediction_interval_from_the_file(void **state)
{
    (void)state;
    char path[] = "/tmp/nd_test_ratios_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text =
        "{\"COMPUTE\": 1.25, \"STEP_MS\": 0, \"MEM_ACTIVATIONS\": 1.5, \"_nd\": {\"format\": 1, "
        "\"cost_model\": \"x\", \"uncertainty\": {\"time\": {\"terms\": [[\"COMPUTE\"]], "
        "\"covariance\": [[0.0004]], \"residual_sd\": 0.05, \"dof\": 20, \"t95\": 2}}}}";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    nd_ratios_file f;
    nd_error err = {0};
    /* The cost model "x" is refused after the uncertainty is read: parse it apart. */
    assert_int_equal(nd_ratios_load(path, &f, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "fitted for cost model 'x'"));
    unlink(path);

    nd_ratios r;
    nd_ratios_init(&r);
    r.time.terms = 1;
    r.time.fixed[0] = -1;
    r.time.scales[0] = 1u << ND_RATIO_COMPUTE;
    r.time.cov[0][0] = 0.0004;
    r.time.residual_sd = 0.05;
    r.time.t95 = 2;
    r.time.dof = 20;
    double raw[ND_PARTS] = {0};
    raw[ND_PART_FW_COMPUTE] = 300;
    raw[ND_PART_BW_COMPUTE] = 500;
    raw[ND_PART_DP_REDUCE] = 100;
    nd_strategy s;
    nd_strategy_init(&s);
    near(nd_ratios_step_halfwidth_ms(&r, &s, raw, 0, 1, 1000), 2 * sqrt(256.0 + 2500.0), 1e-9);
    /* Without an uncertainty there is no interval. */
    nd_ratios_init(&r);
    assert_true(isnan(nd_ratios_step_halfwidth_ms(&r, &s, raw, 0, 1, 1000)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_ratios_fixed_costs_and_shape),
        cmocka_unit_test(prediction_interval_from_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
