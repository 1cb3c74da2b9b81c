/*
 * fit_cmd.h — what nd-fit does once its flags are parsed.
 * Internal to the program: its main fills a request and calls one function; everything
 * it prints goes to `out` (results) and `diag` (notes, warnings).
 */
#ifndef ND_FIT_CMD_H
#define ND_FIT_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/session/cli.h"
#include "nd/base/error.h"

#define ND_FIT_MAX_ROUNDS 32

typedef struct nd_fit_request {
    nd_cli_common common;
    const char *real_csv[ND_FIT_MAX_ROUNDS];  /* --real_csv ROUND.csv, repeatable */
    const char *round_run[ND_FIT_MAX_ROUNDS]; /* the -y given last before each (NULL: the command's) */
    int rounds;
    const char *write_device; /* --write_device FILE: the fitted device (YAML, written atomically) */
    const char *device_name;  /* --device-name NAME (default: the base's name + "-fit") */
    const char *write_ratios; /* --write_ratios FILE (written atomically) */
    const char *report_json;  /* --report-json FILE */
    const char *mode;         /* --mode parts|total|sums (default: by the columns present) */
    const char *weights;      /* --weights relative|absolute */
    bool robust;              /* --robust */
    bool allow_fallback;      /* --allow-fallback */
    const char *max_ci;       /* --max-ci F: a written ratio's largest relative 95 % half-width */
    const char *hold;         /* --hold KEY[,KEY]: held at 1 (fixed costs at 0) */
    bool no_fixed;            /* --no-fixed: ND's ratios alone */
    bool no_shapes;           /* --no-shapes */
    const char *peak;         /* --peak device|reserved|allocated: what peak_mib measures */
    const char *out_dir;      /* -o DIR: the plots (<stem>_ratios, <stem>_loo) */
    const char *plot_format;  /* --format png|svg|pdf */
    bool no_plots;            /* --no-plots */
    int suggest;              /* --suggest K (0: none) */
    const char *run_list;     /* --run-list FILE */
    const char *report;       /* --report FILE: the one-page HTML report */
} nd_fit_request;

/* nd-fit: fit the ratios of a round, report leave-one-out accuracy, write the ratios file. */
int nd_fit_command(const nd_fit_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
