/* Measured tables as a device's kernels (docs/devices.md §Measured tables): a GEMM sweep, a
 * collectives CSV and nccl-tests' output attached with `kernel_tables:`, read back through the
 * engine. Every expected number is worked by hand from the rows the test writes:
 *   GEMM      a measured shape prices at tflops / peak (500 / 1000 = 0.5; the FP8 row's time of
 *             2 x 8192^3 / 1200e12 s = 916.2597 us gives 1200 / 2000 = 0.6);
 *   collective rows made from t = fixed + nd's ring form at a chosen rate, so the fit must give
 *             them back exactly: an all-reduce of 64 MiB on 8 ranks of a node at 150 GB/s and
 *             20 us takes 20 + 2 x 7/8 x 67108864 / 150e3 = 802.937 us; across 2 nodes of 8 at a
 *             ring rate of 8 x 10 GB/s and 30 us, 30 + 2 x 15/16 x 67108864 / 80e3 = 1602.864 us;
 *             nccl-tests' 2 ranks at 100 GB/s and 10 us, 10 + 67108864 / 100e3 = 681.089 us;
 *   hccl_test an all-gather of 2 ranks prints each NPU's buffer s and the whole operation's
 *             bandwidth 2s / t: rows made at 100 GB/s and 10 us, t = 10 + (1/2) 2s / 100e3, so
 *             the whole 64 MiB (s = 32 MiB) takes 10 + 33554432 / 100e3 = 345.544 us; read as s
 *             alone, the fit would give 10 + 67108864 / 100e3 = 681.089 us. */
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

#include "nd/costmodel/collective.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"
#include "nd/inputs/device_file.h"

static char dir[] = "/tmp/nd_device_tables_XXXXXX";

static const char *file(const char *name, const char *text)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* Rows of one all-reduce measured at `gbps` (the ring's rate) and `fixed_us`. */
static void allreduce_rows(FILE *f, int ranks, int nodes, double gbps, double fixed_us)
{
    for (double bytes = 1048576; bytes <= 1073741824; bytes *= 4) {
        double us = fixed_us + 2 * (ranks - 1.0) / ranks * bytes / (gbps * 1e3);
        fprintf(f, "all_reduce,%d,%d,%.0f,%.6f\n", ranks, nodes, bytes, us);
    }
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir)) return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/coll.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("# synthetic: nd's own ring form at known rates\nop,ranks,nodes,bytes,time_us\n", f);
    allreduce_rows(f, 8, 1, 150, 20);
    allreduce_rows(f, 16, 2, 80, 30);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const nd_device *load(nd_device_table *t, const char *yaml, nd_error *err)
{
    if (nd_device_table_builtin(t, err)) return NULL;
    if (nd_device_table_load(t, file("dev.yaml", yaml), err)) return NULL;
    return nd_device_table_find(t, "LAB");
}

static const char *lab_yaml = "devices:\n"
                              "  LAB:\n"
                              "    base: H100\n"
                              "    kernel_tables: [gemm.csv, coll.csv]\n"
                              "    peak_tflops: 1000   # stated after the tables: their fractions use it\n"
                              "    fp8_tflops: 2000\n"
                              "    devices_per_node: 8\n"
                              "    intra_gbps: 400\n"
                              "    inter_gbps: 25\n";

static void gemm_at_measured_fraction(void **state)
{
    (void)state;
    file("gemm.csv", "precision,m,n,k,tflops,time_us,source\n"
                     "bf16,4096,4096,4096,500,,by hand\n"
                     "fp8,8192,8192,8192,,916.2596898133334,by hand\n");
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d = load(&t, lab_yaml, &err);
    if (!d) fail_msg("%s", err.message);
    assert_non_null(d->tables);
    double e =
        nd_kernel_tables_gemm(d->tables, ND_GEMM_16BIT, ND_PASS_FORWARD, 4096, 4096, 4096, 0.9, NULL, NULL);
    assert_true(fabs(e - 0.5) < 1e-12);
    e = nd_kernel_tables_gemm(d->tables, ND_GEMM_FP8, ND_PASS_WEIGHT_GRAD, 8192, 8192, 8192, 0.9, NULL, NULL);
    assert_true(fabs(e - 0.6) < 1e-9);
    /* far from every measured shape: the curve's own figure */
    e = nd_kernel_tables_gemm(d->tables, ND_GEMM_16BIT, ND_PASS_FORWARD, 64, 64, 64, 0.123, NULL, NULL);
    assert_true(e == 0.123);
    nd_device_table_free(&t);
}

