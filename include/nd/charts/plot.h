/*
 * plot.h — tables of labelled numbers drawn by gnuplot.
 *
 * This module knows nothing of models, strategies or the cost model: callers
 * hand it labels and numbers (milliseconds, MiB) and it draws them. Each plot
 * is named by an output base path "DIR/NAME" (DIR must exist) and writes three
 * files beside each other:
 *
 *   DIR/NAME.gp    a self-contained gnuplot script, data inline as a datablock;
 *                  `cd DIR && gnuplot NAME.gp` draws the image again
 *   DIR/NAME.dat   the same data as a whitespace-separated table with a header
 *                  comment (labels double-quoted, "nan" = not available)
 *   DIR/NAME.png   the image (.svg or .pdf by nd_plot_options.format)
 *
 * gnuplot runs as `gnuplot -d` (no ~/.gnuplot) through a pipe, with text in
 * noenhanced mode so '_' and '^' in labels print as typed. Every file is
 * written to a temporary name and renamed only when the whole plot succeeded,
 * so a failed plot leaves earlier files as they were. The .gp and .dat files
 * are byte-identical for identical inputs; so are PNG and SVG images on one
 * machine (fonts and gnuplot versions change them across machines). PDF images
 * differ run to run: cairo embeds a creation date and ignores SOURCE_DATE_EPOCH.
 *
 * Ownership: every pointer in the structs below is borrowed for the duration of
 * the call only; nothing is kept and the caller frees what it allocated.
 * Arrays of numbers per (row, column) are row-major: value[row * n_cols + col].
 * Non-finite numbers mean "not available": a point is not drawn, a stack
 * segment counts as 0.
 *
 * Threads: while gnuplot runs, SIGPIPE is ignored process-wide (a missing or
 * dying gnuplot would otherwise kill the program on the first write) and the
 * previous handler is restored after. Draw plots from one thread at a time.
 *
 * Errors (return value, with a one-line message in err):
 *   ND_EINPUT    empty or inconsistent input, no finite values, bad options
 *   ND_EIO       an output file cannot be written (the message names it)
 *   ND_ERUNTIME  gnuplot missing ("gnuplot not found on PATH: install
 *                gnuplot-nox") or failed (its first error line is quoted)
 *   ND_ENOMEM    out of memory
 */
#ifndef ND_PLOT_H
#define ND_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nd/base/error.h"

typedef enum {
    ND_PLOT_PNG = 0, /* pngcairo */
    ND_PLOT_SVG,     /* svg */
    ND_PLOT_PDF,     /* pdfcairo; not byte-reproducible (embedded date) */
} nd_plot_format;

/* A measured part below this share of its row's measured step is too small to divide by: its
 * relative error is not judged (nd-compare's accuracy table and the parity panels alike). */
#define ND_PLOT_JUDGED_PART_SHARE 0.005

#define ND_PLOT_WIDTH_DEFAULT  1000
#define ND_PLOT_HEIGHT_DEFAULT 700
#define ND_PLOT_SIZE_MAX       20000

/* SVG copies of the plots drawn with one set of options (nd_plot_options.gallery), in the
 * order drawn, for a report that embeds them. Each item owns its strings. */
typedef struct nd_plot_svg {
    char *name; /* the plot's output name without directory or extension ("ranking") */
    char *svg;  /* the SVG document gnuplot wrote, NUL-terminated */
    size_t len;
} nd_plot_svg;

typedef struct nd_plot_gallery {
    nd_plot_svg *items;
    size_t count, cap;
} nd_plot_gallery;

/* Frees the items; the gallery is empty and reusable after. */
void nd_plot_gallery_free(nd_plot_gallery *g);

/* How every plot is rendered. A zero-initialised struct is valid (PNG,
 * default size, default title). */
typedef struct nd_plot_options {
    nd_plot_format format;
    int width_px;             /* image width; 0 = ND_PLOT_WIDTH_DEFAULT. PDF: width_px / 100 inches */
    int height_px;            /* image height; 0 = ND_PLOT_HEIGHT_DEFAULT. PDF: likewise */
    const char *title;        /* NULL: the plot kind's default title */
    bool script_only;         /* write .gp and .dat only; run no gnuplot, write no image */
    nd_plot_gallery *gallery; /* non-NULL: each plot is also drawn as SVG (at this size) and
                                 appended here; borrowed, the caller frees it */
    bool gallery_only;        /* with gallery: write no file, only draw the SVG copy (a report
                                 without -o) */
} nd_plot_options;

/* Fills opt with the defaults: PNG, 1000 x 700, default title, rendered. */
void nd_plot_options_init(nd_plot_options *opt);

