/* nd-estimate — price exactly one parallel strategy. */
#include "nd/base/main.h"
#include <stdio.h>
#include <string.h>

#include "estimate_cmd.h"

static const char usage[] =
    "usage: nd-estimate -y RUN -A DEVICE [-d N] [-b GBS] [-M BUDGET] --strategy \"DP=8 MP=4 ...\"\n"
    "                   [--json] [-c ratios.json] [flags]\n"
    "\n"
    "Prices one strategy: memory per pipeline stage by component, and the step time split\n"
    "into twelve parts (ND's ten, then OPTIMIZER and OVERHEAD) in milliseconds.\n"
    "\n"
    "Strategy:\n"
    "      --strategy TEXT      KEY=VALUE items: DP MP (or TP) PP CP EP ETP OP ZERO VPP MB MBS SP\n"
    "                           FIRST LAST recompute=off|selective|full schedule=1f1b|interleaved|\n"
    "                           zb-h1|gpipe; keys not given come from the run file's strategy:\n"
    "      --json               print a JSON document (docs/nd-estimate.md) instead of the table\n"
    "      --recompute MODE     off, selective or full\n"
    "      --memory-csv FILE    memory per stage as CSV (nd-plot memory draws it)\n"
    "  -v (verbosity 3)         also one micro-batch of each layer kind: GEMM, attention,\n"
    "                           memory-bound, collectives, host and device time\n"
    "\n";

static const char exit_status[] = "Exit status: 0 priced, 1 failed while running, 2 bad usage or input.\n";

enum { OPT_JSON = ND_OPT_COMMON_LAST + 1, OPT_RECOMPUTE, OPT_MEMORY_CSV, OPT_STRATEGY };

static const struct option options[] = {
    {"strategy", required_argument, 0, OPT_STRATEGY},
    {"json", no_argument, 0, OPT_JSON},
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"memory-csv", required_argument, 0, OPT_MEMORY_CSV},
    {0, 0, 0, 0},
};

static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    nd_estimate_request *req = request;
    switch (opt) {
    case OPT_STRATEGY: req->strategy = arg; return 0;
    case OPT_JSON: req->json = true; return 0;
    case OPT_JSON | ND_CLI_NO: req->json = false; return 0;
    case OPT_MEMORY_CSV: req->memory_csv = arg; return 0;
    case OPT_RECOMPUTE:
        return nd_cli_common_add_flag(&req->common, "recompute", arg, "--recompute", err) < 0 ? ND_EUSAGE : 0;
    default: return 1;
    }
}

int main(int argc, char **argv)
{
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     estimate.json (the --json document) and memory.csv (memory per\n"
         "                           stage, nd-plot memory's input), created if missing\n"},
        {0, NULL}};
    static const nd_cli_program program = {.name = "nd-estimate",
                                           .usage = usage,
                                           .exit_status = exit_status,
                                           .options = options,
                                           .short_options = "",
                                           .handle = handle,
                                           .shared_help = own};
    nd_estimate_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
    if (status >= 0) return status;
    nd_error err = {0};
    nd_main_start();
    nd_cli_streams io;
    nd_cli_streams_open(&req.common, &io);
    int rc = req.common.shared.verify
                 ? nd_verify_command(&req.common, req.common.shared.out_dir, io.out, io.diag, &err)
                 : nd_estimate_command(&req, io.out, io.diag, &err);
    nd_cli_streams_close(&io);
    return nd_main_end("nd-estimate", req.common.shared.verbosity, rc, &err);
}
