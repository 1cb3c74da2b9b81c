/* Measured kernel tables as a device: SimuMax's B200 system file read as nd prices it, checked
 * against the file's own numbers and SimuMax's formulas worked by hand (docs/devices.md
 * §SimuMax system files):
 *   GEMM      t = max(2MNK / (2250e12 e), bytes / (8000 x 2^30 x 0.666) + 30 us), e the
 *             measured efficiency of the shape, else matmul's efficient_factor;
 *   attention e_nd = e_SimuMax / 2 (SimuMax counts full, nd causal FLOPs);
 *   collective t = S scale (n + offset)/n / (gbps 2^30 eff) + (n + offset) scale latency + fixed(n).
 * The interpolation between measured shapes is checked on a two-point table by hand. */
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

#include "kernels.h"
#include "nd/costmodel/collective.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"
#include "nd/inputs/device_file.h"

#define GIB 1073741824.0

static nd_device_table table;
static const nd_device *sm;

static char *source_path(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", getenv("ND_SOURCE_DIR"), rel);
    return path;
}

static int setup(void **state)
{
    (void)state;
    nd_error err = {0};
    if (nd_device_table_builtin(&table, &err)) return -1;
    if (nd_device_table_load(&table, source_path("samples/devices/simumax/b200_bf16_ceperm.json"), &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    sm = nd_device_table_find(&table, "b200_bf16_ceperm");
    return sm ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    nd_device_table_free(&table);
    return 0;
}

static void close_to(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) fail_msg("got %.9g, want %.9g", got, want);
}

/* The roofline SimuMax prices a table GEMM on: 16-bit inputs and output. */
static double simumax_gemm_ms(double m, double n, double k, double e)
{
    double compute = 2 * m * n * k / (2250e12 * e) * 1e3;
    double memory = 2 * (m * k + k * n + m * n) / (8000 * GIB * 0.666) * 1e3 + 0.030;
    return compute > memory ? compute : memory;
}

static void device_takes_the_files_figures(void **state)
{
    (void)state;
    assert_string_equal(sm->name, "b200_bf16_ceperm");
    assert_non_null(sm->tables);
    close_to(sm->peak_tflops, 2250, 1e-12);
    close_to(sm->gemm_efficiency, 0.48780765792034037, 1e-12); /* matmul.efficient_factor */
    close_to(sm->attention_fwd_efficiency, 0.7059717796465379 / 2, 1e-12);
    close_to(sm->hbm_gbps, 8000 * GIB / 1e9, 1e-12);
    assert_int_equal(sm->devices_per_node, 8);
    close_to(sm->hbm_gib, 80, 1e-12); /* mem_gbs, as the file states it */
    /* what the file does not state comes from the chip it names: B200's host figures */
    const nd_device *b200 = nd_device_table_find(&table, "B200");
    close_to(sm->host_dispatch_us, b200->host_dispatch_us, 1e-12);
    /* 514 GEMMs less the 82 bf16-accumulation weight gradients whose fp32 twin is measured */
    assert_true(sm->tables->gemm_count <= 514 && sm->tables->gemm_count >= 432);
    assert_int_equal(sm->tables->grouped_count, 108);
    assert_int_equal(sm->tables->attention_count, 2 * 19); /* of 2 x 32: qkv_contiguous=True only */
}

/* The file's first three rows: an 8192 -> 10240 linear layer over 4096 tokens, its forward
 * (TN 0.64516), input gradient (NN 0.49804) and weight gradient (NT fp32 0.59795). */
static void measured_gemms_at_their_rates(void **state)
{
    (void)state;
    double T = 4096, in = 8192, out = 10240;
    close_to(nd_linear_ms(sm, ND_GEMM_16BIT, ND_PASS_FORWARD, T, in, out, 2),
             simumax_gemm_ms(T, out, in, 0.6451614102335537), 1e-9);
    close_to(nd_linear_ms(sm, ND_GEMM_16BIT, ND_PASS_INPUT_GRAD, T, in, out, 2),
             simumax_gemm_ms(T, in, out, 0.49804462256915516), 1e-9);
    close_to(nd_linear_ms(sm, ND_GEMM_16BIT, ND_PASS_WEIGHT_GRAD, T, in, out, 2),
             simumax_gemm_ms(in, out, T, 0.5979461534906494), 1e-9);
    /* far from every measured shape: the file's default efficiency (SimuMax's miss) */
    close_to(nd_linear_ms(sm, ND_GEMM_16BIT, ND_PASS_FORWARD, 1 << 20, 300, 70000, 2),
             simumax_gemm_ms(1 << 20, 70000, 300, 0.48780765792034037), 1e-9);
    /* a tiny GEMM sits on the 30 us floor of the memory roofline */
    close_to(nd_linear_ms(sm, ND_GEMM_16BIT, ND_PASS_FORWARD, 64, 64, 64, 2),
             simumax_gemm_ms(64, 64, 64, 0.4878), 1e-3);
}

/* Llama-3-70B-like attention at TP 8 (8 heads, 1 KV head per rank): the file's sdp_fwd row
 * "batch=1, seq_len=4096, head_num=8, kv_head_num=1, ..." if present, else its default; nd's
 * rate is half SimuMax's factor on nd's causal FLOPs, so the time is the same as SimuMax's. */
static void attention_at_half_the_factor(void **state)
{
    (void)state;
    double b = 1, s = 4096, h = 64, kv = 8, d = 128;
    nd_attention_shape shape = {b, h, kv, d, d};
    double causal = 2 * b * s * s * h * (d + d) * 0.5, full = 4 * b * h * d * s * s;
    /* "batch=1, seq_len=4096, head_num=64, kv_head_num=8, qk_head_dim=128, v_head_dim=128,
     * qkv_contiguous=True": 0.8715233665672911 forward, 0.7294011330486614 backward */
    close_to(nd_attention_ms(sm, causal, s / 2, false, ND_ATTN_RATES_BEST, &shape),
             full / (2250e12 * 0.8715233665672911) * 1e3, 1e-9);
    close_to(nd_attention_ms(sm, 2.5 * causal, s / 2, true, ND_ATTN_RATES_BEST, &shape),
             2.5 * full / (2250e12 * 0.7294011330486614) * 1e3, 1e-9);
}

/* SimuMax's formula on 64 MiB over 8 NVLink ranks: all-reduce moves 2 x 7/8 of it at
 * 900 GiB/s x 0.7424, 2 x 7 steps of 5.5183 us and 22.2316 us fixed: 0.2632 ms. All-to-all
 * of 2 ranks pays the fixed cost of its group size, 51.0578 us. */
static void collectives_per_operation(void **state)
{
    (void)state;
    double S = 64 * 1048576.0;
    double ar = 2 * S * 7 / 8 / (900 * GIB * 0.7424) * 1e3 + (2 * 7 * 5.5183 + 22.2316) / 1e3;
    close_to(nd_collective_ms(sm, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, S), ar, 1e-9);
    close_to(ar, 0.2632, 1e-3);
    double a2a = S / 2 / (900 * GIB * 0.5968) * 1e3 + (7.3039 + 51.0578) / 1e3;
    close_to(nd_collective_ms(sm, ND_COLL_ALL_TO_ALL, (nd_group){2, 1}, S), a2a, 1e-9);
    /* p2p: its bytes at 1.4517 of the link, one latency */
    close_to(nd_collective_ms(sm, ND_COLL_P2P, (nd_group){2, 1}, S),
             S / (900 * GIB * 1.4517) * 1e3 + 16.0668 / 1e3, 1e-9);
}

/* Memory-bound operators at their class's measured rate plus 30 us each: the fused cross
 * entropy at 0.2795 of 8000 GiB/s. */
static void memory_operators_by_class(void **state)
{
    (void)state;
    double bytes = 1e9;
    close_to(nd_memop_ms(sm, ND_MEMOP_CROSS_ENTROPY_FUSED, bytes),
             bytes / (8000 * GIB * 0.2795145022199592) * 1e3 + 0.030, 1e-9);
    close_to(nd_memop_ms(sm, ND_MEMOP_DEFAULT, bytes), bytes / (8000 * GIB * 0.666) * 1e3 + 0.030, 1e-9);
    assert_true(nd_memop_ms(sm, ND_MEMOP_DEFAULT, 0) == 0);
}

/* Between two measured shapes, (1000, 1000, 1000) at 0.4 and (4000, 1000, 1000) at 0.6 on a
 * flat curve of 0.5: the query (2000, 1000, 1000) is ln 2 from each, so their log ratios
 * weigh alike: 0.5 x exp((ln 0.8 + ln 1.2) / 2) = 0.5 x sqrt(0.96). Beyond the measured
 * range by more than a quarter, the curve. */
static double flat(const void *ctx, const double *shape)
{
    (void)ctx;
    (void)shape;
    return 0.5;
}

static void interpolates_between_measured_shapes(void **state)
{
    (void)state;
    nd_kernel_tables *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->gemm = calloc(2, sizeof *t->gemm);
    assert_non_null(t->gemm);
    t->gemm[0] = (nd_gemm_point){1000, 1000, 1000, 0.4, ND_PASS_FORWARD, ND_GEMM_16BIT, {0}};
    t->gemm[1] = (nd_gemm_point){4000, 1000, 1000, 0.6, ND_PASS_FORWARD, ND_GEMM_16BIT, {0}};
    t->gemm_count = 2;
    assert_int_equal(nd_kernel_tables_index(t), 0);
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_16BIT, ND_PASS_FORWARD, 2000, 1000, 1000, 0.5, flat, NULL),
             0.5 * sqrt(0.96), 1e-12);
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_16BIT, ND_PASS_FORWARD, 4000, 1000, 1000, 0.5, flat, NULL), 0.6,
             1e-12);
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_16BIT, ND_PASS_FORWARD, 6000, 1000, 1000, 0.5, flat, NULL), 0.5,
             1e-12);
    /* another pass, another precision: nothing measured */
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_16BIT, ND_PASS_INPUT_GRAD, 4000, 1000, 1000, 0.5, flat, NULL),
             0.5, 1e-12);
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_FP8, ND_PASS_FORWARD, 4000, 1000, 1000, 0.5, flat, NULL), 0.5,
             1e-12);
    /* asked again, the memo answers the same */
    close_to(nd_kernel_tables_gemm(t, ND_GEMM_16BIT, ND_PASS_FORWARD, 2000, 1000, 1000, 0.5, flat, NULL),
             0.5 * sqrt(0.96), 1e-12);
    nd_kernel_tables_free(t);
}

