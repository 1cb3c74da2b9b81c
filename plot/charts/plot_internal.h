/*
 * plot_internal.h — what the plot kinds share; not installed, not public.
 *
 * A plot kind validates its input, writes its data table and its gnuplot
 * commands into two in-memory texts, and hands both to nd_plot_emit, which
 * adds the terminal and output lines, writes NAME.dat and NAME.gp and runs
 * gnuplot. Kinds never touch files or processes.
 */
#ifndef ND_PLOT_INTERNAL_H
#define ND_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "nd/base/error.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"

/* Text built in memory through a FILE* (open_memstream), so the kinds can
 * fprintf freely and check for failure once, in nd_plot_text_finish. */
typedef struct nd_plot_text {
    FILE *fp;
    char *buf; /* owned; valid after nd_plot_text_finish */
    size_t len;
} nd_plot_text;

int nd_plot_text_open(nd_plot_text *t, nd_error *err);
/* Closes the stream; ND_ENOMEM if any write into it failed. */
int nd_plot_text_finish(nd_plot_text *t, nd_error *err);
void nd_plot_text_free(nd_plot_text *t);

/* A gnuplot string literal in single quotes: ' doubled, control characters
 * replaced by spaces (a newline would end the command). NULL prints ''. */
void nd_plot_put_string(FILE *fp, const char *s);
/* A string of several lines as a gnuplot string expression: each line single-quoted as
 * nd_plot_put_string writes it, joined by ."\n". (for titles of two lines). */
void nd_plot_put_lines(FILE *fp, const char *s);
/* A label column of a data table in double quotes. gnuplot's data reader has
 * no escapes, so '"' becomes '\'' and control characters become spaces. */
void nd_plot_put_label(FILE *fp, const char *s);
/* A column name in a header comment: whitespace and control characters become
 * '_' so the names stay one word each. */
void nd_plot_put_word(FILE *fp, const char *s);
void nd_plot_put_number(FILE *fp, double x);

/* Colour i of the fixed palette as "#rrggbb"; cycles after 16. */
const char *nd_plot_color(size_t i);
#define ND_PLOT_BUDGET_COLOR "#c00000"

/* 10^k, exact text when printed, for |k| <= 22. */
double nd_plot_pow10(int k);
/* The smallest "round" number m * 10^e >= x (m in 1, 1.2, 1.5, 2, 2.5, 3, 4, 5,
 * 6, 8), for x > 0. Axis limits built from it print as short decimals. */
double nd_plot_nice_ceil(double x);

/* The screen fraction a left margin needs for row labels[0..n-1] written horizontally at
 * the plot's font (about 7.2 px a character at 10 pt), between 0.12 and 0.5. */
double nd_plot_label_margin(const char *const *labels, size_t n, const nd_plot_options *opt);

/* A legend of its own, in rows across the image between screen x from left to 0.97 and
 * screen y from bottom to top: one filled swatch per name ("#rrggbb" colors[k]), then, when
 * mark_title is not NULL, a black diamond titled mark_title. Drawn as the last panel of a
 * multiplot, so the legend has the image's width rather than a panel's. */
void nd_plot_put_key_panel(FILE *fp, const char *const *names, const char *const *colors, size_t n,
                           const char *mark_title, double left, double bottom, double top,
                           const nd_plot_options *opt);

/* The same, and after the entries, when budget_title is not NULL, the budget as it is drawn:
 * a dashed red line titled budget_title. */
void nd_plot_put_key_panel_line(FILE *fp, const char *const *names, const char *const *colors, size_t n,
                                const char *mark_title, const char *budget_title, double left, double bottom,
                                double top, const nd_plot_options *opt);

/* Whether budget_mib asks for a budget line: finite and > 0. */
bool nd_plot_has_budget(double budget_mib);
/* A plot clause (starting with ", \" and a new line) drawing the budget as a
 * dashed horizontal line, "memory budget, <n> MiB<suffix>" in the legend; axes
 * is "" or " axes x1y2". */
void nd_plot_put_budget(FILE *fp, double budget_mib, const char *axes, const char *suffix);

/* The title to draw: opt->title when set, else fallback. opt may be NULL. */
const char *nd_plot_title(const nd_plot_options *opt, const char *fallback);

/* a * b without overflow into *out; -1 if it would overflow. */
int nd_plot_mul_size(size_t a, size_t b, size_t *out);

/* True when any of v[0..n-1] is finite. */
int nd_plot_any_finite(const double *v, size_t n);

/* What a plot kind hands over to be written and rendered. */
typedef struct nd_plot_job {
    const char *kind; /* "parity", ... : names the plot in comments and messages */
    const char *data; /* the table: header comment lines then rows; ends in '\n' */
    const char *body; /* the commands after the datablock, without `unset output` */
} nd_plot_job;

/* A plot kind's two texts, its data table and its commands. */
typedef struct nd_plot_texts {
    nd_plot_text data, body;
} nd_plot_texts;

/* Opens both (ND_ENOMEM). */
int nd_plot_texts_open(nd_plot_texts *t, nd_error *err);
/* Finishes both and hands them to nd_plot_emit as the plot `kind`. The texts stay to be freed. */
int nd_plot_texts_emit(nd_plot_texts *t, const char *kind, const char *out_base, const nd_plot_options *opt,
                       nd_error *err);
void nd_plot_texts_free(nd_plot_texts *t);

/* Writes out_base.dat and out_base.gp and renders out_base.<ext> (unless
 * opt->script_only), all or nothing. opt may be NULL (defaults). */
int nd_plot_emit(const char *out_base, const nd_plot_options *opt, const nd_plot_job *job, nd_error *err);

#endif
