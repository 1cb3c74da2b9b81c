/*
 * estimate_cmd.h — what nd-estimate does once its flags are parsed.
 * Internal to the program: its main fills a request and calls one function; everything
 * it prints goes to `out` (results) and `diag` (notes, warnings).
 */
#ifndef ND_ESTIMATE_CMD_H
#define ND_ESTIMATE_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/session/cli.h"
#include "nd/base/error.h"

typedef struct nd_estimate_request {
    nd_cli_common common;
    const char *strategy;   /* --strategy "DP=8 MP=4 ..." (over the run file's strategy:) */
    bool json;              /* --json */
    const char *memory_csv; /* --memory-csv FILE: memory per stage (nd-plot memory draws it) */
} nd_estimate_request;

/* nd-estimate: price one strategy and print it. */
int nd_estimate_command(const nd_estimate_request *req, FILE *out, FILE *diag, nd_error *err);

#endif
