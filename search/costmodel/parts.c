/*
 * parts.c — which ratio scales which part, applying a ratios set, and the prediction
 * interval a fit's covariance gives a corrected estimate (docs/calibration.md
 * §Uncertainty carried to decisions).
 */
#include "nd/costmodel/parts.h"
#include "nd/base/array.h"

#include <math.h>
#include <string.h>

nd_ratio_key nd_ratio_key_of_part(nd_part p)
{
    switch (p) {
    case ND_PART_FW_COMPUTE:
    case ND_PART_BW_COMPUTE:
    case ND_PART_RECOMPUTE: return ND_RATIO_COMPUTE;
    case ND_PART_DP_COMM: return ND_RATIO_DP_COMM;
    case ND_PART_DP_REDUCE: return ND_RATIO_DP_REDUCE;
    case ND_PART_MP_COMM: return ND_RATIO_MP_COMM;
    case ND_PART_EP_COMM: return ND_RATIO_EP_COMM;
    case ND_PART_CP_COMM: return ND_RATIO_CP_COMM;
    case ND_PART_PP_COMM: return ND_RATIO_PP_COMM;
    case ND_PART_BUBBLE: return ND_RATIO_BUBBLE;
    case ND_PART_OPTIMIZER: return ND_RATIO_OPTIMIZER;
    default: return ND_RATIO_OVERHEAD;
    }
}

void nd_ratios_init(nd_ratios *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < ND_RATIO_KEYS; i++) r->value[i] = 1.0;
    for (int i = 0; i < ND_MEM_RATIOS; i++) r->memory[i] = 1.0;
}

/* What each fixed cost multiplies, in its unit: kernels (µs -> ms), slots, one step. */
static void fixed_counts(double kernels_per_step, double microbatch_slots, double out[ND_FIXED_COSTS])
{
    out[ND_FIXED_KERNEL] = kernels_per_step / 1e3;
    out[ND_FIXED_MICROBATCH] = microbatch_slots;
    out[ND_FIXED_STEP] = 1.0;
}

void nd_shape_key_of(const nd_strategy *s, nd_shape_key *out)
{
    memset(out, 0, sizeof *out);
    out->tp = s->tp;
    out->cp = s->cp;
    out->ep = s->ep;
    out->etp = s->etp ? s->etp : s->tp;
    out->mbs = s->mbs;
    out->sp = s->sp;
}

int nd_shape_key_compare(const nd_shape_key *a, const nd_shape_key *b)
{
    const int64_t x[] = {a->tp, a->cp, a->ep, a->etp, a->mbs, a->sp},
                  y[] = {b->tp, b->cp, b->ep, b->etp, b->mbs, b->sp};
    for (size_t i = 0; i < ND_ARRAY_LEN(x); i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

unsigned nd_shape_parts(void)
{
    return 1u << ND_PART_FW_COMPUTE | 1u << ND_PART_BW_COMPUTE | 1u << ND_PART_RECOMPUTE |
           1u << ND_PART_MP_COMM | 1u << ND_PART_EP_COMM | 1u << ND_PART_CP_COMM | 1u << ND_PART_BUBBLE |
           1u << ND_PART_OVERHEAD;
}

const nd_shape_ratio *nd_ratios_shape(const nd_ratios *r, const nd_strategy *s)
{
    if (!r->shapes || !s) return NULL;
    nd_shape_key k;
    nd_shape_key_of(s, &k);
    int lo = 0, hi = r->shapes - 1;
    while (lo <= hi) { /* the table is sorted by key */
        int mid = (lo + hi) / 2, c = nd_shape_key_compare(&r->shape[mid].key, &k);
        if (c == 0) return &r->shape[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

void nd_ratios_apply(const nd_ratios *r, const nd_strategy *s, double kernels_per_step,
                     double microbatch_slots, double parts_ms[ND_PARTS])
{
    const nd_shape_ratio *shape = nd_ratios_shape(r, s);
    unsigned mb = nd_shape_parts();
    for (int p = 0; p < ND_PARTS; p++)
        parts_ms[p] *=
            r->value[nd_ratio_key_of_part((nd_part)p)] + (shape && mb & 1u << p ? shape->delta : 0);
    double count[ND_FIXED_COSTS];
    fixed_counts(kernels_per_step, microbatch_slots, count);
    for (int f = 0; f < ND_FIXED_COSTS; f++) parts_ms[ND_PART_OVERHEAD] += r->fixed[f] * count[f];
}

/* t95 x sqrt(x' C x + (sd x total)^2). */
static double halfwidth(const nd_spread *s, const double *x, double total)
{
    if (s->terms <= 0) return NAN;
    double v = 0;
    for (int a = 0; a < s->terms; a++)
        for (int b = 0; b < s->terms; b++) v += x[a] * s->cov[a][b] * x[b];
    v += s->residual_sd * total * s->residual_sd * total;
    return s->t95 * sqrt(fmax(v, 0.0));
}

double nd_ratios_step_halfwidth_ms(const nd_ratios *r, const nd_strategy *st,
                                   const double raw_parts_ms[ND_PARTS], double kernels_per_step,
                                   double microbatch_slots, double step_ms)
{
    const nd_spread *s = &r->time;
    double x[ND_SPREAD_MAX_TERMS] = {0}, count[ND_FIXED_COSTS];
    fixed_counts(kernels_per_step, microbatch_slots, count);
    for (int t = 0; t < s->terms && t < ND_SPREAD_MAX_TERMS; t++) {
        if (s->fixed[t] >= 0) {
            x[t] = count[s->fixed[t]];
            continue;
        }
        for (int p = 0; p < ND_PARTS; p++)
            if (s->scales[t] & 1u << nd_ratio_key_of_part((nd_part)p)) x[t] += raw_parts_ms[p];
    }
    double half = halfwidth(s, x, step_ms);
    if (!r->shapes || !isfinite(half)) return half;
    /* The shape's own uncertainty, independent of the ratios'. */
    const nd_shape_ratio *shape = nd_ratios_shape(r, st);
    double work = 0, se = shape ? shape->se : r->shape_spread;
    for (int p = 0; p < ND_PARTS; p++)
        if (nd_shape_parts() & 1u << p) work += raw_parts_ms[p];
    double v = half / s->t95;
    return s->t95 * sqrt(v * v + work * se * work * se);
}

double nd_ratios_peak_halfwidth_mib(const nd_ratios *r, double activations_mib, double transient_mib,
                                    double peak_mib)
{
    const nd_spread *s = &r->mem;
    double x[ND_SPREAD_MAX_TERMS] = {0};
    for (int t = 0; t < s->terms && t < ND_SPREAD_MAX_TERMS; t++) {
        if (s->scales[t] & 1u << ND_MEM_ACTIVATIONS) x[t] += activations_mib;
        if (s->scales[t] & 1u << ND_MEM_TRANSIENT) x[t] += transient_mib;
    }
    return halfwidth(s, x, peak_mib);
}
