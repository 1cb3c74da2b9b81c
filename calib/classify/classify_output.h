/* classify_output.h — helpers shared by the writers and the reports (internal). */
#ifndef ND_CLASSIFY_OUTPUT_H
#define ND_CLASSIFY_OUTPUT_H

#include <stdio.h>
#include "nd/classify.h"

#define PERF_PARTS 16
/* ND's estimate columns (reference §3.5) with DP_REDUCE, then nd's extras. */
const char *perf_part_name(int i);
void perf_parts(const nd_classify_run *run, double v[PERF_PARTS]);

/* The number the row holds for q: mean or median, per --stat. */
double classify_value(const nd_classify_run *run, nd_classify_quantity q);
/* Fixed decimals, never "-0.000". */
void classify_print_ms(FILE *f, double v, int decimals);
void classify_csv_field(FILE *f, const char *s);

#endif
