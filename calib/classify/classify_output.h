/* classify_output.h — helpers shared by the writers and the reports (internal). */
#ifndef ND_CLASSIFY_OUTPUT_H
#define ND_CLASSIFY_OUTPUT_H

#include <stdio.h>
#include "nd/classify.h"

#define PERF_PARTS 16
/* ND's estimate columns (reference §3.5) with DP_REDUCE, then nd's extras. */
const char *nd_classify_perf_part_name(int i);
void nd_classify_perf_parts(const nd_classify_run *run, double v[PERF_PARTS]);

#endif