/* Tables beside another device's curves: a YAML device with `base: B200` and `kernel_tables:`
 * prices a measured shape at its rate and any other on B200's own curve. */
static void tables_beside_a_builtin_curve(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd_tables_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char yaml[4200];
    snprintf(yaml, sizeof yaml, "%s/dev.yaml", dir);
    FILE *f = fopen(yaml, "w");
    assert_non_null(f);
    fprintf(f, "devices:\n  MYB200:\n    base: B200\n    kernel_tables: %s\n",
            source_path("samples/devices/simumax/b200_bf16_ceperm.json"));
    fclose(f);
    nd_error err = {0};
    assert_int_equal(nd_device_table_load(&table, yaml, &err), 0);
    const nd_device *mine = nd_device_table_find(&table, "MYB200");
    const nd_device *b200 = nd_device_table_find(&table, "B200");
    assert_non_null(mine);
    close_to(nd_linear_ms(mine, ND_GEMM_16BIT, ND_PASS_FORWARD, 4096, 8192, 10240, 2),
             simumax_gemm_ms(4096, 10240, 8192, 0.6451614102335537), 1e-9);
    double odd = nd_linear_ms(mine, ND_GEMM_16BIT, ND_PASS_FORWARD, 1 << 20, 300, 70000, 2);
    double curve = nd_linear_ms(b200, ND_GEMM_16BIT, ND_PASS_FORWARD, 1 << 20, 300, 70000, 2);
    close_to(odd,
             fmax(curve, nd_memop_ms(mine, ND_MEMOP_DEFAULT,
                                     2.0 * ((1 << 20) * 300.0 + 300.0 * 70000 + (1 << 20) * 70000.0))),
             1e-9);
    remove(yaml);
    rmdir(dir);
}

