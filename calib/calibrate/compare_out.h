/*
 * compare_out.h — nd-compare's outputs: the printed table and metrics,
 * <stem>_estimates.csv (ND's columns, then nd's) and <stem>_report.json
 * (schema in docs/calibration.md).
 */
#ifndef ND_COMPARE_OUT_H
#define ND_COMPARE_OUT_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include "nd/calibrate/compare.h"

void nd_compare_print(FILE *fp, const nd_compare *c, const char *csv_path);

/* ND's estimates CSV: dimensions, recompute, time, memory_mb, score (the estimate in ms,
 * corrected with -c), the ten parts; then OPTIMIZER, OVERHEAD, raw_ms, measured_peak_mib,
 * label, and the measured parts folded as the comparison folds them (measured_comp,
 * measured_dp_wait, ..., measured_idle; blank when the round does not measure them).
 * Rows in measured order. Written atomically. */
int nd_compare_write_estimates(const char *path, const nd_compare *c, const nd_classified *round,
                               nd_error *err);

/* The report document; the caller frees it. */
/* Prints the report (doc from nd_compare_report_json, its rows made one at a time from c),
 * as nd_json_print would. 0 or -1. */
int nd_compare_print_report(FILE *fp, const cJSON *doc, const nd_compare *c);

/* Writes the report to path (nd_outfile). */
int nd_compare_write_report(const char *path, const cJSON *doc, const nd_compare *c, nd_error *err);

/* The report without its rows, which nd_compare_print_report adds as it prints. */
cJSON *nd_compare_report_json(const nd_compare *c, const char *csv_path, const char *model,
                              const char *device);

/* What the report states about the run besides the comparison. Borrowed strings. */
typedef struct nd_compare_report_inputs {
    const char *run_path, *round_path, *ratios_path; /* ratios_path NULL: raw estimates */
    const char *model, *device;
    double budget_mib;
} nd_compare_report_inputs;

/* nd-compare's one-page HTML report (--report): summary, inputs, accuracy, plots (the SVG
 * copies in plots, or none), rows, and the notes captured from the run (NULL: none). Written
 * atomically. docs/report.md. */
struct nd_plot_gallery;
struct nd_html_capture;
int nd_compare_report_html(const char *path, const nd_compare *c, const nd_compare_report_inputs *in,
                           const struct nd_plot_gallery *plots, struct nd_html_capture *notes, nd_error *err);

/* Draws DIR/<stem>_parity, DIR/<stem>_parts and DIR/<stem>_parts_no_idle (plot.h). */
struct nd_plot_options;
int nd_compare_plots(const char *dir, const char *stem, const nd_compare *c,
                     const struct nd_plot_options *opt, nd_error *err);

#endif
