/*
 * html.h — one-page HTML reports: a title, sections of text, facts, tables, notes and the
 * plots inlined as SVG, in one self-contained file (no script, no external file, no
 * timestamp: the same inputs give the same bytes) light enough to attach to a ticket.
 *
 * A report is built in memory (nd_html_open, then sections in order) and written once,
 * atomically, through base/io's output files (nd_html_write), so it commits with the run's
 * other outputs. Every text is escaped; SVG documents from gnuplot are inlined with their
 * XML prologue dropped and their ids prefixed per figure, so several plots share a page
 * without their markers clashing.
 *
 * Each section has an id ("summary", "inputs", "plots", ...) that docs/report.md lists per
 * binary and the browser test checks. Out of memory while building is remembered and
 * reported by nd_html_write (ND_ENOMEM), so the builder's calls return nothing.
 *
 * nd_html_capture tees a stream (stderr) into memory, so a report can show the notes and
 * warnings the run printed.
 */
#ifndef ND_HTML_H
#define ND_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nd/base/error.h"
#include "nd/charts/plot.h"

typedef struct nd_html nd_html;

/* A new report titled title, its generator ("nd-compare 0.1.0") in the footer. NULL when out
 * of memory. Free with nd_html_free. */
nd_html *nd_html_open(const char *title, const char *generator);
void nd_html_free(nd_html *h);

/* Starts a section: <section id="id"><h2>heading</h2>; the previous one ends. */
void nd_html_section(nd_html *h, const char *id, const char *heading);

/* A paragraph of text (printf-style; the result is escaped). */
void nd_html_text(nd_html *h, const char *fmt, ...) ND_PRINTF(2, 3);

/* A short verdict in bold at the top of a section (escaped). */
void nd_html_verdict(nd_html *h, const char *text);

/* A list of name: value facts (the run's inputs), n pairs. */
void nd_html_facts(nd_html *h, size_t n, const char *const *names, const char *const *values);

/* A table: a caption (or NULL), n_cols headers, n_rows rows of cells row-major; a cell that
 * reads as a number ("-6.3 %", "1,234.5") is right-aligned. */
void nd_html_table(nd_html *h, const char *caption, size_t n_cols, const char *const *headers, size_t n_rows,
                   const char *const *cells);

/* A table's cells, filled one by one (row-major), each at most ND_HTML_CELL_MAX - 1 bytes:
 * what the reports' tables are built in. Free with nd_html_grid_free. */
#define ND_HTML_CELL_MAX 112
typedef struct nd_html_grid {
    size_t cols, rows, cap_rows;
    char (*cells)[ND_HTML_CELL_MAX];
    const char **ptrs;
} nd_html_grid;

/* Room for cap_rows rows of cols cells, all empty; false when out of memory. */
bool nd_html_grid_init(nd_html_grid *g, size_t cols, size_t cap_rows);
/* Writes cell (row, col) printf-style, row < cap_rows; the grid then has at least row + 1 rows. */
void nd_html_grid_set(nd_html_grid *g, size_t row, size_t col, const char *fmt, ...) ND_PRINTF(4, 5);
/* The grid as a table (nd_html_table) with these headers. */
void nd_html_grid_table(nd_html *h, const char *caption, const char *const *headers, const nd_html_grid *g);
void nd_html_grid_free(nd_html_grid *g);

/* A list of notes; warnings are marked as such. */
void nd_html_notes(nd_html *h, size_t n, const char *const *items);

/* A figure: the SVG document inlined, its caption under it. An SVG without an <svg element is
 * left out with a note. */
void nd_html_figure(nd_html *h, const char *svg, size_t len, const char *caption);

/* Ends the page and writes it to path (atomically, base/io); call it once. ND_ENOMEM if
 * building ran out of memory, ND_EIO if the file cannot be written. */
int nd_html_write(nd_html *h, const char *path, nd_error *err);

/* ---- capturing what a run prints ----------------------------------------------------- */

typedef struct nd_html_capture {
    FILE *fp; /* write here: it goes to `to` as well as into buf */
    FILE *to;
    char *buf; /* what was written, NUL-terminated after nd_html_capture_text */
    size_t len;
    FILE *mem;
} nd_html_capture;

/* Opens a stream that writes to `to` (stderr) and keeps a copy; the caller closes it with
 * nd_html_capture_close. ND_ENOMEM on failure, with c already closed (closing it again is
 * harmless). */
int nd_html_capture_open(nd_html_capture *c, FILE *to, nd_error *err);
/* The text written so far (flushed), NUL-terminated; valid until the capture is closed. */
const char *nd_html_capture_text(nd_html_capture *c);
void nd_html_capture_close(nd_html_capture *c);

/* Adds the captured lines as a "notes" section: each line a note, progress lines (those the
 * terminal redraws, and "... done in") left out. Without any line, says there was none. */
void nd_html_notes_from_capture(nd_html *h, nd_html_capture *c);

/* Adds every SVG of the gallery as a figure, captions[i] under the i-th (NULL: its name). */
void nd_html_gallery(nd_html *h, const nd_plot_gallery *g, const char *const *captions);

/* The "plots" section: the gallery's figures under captions[0..n_captions) when it holds at
 * most that many (else each under its name), or a line saying there is none (--no-plots). */
void nd_html_plots_section(nd_html *h, const nd_plot_gallery *g, const char *const *captions,
                           size_t n_captions);

#endif
