/*
 * commands.h — what each binary does once its flags are parsed. A main fills
 * a request and calls one function; everything it prints goes to `out`
 * (results) and `diag` (notes, warnings).
 */
#ifndef ND_COMMANDS_H
#define ND_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/cli.h"
#include "nd/error.h"

typedef struct nd_estimate_request {
    nd_cli_common common;
    const char *strategy; /* --strategy "DP=8 MP=4 ..." (over the run file's strategy:) */
    bool json;            /* --json */
} nd_estimate_request;

/* nd-estimate: price one strategy and print it. */
int nd_estimate_command(const nd_estimate_request *req, FILE *out, FILE *diag, nd_error *err);

typedef struct nd_compare_request {
    nd_cli_common common;
    const char *real_csv;    /* --real_csv ROUND.csv */
    const char *out_dir;     /* -o DIR: estimates CSV, report JSON and plots (default ".", no plots) */
    bool json;               /* --json: the report JSON on stdout instead of the table */
    const char *plot_format; /* --format png|svg|pdf */
    bool no_plots;           /* --no-plots */
} nd_compare_request;

/* nd-compare: estimate every row of a round and compare. */
int nd_compare_command(const nd_compare_request *req, FILE *out, FILE *diag, nd_error *err);

typedef struct nd_fit_request {
    nd_cli_common common;
    const char *real_csv;     /* --real_csv ROUND.csv */
    const char *write_ratios; /* --write_ratios FILE (written atomically) */
    const char *report_json;  /* --report-json FILE */
    const char *mode;         /* --mode parts|total|sums (default: by the columns present) */
    const char *weights;      /* --weights relative|absolute */
    bool robust;              /* --robust */
    bool allow_fallback;      /* --allow-fallback */
} nd_fit_request;

/* nd-fit: fit the ratios of a round, report leave-one-out accuracy, write the ratios file. */
int nd_fit_command(const nd_fit_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
