/*
 * device_file.h — reading device files: the devices a cluster description adds to the
 * built-in table, or the fields it overrides. docs/devices.md §Device files.
 */
#ifndef ND_INPUTS_DEVICE_FILE_H
#define ND_INPUTS_DEVICE_FILE_H

#include "nd/base/error.h"
#include "nd/costmodel/device.h"

/* Reads a device file (YAML: `devices: {NAME: {field: value, ...}}`, or a single
 * mapping with `name:`) and adds or overrides devices. An override may state only
 * some fields; a new device must state them all. Errors name file, line and field. The table
 * stays the caller's to free (nd_device_table_free) on failure too: devices read before the
 * error are in it. */
int nd_device_table_load(nd_device_table *table, const char *path, nd_error *err);

#endif
