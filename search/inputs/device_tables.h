/*
 * device_tables.h — kernel tables measured with the usual tools, read for a device: a GEMM sweep
 * CSV, a collectives CSV, nccl-tests' and hccl_test's output and nd-classify's --kernels CSV of a
 * profiled round.
 * docs/devices.md §Measured tables.
 */
#ifndef ND_INPUTS_DEVICE_TABLES_H
#define ND_INPUTS_DEVICE_TABLES_H

#include <stddef.h>
#include "nd/base/error.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"

/* Adds what the file (text, len bytes of path) measured to t, as fractions of d's peaks and
 * links: GEMM points, and collectives fitted per operation and link tier (a later file's fit of
 * the same operation and tier replaces an earlier one). The kind is recognised from the text
 * (docs/devices.md §Measured tables). Errors name file, line and column (ND_EINPUT); t then
 * holds what earlier files added and is safe to free. The caller indexes t afterwards
 * (nd_kernel_tables_index). */
int nd_kernel_tables_read_measured(const char *path, const char *text, size_t len, const nd_device *d,
                                   nd_kernel_tables *t, nd_error *err);

#endif