static void collectives_fitted_back(void **state)
{
    (void)state;
    file("gemm.csv", "m,n,k,tflops\n4096,4096,4096,500\n");
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d = load(&t, lab_yaml, &err);
    if (!d) fail_msg("%s", err.message);
    double intra_us = 1e3 * nd_collective_ms(d, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 67108864);
    double inter_us = 1e3 * nd_collective_ms(d, ND_COLL_ALL_REDUCE, (nd_group){16, 1}, 67108864);
    assert_true(fabs(intra_us - 802.9367466666666) < 1e-6 * 802.94);
    assert_true(fabs(inter_us - 1602.864) < 1e-6 * 1602.9);
    /* an operation the tables do not hold keeps the device's own figures */
    nd_device plain = *d;
    plain.tables = NULL;
    assert_true(nd_collective_ms(d, ND_COLL_ALL_GATHER, (nd_group){8, 1}, 67108864) ==
                nd_collective_ms(&plain, ND_COLL_ALL_GATHER, (nd_group){8, 1}, 67108864));
    nd_device_table_free(&t);
}

static void nccl_tests_output(void **state)
{
    (void)state;
    char text[8192];
    size_t used =
        (size_t)snprintf(text, sizeof text,
                         "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 4(factor)\n"
                         "#\n# Using devices\n"
                         "#  Rank  0 Group  0 Pid  101 on     node-a device  0 [0x18] NVIDIA H100\n"
                         "#  Rank  1 Group  0 Pid  102 on     node-a device  1 [0x2a] NVIDIA H100\n"
                         "#\n#       size         count      type   redop    root     time   algbw   "
                         "busbw #wrong     time   algbw   busbw #wrong\n"
                         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
                         "            (us)  (GB/s)  (GB/s)\n");
    for (double bytes = 1048576; bytes <= 1073741824; bytes *= 4) {
        double us = 10 + bytes / 100e3;
        used += (size_t)snprintf(
            text + used, sizeof text - used,
            "%12.0f %13.0f     float     sum      -1 %8.2f   0.00   0.00      0 %8.2f   0.00 "
            "  0.00      0\n",
            bytes, bytes / 4, us, us);
    }
    snprintf(text + used, sizeof text - used, "# Avg bus bandwidth    : 80.5\n#\n");
    file("all_reduce_perf.txt", text);
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d =
        load(&t, "devices:\n  LAB:\n    base: H100\n    kernel_tables: all_reduce_perf.txt\n", &err);
    if (!d) fail_msg("%s", err.message);
    double us = 1e3 * nd_collective_ms(d, ND_COLL_ALL_REDUCE, (nd_group){2, 1}, 67108864);
    /* the rows carry two decimals of a microsecond (2.4e-4 of the smallest): the fit holds to 1e-4 */
    if (fabs(us - 681.08864) >= 1e-4 * 681.09) fail_msg("%.4f us", us);
    nd_device_table_free(&t);
}

/* hccl_test's output (CANN tools/hccl_test): the mpirun line gives the group, the binary the
 * operation, every rank prints its row (the slowest counts), NULL is an unchecked row. */
