/* The classified CSV reader: ND's format and nd's additions, and a line-and-column message
 * for every kind of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/calibrate/classified.h"

static char dir[] = "/tmp/nd_test_classified_XXXXXX";

static const char *write_csv(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ND's test sample (docs/reference/nd-calibration.md §2.2): IDLE = 10 - (5+1+1+1+1+1+0.5+0.25) = -0.75. */
static void nd_sample_idle(void **state)
{
    (void)state;
    const char *p =
        write_csv("nd.csv", "DP,MP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait\n"
                            "1,1,10,5,1,1,1,1,1,0.5,0.25\n2,1,20,8,2,2,2,2,2,0.5,0.25\n");
    nd_classified c;
    nd_error err = {0};
    assert_int_equal(nd_classified_load(p, &c, &err), 0);
    assert_int_equal(c.count, 2);
    assert_true(fabs(nd_classified_idle_ms(&c.rows[0]) + 0.75) < 1e-12);
    assert_true(c.rows[0].measured[ND_MEAS_PP_WAIT] == 1);
    assert_int_equal(c.rows[1].degree[ND_DIM_DP], 2);
    assert_int_equal(c.rows[1].line, 3);
    nd_classified_free(&c);
}

static void nd_additions(void **state)
{
    (void)state;
    /* BOM, CRLF, spaces, TP for MP, blank optional cells, idle/unclassified, per-row extras. */
    const char *p =
        write_csv("plus.csv", "\xEF\xBB\xBF DP , TP ,recompute, time "
                              ",comp,dp_wait,idle,unclassified,devices,gbs,seq_len,peak_mib,step_trainer\r\n"
                              "8, 4 ,selective,100,70, 10 ,15,5,32,64,4096,60000,\r\n"
                              "8,,,120,80,,20,,,,,,110\r\n");
    nd_classified c;
    nd_error err = {0};
    int rc = nd_classified_load(p, &c, &err);
    if (rc) fail_msg("%s", err.message);
    assert_int_equal(c.count, 2);
    assert_true(c.dims & ND_DIM_BIT(ND_DIM_MP));
    assert_int_equal(c.rows[0].degree[ND_DIM_MP], 4);
    assert_true(c.rows[0].has_recompute);
    assert_int_equal(c.rows[0].recompute, ND_RECOMPUTE_SELECTIVE);
    assert_int_equal(c.rows[0].devices, 32);
    assert_int_equal(c.rows[0].seq_len, 4096);
    assert_true(c.rows[0].peak_mib == 60000);
    assert_true(isnan(c.rows[0].step_trainer_ms));
    /* Blank cells: the MP of row 2 is not stated, its dp_wait absent. */
    assert_false(c.rows[1].dims & ND_DIM_BIT(ND_DIM_MP));
    assert_false(c.rows[1].has[ND_MEAS_DP_WAIT]);
    assert_true(c.rows[1].step_trainer_ms == 110);
    /* ND's IDLE includes unclassified communication. */
    assert_true(nd_classified_idle_ms(&c.rows[0]) == 20);
    char label[96];
    nd_classified_label(&c, &c.rows[0], label, sizeof label);
    assert_string_equal(label, "DP 8 MP 4 recompute=selective");
    nd_classified_free(&c);
}

static void expect_error(const char *name, const char *text, const char *message)
{
    const char *p = write_csv(name, text);
    nd_classified c;
    nd_error err = {0};
    assert_int_equal(nd_classified_load(p, &c, &err), ND_EINPUT);
    if (!strstr(err.message, message)) fail_msg("message '%s' lacks '%s'", err.message, message);
}

static void bad_input_names_line_and_column(void **state)
{
    (void)state;
    expect_error("nan.csv", "DP,time,dp_wait\n8,100,1\n8,100,abc\n",
                 "nan.csv:3: column 'dp_wait': 'abc' is not a number");
    expect_error("unknown.csv", "DP,time,colour\n8,100,red\n",
                 "unknown.csv:1: column 'colour' is not one nd reads (accepted: DP");
    expect_error("dup.csv", "DP,MP,TP,time\n8,1,1,100\n", "dup.csv:1: column 'TP' repeats column 'MP'");
    expect_error("ragged.csv", "DP,time\n8,100\n8,100,5\n",
                 "ragged.csv:3: the row has 3 cells, the header 2");
    expect_error("notime.csv", "DP,comp\n8,100\n", "no 'time' column");
    expect_error("blank.csv", "DP,time\n8,\n", "blank.csv:2: column 'time': the measured step is blank");
    expect_error("auto.csv", "DP,recompute,time\n8,auto,100\n", "the row ran one mode");
    expect_error("mode.csv", "DP,recompute,time\n8,swap,100\n", "'swap' is not a recompute mode");
    expect_error("neg.csv", "DP,time,comp\n8,100,-5\n", "neg.csv:2: column 'comp': '-5' is negative");
    expect_error("zero.csv", "DP,time\n0,100\n", "zero.csv:2: column 'DP': '0' is not a whole number");
    expect_error("inf.csv", "DP,time\n8,inf\n", "column 'time': 'inf' is not a number");
    expect_error("empty.csv", "", "is empty");
    expect_error("header.csv", "DP,time\n", "a header but no rows");
    expect_error("quote.csv", "DP,time\n8,\"100\n", "quote.csv:2: a quoted field is never closed");
    /* The open quote is on line 4, after a complete record and a blank line. */
    expect_error("quote4.csv", "DP,time\n8,100\n\n8,\"100\n8,200\n",
                 "quote4.csv:4: a quoted field is never closed");
    expect_error("sp.csv", "DP,SP,time\n8,maybe,100\n", "column 'SP': 'maybe'");
    /* Multi-line quoted cells keep later line numbers right. */
    expect_error("lines.csv", "DP,recompute,time\n8,\"off\",100\n\n8,off,x\n",
                 "lines.csv:4: column 'time': 'x'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nd_sample_idle),
        cmocka_unit_test(nd_additions),
        cmocka_unit_test(bad_input_names_line_and_column),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
