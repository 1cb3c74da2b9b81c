/*
 * compare_cmd.h — what nd-compare does once its flags are parsed.
 * Internal to the program: its main fills a request and calls one function; everything
 * it prints goes to `out` (results) and `diag` (notes, warnings).
 */
#ifndef ND_COMPARE_CMD_H
#define ND_COMPARE_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/session/cli.h"
#include "nd/base/error.h"

typedef struct nd_compare_request {
    nd_cli_common common;
    const char *real_csv;     /* --real_csv ROUND.csv */
    const char *out_dir;      /* -o DIR: estimates CSV, report JSON and plots (default: beside
                                 real_csv, no plots) */
    bool json;                /* --json: the report JSON on stdout instead of the table */
    const char *plot_format;  /* --format png|svg|pdf */
    bool no_plots;            /* --no-plots */
    const char *report;       /* --report FILE: the one-page HTML report */
    const char *peak;         /* --peak device|reserved|allocated: what the round's peak_mib measures */
    const char *write_ratios; /* --write_ratios FILE: ND's fit after the comparison (nd-fit's) */
} nd_compare_request;

/* --recompute MODE (ND's words after it joined by commas): the mode of the rows that state
 * none; one mode, as a round's row ran one. 0, or ND_EUSAGE. */
int nd_compare_recompute_flag(nd_cli_common *c, const char *arg, nd_error *err);

/* nd-compare: estimate every row of a round and compare. */
int nd_compare_command(const nd_compare_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