static void hccl_test_output(void **state)
{
    (void)state;
    char text[8192];
    size_t used = (size_t)snprintf(text, sizeof text,
                                   "$ mpirun -n 2 ./bin/all_gather_test -b 1M -e 1G -f 4 -p 2\n"
                                   "the minbytes is 1048576, maxbytes is 1073741824, iters is 20, "
                                   "warmup_iters is 5\n"
                                   "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
                                   "check_result:\n");
    for (double s = 1048576; s <= 1073741824; s *= 4) {
        double us = 10 + s / 100e3;
        used += (size_t)snprintf(text + used, sizeof text - used, "%.0f | %.2f | %.5f | NULL\n", s, us,
                                 2 * s / us / 1e3);
        used += (size_t)snprintf(text + used, sizeof text - used, "%.0f | %.2f | %.5f | success\n", s, us - 1,
                                 2 * s / (us - 1) / 1e3); /* the other rank, faster */
    }
    file("hccl_all_gather.log", text);
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d =
        load(&t, "devices:\n  LAB:\n    base: A2\n    kernel_tables: hccl_all_gather.log\n", &err);
    if (!d) fail_msg("%s", err.message);
    double us = 1e3 * nd_collective_ms(d, ND_COLL_ALL_GATHER, (nd_group){2, 1}, 67108864);
    if (fabs(us - 345.54432) >= 1e-4 * 345.5) fail_msg("%.4f us", us);
    nd_device_table_free(&t);
    /* without its command line the group is unknown; a failed check is no measurement */
    file("hccl_bare.log", "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
                          "8192 | 30.00 | 0.27307 | success\n");
    assert_null(load(&t, "devices:\n  LAB:\n    base: A2\n    kernel_tables: hccl_bare.log\n", &err));
    assert_non_null(strstr(err.message, "hccl_bare.log:1: hccl_test output without its command"));
    nd_device_table_free(&t);
    file("hccl_failed.log", "mpirun -np 8 all_reduce_test -p 8\n"
                            "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
                            "8192 | 30.00 | 0.27307 | failed\n");
    assert_null(load(&t, "devices:\n  LAB:\n    base: A2\n    kernel_tables: hccl_failed.log\n", &err));
    assert_non_null(strstr(err.message, "hccl_failed.log:3: check_result 'failed'"));
    nd_device_table_free(&t);
}

/* nd-classify's --kernels CSV of a profiled step (written by nd-classify from
 * tests/data/classify/kernel_shapes.json): the aten::mm row of 4096 x 4096 x 8192 at 269.488
 * TFLOP/s becomes a GEMM point at 269.488 / 1000 of LAB's peak; the class and attention rows are
 * passed over. */
static void kernels_csv_of_a_round(void **state)
{
    (void)state;
    file(
        "kernels.csv",
        "section,name,class,calls,kernel_ms,step_share,exposed_ms,overlapped_ms,mib,algbw_gbps,busbw_gbps,op,"
        "dtype,batch,m,n,k,heads,seq_q,seq_kv,head_dim,ms_per_call,gflop_per_call,tflops\n"
        "class,gemm,gemm,,1.020,0.102,,,,,,,,,,,,,,,,,,\n"
        "shape,aten::mm bf16 M=4096 N=4096 K=8192,gemm,1,1.020,0.102,,,,,,aten::mm,bf16,1,4096,4096,8192,,,,,"
        "1.020,274.878,269.488\n"
        "shape,attention fwd bf16 B=2 H=16 S=4096 Sk=4096 D=128,attention_fwd,1,0.500,0.05,,,,,,attention "
        "fwd,bf16,2,,,,16,4096,4096,128,0.500,274.878,549.756\n");
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d = load(&t,
                              "devices:\n  LAB:\n    base: H100\n    peak_tflops: 1000\n"
                              "    kernel_tables: kernels.csv\n",
                              &err);
    if (!d) fail_msg("%s", err.message);
    assert_int_equal(d->tables->gemm_count, 1);
    assert_int_equal(d->tables->attention_count, 0);
    double e = nd_kernel_tables_gemm(d->tables, ND_GEMM_16BIT, ND_PASS_INPUT_GRAD, 4096, 4096, 8192, 0.9,
                                     NULL, NULL);
    assert_true(fabs(e - 0.269488) < 1e-12);
    nd_device_table_free(&t);
}

/* The same from an Ascend kernel_details.csv (nd-classify's --kernels of
 * tests/data/classify/ascend_shapes, by hand there): the MatMul of 4096 x 6144 x 2048 at
 * 206.158 TFLOP/s becomes a GEMM point at 206.158 / 1000 of LAB's peak; the GroupedMatmul of
 * 16 experts over 8192 rows (512 each) x 768 x 2048 at 257.698 a grouped point; the
 * BatchMatMul row (unfused attention, as aten::bmm) is passed over. */
