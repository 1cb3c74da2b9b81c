/* Tests of nd_classify. Where the expected numbers come from is said per test:
 * ND's two worked tests (docs/reference/nd-calibration.md §3.3 and §3.4, printed digits),
 * or a hand derivation from a small trace written here. */
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

#include "nd/classify/classify.h"
#include "nd/base/io.h"

static char *source_path(const char *rel)
{
    const char *root = getenv("ND_SOURCE_DIR"); /* set by CTest; else where it was built from */
    return nd_path_join(root ? root : ND_TEST_SOURCE_DIR, rel);
}

static nd_classify_run *classify(const char *path, const char *dims, nd_classify_view view, int skip,
                                 nd_error *err)
{
    nd_classify_options o;
    nd_classify_options_init(&o);
    if (dims) {
        assert_int_equal(nd_classify_dims_parse(dims, &o.dims, err), 0);
        o.has_dims = true;
    }
    o.view = view;
    o.skip_steps = skip;
    nd_classify_run *run = nd_classify_run_alloc(&o);
    assert_non_null(run);
    int rc = nd_classify_run_add(run, path, err);
    if (!rc) rc = nd_classify_run_finish(run, err);
    if (rc) {
        nd_classify_run_free(run);
        return NULL;
    }
    return run;
}

static const nd_classify_site *site(const nd_classify_sample *s, nd_classify_quantity col, const char *label)
{
    for (size_t i = 0; i < s->n_sites; i++)
        if (s->sites[i].column == col && !strcmp(s->sites[i].label, label)) return &s->sites[i];
    fail_msg("no site %s / %s", nd_classify_quantity_name(col), label);
    return NULL;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* ND's test_trace_classify.py (docs/reference/nd-calibration.md §3.3): expected ms fw 0.1, bw 0.17, rec 0,
 * opt 0.05, other 0.02; op 0.05, dp 0.086, mp 0.01, sp 0.004, ep 0.02, cp 0.008,
 * pp 0.01, unclassified 0.009; idle = 1 - 0.34 - 0.197; sites: gather 1 call, 0 waits,
 * 32 B; reduce-scatter 1 call, 1 wait, 32 B, 0.07 ms; unclassified 2 calls, 24 B.
 * The fixture rank2.pt.trace.json is built from the event list printed there. */
static void nd_worked_chrome(void **state)
{
    (void)state;
    nd_error err = {0};
    char *path = source_path("tests/data/classify/rank2.pt.trace.json");
    nd_classify_run *run = classify(path, "DP=2,MP=1", ND_VIEW_AUTO, 0, &err);
    assert_non_null(run);
    assert_int_equal(run->n_samples, 1);
    const nd_classify_sample *s = &run->samples[0];
    assert_int_equal(s->rank, 2); /* "rank2" in the file name, as ND */
    NEAR(s->q[ND_CQ_TIME], 1.0);
    NEAR(s->q[ND_CQ_COMP_FW], 0.1);
    NEAR(s->q[ND_CQ_COMP_BW], 0.17);
    NEAR(s->q[ND_CQ_COMP_REC], 0);
    NEAR(s->q[ND_CQ_COMP_OPT], 0.05);
    NEAR(s->q[ND_CQ_COMP_OTHER], 0.02);
    NEAR(s->q[ND_CQ_COMP], 0.34);
    NEAR(s->q[ND_CQ_OP_WAIT], 0.05);
    NEAR(s->q[ND_CQ_DP_WAIT], 0.086);
    NEAR(s->q[ND_CQ_MP_WAIT], 0.01);
    NEAR(s->q[ND_CQ_SP_WAIT], 0.004);
    NEAR(s->q[ND_CQ_EP_WAIT], 0.02);
    NEAR(s->q[ND_CQ_CP_WAIT], 0.008);
    NEAR(s->q[ND_CQ_PP_WAIT], 0.01);
    NEAR(s->q[ND_CQ_UNCLASSIFIED], 0.009);
    NEAR(s->q[ND_CQ_IDLE], 1 - 0.34 - 0.197);
    NEAR(s->q[ND_CQ_OPTIMIZER], 0.05);
    const nd_classify_site *g = site(s, ND_CQ_OP_WAIT, "fsdp param all-gather");
    NEAR(g->calls, 1);
    NEAR(g->waits, 0);
    NEAR(g->bytes, 32);
    const nd_classify_site *rs = site(s, ND_CQ_DP_WAIT, "fsdp grad reduce-scatter");
    NEAR(rs->calls, 1);
    NEAR(rs->waits, 1);
    NEAR(rs->bytes, 32);
    NEAR(rs->ms, 0.07);
    const nd_classify_site *u = site(s, ND_CQ_UNCLASSIFIED, "unclassified");
    NEAR(u->calls, 2);
    NEAR(u->bytes, 24);
    /* "Via the CSV: comp 0.34, IDLE = 1 - 0.34 - 0.188, DP 0.136, MP 0.014": ND's
     * compare folds op into DP and sp into MP and puts unclassified into IDLE. */
    const double *q = s->q;
    NEAR(q[ND_CQ_DP_WAIT] + q[ND_CQ_OP_WAIT], 0.136);
    NEAR(q[ND_CQ_MP_WAIT] + q[ND_CQ_SP_WAIT], 0.014);
    double waits = 0;
    for (int c = ND_CQ_DP_WAIT; c <= ND_CQ_SP_WAIT; c++) waits += q[c];
    NEAR(waits, 0.188);
    for (int k = 0; k < ND_CQ_COUNT; k++) assert_int_equal(s->view[k], ND_VIEW_HOST);
    nd_classify_run_free(run);
    free(path);
}

/* ND's Ascend worked test (docs/reference/nd-calibration.md §3.4): the verbatim step_trace_time.csv and a
 * communication.json built from its description. Expected: time 1000, unsplit compute
 * 200, op_wait 40, ep_wait 40 (100 ms elapse scaled by 0.8), idle 720, gather site
 * calls 2, payload 200 MiB, wait 32 ms; all-to-all payload 100 MiB. */
static void nd_worked_ascend(void **state)
{
    (void)state;
    nd_error err = {0};
    char *path = source_path("tests/data/classify/ascend_worked");
    nd_classify_run *run = classify(path, "DP=8", ND_VIEW_AUTO, 0, &err);
    assert_non_null(run);
    assert_int_equal(run->n_samples, 1);
    const nd_classify_sample *s = &run->samples[0];
    NEAR(s->q[ND_CQ_TIME], 1000);
    NEAR(s->q[ND_CQ_COMP_UNSPLIT], 200);
    NEAR(s->q[ND_CQ_OP_WAIT], 40);
    NEAR(s->q[ND_CQ_EP_WAIT], 40);
    NEAR(s->q[ND_CQ_IDLE], 720);
    const nd_classify_site *g = site(s, ND_CQ_OP_WAIT, "fsdp all-gather");
    NEAR(g->calls, 2);
    NEAR(g->bytes, 200.0 * 1048576);
    NEAR(g->wait_ms, 32);
    NEAR(site(s, ND_CQ_EP_WAIT, "expert all-to-all")->bytes, 100.0 * 1048576);
    assert_int_equal(s->view[ND_CQ_EP_WAIT], ND_VIEW_ASCEND);
    assert_string_equal(s->step, "step1");
    /* A note says "Total Op Info" was skipped. */
    bool noted = false;
    for (size_t i = 0; i < run->notes.n; i++) noted |= strstr(run->notes.items[i], "Total Op Info") != NULL;
    assert_true(noted);
    nd_classify_run_free(run);
    free(path);
}

static void dims_parsing(void **state)
{
    (void)state;
    nd_classify_dims d;
    nd_error err = {0};
    assert_int_equal(nd_classify_dims_parse(" dp=04 , TP=4,,PP=2,MB=16", &d, &err), 0);
    assert_int_equal(d.count, 4);
    assert_int_equal(d.dim[0], ND_DIM_DP);
    assert_int_equal(d.value[0], 4);       /* "04" normalised, as ND's parser does */
    assert_int_equal(d.dim[1], ND_DIM_MP); /* TP is written as MP */
    assert_int_equal(nd_classify_dims_get(&d, ND_DIM_CP), 1);
    assert_int_equal(nd_classify_dims_parse("DP=8,SP=1", &d, &err), ND_EUSAGE);
    assert_non_null(strstr(err.message, "SP is refused"));
    assert_int_equal(nd_classify_dims_parse("XX=8", &d, &err), ND_EUSAGE);
    assert_non_null(strstr(err.message, "accepted"));
    assert_int_equal(nd_classify_dims_parse("DP=2.5", &d, &err), ND_EUSAGE);
    assert_int_equal(nd_classify_dims_parse("DP=2,DP=4", &d, &err), ND_EUSAGE);
    assert_int_equal(nd_classify_dims_parse("DP", &d, &err), ND_EUSAGE);
    char *h = nd_classify_csv_header(&(nd_classify_dims){0}, true);
    assert_string_equal(h, "time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait");
    free(h);
}

/* Writes text to a new temporary file; the caller unlinks and frees the name. */
static char *temp_file(const char *suffix, const char *text)
{
    char tmpl[] = "/tmp/nd_classify_test_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    close(fd);
    unlink(tmpl);
    size_t n = strlen(tmpl) + strlen(suffix) + 1;
    char *path = malloc(n);
    snprintf(path, n, "%s%s", tmpl, suffix);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Device view, by hand: step [0, 200) us; a compute kernel [0, 100); an all-reduce
 * kernel [50, 150) on group ranks [0, 2]. Exposed communication = [100, 150) = 0.05 ms;
 * compute 0.1 ms; idle 0.05 ms. With DP=2,MP=2 the rank order puts [0, 2] in DP (stride
 * MP = 2) and [0, 1] in MP. The step's events are written out of order (parent after
 * child, step last), as torch_npu does, to exercise the reorder window. */
static const char device_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm80_gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":"
    "100},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":"
    "0,"
    "\"tid\":9,\"ts\":50,\"dur\":100,\"args\":{\"Collective name\":\"allreduce\",\"Process Group "
    "Name\":\"3\",\"Process Group Ranks\":\"[0, 2]\",\"Group size\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL\",\"pid\":0,"
    "\"tid\":9,\"ts\":160,\"dur\":10,\"args\":{\"Collective name\":\"allgather\",\"Process Group "
    "Name\":\"4\",\"Process Group Ranks\":\"[0, 1]\",\"Group size\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":\"10.000\","
    "\"dur\":\"20\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":\"0\","
    "\"dur\":\"200\"},\n";

static void device_view(void **state)
{
    (void)state;
    nd_error err = {0};
    char *path = temp_file("_rank0.json", device_trace); /* bare array, no closing ']' */
    nd_classify_run *run = classify(path, "DP=2,MP=2", ND_VIEW_AUTO, 0, &err);
    assert_non_null(run);
    const nd_classify_sample *s = &run->samples[0];
    NEAR(s->q[ND_CQ_TIME], 0.2);
    NEAR(s->q[ND_CQ_COMP], 0.1);
    NEAR(s->q[ND_CQ_DP_WAIT], 0.05);
    NEAR(s->q[ND_CQ_MP_WAIT], 0.01);
    NEAR(s->q[ND_CQ_IDLE], 0.04);
    assert_int_equal(s->view[ND_CQ_DP_WAIT], ND_VIEW_DEVICE);
    assert_int_equal(s->view[ND_CQ_TIME], ND_VIEW_HOST);
    site(s, ND_CQ_DP_WAIT, "all-reduce pg 3 (DP)");
    nd_classify_run_free(run);
    /* The host view of the same trace: the mm op is the only compute. */
    run = classify(path, "DP=2,MP=2", ND_VIEW_HOST, 0, &err);
    assert_non_null(run);
    NEAR(run->samples[0].q[ND_CQ_COMP], 0.02);
    NEAR(run->samples[0].q[ND_CQ_DP_WAIT], 0);
    nd_classify_run_free(run);
    unlink(path);
    free(path);
}

/* Three steps of 10, 2 and 4 ms on one rank; --skip-steps 1 keeps 2 and 4:
 * mean 3, median 3, min 2, max 4; without skipping the median is 4. */
static void warmup_and_statistics(void **state)
{
    (void)state;
    nd_error err = {0};
    char *path = temp_file(".json", "{\"traceEvents\":[\n"
                                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                                    "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10000},\n"
                                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\","
                                    "\"pid\":1,\"tid\":1,\"ts\":10000,\"dur\":2000},\n"
                                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\","
                                    "\"pid\":1,\"tid\":1,\"ts\":12000,\"dur\":4000}]}\n");
    nd_classify_run *run = classify(path, NULL, ND_VIEW_AUTO, 1, &err);
    assert_non_null(run);
    const nd_classify_stats *t = &run->summary.q[ND_CQ_TIME];
    NEAR(t->mean, 3);
    NEAR(t->median, 3);
    NEAR(t->min, 2);
    NEAR(t->max, 4);
    assert_int_equal(run->summary.n_samples, 2);
    assert_int_equal(run->summary.n_dropped, 1);
    nd_classify_run_free(run);
    run = classify(path, NULL, ND_VIEW_AUTO, 0, &err);
    NEAR(run->summary.q[ND_CQ_TIME].median, 4);
    NEAR(run->summary.slowest_mean_ms, 16.0 / 3);
    nd_classify_run_free(run);
    assert_null(classify(path, NULL, ND_VIEW_AUTO, 3, &err));
    assert_non_null(strstr(err.message, "--skip-steps 3 drops every step"));
    unlink(path);
    free(path);
}

/* The round file: created with the header, appended to; columns matched by name (the
 * order of --dims does not matter, a new dimension is added beside the others and the
 * earlier rows get a blank there); a BOM and CRLF line ends in an existing file are kept;
 * a file whose last record is malformed is refused and left byte for byte as it was. */
static void round_file(void **state)
{
    (void)state;
    nd_error err = {0};
    char *trace = source_path("tests/data/classify/rank2.pt.trace.json");
    nd_classify_run *run = classify(trace, "DP=2,TP=1", ND_VIEW_AUTO, 0, &err);
    char *round = temp_file(".csv", "");
    unlink(round);
    assert_int_equal(nd_classify_csv_write(run, round, false, &err), 0);
    assert_int_equal(nd_classify_csv_write(run, round, false, &err), 0);
    char *data;
    assert_int_equal(nd_read_file(round, 1 << 20, &data, NULL, &err), 0);
    const char *row = "2,1,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004,0.463,0.009,0.050\n";
    char expect[1024];
    snprintf(expect, sizeof expect,
             "DP,MP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait,idle,"
             "unclassified,optimizer\n%s%s",
             row, row);
    assert_string_equal(data, expect);
    free(data);
    /* ND's columns only, dims in another order plus PP: matched by name, PP added */
    nd_classify_run *other = classify(trace, "PP=1,TP=1,DP=2", ND_VIEW_AUTO, 0, &err);
    assert_int_equal(nd_classify_csv_write(other, round, true, &err), 0);
    assert_int_equal(nd_read_file(round, 1 << 20, &data, NULL, &err), 0);
    assert_string_equal(data,
                        "DP,MP,PP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,sp_wait,idle,"
                        "unclassified,optimizer\n"
                        "2,1,,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004,0.463,0.009,0.050\n"
                        "2,1,,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004,0.463,0.009,0.050\n"
                        "2,1,1,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004,,,\n");
    free(data);
    nd_classify_run_free(other);
    unlink(round);
    char *crlf = temp_file(".csv", "\xEF\xBB\xBF"
                                   "DP,MP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,"
                                   "pp_wait,op_wait,sp_wait\r\n");
    assert_int_equal(nd_classify_csv_write(run, crlf, true, &err), 0);
    assert_int_equal(nd_read_file(crlf, 1 << 20, &data, NULL, &err), 0);
    assert_string_equal(data, "\xEF\xBB\xBF"
                              "DP,MP,time,comp,dp_wait,mp_wait,ep_wait,cp_wait,pp_wait,op_wait,"
                              "sp_wait\r\n2,1,1.000,0.340,0.086,0.010,0.020,0.008,0.010,0.050,0.004\r\n");
    free(data);
    unlink(crlf);
    /* an unterminated quote on the last line: refused, the file untouched */
    const char *broken = "DP,MP,time\n2,1,1.0\n\"2,1,1.0\n";
    char *bad = temp_file(".csv", broken);
    assert_int_equal(nd_classify_csv_write(run, bad, false, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":3: a quoted field is never closed"));
    assert_int_equal(nd_read_file(bad, 1 << 20, &data, NULL, &err), 0);
    assert_string_equal(data, broken);
    free(data);
    unlink(bad);
    free(bad);
    free(crlf);
    free(round);
    free(trace);
    nd_classify_run_free(run);
}

typedef struct bad_case {
    const char *path, *message;
} bad_case;

static void bad_inputs(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"tests/bad/classify/empty.json", "empty file"},
        {"tests/bad/classify/not_json.json", "byte 1: not valid JSON"},
        {"tests/bad/classify/truncated.json", "truncated"},
        {"tests/bad/classify/trace_events_object.json", "'traceEvents' is an object"},
        {"tests/bad/classify/ts_object.json", "'ts' is an object"},
        {"tests/bad/classify/top_number.json", "the top level is a number"},
        {"tests/bad/classify/no_trace_events.json", "no \"traceEvents\" array"},
        {"tests/bad/classify/no_step_trace", "without step_trace_time.csv"},
        {"tests/bad/classify/missing_columns", ":1: missing column(s) Communication, Stage, Bubble"},
        {"tests/bad/classify/bad_communication", "'Elapse Time(ms)' is missing or not a number"},
        {"tests/bad/classify/truncated_communication", "communication.json: not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_error err = {0};
        char *path = source_path(cases[i].path);
        nd_classify_run *run = classify(path, "DP=8", ND_VIEW_AUTO, 0, &err);
        if (run || !strstr(err.message, cases[i].message))
            fail_msg("%s: got '%s'", cases[i].path, err.message);
        assert_int_equal(nd_exit_status(err.code), 2);
        free(path);
    }
}

