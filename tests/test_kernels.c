/* Kernel times. The equations are checked on a device of round numbers built here; then
 * the built-in devices are checked against the measured GEMM tables their curves were
 * fitted to (samples/devices/gemm/: OpenXLA's measured matmul tables, Azure's cuBLASLt
 * sweeps, S. Bekman's MAMF results), so a change to a built-in curve that no longer
 * reproduces its measurements fails here. Expected values are worked out by hand in the
 * comments (docs/cost-model.md §Compute kernels). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "kernels.h"
#include "nd/base/array.h"

/* 100 TFLOP/s 16-bit at e = 0.5 without a shape penalty, FP8 200 TFLOP/s at 0.5, a 2 us fixed
 * GEMM time, 1,000 GB/s of HBM reached fully; grouped GEMMs at half a dense one's efficiency;
 * attention forward at 0.5 of peak, halving at 1,000 keys. */
static nd_device round_device(void)
{
    nd_device d;
    memset(&d, 0, sizeof d);
    d.peak_tflops = 100;
    d.fp8_tflops = 200;
    d.fp32_tflops = 10;
    d.gemm_efficiency = 0.5;
    d.gemm_half_dim = 0;
    d.gemm_fixed_us = 2;
    d.fp8_gemm_efficiency = 0.5;
    d.fp8_gemm_half_dim = 0;
    d.grouped_gemm_efficiency = 0.5;
    d.grouped_wgrad_efficiency = 0.25;
    d.attention_fwd_efficiency = 0.5;
    d.attention_bwd_efficiency = 0.25;
    d.attention_half_seq = 1000;
    d.hbm_gbps = 1000;
    d.hbm_efficiency = 1;
    return d;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-9 + 1e-9 * fabs(want)) fail_msg("got %.9f ms, want %.9f ms", got, want);
}

static void gemm_is_fixed_time_plus_roofline(void **state)
{
    (void)state;
    nd_device d = round_device();
    /* 1000^3 in 16-bit: 2e9 FLOP at 100e12 x 0.5 = 40 us; moving 3 x 1e6 x 2 bytes takes
     * 6 us: compute-bound, 40 + 2 us. */
    near(nd_gemm_ms(&d, ND_GEMM_16BIT, 1000, 1000, 1000, 2), 0.042);
    /* With a half dimension of 1000 every side halves it: e = 0.5 x 0.5^3, 320 + 2 us. */
    d.gemm_half_dim = 1000;
    near(nd_gemm_ms(&d, ND_GEMM_16BIT, 1000, 1000, 1000, 2), 0.322);
    d.gemm_half_dim = 0;
    /* 10000 x 10000 x 16: 3.2e9 FLOP = 64 us, but the 1e8-element output alone is 200 MB:
     * 2 x (160000 + 160000 + 1e8) bytes / 1e12 = 200.64 us: memory-bound. */
    near(nd_gemm_ms(&d, ND_GEMM_16BIT, 10000, 10000, 16, 2), 0.20264);
    /* FP8: inputs of one byte, a 16-bit output: 2e9 FLOP at 200e12 x 0.5 = 20 us against
     * (1e6 + 1e6) + 2 x 1e6 bytes = 4 us. */
    near(nd_gemm_ms(&d, ND_GEMM_FP8, 1000, 1000, 1000, 2), 0.022);
    /* FP32 without TF32 runs at the FP32 peak: 2e9 / (10e12 x 0.5) = 400 us. */
    near(nd_gemm_ms(&d, ND_GEMM_FP32, 1000, 1000, 1000, 4), 0.402);
    near(nd_gemm_peak_tflops(&d, ND_GEMM_TF32), 10); /* no TF32: FP32 */
}

static void grouped_gemm(void **state)
{
    (void)state;
    nd_device d = round_device();
    /* Four experts of 250 x 1000 x 1000 in one kernel: 4 x 5e8 FLOP at 100e12 x 0.5 x 0.5
     * = 80 us, one fixed time; the weight gradient at 0.25 x 0.5: 160 us. */
    near(nd_grouped_gemm_ms(&d, ND_GEMM_16BIT, 4, 250, 1000, 1000, 2, false), 0.082);
    near(nd_grouped_gemm_ms(&d, ND_GEMM_16BIT, 4, 1000, 1000, 250, 2, true), 0.162);
}

