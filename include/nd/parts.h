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
#include "nd/formats.h"

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
