/*
 * plot_cmd.h — nd-plot: draw a plot again from a CSV file another nd binary
 * wrote, so plots can be rendered later (a nightly job) or restyled.
 *
 *   kind        reads                                   written by
 *   parity      <stem>_estimates.csv                    nd-compare
 *   parts       <stem>_estimates.csv                    nd-compare
 *   ranking     ranking.csv (or --ranking_csv FILE)     nd-search
 *   memory      memory.csv (or --memory-csv FILE)       nd-search -o, nd-estimate
 *   potentials  recompute_potentials.csv                nd-search -rp
 *
 * The command reads columns by name, so extra columns are ignored and column
 * order does not matter; it knows the files' formats, not the cost model.
 * See docs/plots.md, section "nd-plot".
 */
#ifndef ND_PLOT_CMD_H
#define ND_PLOT_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "nd/base/error.h"

/* What the command line asked for. Every string is borrowed and exactly as
 * typed (NULL when the flag was not given): the command checks them, so the
 * main only collects them. */
typedef struct nd_plot_request {
    const char *kind;    /* parity, parts, ranking, memory or potentials */
    const char *input;   /* the CSV file */
    const char *out_dir; /* -o DIR: where the files go (created if missing); NULL: the current
                             directory, never the input's unless -o names it */
    const char *name;    /* --name NAME: the files' name without extension; NULL: the kind's
                             (<stem>_parity, <stem>_parts, ranking, memory, ...) */
    const char *format;  /* --format png|svg|pdf; NULL: png */
    const char *top;     /* -t K: ranking rows (default 10), potentials configurations
                             (default all) */
    const char *budget;  /* -M SIZE (nd_parse_memory_mib): ranking, memory, potentials */
    const char *title;   /* --title TEXT; NULL: the plot's default title */
    const char *width;   /* --width PX */
    const char *height;  /* --height PX */
    bool no_idle;        /* --no-idle: parts without idle (ND's _no_idle view) */
    bool script_only;    /* --script-only: write .gp and .dat, run no gnuplot */
} nd_plot_request;

/* Reads req->input and draws the plot (the files it wrote are the run's outputs: nd-plot's
 * main names them, "wrote PATH").
 * Errors: ND_EUSAGE (unknown kind, a bad or inapplicable flag value),
 * ND_EINPUT (the CSV: "FILE:LINE: column 'X': ..."), ND_EIO, ND_ERUNTIME
 * (gnuplot), ND_ENOMEM — with one line in err. */
int nd_plot_command(const nd_plot_request *req, nd_error *err);

#endif