/* "png", "svg" or "pdf" (any case) into *fmt. ND_EINPUT for anything else. */
int nd_plot_format_from_name(const char *name, nd_plot_format *fmt, nd_error *err);

/* The file extension without the dot: "png", "svg", "pdf". */
const char *nd_plot_format_extension(nd_plot_format fmt);

/* Checks that `gnuplot -V` runs. 0, or ND_ERUNTIME "gnuplot not found on PATH:
 * install gnuplot-nox". A binary can call it once to fail early; the plot
 * functions report the same error themselves. */
int nd_plot_gnuplot_check(nd_error *err);

/* ---- parity: estimated against measured --------------------------------- */

typedef enum {
    ND_PLOT_SCALE_LINEAR = 0, /* linear axes from 0 (or below, for negative values) */
    ND_PLOT_SCALE_LOG,        /* log axes; every finite value must be > 0 */
    ND_PLOT_SCALE_AUTO,       /* per panel: log when all values are > 0 and the largest is at
                                 least 10 x the smallest */
} nd_plot_scale;

/* One panel: the same points (strategies) for one quantity, e.g. "step" or a part. */
typedef struct nd_plot_parity_panel {
    const char *name;            /* panel title */
    const double *measured_ms;   /* [n_points]: x */
    const double *estimated_ms;  /* [n_points]: y */
    const double *corrected_ms;  /* [n_points] or NULL: a second estimate, e.g. after calibration */
    const char *unit;            /* the axes' unit; NULL: "ms" (the fields say _ms, but a panel of
                                   memory in GiB is drawn the same way) */
    const unsigned char *judged; /* [n_points] 0: drawn but left out of the title's MAPE and
                                    worst and of the labels (a part too small to divide by), or
                                    NULL: every point with a measurement is judged */
} nd_plot_parity_panel;

typedef struct nd_plot_parity {
    size_t n_points;
    const char *const *labels;          /* [n_points] strategy labels (NULL entry = "") */
    size_t n_panels;                    /* >= 1; drawn as a grid, left to right */
    const nd_plot_parity_panel *panels; /* [n_panels]; corrected_ms in all panels or none */
    const char *estimated_name;         /* legend of estimated_ms; NULL: "estimated" */
    const char *corrected_name;         /* legend of corrected_ms; NULL: "corrected" */
    nd_plot_scale scale;
} nd_plot_parity;

/* Parity plot: per panel, estimated (y) against measured (x) on equal axes, with the line
 * y = x and a shaded band of +-10 % around it; the panel's title gives the mean absolute
 * error and the worst error of the judged estimate (the corrected one when there is one).
 * Only the three worst points more than 5 % off are labelled by strategy, so labels do not
 * pile up; a grey segment joins each estimate to its correction.
 * ND_EINPUT: no points or panels, a NULL array, a panel without any point with
 * finite measured and estimated values, corrected_ms in some panels only, or
 * ND_PLOT_SCALE_LOG with a value <= 0. */
int nd_plot_parity_write(const char *out_base, const nd_plot_parity *plot, const nd_plot_options *opt,
                         nd_error *err);

/* ---- parts: measured beside estimated, stacked -------------------------- */

typedef struct nd_plot_parts {
    size_t n_strategies;
    const char *const *labels; /* [n_strategies], drawn left to right */
    size_t n_parts;
    const char *const *part_names;      /* [n_parts]; part i has palette colour i in every plot */
    const double *measured_ms;          /* [n_strategies * n_parts], row-major; NULL: no part measured */
    const double *estimated_ms;         /* [n_strategies * n_parts], row-major */
    const char *omit_part;              /* NULL, or a part name left out of both bars (ND's
                                           "_no_idle" view); the others keep their colours */
    const double *measured_step_ms;     /* [n_strategies] or NULL: the measured step; a row whose
                                           parts were not measured draws it as one grey bar */
    size_t n_table_rows;                /* lines of text under each pair (ND's table of degrees and
                                           memory); 0: the labels, rotated, instead */
    const char *const *table_row_names; /* [n_table_rows], written left of the table */
    const char *const *table_cells;     /* [n_table_rows * n_strategies], row-major by line */
    size_t n_rows_total;                /* 0, or the rows the caller had when only the first
                                           n_strategies are drawn (said in the title) */
} nd_plot_parts;

/* Parts plot: per strategy two stacked bars on one millisecond axis, measured (left, marked
 * M) and estimated (right, marked E), parts coloured by index; above each pair the
 * estimate's error on the step ((E - M) / M, %); under it the table, or the label. Parts
 * zero or missing in every bar are left out; the legend is a row under the title; the
 * plot spans the image's width. Ordering the strategies is the caller's choice.
 * ND_EINPUT: no strategies or parts, a NULL array, table rows without names or cells,
 * omit_part not a part name, or nothing left to draw. */
