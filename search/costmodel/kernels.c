/* kernels.c — the time of one kernel on a device: GEMMs on the saturating efficiency curve,
 * attention, memory-bound operators at the HBM rate. docs/cost-model.md §Compute kernels. */
#include "kernels.h"

#include <math.h>

#include "nd/costmodel/kernel_table.h"

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
 * share x e x M/(M+h) x N/(N+h) x K/(K+h) with e, h the device's curve for p
 * (gemm_efficiency and gemm_half_dim, or their FP8 pair) and share the part of it training
 * sustains (gemm_training_share). */
static double gemm_efficiency(const nd_device *d, nd_gemm_precision p, double m, double n, double k)
{
    double e = d->gemm_efficiency, h = d->gemm_half_dim;
    if (p == ND_GEMM_FP8 && d->fp8_tflops > 0 && d->fp8_gemm_efficiency > 0) {
        e = d->fp8_gemm_efficiency;
        h = d->fp8_gemm_half_dim;
    }
    double share = d->gemm_training_share > 0 ? d->gemm_training_share : 1.0;
    return share * e * saturate(m, h) * saturate(n, h) * saturate(k, h);
}

double nd_memory_ms(const nd_device *d, double bytes)
{
    return bytes / (d->hbm_gbps * d->hbm_efficiency * 1e9) * 1e3;
}

/* The device's own share of its bandwidth for a class of memory-bound operators without a
 * measured table: the vector-bound reductions and activations where it states theirs. */
static double class_efficiency(const nd_device *d, nd_memop op)
{
    bool norm = op == ND_MEMOP_NORM || op == ND_MEMOP_CROSS_ENTROPY || op == ND_MEMOP_CROSS_ENTROPY_FUSED;
    if (norm && d->norm_hbm_efficiency > 0) return d->norm_hbm_efficiency;
    if (op == ND_MEMOP_ACTIVATION && d->activation_hbm_efficiency > 0) return d->activation_hbm_efficiency;
    return d->hbm_efficiency;
}