static void attention_forward_and_backward(void **state)
{
    (void)state;
    nd_device d = round_device();
    /* 1e12 FLOP on 1000 keys: 0.5 x 1000 / 2000 = 0.25 of peak, 40 ms; backward at half. */
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_BEST, NULL), 40);
    near(nd_attention_ms(&d, 1e12, 1000, true, ND_ATTN_RATES_BEST, NULL), 80);
    /* Long sequences approach the device's efficiency: 9000 keys give 0.45, 22.2 ms. */
    near(nd_attention_ms(&d, 1e12, 9000, false, ND_ATTN_RATES_BEST, NULL), 1e12 / (100e12 * 0.45) * 1e3);
    /* A stack on FlashAttention-2 runs at the device's FA2 efficiency where it has one:
     * 0.25 x 0.5 = 0.125 of peak, 80 ms forward; 0.125 x 0.5, 160 ms backward. */
    d.fa2_fwd_efficiency = 0.25;
    d.fa2_bwd_efficiency = 0.125;
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_FA2, NULL), 80);
    near(nd_attention_ms(&d, 1e12, 1000, true, ND_ATTN_RATES_FA2, NULL), 160);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_BEST, NULL), 40);
    /* The 2023 Triton kernel runs FA2's rates slower by the FA2 paper's factors (§4.1: 1.3-1.5x
     * forward, midpoint 1.4; 2x backward): 80 x 1.4 = 112 ms forward, 160 x 2 = 320 ms backward. */
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_TRITON, NULL), 112);
    near(nd_attention_ms(&d, 1e12, 1000, true, ND_ATTN_RATES_TRITON, NULL), 320);
    /* Without one (0), FA2 runs at the device's fused-attention efficiency, Triton slower
     * than that: 40 ms and 40 x 1.4 = 56 ms forward. */
    d.fa2_fwd_efficiency = 0;
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_FA2, NULL), 40);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_TRITON, NULL), 56);
    /* cuDNN's kernel at the device's cuDNN rate where it states one: 0.4 x 0.5 = 0.2 of peak,
     * 50 ms; without one, the best kernel's 40 ms. */
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_CUDNN, NULL), 40);
    d.cudnn_fwd_efficiency = 0.4;
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_CUDNN, NULL), 50);
    /* A share of 0.8 of the isolated rates in training: 50 / 0.8 = 62.5 ms for cuDNN, 40 / 0.8 =
     * 50 ms for FA2 (at the best kernel's rate here); the Triton kernel's rates are training's
     * own already, 56 ms. */
    d.attention_training_share = 0.8;
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_CUDNN, NULL), 62.5);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_FA2, NULL), 50);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_TRITON, NULL), 56);
}

/* The head dimension a kernel computes with (kernels.c): MPT-30B's 112 runs as 128 in the 2023
 * Triton kernel (next power of two) and in FlashAttention-2 (next multiple of 32), 128 / 112 of
 * the work; 80 runs as 128 in Triton, 96 in FA2; FA2 and Triton take one head dimension for Q,
 * K and V, so MLA's 192 / 128 runs as 192 / 192, 384 / 320 of the work; the best kernel and
 * cuDNN's run the dimensions as they are. The curve without a shape (NULL) is unpadded. */
static void head_dimension_padding(void **state)
{
    (void)state;
    nd_device d = round_device(); /* 40 ms forward for 1e12 FLOP on 1000 keys, every kernel */
    nd_attention_shape mpt30b = {1, 64, 64, 112, 112}, odd = {1, 32, 32, 80, 80},
                       mla = {1, 128, 128, 192, 128};
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_TRITON, &mpt30b), 56 * 128 / 112.0);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_FA2, &mpt30b), 40 * 128 / 112.0);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_BEST, &mpt30b), 40);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_CUDNN, &mpt30b), 40);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_TRITON, &odd), 56 * 128 / 80.0);
    near(nd_attention_ms(&d, 1e12, 1000, false, ND_ATTN_RATES_FA2, &odd), 40 * 96 / 80.0);
    near(nd_attention_ms(&d, 1e12, 1000, true, ND_ATTN_RATES_FA2, &mla), 80 * 384 / 320.0);
    near(nd_attention_ms(&d, 1e12, 1000, true, ND_ATTN_RATES_CUDNN, &mla), 80);
}

/* Overlapped communication: its excess over the window, plus 18.9 % of what it hides (the
 * compute it runs beside slows; arXiv:2507.03114): 10 ms behind 4 ms of compute cost
 * 6 + 0.189 x 4 ms, 3 ms behind 4 ms cost 0.189 x 3; without overlap all 10. */
static void overlap_slows_compute(void **state)
{
    (void)state;
    near(nd_overlapped_ms(10, true, 4), 6 + 0.189 * 4);
    near(nd_overlapped_ms(3, true, 4), 0.189 * 3);
    near(nd_overlapped_ms(10, false, 4), 10);
}

/* Mean absolute error of a built-in device's curve over the rows of one precision of a
 * measured table. The table's TFLOP/s is 2mnk / time with time taken back to back, so it
 * includes the launch every kernel pays: nd's GEMM time plus kernel_launch_us. MAMF rows (an
 * isolated search's best shape) are not points of the curve but its ceiling: the curve must
 * not price them faster than measured (*above counts those it does). An isolated sweep is
 * checked against the curve as fitted, before the device's in-training share. */
