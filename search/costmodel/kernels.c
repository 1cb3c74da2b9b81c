#include "kernels.h"

static double saturate(double x, double half)
{
    return x / (x + half);
}

/* Efficiency of an M x N x K GEMM as a fraction of peak:
 * gemm_efficiency x M/(M+d) x N/(N+d) x K/(K+d), d = the device's gemm_half_dim. */
static double nd_gemm_efficiency(const nd_device *d, double m, double n, double k)
{
    double h = d->gemm_half_dim;
    return d->gemm_efficiency * saturate(m, h) * saturate(n, h) * saturate(k, h);
}

double nd_memory_ms(const nd_device *d, double bytes)
{
    return bytes / (d->hbm_gbps * d->hbm_efficiency * 1e9) * 1e3;
}

double nd_gemm_ms(const nd_device *d, double m, double n, double k, int elem_bytes)
{
    if (m <= 0 || n <= 0 || k <= 0) return 0.0;
    double flops = 2.0 * m * n * k;
    double compute_ms = flops / (d->peak_tflops * 1e12 * nd_gemm_efficiency(d, m, n, k)) * 1e3;
    double memory_ms = nd_memory_ms(d, (double)elem_bytes * (m * k + k * n + m * n));
    return compute_ms > memory_ms ? compute_ms : memory_ms;
}

double nd_attention_ms(const nd_device *d, double flops, double s_q, double s_k)
{
    if (flops <= 0) return 0.0;
    double h = d->gemm_half_dim;
    double eff = d->gemm_efficiency * d->attention_efficiency * saturate(s_q, h) * saturate(s_k, h);
    return flops / (d->peak_tflops * 1e12 * eff) * 1e3;
}