double nd_memop_ms(const nd_device *d, nd_memop op, double bytes)
{
    if (bytes <= 0) return 0.0;
    const nd_memop_rate *r = d->tables ? &d->tables->memop[op] : NULL;
    if (r && !r->stated) r = &d->tables->memop[ND_MEMOP_DEFAULT];
    if (!r || !r->stated) return bytes / (d->hbm_gbps * class_efficiency(d, op) * 1e9) * 1e3;
    return bytes / (r->gbps * r->efficiency * 1e9) * 1e3 + r->fixed_us / 1e3;
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

/* The GEMM a pass of a linear layer runs, as M x N x K: forward tokens x out x in, input
 * gradient tokens x in x out, weight gradient in x out x tokens. */
static void pass_gemm(nd_gemm_pass pass, double tokens, double in, double out, double mnk[3])
{
    double fwd[3] = {tokens, out, in}, dgrad[3] = {tokens, in, out}, wgrad[3] = {in, out, tokens};
    const double *g = pass == ND_PASS_FORWARD ? fwd : pass == ND_PASS_INPUT_GRAD ? dgrad : wgrad;
    for (int i = 0; i < 3; i++) mnk[i] = g[i];
}

typedef struct curve_ctx {
    const nd_device *d;
    nd_gemm_precision p;
    nd_gemm_pass pass;
    double elem_bytes;
} curve_ctx;

/* The fraction of peak the curve's whole time (fixed time and the memory roofline included)
 * reaches on a shape: what a measured table's achieved efficiency is compared with. */
static double achieved(double flops, double peak_tflops, double ms)
{
    return ms > 0 ? flops / (peak_tflops * 1e12 * ms / 1e3) : 0;
}

/* A kernel on a device with kernel tables takes at least its bytes at the memory rate the
 * tables measured plus their fixed time per operator (SimuMax's roofline). */
static double table_roofline(const nd_device *d, double compute_ms, double bytes)
{
    return fmax(compute_ms, nd_memop_ms(d, ND_MEMOP_DEFAULT, bytes));
}

static double linear_curve(const void *ctx, const double *g)
{
    const curve_ctx *c = ctx;
    return achieved(2 * g[0] * g[1] * g[2], nd_gemm_peak_tflops(c->d, c->p),
                    nd_gemm_ms(c->d, c->p, g[0], g[1], g[2], c->elem_bytes));
}

double nd_linear_ms(const nd_device *d, nd_gemm_precision p, nd_gemm_pass pass, double tokens, double in,
                    double out, double elem_bytes)
{
    double g[3];
    pass_gemm(pass, tokens, in, out, g);
    double curve_ms = nd_gemm_ms(d, p, g[0], g[1], g[2], elem_bytes);
    if (!d->tables || curve_ms <= 0) return curve_ms;
    curve_ctx c = {d, p, pass, elem_bytes};
    double flops = 2 * tokens * in * out, peak = nd_gemm_peak_tflops(d, p);
    double here = achieved(flops, peak, curve_ms);
    double e = nd_kernel_tables_gemm(d->tables, p, pass, g[0], g[1], g[2], here, linear_curve, &c);
    return table_roofline(d, e == here ? curve_ms : flops / (peak * 1e12 * e) * 1e3,
                          gemm_bytes(p, elem_bytes, g[0], g[1], g[2]));
}

static double grouped_curve(const void *ctx, const double *s)
{
    const curve_ctx *c = ctx;
    double ms =
        nd_grouped_gemm_ms(c->d, c->p, s[0], s[1], s[2], s[3], c->elem_bytes, c->pass == ND_PASS_WEIGHT_GRAD);
    return achieved(2 * s[0] * s[1] * s[2] * s[3], nd_gemm_peak_tflops(c->d, c->p), ms);
}

double nd_grouped_linear_ms(const nd_device *d, nd_gemm_precision p, nd_gemm_pass pass, double groups,
                            double tokens, double in, double out, double elem_bytes)
{
    double g[3];
    pass_gemm(pass, tokens, in, out, g);
    double curve_ms =
        nd_grouped_gemm_ms(d, p, groups, g[0], g[1], g[2], elem_bytes, pass == ND_PASS_WEIGHT_GRAD);
    if (!d->tables || curve_ms <= 0) return curve_ms;
    curve_ctx c = {d, p, pass, elem_bytes};
    double flops = 2 * groups * tokens * in * out, peak = nd_gemm_peak_tflops(d, p);
    double here = achieved(flops, peak, curve_ms);
    double e =
        nd_kernel_tables_grouped(d->tables, p, pass, groups, g[0], g[1], g[2], here, grouped_curve, &c);
    return table_roofline(d, e == here ? curve_ms : flops / (peak * 1e12 * e) * 1e3,
                          groups * gemm_bytes(p, elem_bytes, g[0], g[1], g[2]));
}

/* The head dimension a kernel computes with: the 2023 Triton kernel pads it to a power of two
 * (flash_attn_triton.py: BLOCK_HEADDIM = max(next_power_of_2(d), 16)), FlashAttention-2 to a
 * multiple of 32 up to 192, else 256 (flash_api.cpp: head_size_rounded), both with one head
 * dimension for Q, K and V; the device's best and cuDNN's kernels are taken to run it as it is. */
static double kernel_head_dim(nd_attention_rates rates, double dim)
{
    if (rates == ND_ATTN_RATES_TRITON) {
        double padded = 16;
        while (padded < dim) padded *= 2;
        return padded;
    }
    if (rates == ND_ATTN_RATES_FA2) return dim <= 192 ? ceil(dim / 32) * 32 : 256;
    return dim;
}

/* The work the kernel does over the work counted (1 when it runs the head dimensions as they are). */
static double head_dim_padding(nd_attention_rates rates, const nd_attention_shape *shape)
{
    if (!shape || shape->qk_dim <= 0 || shape->v_dim <= 0) return 1.0;
    if (rates != ND_ATTN_RATES_TRITON && rates != ND_ATTN_RATES_FA2) return 1.0;
    double one = kernel_head_dim(rates, fmax(shape->qk_dim, shape->v_dim));
    return 2 * one / (shape->qk_dim + shape->v_dim);
}

/* The alternative kernel's rate where the device states one, else the best kernel's. */
static double kernel_rate(const nd_device *d, bool backward, nd_attention_rates rates)
{
    double best = backward ? d->attention_bwd_efficiency : d->attention_fwd_efficiency, alt = 0;
    if (rates == ND_ATTN_RATES_FA2 || rates == ND_ATTN_RATES_TRITON)
        alt = backward ? d->fa2_bwd_efficiency : d->fa2_fwd_efficiency;
    else if (rates == ND_ATTN_RATES_CUDNN)
        alt = backward ? d->cudnn_bwd_efficiency : d->cudnn_fwd_efficiency;
    double e = alt > 0 ? alt : best;
    if (rates == ND_ATTN_RATES_TRITON) e /= backward ? ND_TRITON_BWD_SLOWDOWN : ND_TRITON_FWD_SLOWDOWN;
    return e;
}

/* The rate at s_k keys, of the share training sustains where the rates are isolated
 * benchmarks' (attention_training_share). The 2023 Triton kernel's rates are FA2's over the
 * FA2 paper's A100 factors, checked only in training (llm-foundry's MPT runs): taken as
 * training's own. */
static double attention_efficiency(const nd_device *d, double s_k, bool backward, nd_attention_rates rates,
                                   double padding)
{
    double share =
        d->attention_training_share > 0 && rates != ND_ATTN_RATES_TRITON ? d->attention_training_share : 1.0;
    return share * kernel_rate(d, backward, rates) * saturate(s_k, d->attention_half_seq) / padding;
}

typedef struct attention_ctx {
    const nd_device *d;
    bool backward;
    nd_attention_rates rates;
    double padding;
} attention_ctx;

/* The curve at a measured kernel's shape: causal, so its mean key length is half its sequence. */
static double attention_curve(const void *ctx, const double *shape)
{
    const attention_ctx *c = ctx;
    return attention_efficiency(c->d, shape[1] / 2, c->backward, c->rates, c->padding);
}

double nd_attention_ms(const nd_device *d, double flops, double s_k, bool backward, nd_attention_rates rates,
                       const nd_attention_shape *shape)
{
    if (flops <= 0) return 0.0;
    double padding = head_dim_padding(rates, shape);
    double eff = attention_efficiency(d, s_k, backward, rates, padding);
    if (d->tables && shape) {
        attention_ctx c = {d, backward, rates, padding};
        eff = nd_kernel_tables_attention(d->tables, backward, shape->batch, 2 * s_k, shape->heads,
                                         shape->kv_heads, shape->qk_dim, shape->v_dim, eff, attention_curve,
                                         &c);
    }
    if (eff <= 0) return 0.0;
    return flops / (d->peak_tflops * 1e12 * eff) * 1e3;
}

double nd_overlapped_ms(double comm_ms, bool overlap, double window_ms)
{
    if (!overlap) return comm_ms;
    double hidden = fmin(comm_ms, fmax(window_ms, 0.0));
    return comm_ms - hidden + ND_OVERLAP_SLOWDOWN * hidden;
}