static double table_error(const char *device, const char *file, const char *precision, int *rows, int *above)
{
    nd_device_table t;
    nd_error err = {0};
    assert_int_equal(nd_device_table_builtin(&t, &err), 0);
    nd_device curve = *nd_device_table_find(&t, device), *d = &curve;
    curve.gemm_training_share = 0;
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/samples/devices/gemm/%s", getenv("ND_SOURCE_DIR"), file);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    nd_gemm_precision p = !strcmp(precision, "fp8") ? ND_GEMM_FP8 : ND_GEMM_16BIT;
    double sum = 0;
    *rows = *above = 0;
    bool batched = false; /* a batch column after the precision: batch x m rows (nd's reader) */
    while (fgets(line, sizeof line, f)) {
        char prec[16], source[64] = "";
        double m, n, k, tflops, batch = 1;
        if (!strncmp(line, "precision,", 10)) batched = !strncmp(line + 10, "batch,", 6);
        int got_fields =
            batched
                ? sscanf(line, "%15[^,],%lf,%lf,%lf,%lf,%lf,%63s", prec, &batch, &m, &n, &k, &tflops, source)
                : sscanf(line, "%15[^,],%lf,%lf,%lf,%lf,%63s", prec, &m, &n, &k, &tflops, source);
        got_fields -= batched;
        if (got_fields < 5) continue;
        m *= batch;
        if (strcmp(prec, precision)) continue;
        double measured_ms = 2 * m * n * k / (tflops * 1e12) * 1e3;
        double got = nd_gemm_ms(d, p, m, n, k, 2) + d->kernel_launch_us / 1e3;
        if (!strncmp(source, "MAMF", 4)) {
            *above += got < measured_ms * (1 - 1e-9);
            continue;
        }
        sum += fabs(got / measured_ms - 1);
        (*rows)++;
    }
    fclose(f);
    nd_device_table_free(&t);
    return *rows ? sum / *rows : 1;
}

static void builtin_curves_reproduce_their_gemm_tables(void **state)
{
    (void)state;
    static const struct {
        const char *device, *file, *precision;
        double limit;
        int min_rows;
    } cases[] = {
        {"H100", "h100.csv", "bf16", 0.10, 40}, /* XLA sm_90: 45 shapes 256..4096, MAMF */
        {"H100", "h100.csv", "fp8", 0.10, 8},   /* Azure cuBLASLt cubes, MAMF */
        /* in training (SimuMax's DGX B200): the shapes its runs use, at in-training rates */
        {"B200", "b200-training.csv", "bf16", 0.12, 400},
        /* in training (msprof-analyze's advisor sample, a 910B): FP16 GEMMs of a GPT step */
        {"A2", "a2-training.csv", "fp16", 0.03, 13},
        {"A100", "a100.csv", "bf16", 0.12, 8}, /* Azure cuBLASLt FP16 cubes, MAMF */
        {"H200", "h200.csv", "fp8", 0.12, 8},
        /* DeepGEMM's block-scaled FP8 kernels carry ~2.5 us of fixed time where nd charges the
         * 6 us cuBLAS's take on Hopper: its M = 64 and 128 rows come out slow. */
        {"H800", "h800.csv", "fp8", 0.25, 15},
    };
    /* Hopper in training: the curve's rate times the assumed share 0.78 (device_builtin.c), so a
     * large GEMM (fixed costs a few us of 11 ms) takes 1 / 0.78 of the sweep's time. */
    nd_device_table t;
    nd_error err = {0};
    assert_int_equal(nd_device_table_builtin(&t, &err), 0);
    nd_device h100 = *nd_device_table_find(&t, "H100"), sweep_h100 = h100;
    sweep_h100.gemm_training_share = 0;
    double big = 16384;
    double ratio = nd_gemm_ms(&h100, ND_GEMM_16BIT, big, big, big, 2) /
                   nd_gemm_ms(&sweep_h100, ND_GEMM_16BIT, big, big, big, 2);
    assert_true(fabs(ratio - 1 / 0.78) < 1e-3 * ratio);
    nd_device_table_free(&t);
    /* The isolated sweeps of B200 are its upper bound: the in-training curve never above them. */
    int rows, above;
    double sweep = table_error("B200", "b200.csv", "bf16", &rows, &above);
    assert_true(above == 0 && rows >= 25 && sweep > 0.2);
    for (size_t i = 0; i < ND_ARRAY_LEN(cases); i++) {
        double e = table_error(cases[i].device, cases[i].file, cases[i].precision, &rows, &above);
        if (above)
            fail_msg("%s %s: priced above %d measured best (MAMF) shapes", cases[i].device,
                     cases[i].precision, above);
        if (rows < cases[i].min_rows) fail_msg("%s %s: %d rows", cases[i].device, cases[i].precision, rows);
        if (e > cases[i].limit)
            fail_msg("%s %s: mean error %.1f %% over %d measured GEMMs", cases[i].device, cases[i].precision,
                     100 * e, rows);
    }
}

