/*
 * parts.h — the per-part correction ratios a calibration fits, and which ratio
 * scales which part.
 *
 * The twelve parts a step time is split into (nd_part) and the ratio keys
 * (nd_ratio_key) are names of nd's file formats, so they live in formats.h.
 * All twelve parts, in milliseconds, sum to the step time.
 */
#ifndef ND_PARTS_H
#define ND_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/formats.h"
#include "nd/costmodel/strategy.h"

/* The ratio key that scales part p. */
nd_ratio_key nd_ratio_key_of_part(nd_part p);

#define ND_SPREAD_MAX_TERMS 16

/* What a fit knows of its own error, for prediction intervals and sampling: the covariance
 * of the fitted terms (each a ratio, scaling the parts of the keys in `scales`, or a fixed
 * cost), the relative scatter of a strategy around the fitted estimate, and Student's t. */
typedef struct nd_spread {
    int terms;                            /* 0: the file states no uncertainty */
    unsigned scales[ND_SPREAD_MAX_TERMS]; /* time: bit (1u << nd_ratio_key) of each key scaled;
                                             memory: bit (1u << nd_memory_ratio) */
    int fixed[ND_SPREAD_MAX_TERMS];       /* the nd_fixed_cost a term is, or -1 */
    double cov[ND_SPREAD_MAX_TERMS][ND_SPREAD_MAX_TERMS];
    double residual_sd; /* sd of measured / fitted - 1 over the round's strategies */
    double t95;         /* Student's t quantile 0.975 at the fit's degrees of freedom */
    int dof;
} nd_spread;

/* A layer sharding: what the estimate prices a layer kind once for (its layer cache's
 * key). Strategies of one shape run the same kernels per micro-batch. */
typedef struct nd_shape_key {
    int64_t tp, cp, ep, etp, mbs;
    bool sp;
} nd_shape_key;

void nd_shape_key_of(const nd_strategy *s, nd_shape_key *out);          /* etp 0 reads as tp */
int nd_shape_key_compare(const nd_shape_key *a, const nd_shape_key *b); /* a total order */

#define ND_MAX_SHAPES 256

/* A shape's correction: its micro-batch parts (FW, BW, RECOMPUTE, MP/EP/CP_COMM, BUBBLE,
 * OVERHEAD) gain delta x their raw ms beyond their ratios (docs/calibration.md §Shapes). */
typedef struct nd_shape_ratio {
    nd_shape_key key;
    double delta, se; /* the correction and its standard error */
    int rows;         /* strategies of the round with this shape */
} nd_shape_ratio;

/* Per-part multipliers (1 = uncorrected), fixed costs (0 = none) and memory ratios. */
typedef struct nd_ratios {
    double value[ND_RATIO_KEYS];
    bool stated[ND_RATIO_KEYS];   /* the file stated this key */
    double fixed[ND_FIXED_COSTS]; /* KERNEL_US in µs per kernel, the others ms */
    bool fixed_stated[ND_FIXED_COSTS];
    double memory[ND_MEM_RATIOS];
    bool memory_stated[ND_MEM_RATIOS];
    nd_spread time, mem;
    int shapes; /* entries of shape, sorted by key */
    nd_shape_ratio shape[ND_MAX_SHAPES];
    double shape_spread; /* sd of delta between shapes: what a shape the round
                            did not profile may be off by */
} nd_ratios;

void nd_ratios_init(nd_ratios *r); /* every ratio 1, no fixed cost, none stated */

/* parts[p] *= the ratio of p (+ the shape's delta for the micro-batch parts when the
 * ratios know s's shape), for every part; then OVERHEAD += the fixed costs: KERNEL_US x
 * kernels_per_step / 1000 + MICROBATCH_MS x microbatch_slots + STEP_MS. */
void nd_ratios_apply(const nd_ratios *r, const nd_strategy *s, double kernels_per_step,
                     double microbatch_slots, double parts_ms[ND_PARTS]);

/* The parts a shape's delta scales (a bit 1u << nd_part each). */
unsigned nd_shape_parts(void);

/* The shape entry of s's layer sharding, or NULL when the round did not profile it. */
const nd_shape_ratio *nd_ratios_shape(const nd_ratios *r, const nd_strategy *s);

/* Half-width of the 95 % prediction interval of a corrected step, ms: t95 x sqrt(x' C x +
 * (W se)^2 + (residual_sd x step)^2), x the raw ms each fitted term scales (the count for a
 * fixed cost), W the raw micro-batch ms a shape correction scales and se its standard error
 * (shape_spread for a shape the round did not profile). NaN without an uncertainty. */
double nd_ratios_step_halfwidth_ms(const nd_ratios *r, const nd_strategy *s,
                                   const double raw_parts_ms[ND_PARTS], double kernels_per_step,
                                   double microbatch_slots, double step_ms);

/* The same for a corrected peak: x = (activations, transient) raw MiB, the transient being
 * the working tensors, buffers and the allocator's share. */
double nd_ratios_peak_halfwidth_mib(const nd_ratios *r, double activations_mib, double transient_mib,
                                    double peak_mib);

#endif
