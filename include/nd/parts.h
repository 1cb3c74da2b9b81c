/*
 * parts.h — the twelve parts a step time is split into, and the per-part
 * correction ratios a calibration fits.
 *
 * The first ten are ND's, in ND's order; OPTIMIZER and OVERHEAD are nd's
 * additions. All twelve, in milliseconds, sum to the step time.
 */
#ifndef ND_PARTS_H
#define ND_PARTS_H

#include <stdbool.h>

typedef enum {
    ND_PART_FW_COMPUTE = 0,
    ND_PART_BW_COMPUTE,
    ND_PART_RECOMPUTE,
    ND_PART_DP_COMM,
    ND_PART_DP_REDUCE,
    ND_PART_MP_COMM,
    ND_PART_EP_COMM,
    ND_PART_CP_COMM,
    ND_PART_PP_COMM,
    ND_PART_BUBBLE,
    ND_PART_OPTIMIZER,
    ND_PART_OVERHEAD,
    ND_PARTS
} nd_part;

#define ND_ND_PARTS 10 /* the parts ND itself has: FW_COMPUTE .. BUBBLE */

/* "FW_COMPUTE", ..., "OVERHEAD". */
const char *nd_part_name(nd_part p);
/* ND's short names: "FW", "BW", "Rec", "DP", "AR", "MP", "EP", "CP", "P2P", "BBL"; "OPT", "OVH". */
const char *nd_part_short(nd_part p);
/* The part with this name (case-sensitive), or -1. */
int nd_part_from_name(const char *name);

/* Ratio keys of a ratios file. COMPUTE scales FW, BW and RECOMPUTE; FORWARD only
 * calibrates offload windows; the others scale the part of the same name. */
typedef enum {
    ND_RATIO_COMPUTE = 0,
    ND_RATIO_DP_COMM,
    ND_RATIO_DP_REDUCE,
    ND_RATIO_MP_COMM,
    ND_RATIO_EP_COMM,
    ND_RATIO_CP_COMM,
    ND_RATIO_PP_COMM,
    ND_RATIO_BUBBLE,
    ND_RATIO_OPTIMIZER,
    ND_RATIO_OVERHEAD,
    ND_RATIO_FORWARD,
    ND_RATIO_KEYS
} nd_ratio_key;

const char *nd_ratio_key_name(nd_ratio_key k);
int nd_ratio_key_from_name(const char *name);
/* The ratio key that scales part p. */
nd_ratio_key nd_ratio_key_of_part(nd_part p);

/* Per-part multipliers (1 = uncorrected). */
typedef struct nd_ratios {
    double value[ND_RATIO_KEYS];
    bool stated[ND_RATIO_KEYS]; /* the file stated this key */
} nd_ratios;

void nd_ratios_init(nd_ratios *r); /* every ratio 1, none stated */

/* parts[p] *= the ratio of p, for every part. */
void nd_ratios_apply(const nd_ratios *r, double parts_ms[ND_PARTS]);

#endif
