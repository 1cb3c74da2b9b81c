/*
 * fit_out.h — nd-fit's report (ND's lines, reference/nd-calibration.md §5.5, plus
 * intervals and leave-one-out metrics) and the ratios file it writes.
 */
#ifndef ND_FIT_OUT_H
#define ND_FIT_OUT_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include "nd/fit.h"
#include "nd/fit_device.h"
#include "nd/plot.h"

/* What the ratios file records about the fit besides the ratios. */
typedef struct nd_fit_context {
    const char *csv;       /* the --real_csv argument as given */
    const char *device;
    const char *model;
    int64_t seq_len;
    nd_fit_weights weights;
    bool robust, allow_fallback;
    const char *peak;      /* what the round's peak_mib measures (allocated, reserved, device) */
} nd_fit_context;

/* per_sequence: ranking costs are ms x devices / sequences (a round of mixed clusters). */
void nd_fit_print(FILE *fp, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                  bool per_sequence, const char *ratios_path);

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
    const char *name;           /* --device-name, or NULL */
    const char *const *csv;     /* [rounds] the --real_csv arguments */
    int rounds;
    const char *const *models;  /* [rounds] each round's model name */
    int unused;
} nd_fit_device_context;

/* Prints the device fit's report to `report`, sets *fitted (the fitted device under its
 * name) and, when path is non-NULL, writes the device file atomically. */
int nd_fit_device_write(const char *path, const nd_device *base, const nd_device_fit_result *res,
                        const nd_device_fit_row *rows, const nd_fit_device_context *ctx, FILE *report,
                        nd_device *fitted, nd_error *err);
/* nd-fit's plots in dir: <stem>_ratios (each ratio and its 95 % interval) and <stem>_loo
 * (the step, and each ratio fitted on a column of its own, against its measurement: in-sample
 * beside left out). Errors as the plot library's. */
int nd_fit_plots(const char *dir, const char *stem, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                 const nd_plot_options *opt, nd_error *err);

#endif
