/* classify_output.h — helpers shared by the writers and the reports (internal). */
#ifndef ND_CLASSIFY_OUTPUT_H
#define ND_CLASSIFY_OUTPUT_H

#include <stdio.h>
#include "nd/classify/classify.h"
#include "classify_round.h"

#define PERF_PARTS 16
/* ND's estimate columns (docs/reference/nd-calibration.md §3.5) with DP_REDUCE, then nd's extras. */
const char *nd_classify_perf_part_name(int i);
void nd_classify_perf_parts(const nd_classify_run *run, double v[PERF_PARTS]);

/* Milliseconds as written in every nd-classify file (see classify_output.c). */
#define ND_CLASSIFY_MS_TEXT 64
void nd_classify_format_ms(double v, char buf[ND_CLASSIFY_MS_TEXT]);

/* The round-file row of a finished run; ND_EINPUT when a value is one nd-compare refuses. */
int nd_classify_round_row_of(const nd_classify_run *run, bool nd_only, round_row *row, nd_error *err);

#endif