/* Memory-bound classes on a device's own bandwidth shares: norms, softmaxes and the loss at
 * norm_hbm_efficiency, activations and rotary at activation_hbm_efficiency, the rest (and
 * either class whose share is 0) at hbm_efficiency. 1 GB at 1000 GB/s: 1 ms at 1, so 2.5 ms
 * at 0.4, 1.25 at 0.8, 2 at 0.5. */
static void memory_classes_at_their_shares(void **state)
{
    (void)state;
    nd_device d = round_device();
    d.hbm_gbps = 1000;
    d.hbm_efficiency = 0.8;
    near(nd_memop_ms(&d, ND_MEMOP_NORM, 1e9), 1.25);
    d.norm_hbm_efficiency = 0.4;
    d.activation_hbm_efficiency = 0.5;
    near(nd_memop_ms(&d, ND_MEMOP_NORM, 1e9), 2.5);
    near(nd_memop_ms(&d, ND_MEMOP_CROSS_ENTROPY, 1e9), 2.5);
    near(nd_memop_ms(&d, ND_MEMOP_CROSS_ENTROPY_FUSED, 1e9), 2.5);
    near(nd_memop_ms(&d, ND_MEMOP_ACTIVATION, 1e9), 2);
    near(nd_memop_ms(&d, ND_MEMOP_DEFAULT, 1e9), 1.25);
    near(nd_memop_ms(&d, ND_MEMOP_OPTIMIZER, 1e9), 1.25);
    d.activation_hbm_efficiency = 0;
    near(nd_memop_ms(&d, ND_MEMOP_ACTIVATION, 1e9), 1.25);
}

/* The built-in A2's attention against the FlashAttentionScore tasks it was taken from
 * (msprof-analyze's compute-advice sample, a 20-core 910B of 313 TFLOP/s, by hand from
 * tests/data/shared/traces/ascend_mstt/kernel_details__compute_advice_data.csv): B 2, 4 heads
 * of 128, 4096 queries over 4096 keys, every block computed, 4 x 2 x 4 x 4096^2 x 128 = 68.719
 * GFLOP forward in 407.1 us (the mean of 410.188, 406.128, 407.008, 405.228), 2.5 x that
 * backward in 759.6 us (762.215, 763.215, 757.095, 755.915): 0.539 and 0.723 of that chip's
 * peak. nd prices the same work at A2's rates on the A2's own peak: the fraction within 1 %. */
static void ascend_attention_reproduces_its_trace(void **state)
{
    (void)state;
    nd_device_table t;
    nd_error err = {0};
    assert_int_equal(nd_device_table_builtin(&t, &err), 0);
    const nd_device *a2 = nd_device_table_find(&t, "A2");
    double flops = 4.0 * 2 * 4 * 4096.0 * 4096.0 * 128, peak_910b3 = 313e12;
    double fwd_share = flops / (peak_910b3 * 407.1e-6), bwd_share = 2.5 * flops / (peak_910b3 * 759.6e-6);
    double fwd_ms = nd_attention_ms(a2, flops, 4096, false, ND_ATTN_RATES_BEST, NULL);
    double bwd_ms = nd_attention_ms(a2, 2.5 * flops, 4096, true, ND_ATTN_RATES_BEST, NULL);
    double fwd_priced = flops / (a2->peak_tflops * 1e12 * fwd_ms / 1e3);
    double bwd_priced = 2.5 * flops / (a2->peak_tflops * 1e12 * bwd_ms / 1e3);
    if (fabs(fwd_priced / fwd_share - 1) > 0.01 || fabs(bwd_priced / bwd_share - 1) > 0.01)
        fail_msg("A2 attention: priced %.3f / %.3f of peak, measured %.3f / %.3f", fwd_priced, bwd_priced,
                 fwd_share, bwd_share);
    nd_device_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_is_fixed_time_plus_roofline),
        cmocka_unit_test(grouped_gemm),
        cmocka_unit_test(attention_forward_and_backward),
        cmocka_unit_test(head_dimension_padding),
        cmocka_unit_test(overlap_slows_compute),
        cmocka_unit_test(builtin_curves_reproduce_their_gemm_tables),
        cmocka_unit_test(ascend_attention_reproduces_its_trace),
        cmocka_unit_test(memory_classes_at_their_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
