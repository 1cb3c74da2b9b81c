/* classify_kernel_details.h — Ascend's kernel_details.csv as a device view (internal). */
#ifndef ND_CLASSIFY_KERNEL_DETAILS_H
#define ND_CLASSIFY_KERNEL_DETAILS_H

#include "classify_internal.h"

/* True for a file named kernel_details*.csv. */
bool nd_classify_kernel_details_is(const char *path);

/* Reads a kernel_details.csv into the run: one rank-step per Step Id (the whole file without
 * that column), its time the span of its tasks, its parts from the device sweep over them
 * (docs/classify.md, "kernel_details.csv"). ND_EINPUT naming the file, line and column. */
int nd_classify_kernel_details_read(nd_classify_run *run, const char *path, nd_error *err);

#endif
