/* kernels.c — the time of one kernel on a device: GEMMs on the saturating efficiency curve,
 * attention, memory-bound operators at the HBM rate. docs/cost-model.md §Compute kernels. */
#include "kernels.h"

static double saturate(double x, double half)
{
    return x / (x + half);
}

double nd_gemm_peak_tflops(const nd_device *d, nd_gemm_precision p)
{
    switch (p) {
    case ND_GEMM_FP8: return d->fp8_tflops > 0 ? d->fp8_tflops : d->peak_tflops;
    case ND_GEMM_TF32: return d->tf32_tflops > 0 ? d->tf32_tflops : d->fp32_tflops;
    case ND_GEMM_FP32: return d->fp32_tflops;
    default: return d->peak_tflops;
    }
}

/* Efficiency of an M x N x K GEMM as a fraction of the peak of its precision:
 * e x M/(M+h) x N/(N+h) x K/(K+h) with e, h the device's curve for p
 * (gemm_efficiency and gemm_half_dim, or their FP8 pair). */
static double gemm_efficiency(const nd_device *d, nd_gemm_precision p, double m, double n, double k)
{
    double e = d->gemm_efficiency, h = d->gemm_half_dim;
    if (p == ND_GEMM_FP8 && d->fp8_tflops > 0 && d->fp8_gemm_efficiency > 0) {
        e = d->fp8_gemm_efficiency;
        h = d->fp8_gemm_half_dim;
    }
    return e * saturate(m, h) * saturate(n, h) * saturate(k, h);
}

double nd_memory_ms(const nd_device *d, double bytes)
{
    return bytes / (d->hbm_gbps * d->hbm_efficiency * 1e9) * 1e3;
}

static double gemm_flop_ms(const nd_device *d, nd_gemm_precision p, double m, double n, double k,
                           double efficiency)
{
    return 2.0 * m * n * k / (nd_gemm_peak_tflops(d, p) * 1e12 * efficiency) * 1e3;
}

/* Bytes a GEMM moves through HBM: its inputs (1 byte each in FP8) and its 16-bit (or
 * elem_bytes) output. */
static double gemm_bytes(nd_gemm_precision p, double elem_bytes, double m, double n, double k)
{
    double in = p == ND_GEMM_FP8 ? 1.0 : elem_bytes, out = p == ND_GEMM_FP8 ? 2.0 : elem_bytes;
    return in * (m * k + k * n) + out * m * n;
}

double nd_gemm_ms(const nd_device *d, nd_gemm_precision p, double m, double n, double k, double elem_bytes)
{
    if (m <= 0 || n <= 0 || k <= 0) return 0.0;
    double compute_ms = gemm_flop_ms(d, p, m, n, k, gemm_efficiency(d, p, m, n, k));
    double memory_ms = nd_memory_ms(d, gemm_bytes(p, elem_bytes, m, n, k));
    return d->gemm_fixed_us / 1e3 + (compute_ms > memory_ms ? compute_ms : memory_ms);
}

double nd_grouped_gemm_ms(const nd_device *d, nd_gemm_precision p, double groups, double m, double n,
                          double k, double elem_bytes, bool weight_grad)
{
    if (groups <= 0 || m <= 0 || n <= 0 || k <= 0) return 0.0;
    double factor = weight_grad ? d->grouped_wgrad_efficiency : d->grouped_gemm_efficiency;
    if (factor <= 0) factor = 1.0;
    double compute_ms = groups * gemm_flop_ms(d, p, m, n, k, gemm_efficiency(d, p, m, n, k) * factor);
    double memory_ms = nd_memory_ms(d, groups * gemm_bytes(p, elem_bytes, m, n, k));
    return d->gemm_fixed_us / 1e3 + (compute_ms > memory_ms ? compute_ms : memory_ms);
}

double nd_attention_ms(const nd_device *d, double flops, double s_k, bool backward, bool fa2)
{
    if (flops <= 0) return 0.0;
    double e = backward ? d->attention_bwd_efficiency : d->attention_fwd_efficiency;
    double e2 = backward ? d->fa2_bwd_efficiency : d->fa2_fwd_efficiency;
    if (fa2 && e2 > 0) e = e2;
    double eff = e * saturate(s_k, d->attention_half_seq);
    if (eff <= 0) return 0.0;
    return flops / (d->peak_tflops * 1e12 * eff) * 1e3;
}