/* SimuMax's first system files (its configs/system/a100_bf16.json) state accelerator.bandwidth
 * flat, one class: it is the default class, which SimuMax's compute_mem_access_time also uses for
 * every class the file does not name. By hand, 1e9 bytes at 2039 GiB/s x 0.7 plus its 40 us. */
#define NET(name, gbps)                                                                                      \
    "\"" name "\": {\"processor_usage\": 0, \"bandwidth\": {\"efficient_factor\": 0.7, \"gbps\": " #gbps     \
    ", \"latency_us\": 40}, \"op\": {\"all_reduce\": {\"scale\": 2, \"offset\": -1}}}"
static void flat_bandwidth_is_the_default_class(void **state)
{
    (void)state;
    static const char text[] =
        "{\"sys_name\": \"a100_bf16\", \"num_per_node\": 8, \"accelerator\": {\"backend\": \"cuda\", "
        "\"mem_gbs\": 80, \"op\": {\"default\": {\"tflops\": 312, \"efficient_factor\": 0.75}, "
        "\"matmul\": {\"tflops\": 312, \"efficient_factor\": 0.75}}, \"bandwidth\": "
        "{\"efficient_factor\": 0.7, \"gbps\": 2039, \"latency_us\": 40}, \"mode\": \"roofline\"}, "
        "\"networks\": {" NET("low_intra_node", 300) ", " NET("high_intra_node", 300) ", " NET("inter_node",
                                                                                               25) "}}";
    char path[] = "/tmp/nd_simumax_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    nd_error err = {0};
    if (nd_device_table_load(&table, path, &err)) fail_msg("%s", err.message);
    remove(path);
    const nd_device *a = nd_device_table_find(&table, "a100_bf16");
    assert_non_null(a);
    double want = 1e9 / (2039 * GIB * 0.7) * 1e3 + 0.040;
    close_to(nd_memop_ms(a, ND_MEMOP_DEFAULT, 1e9), want, 1e-9);
    close_to(nd_memop_ms(a, ND_MEMOP_CROSS_ENTROPY, 1e9), want, 1e-9);
    close_to(a->hbm_gbps, 2039 * GIB / 1e9, 1e-12);
}

