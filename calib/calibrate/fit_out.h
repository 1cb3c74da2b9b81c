/*
 * fit_out.h — nd-fit's report (ND's lines, docs/reference/nd-calibration.md §5.5, plus
 * intervals and leave-one-out metrics) and the ratios file it writes.
 */
#ifndef ND_FIT_OUT_H
#define ND_FIT_OUT_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include "nd/calibrate/fit.h"
#include "nd/calibrate/fit_device.h"
#include "nd/charts/plot.h"
#include "nd/base/io.h"

/* ---- the nightly job's record (fit_history.c) ---- */

#define ND_HISTORY_TERMS 48
/* Earlier fits a file keeps (the oldest dropped): seven weeks of nightly fits, and with each
 * entry bounded (fit_history.c) at most ~0.7 MB of history, far below the 4 MiB `-c` reads. */
#define ND_HISTORY_MAX 50

/* What the file a new fit replaces said: its fitted terms and intervals, and its history
 * with its own fit appended (JSON in memory for both file kinds). present is false when
 * there was no nd file there. */
typedef struct nd_fit_previous {
    bool present;
    int terms;
    char name[ND_HISTORY_TERMS][32];
    double value[ND_HISTORY_TERMS], lo[ND_HISTORY_TERMS], hi[ND_HISTORY_TERMS];
    cJSON *history; /* owned */
} nd_fit_previous;

typedef struct nd_fit_drift_entry {
    char name[32];
    double previous, lo, hi, value;
} nd_fit_drift_entry;

/* Reads what the file at path says (the caller holds nd_path_lock on it): a ratios file's
 * `_nd.ratios` and `_nd.history`, or a fitted device file's `fit:`. A missing file, or one
 * that is not nd's, has no history (not an error). The history is rebuilt bounded (see
 * fit_history.c). The caller frees out with nd_fit_previous_free. */
int nd_fit_previous_read(const char *path, bool device, nd_fit_previous *out, nd_error *err);
void nd_fit_previous_free(nd_fit_previous *p);

/* Appends to out[n] a drift entry when prev fitted `name` with an interval that excludes
 * value; returns the new count. */
size_t nd_fit_drift(const nd_fit_previous *prev, const char *name, double value, nd_fit_drift_entry *out,
                    size_t n);
void nd_fit_drift_print(FILE *fp, const char *path, const nd_fit_previous *prev, const nd_fit_drift_entry *d,
                        size_t n);
cJSON *nd_fit_drift_json(const nd_fit_drift_entry *d, size_t n);

/* FNV-1a (64 bits) of a file's bytes, 0 when it cannot be read: which round a fit saw. */
uint64_t nd_fit_file_hash(const char *path);

/* What the ratios file records about the fit besides the ratios. */
typedef struct nd_fit_context {
    const char *csv; /* the --real_csv argument as given */
    const char *device;
    const char *model;
    int64_t seq_len;
    nd_fit_weights weights;
    bool robust, allow_fallback;
    const char *peak; /* what the round's peak_mib measures (allocated, reserved, device) */
    int rounds;       /* the rounds fitted: their csv, rows and hashes (provenance) */
    const char *const *round_csv;
    const size_t *round_rows;
    const uint64_t *round_hash;
    const cJSON *history; /* the earlier fits (NULL: none) */
    const cJSON *drift;   /* terms moved beyond their previous interval (NULL: none) */
} nd_fit_context;

/* per_sequence: ranking costs are ms x devices / sequences (a round of mixed clusters). */
void nd_fit_print(FILE *fp, const nd_fit_result *res, const nd_fit_row *rows, size_t n, bool per_sequence,
                  const char *ratios_path);

/* The ratios document: ND's keys in ND's order then OPTIMIZER and OVERHEAD, `_fitted_on`
 * (csv, strategies) and `_nd` (docs/calibration.md §Ratios file). The caller frees it. */
cJSON *nd_fit_ratios_json(const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                          const nd_fit_context *ctx);

/* The report document (--report-json): ratios with status and intervals, per-row corrected
 * and left-out estimates, leave-one-out metrics. The caller frees it. */
cJSON *nd_fit_report_json(const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                          const nd_fit_context *ctx);

/* What the fitted device file records about the fit. */
typedef struct nd_fit_device_context {
    const char *name;       /* --device-name, or NULL */
    const char *const *csv; /* [rounds] the --real_csv arguments */
    int rounds;
    const char *const *models;       /* [rounds] each round's model name */
    const uint64_t *hash;            /* [rounds] their FNV-1a */
    const nd_fit_previous *previous; /* the file it replaces (history, drift), or NULL */
} nd_fit_device_context;

/* Prints the device fit's report to `report`, sets *fitted (the fitted device under its
 * name) and, when path is non-NULL, writes the device file atomically, then says so (and its
 * drift) to `written`, which the caller shows only once the whole fit succeeded. */
int nd_fit_device_write(const char *path, const nd_device *base, const nd_device_fit_result *res,
                        const nd_device_fit_row *rows, const nd_fit_device_context *ctx, FILE *report,
                        FILE *written, nd_device *fitted, nd_error *err);
/* What the report states about the run besides the fit. Borrowed strings; NULL: none. */
typedef struct nd_fit_report_inputs {
    const char *run_path, *round_path, *model, *device, *ratios_path, *report_json;
} nd_fit_report_inputs;

/* nd-fit's one-page HTML report (--report): summary, inputs, ratios, plots (the SVG copies,
 * or none), every row fitted and left out, the notes captured (NULL: none). Written
 * atomically. docs/report.md. */
struct nd_html_capture;
int nd_fit_report_html(const char *path, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                       const nd_fit_report_inputs *in, const nd_plot_gallery *plots,
                       struct nd_html_capture *notes, nd_error *err);

/* nd-fit's plots in dir: <stem>_ratios (each ratio and its 95 % interval) and <stem>_loo
 * (the step, and each ratio fitted on a column of its own, against its measurement: in-sample
 * beside left out). Errors as the plot library's. */
int nd_fit_plots(const char *dir, const char *stem, const nd_fit_result *res, const nd_fit_row *rows,
                 size_t n, const nd_plot_options *opt, nd_error *err);

/* What those plots draw as CSV in dir, for nd-plot to draw them again: <stem>_ratios.csv (ratio,
 * value, lo, hi, status, note) and <stem>_loo.csv (label, then per panel its measured, fitted and
 * left-out values; formats.h's nd_fit_plot_csv). Written atomically. */
int nd_fit_plot_csvs(const char *dir, const char *stem, const nd_fit_result *res, const nd_fit_row *rows,
                     size_t n, nd_error *err);

#endif
