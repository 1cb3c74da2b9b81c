/*
 * search_cmd.h — what nd-search does once its flags are parsed.
 * Internal to the program: its main fills a request and calls one function; everything
 * it prints goes to `out` (results) and `diag` (notes, warnings).
 */
#ifndef ND_SEARCH_CMD_H
#define ND_SEARCH_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/session/cli.h"
#include "nd/base/error.h"

typedef struct nd_search_request {
    nd_cli_common common;
    const char *dims[16]; /* -l: the dimensions that vary */
    int n_dims;
    bool dims_given;
    const char *modes[4]; /* --recompute: modes, or auto */
    int n_modes;
    bool per_layer;          /* -ar */
    bool offload;            /* -ao */
    double host_gibps;       /* --host_link_gibps (0 = the device's) */
    double host_overlap;     /* --host_link_overlap (< 0 = 0.8) */
    double host_cost;        /* --host_link_cost, ms per GiB (< 0 = the device's, ND's) */
    double sustained_tflops; /* --sustained_tflops (0 = the priced forward) */
    long top;                /* -t (0 = 10 printed, every one in ND's debug files) */
    const char *ranking_csv; /* --ranking_csv */
    const char *out_dir;     /* -o */
    const char *plot_format; /* --format */
    bool no_plots;           /* --no-plots */
    bool potentials;         /* -rp */
    bool quiet;              /* --no-progress */
    const char *real_csv;    /* --real_csv: ND's compare, handed to nd-compare */
    int exhaustive[3];       /* -e, -ee, -eee */
    size_t ppb_k;            /* -k */
    bool has_ppb_k;
    const char *write_ratios; /* --write_ratios, with --real_csv */
    const char *fit_mode;     /* --fit_mode, with --write_ratios: nd-compare's */
    const char *report;       /* --report FILE: the one-page HTML report */
    bool no_what_if;          /* --no-what-if: no search with the overlap switches flipped */
} nd_search_request;

/* Where -rp writes without -o: ND's output folder (ND: its package's nd/output/). */
#define ND_SEARCH_OUTPUT_DIR "output"
/* The configurations -rp expands without -t: ND's potentials' default top (20). */
#define ND_SEARCH_POTENTIALS_TOP 20

/* nd-search: rank every fitting strategy. */
int nd_search_command(const nd_search_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
