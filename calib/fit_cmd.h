/*
 * fit_cmd.h — what nd-fit does once its flags are parsed.
 * Internal to the program: its main fills a request and calls one function; everything
 * it prints goes to `out` (results) and `diag` (notes, warnings).
 */
#ifndef ND_FIT_CMD_H
#define ND_FIT_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/cli.h"
#include "nd/error.h"

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