/* MTIA's trace: events up to 73,116 events out of order (the first reorder window held
 * 65,535). By hand: one 200 ms step; 100,000 top-level cpu_ops of 1 us at 1 + 2i us, the
 * first written after the 73,116 that follow it in time (it arrives 73,116 events late);
 * host compute = 100,000 x 1 us = 100 ms, idle 100 ms. */
static void far_out_of_order(void **state)
{
    (void)state;
    enum { OPS = 100000, LATE = 73116 };
    char tmpl[] = "/tmp/nd_classify_late_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
          "\"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 200000}",
          f);
    for (int k = 1; k <= OPS; k++) {
        int i = k <= LATE ? k : k == LATE + 1 ? 0 : k - 1; /* op 0 after ops 1..LATE */
        fprintf(f,
                ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %d, \"dur\": 1}",
                1 + 2 * i);
    }
    fputs("]}\n", f);
    fclose(f);
    nd_error err = {0};
    nd_classify_run *run = classify(tmpl, NULL, ND_VIEW_AUTO, 0, &err);
    if (!run) fail_msg("%s", err.message);
    NEAR(run->samples[0].q[ND_CQ_TIME], 200);
    NEAR(run->samples[0].q[ND_CQ_COMP], 100);
    NEAR(run->samples[0].q[ND_CQ_IDLE], 100);
    nd_classify_run_free(run);
    unlink(tmpl);
}