int nd_plot_parts_write(const char *out_base, const nd_plot_parts *plot, const nd_plot_options *opt,
                        nd_error *err);

/* ---- a profiling round beside its estimates (nd-compare's plots) -------- */

/* A round's rows in the vocabulary of the measured columns (the folds of formats.h). Arrays
 * per fold are fold-major: value[f * n + i] is fold f of row i. */
typedef struct nd_plot_round {
    size_t n;
    const char *const *labels;        /* [n] strategy labels */
    const int64_t *degrees;           /* [n * ND_DIMS_SEARCHED] in nd_dim order, or NULL */
    const char *const *recompute;     /* [n] the recompute mode's text, or NULL */
    const bool *fold_measured;        /* [ND_FOLDS] the round has a column for fold f */
    const double *measured;           /* [ND_FOLDS * n] NaN: not measured */
    const double *estimated;          /* [ND_FOLDS * n] the estimate (corrected, with ratios) */
    const double *raw;                /* [ND_FOLDS * n] before the ratios (NaN where not known), or
                                         NULL without ratios */
    const double *measured_step_ms;   /* [n] */
    const double *estimated_step_ms;  /* [n] */
    const double *raw_step_ms;        /* [n] before the ratios, or NULL without ratios */
    const double *measured_peak_mib;  /* [n] or NULL */
    const double *estimated_peak_mib; /* [n] or NULL */
} nd_plot_round;

/* The round's parity plot: the step, the peak memory (GiB) when some row measured it, and
 * each part the round measured above 0 in some row; with ratios the raw estimates beside
 * the corrected ones. Errors as nd_plot_parity_write. */
int nd_plot_round_parity(const char *out_base, const nd_plot_round *round, const nd_plot_options *opt,
                         nd_error *err);

/* The round's parts plot: measured beside estimated per row (the measured step as one grey
 * bar where the round measured no part), ND's table under each pair (the degrees that are
 * not 1 in every row, recompute, the estimated and measured peak memory in GiB); no_idle
 * leaves idle out of both bars (ND's _no_idle view). Errors as nd_plot_parts_write. */
int nd_plot_round_parts(const char *out_base, const nd_plot_round *round, bool no_idle,
                        const nd_plot_options *opt, nd_error *err);

/* ---- ranking: which to run, and how sure nd is ------------------------- */

typedef struct nd_plot_ranking {
    size_t n_strategies;       /* the distinct choices, in rank order (best first) */
    const char *const *labels; /* [n_strategies] */
    size_t n_parts;
    const char *const *part_names; /* [n_parts]; colour by index as in the parts plot */
    const double *parts_ms;        /* [n_strategies * n_parts], row-major */
    const double *peak_mib;        /* [n_strategies] peak memory per device */
    double budget_mib;             /* memory budget; <= 0 or NaN: no budget line */
    const double *lo_ms, *hi_ms;   /* [n_strategies] each step's interval, or NULL (none known) */
    const int *tied;               /* [n_strategies] 1: cannot be told apart from #1, or NULL */
    const double *p_fastest;       /* [n_strategies] share of draws in which it is fastest (NaN:
                                      none), or NULL */
    const char *interval_name;     /* the intervals' legend ("95 % interval (fitted)"); NULL: "interval" */
    const char *subtitle;          /* a second title line (what was searched), or NULL */
} nd_plot_ranking;

/* Ranking plot, for "which should I run, and how sure is nd?": per choice a row (best on top)
 * with its step time in ms as a point and its interval as a bar on one axis, #1's interval
 * shaded across the rows, each row coloured by whether it can be told apart from #1; right of
 * it the difference from #1 and the part that makes most of it (and P(fastest)); right of
 * that its peak memory against the budget (dashed) with the headroom written in the bar.
 * ND_EINPUT: no strategies or parts, a NULL array, no finite time value. */
int nd_plot_ranking_write(const char *out_base, const nd_plot_ranking *plot, const nd_plot_options *opt,
                          nd_error *err);

/* ---- memory per pipeline stage ------------------------------------------ */

typedef struct nd_plot_stage_memory {
    size_t n_stages;
    const char *const *stage_labels; /* [n_stages], or NULL for "0", "1", ... */
    size_t n_components;
    const char *const *component_names; /* [n_components], e.g. "weights", "activations" */
    const double *component_mib;        /* [n_stages * n_components], row-major */
    double budget_mib;                  /* <= 0 or NaN: no budget line */
    const char *strategy;               /* NULL, or the strategy's label, named in the title */
    size_t n_reclaimable;               /* the last components are memory the runtime gives back
                                           under pressure: drawn hatched, left out of the share
                                           of the budget */
    const int64_t *offloaded_layers;    /* [n_stages] layers whose activations live in host memory
                                           (offload), or NULL: written above the stage's bar and
                                           totalled in the title */
} nd_plot_stage_memory;