static void kernels_csv_of_an_ascend_round(void **state)
{
    (void)state;
    file(
        "npu_kernels.csv",
        "section,name,class,calls,kernel_ms,step_share,exposed_ms,overlapped_ms,mib,algbw_gbps,busbw_gbps,op,"
        "dtype,batch,m,n,k,heads,seq_q,seq_kv,head_dim,ms_per_call,gflop_per_call,tflops\n"
        "shape,MatMul bf16 M=4096 N=6144 K=2048,gemm,1,0.500,0.166113,,,,,,MatMul,bf16,1,4096,6144,2048,,,,,"
        "0.500,103.079,206.158\n"
        "shape,GroupedMatmul bf16 B=16 M=8192 N=768 K=2048,grouped_gemm,1,0.100,0.0332226,,,,,,GroupedMatmul,"
        "bf16,16,8192,768,2048,,,,,0.100,25.7698,257.698\n"
        "shape,BatchMatMul fp16 B=12 M=1024 N=512 K=1024,gemm,2,0.0922,0.000178376,,,,,,BatchMatMul,fp16,12,"
        "1024,512,1024,,,,,0.0461,12.8849,279.499\n");
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d = load(&t,
                              "devices:\n  LAB:\n    base: A2\n    peak_tflops: 1000\n"
                              "    kernel_tables: npu_kernels.csv\n",
                              &err);
    if (!d) fail_msg("%s", err.message);
    assert_int_equal(d->tables->gemm_count, 1);
    assert_int_equal(d->tables->grouped_count, 1);
    double e =
        nd_kernel_tables_gemm(d->tables, ND_GEMM_16BIT, ND_PASS_FORWARD, 4096, 6144, 2048, 0.9, NULL, NULL);
    assert_true(fabs(e - 0.206158) < 1e-12);
    e = nd_kernel_tables_grouped(d->tables, ND_GEMM_16BIT, ND_PASS_FORWARD, 16, 512, 768, 2048, 0.9, NULL,
                                 NULL);
    assert_true(fabs(e - 0.257698) < 1e-12);
    nd_device_table_free(&t);
}

static void refused(const char *name, const char *text, const char *want)
{
    file(name, text);
    char yaml[256];
    snprintf(yaml, sizeof yaml, "devices:\n  LAB:\n    base: H100\n    kernel_tables: %s\n", name);
    nd_device_table t;
    nd_error err = {0};
    const nd_device *d = load(&t, yaml, &err);
    if (d || !strstr(err.message, want)) fail_msg("%s: wanted '%s', got '%s'", name, want, err.message);
    assert_non_null(strstr(err.message, "field 'kernel_tables'"));
    nd_device_table_free(&t);
}

static void bad_tables_refused(void **state)
{
    (void)state;
    /* H100's 16-bit peak is 989.4 TFLOP/s: 5000 is a unit slip */
    refused("over.csv", "m,n,k,tflops\n4096,4096,4096,5000\n", "over.csv:2: column 'tflops'");
    refused("what.csv", "a,b,c\n1,2,3\n", "what.csv:1: not a kernel table nd reads");
    refused("wide.csv", "op,ranks,bytes,time_us\nall_reduce,16,1048576,50\n",
            "wide.csv:2: 16 ranks a node, more than the device's devices_per_node (8)");
    refused("coll.txt", "# nThread 1 nGpus 1\n#  Rank  0 Group  0 Pid 1 on a device 0\n",
            "names no operation");
    refused("prec.csv", "precision,m,n,k,tflops\nint4,1,1,1,1\n", "prec.csv:2: column 'precision'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_at_measured_fraction), cmocka_unit_test(collectives_fitted_back),
        cmocka_unit_test(nccl_tests_output),         cmocka_unit_test(hccl_test_output),
        cmocka_unit_test(kernels_csv_of_a_round),    cmocka_unit_test(kernels_csv_of_an_ascend_round),
        cmocka_unit_test(bad_tables_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