/* Bad files: one line naming file, line and key. */
static void refuses_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{\"num_per_node\": 8}", "'sys_name' must be a string"},
        {"{\"sys_name\": \"b200_x\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 2250, \"efficient_factor\": -0.5}}}}",
         "'efficient_factor' must lie in"},
        {"{\"sys_name\": \"b200_x\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 2250, \"efficient_factor\": 0.5, \"accurate_efficient_factor\": "
         "{\"b=1, m=2, k=2, n=2, layout=XY\": 0.5}}}}}",
         "has a layout other than TN, NN or NT"},
        /* a batch that is no whole number was read as 1: refused as m= is */
        {"{\"sys_name\": \"b200_x\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 2250, \"efficient_factor\": 0.5, \"accurate_efficient_factor\": "
         "{\"b=abc, m=2, k=2, n=2, layout=TN\": 0.5}}}}}",
         "'b=abc, m=2, k=2, n=2, layout=TN' has a batch b= that is not a whole number"},
        {"{\"sys_name\": \"b200_x\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 2250, \"efficient_factor\": 0.5, \"accurate_efficient_factor\": "
         "{\"b=0, m=2, k=2, n=2, layout=TN\": 0.5}}}}}",
         "'b=0, m=2, k=2, n=2, layout=TN' has a batch b= that is not a whole number"},
        {"{\"sys_name\": \"b200_x\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 2250, \"efficient_factor\": 0.5, \"accurate_efficient_factor\": "
         "{\"b=1e400, m=2, k=2, n=2, layout=TN\": 0.5}}}}}",
         "'b=1e400, m=2, k=2, n=2, layout=TN' has a batch b= that is not a whole number"},
        {"{\"sys_name\": \"zz9\", \"num_per_node\": 8, \"accelerator\": {\"op\": {\"matmul\": "
         "{\"tflops\": 7, \"efficient_factor\": 0.5}}}}",
         "names no known chip"},
        {"{\"sys_name\": \"b200_x\",\n \"num_per_node\": 8, \"accelerator\": {\"mem_gbs\": 80, "
         "\"op\": {\"matmul\": {\"tflops\": 2250, \"efficient_factor\": 0.5}}, \"bandwidth\": "
         "{\"default\": {\"gbps\": 8000, \"efficient_factor\": 0.6}}}, "
         "\"networks\": {\"intra_with_pcie\": true}}",
         ":2: networks: 'intra_with_pcie' is true"},
    };
    char path[] = "/tmp/nd_simumax_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(cases[i].text, f);
        fclose(f);
        nd_error err = {0};
        int before = table.count;
        assert_int_equal(nd_device_table_load(&table, path, &err), ND_EINPUT);
        if (!strstr(err.message, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].want);
        assert_non_null(strstr(err.message, path));
        assert_int_equal(table.count, before);
    }
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_takes_the_files_figures),
        cmocka_unit_test(measured_gemms_at_their_rates),
        cmocka_unit_test(attention_at_half_the_factor),
        cmocka_unit_test(collectives_per_operation),
        cmocka_unit_test(memory_operators_by_class),
        cmocka_unit_test(interpolates_between_measured_shapes),
        cmocka_unit_test(tables_beside_a_builtin_curve),
        cmocka_unit_test(flat_bandwidth_is_the_default_class),
        cmocka_unit_test(refuses_bad_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
