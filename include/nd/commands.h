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
#include "nd/estimate.h"

typedef struct nd_estimate_request {
    nd_cli_common common;
    const char *strategy; /* --strategy "DP=8 MP=4 ..." (over the run file's strategy:) */
    bool json;            /* --json */
    const char *memory_csv; /* --memory-csv FILE: memory per stage (nd-plot memory draws it) */
} nd_estimate_request;

/* The run file's recompute_plan as a plan for strategy s; ND_EINPUT when it does not match
 * s's stages and layers. plan points into run. */
int nd_plan_from_run(const nd_run *run, const nd_strategy *s, nd_recompute_plan *plan, nd_error *err);

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

typedef struct nd_search_request {
    nd_cli_common common;
    const char *dims[16];     /* -l: the dimensions that vary */
    int n_dims;
    bool dims_given;
    const char *modes[4];     /* --recompute: modes, or auto */
    int n_modes;
    bool per_layer;           /* -ar */
    bool offload;             /* -ao */
    double host_gibps;        /* --host_link_gibps (0 = the device's) */
    double host_overlap;      /* --host_link_overlap (< 0 = 0.8) */
    double host_cost;         /* --host_link_cost, ms per GiB (< 0 = 0) */
    const char *search_config;/* -s */
    long top;                 /* -t (0 = 10 printed) */
    const char *ranking_csv;  /* --ranking_csv */
    const char *out_dir;      /* -o */
    int threads;              /* -j */
    const char *plot_format;  /* --format */
    bool no_plots;            /* --no-plots */
    bool potentials;          /* -rp */
    bool quiet;               /* --no-progress */
} nd_search_request;

/* nd-search: rank every fitting strategy. */
int nd_search_command(const nd_search_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
