/*
 * device_simumax.h — SimuMax's system file (JSON) read as a device with kernel tables.
 * docs/devices.md §SimuMax system files.
 */
#ifndef ND_INPUTS_DEVICE_SIMUMAX_H
#define ND_INPUTS_DEVICE_SIMUMAX_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/base/error.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"

/* Whether a device file's text is JSON (its first character past a BOM and spaces is '{'). */
bool nd_device_file_is_simumax(const char *text, size_t len);

/* Reads SimuMax's system file (text, len bytes of path): *device named by its sys_name, its
 * compute, memory and network figures from the file and the rest from the built-in chip of
 * table it names (table is only read), *tables its measured kernels, which the caller owns
 * (nd_kernel_tables_free) and *device points to. Errors name file, line and key (ND_EINPUT);
 * on failure *tables is NULL. */
int nd_kernel_tables_read_simumax(nd_device_table *table, const char *path, const char *text, size_t len,
                                  nd_device *device, nd_kernel_tables **tables, nd_error *err);

#endif
