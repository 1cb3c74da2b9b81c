/*
 * parts.c — which ratio scales which part, and applying a ratios set.
 */
#include "nd/parts.h"

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
    for (int i = 0; i < ND_RATIO_KEYS; i++) {
        r->value[i] = 1.0;
        r->stated[i] = false;
    }
}

void nd_ratios_apply(const nd_ratios *r, double parts_ms[ND_PARTS])
{
    for (int p = 0; p < ND_PARTS; p++) parts_ms[p] *= r->value[nd_ratio_key_of_part((nd_part)p)];
}
