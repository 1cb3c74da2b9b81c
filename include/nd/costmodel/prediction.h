/*
 * prediction.h — the 95 % prediction intervals a calibration's uncertainty (the ratios
 * file's covariance, residual scatter and shape corrections) gives a corrected estimate,
 * for nd-estimate, nd-compare and nd-search -c. docs/calibration.md §Uncertainty carried to
 * decisions.
 */
#ifndef ND_PREDICTION_H
#define ND_PREDICTION_H

#include "nd/costmodel/estimate.h"
#include "nd/costmodel/parts.h"

/* What a measured peak is: nvidia-smi's device memory (the reserved peak plus the runtime
 * context), torch.cuda.max_memory_reserved, or torch.cuda.max_memory_allocated. */
typedef enum { ND_PEAK_DEVICE = 0, ND_PEAK_RESERVED, ND_PEAK_ALLOCATED, ND_PEAK_KINDS } nd_peak_kind;

const char *nd_peak_kind_name(nd_peak_kind k); /* "device", "reserved", "allocated" */
int nd_peak_kind_from_name(const char *name);  /* or -1 */

/* The estimate's peak of that kind (corrected when the estimate was). */
double nd_estimate_peak_of(const nd_estimate *e, nd_peak_kind kind);

/* Half-widths of the 95 % prediction intervals of a corrected estimate: of its step (ms)
 * and of its peak of `kind` (MiB; peak_stage: the corrected memory of its peak stage, NULL
 * when not priced). NaN when the ratios state no uncertainty for it. */
double nd_prediction_step_halfwidth_ms(const nd_ratios *r, const nd_strategy *s, const nd_estimate *e);
double nd_prediction_peak_halfwidth_mib(const nd_ratios *r, const nd_stage_memory *peak_stage,
                                        nd_peak_kind kind, double peak_mib);

#endif