/* Memory plot: per pipeline stage a stacked bar of memory components, in GiB, against a
 * dashed budget line, each bar's % of the budget above it (without its reclaimable
 * components; where bars are too narrow for every label, the peak's and those that differ
 * from their neighbours', never overlapping), the offloaded layers above it; the title names
 * the strategy, the peak stage and its % of the budget. Components 0 in every stage are
 * left out; the legend draws the budget as the dashed line it is.
 * ND_EINPUT: no stages or components, a NULL array, or no finite value. */
int nd_plot_stage_memory_write(const char *out_base, const nd_plot_stage_memory *plot,
                               const nd_plot_options *opt, nd_error *err);

/* ---- values with intervals (nd-fit's ratios) --------------------------- */

typedef struct nd_plot_intervals {
    size_t n;
    const char *const *names; /* [n], drawn top to bottom */
    const double *value;      /* [n] */
    const double *lo, *hi;    /* [n] the 95 % interval; NaN: none */
    const bool *estimated;    /* [n] false: not estimated (held, shared, a fallback): hollow, grey */
    const char *const *notes; /* [n] or NULL: a short note written right of each row */
    const char *axis_name;    /* NULL: "ratio (1 = the estimate needs no correction)" */
} nd_plot_intervals;

/* Interval plot: per row a point at its value and a bar over its interval, a dashed line at
 * 1, the value and its note in a column on the right. The axis spans 0 to 2 at least,
 * widened to the values but never beyond -1 and 4: an interval cut at the edge ends in an
 * arrow. ND_EINPUT: no rows, a NULL array, or no finite value. */
int nd_plot_intervals_write(const char *out_base, const nd_plot_intervals *plot, const nd_plot_options *opt,
                            nd_error *err);

/* ---- plain bars (nd-classify) ------------------------------------------- */

typedef struct nd_plot_stacks {
    size_t n_bars;
    const char *const *labels; /* [n_bars], left to right */
    size_t n_parts;
    const char *const *part_names; /* [n_parts] */
    const double *values;          /* [n_bars * n_parts], row-major; NaN counts 0 */
    const size_t *color_index;     /* [n_parts] palette colour of each part, or NULL: its index */
    const char *x_name, *y_name;   /* axis labels, or NULL */
} nd_plot_stacks;

/* Stacked bars: one bar per row, its parts stacked and coloured, its total written above;
 * parts 0 in every bar are left out; the legend is a row under the plot. ND_EINPUT: no bars
 * or parts (at most 64), a NULL array, or no finite value. */
int nd_plot_stacks_write(const char *out_base, const nd_plot_stacks *plot, const nd_plot_options *opt,
                         nd_error *err);

typedef struct nd_plot_bars {
    size_t n;
    const char *const *labels; /* [n], top to bottom */
    const double *values;      /* [n] */
    size_t color_index;        /* the bars' palette colour */
    const char *x_name;        /* the axis label, or NULL */
} nd_plot_bars;

/* Horizontal bars: one per row, its value and its share of the sum written right of the
 * plot. ND_EINPUT: no bars, a NULL array, or no finite value. */
int nd_plot_bars_write(const char *out_base, const nd_plot_bars *plot, const nd_plot_options *opt,
                       nd_error *err);

/* ---- recompute potentials ----------------------------------------------- */

/* One configuration: step 0 is its starting plan, step i has i more layers
 * fully recomputed. */
typedef struct nd_plot_recompute_series {
    const char *label;      /* the configuration */
    size_t n_steps;         /* >= 1 */
    const double *step_ms;  /* [n_steps] step time */
    const double *peak_mib; /* [n_steps] peak memory per device */
} nd_plot_recompute_series;

typedef struct nd_plot_recompute {
    size_t n_series;
    const nd_plot_recompute_series *series; /* [n_series]; colour by index */
    double budget_mib;                      /* <= 0 or NaN: no budget line */
} nd_plot_recompute;

/* Recompute potentials: two panels against the step number, step time (ms)
 * and peak memory (MiB), one line per configuration, the budget dashed on the
 * memory panel. ND_EINPUT: no series, a series without steps, a NULL array, or
 * a panel without any finite value. */
int nd_plot_recompute_write(const char *out_base, const nd_plot_recompute *plot, const nd_plot_options *opt,
                            nd_error *err);

#endif