/* Kernels ordered by the heap and the ring of the reorder window together: a device
 * stream written backwards (every kernel before the previous one), 2,000 kernels of 1 us
 * at 10 us apart: each goes to the heap; compute 2 ms whatever the order, as written in
 * order. */
static void reorder_backwards(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/nd_classify_back_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
          "\"tid\": 1, \"ts\": 0, \"dur\": 30000}",
          f);
    for (int i = 2000; i-- > 0;)
        fprintf(f,
                ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
                "\"ts\": %d, \"dur\": 1}",
                5 + 10 * i);
    fputs("]\n", f);
    fclose(f);
    nd_error err = {0};
    nd_classify_run *run = classify(tmpl, NULL, ND_VIEW_AUTO, 0, &err);
    if (!run) fail_msg("%s", err.message);
    NEAR(run->samples[0].q[ND_CQ_COMP], 2);
    assert_int_equal(run->samples[0].view[ND_CQ_COMP], ND_VIEW_DEVICE);
    nd_classify_run_free(run);
    unlink(tmpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(far_out_of_order),
        cmocka_unit_test(reorder_backwards),
        cmocka_unit_test(nd_worked_chrome),
        cmocka_unit_test(nd_worked_ascend),
        cmocka_unit_test(dims_parsing),
        cmocka_unit_test(device_view),
        cmocka_unit_test(warmup_and_statistics),
        cmocka_unit_test(round_file),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
