/*
 * ratios.h — the ratios file nd-fit writes and -c reads (JSON).
 *
 * ND's ratio keys plus nd's OPTIMIZER and OVERHEAD, ND's `_fitted_on`, and nd's
 * `_nd` stamp: format, cost-model version, units, and what the fit saw (device,
 * model, sequence length, mode, rows, leave-one-out metrics). The key names are
 * formats.h's (nd_ratio_key, nd_ratios_json). docs/calibration.md §Ratios file.
 */
#ifndef ND_RATIOS_H
#define ND_RATIOS_H

/* The range a ratio read from a file must lie in: corrections of millisecond estimates are
 * near 1, and outside this range a step time or an MFU stops meaning anything. */
#define ND_RATIO_MIN 1e-3
#define ND_RATIO_MAX 1e3

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/costmodel/parts.h"

typedef struct nd_ratios_file {
    nd_ratios ratios;
    bool stamped;        /* an `_nd` object was present */
    char cost_model[32]; /* `_nd.cost_model` */
    char device[32];     /* `_nd.device` */
    char model[128];     /* `_nd.model` */
    int64_t seq_len;     /* `_nd.seq_len` */
    char mode[16];       /* `_nd.mode`: the fit's mode (parts, total, sums) */
    char round[256];     /* `_nd.rounds[0].csv`: the round it was fitted on */
    /* ND's file (no `_nd`) read through its conversion: the path given to -c, whose round
     * nd-fit --mode sums refitted into the file read (nd_ratios_converted_path) */
    char converted_from[512];
} nd_ratios_file;

/* Reads and validates a ratios file: a JSON object; every key not starting with '_' a
 * known ratio key with a positive finite number; `_nd` (when present) of this format and
 * this cost model. A file of ND's own (no `_nd`, values in ms per ND unit, ~1e-11) is
 * refused with an explanation. Keys the file does not state stay 1 (uncorrected).
 * Errors: ND_EINPUT naming the file and key. out owns no memory: nothing to free. */
int nd_ratios_load(const char *path, nd_ratios_file *out, nd_error *err);

/* Where ND's ratios file PATH is converted to: PATH with ".json" replaced by ".nd.json"
 * (else ".nd.json" appended), a new file beside it. nd_ratios_load reads that file in place
 * of ND's when it exists, is nd's, and was fitted on the round ND's `_fitted_on.csv` names
 * (the same file name); else it refuses ND's file with the nd-fit command that writes it.
 * Returns a malloc'd string, NULL when out of memory. */
char *nd_ratios_converted_path(const char *path);

/* -c FILE that does not exist: ND logs "cache file not found: FILE" and "Proceeding without
 * cache file..." and prices uncalibrated. Returns 0 when the file exists; 1 when it does not
 * and the caller proceeds uncalibrated (a warning saying so on diag, when not NULL); with
 * strict, ND_EINPUT naming the file (--strict refuses what ND would do without it). */
int nd_ratios_missing(const char *path, bool strict, FILE *diag, nd_error *err);

/* One line per way `f` was fitted for something other than (device, model, seq_len),
 * written into buf (empty when it matches or the file has no stamp). */
void nd_ratios_mismatch(const nd_ratios_file *f, const char *device, const char *model, int64_t seq_len,
                        char *buf, size_t size);

#endif
