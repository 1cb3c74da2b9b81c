/*
 * prediction.c — prediction intervals of a corrected estimate from the ratios file's
 * uncertainty (parts.c holds the arithmetic; this maps an estimate onto it).
 */
#include "nd/costmodel/prediction.h"

#include <math.h>
#include <string.h>

const char *nd_peak_kind_name(nd_peak_kind k)
{
    static const char *const names[] = {"device", "reserved", "allocated"};
    return (unsigned)k < ND_PEAK_KINDS ? names[k] : "?";
}

int nd_peak_kind_from_name(const char *name)
{
    for (int k = 0; k < ND_PEAK_KINDS; k++)
        if (!strcmp(name, nd_peak_kind_name((nd_peak_kind)k))) return k;
    return -1;
}

double nd_estimate_peak_of(const nd_estimate *e, nd_peak_kind kind)
{
    return kind == ND_PEAK_ALLOCATED  ? e->peak_allocated_mib
           : kind == ND_PEAK_RESERVED ? e->peak_reserved_mib
                                      : e->peak_mib;
}

double nd_prediction_step_halfwidth_ms(const nd_ratios *r, const nd_strategy *s, const nd_estimate *e)
{
    return nd_ratios_step_halfwidth_ms(r, s, e->raw_parts_ms, e->kernels_per_step, e->microbatch_slots,
                                       e->step_ms);
}

/* The variance is of the raw MiB the memory ratios scale: the stage's corrected activations
 * and transient divided by their ratios. */
double nd_prediction_peak_halfwidth_mib(const nd_ratios *r, const nd_stage_memory *m, nd_peak_kind kind,
                                        double peak_mib)
{
    if (!m) return NAN;
    double transient = m->working_mib + m->buffers_mib + (kind == ND_PEAK_ALLOCATED ? 0 : m->allocator_mib);
    return nd_ratios_peak_halfwidth_mib(r, m->activations_mib / r->memory[ND_MEM_ACTIVATIONS],
                                        transient / r->memory[ND_MEM_TRANSIENT], peak_mib);
}
