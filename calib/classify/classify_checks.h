/* classify_checks.h — the device view set beside the profiler's own summaries
 * (internal). */
#ifndef ND_CLASSIFY_CHECKS_H
#define ND_CLASSIFY_CHECKS_H

#include "classify_steps.h"

/* Compares the trace's device split with torch_npu's Overlap Analysis rows and with a
 * step_trace_time.csv beside the trace, where present: a warning when they differ by
 * more than 5 %, a note when they agree. Nothing for the host view. */
void nd_classify_cross_check(trace_ctx *t, bool device);

#endif
