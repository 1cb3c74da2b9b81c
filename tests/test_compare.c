/* The comparison's per-part accuracy: which rows a part's errors count (0.5 % of the row's own
 * step), and MAPE and bias by their definitions over exactly those rows. */
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

#include "nd/calibrate/compare.h"

/* Writes text to a temporary round file and compares it on Llama-3-8B / H100. */
static void compare_text(const char *text, nd_compare *c, nd_classified *round, nd_device_table *table)
{
    char csv[] = "/tmp/nd_test_compare_XXXXXX";
    int fd = mkstemp(csv);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/runs/llama3-8b.yaml", getenv("ND_SOURCE_DIR"));
    static nd_run run;
    nd_error err = {0};
    assert_int_equal(nd_run_load(&run, path, &err), 0);
    assert_int_equal(nd_device_table_builtin(table, &err), 0);
    assert_int_equal(nd_classified_load(csv, round, &err), 0);
    nd_compare_inputs in = {&run, nd_device_table_find(table, "H100"), 81920, NULL, ND_PEAK_DEVICE, NULL,
                            false};
    if (nd_compare_round(&in, round, c, &err)) fail_msg("%s", err.message);
    unlink(csv);
}

static void release(nd_compare *c, nd_classified *round, nd_device_table *table)
{
    nd_compare_free(c);
    nd_classified_free(round);
    nd_device_table_free(table);
}

/* Three rows of Llama 3 8B on 8 H100s, measured dp_wait against step:
 *   MB 1:  step 1000 ms, dp_wait 10 ms   1 % of its step: counted
 *   MB 2:  step 1000 ms, dp_wait 1 ms    0.1 %: left out
 *   MB 8:  step 9000 ms, dp_wait 90 ms   1 %: counted
 * A floor taken from the round's longest step (45 ms) would wrongly drop the first row. */
static void part_floor_is_per_row(void **state)
{
    (void)state;
    nd_compare c;
    nd_classified round;
    nd_device_table table;
    compare_text("DP,MB,time,comp,dp_wait\n8,1,1000,900,10\n8,2,1000,900,1\n8,8,9000,8000,90\n", &c, &round,
                 &table);

    const nd_error_stats *e = &c.fold[ND_FOLD_DP].errors;
    assert_int_equal(e->n, 2);
    double mape = 0, bias = 0;
    for (size_t i = 0; i < c.count; i++) {
        const nd_compare_row *r = &c.rows[i];
        if (r->measured[ND_FOLD_DP] < 0.005 * r->measured[ND_FOLD_TOTAL]) continue;
        double rel = (r->estimated[ND_FOLD_DP] - r->measured[ND_FOLD_DP]) / r->measured[ND_FOLD_DP];
        mape += fabs(rel) / 2;
        bias += rel / 2;
    }
    assert_true(fabs(e->mape - mape) < 1e-12 * (1 + mape));
    assert_true(fabs(e->bias - bias) < 1e-12 * (1 + fabs(bias)));
    assert_int_equal(c.fold[ND_FOLD_TOTAL].errors.n, 3);
    release(&c, &round, &table);
}

/* Three rows of two strategies (DP 8 MB 1 measured twice): a correlation over two strategies
 * is +-1 whatever the estimate, so none is given; the relative errors of the three rows are. */
static void no_correlation_on_two_strategies(void **state)
{
    (void)state;
    nd_compare c;
    nd_classified round;
    nd_device_table table;
    compare_text("DP,MB,time\n8,1,1000\n8,1,1010\n8,2,1500\n", &c, &round, &table);
    assert_true(isnan(c.fold[ND_FOLD_TOTAL].pearson));
    assert_true(isnan(c.fold[ND_FOLD_TOTAL].spearman));
    assert_int_equal(c.fold[ND_FOLD_TOTAL].errors.n, 3);
    release(&c, &round, &table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(part_floor_is_per_row),
        cmocka_unit_test(no_correlation_on_two_strategies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
