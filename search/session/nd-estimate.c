/* nd-estimate — price exactly one parallel strategy. */
#include "nd/base/main.h"
#include <stdio.h>
#include "nd/base/main.h"
#include <string.h>
#include "nd/base/main.h"

#include "nd/base/main.h"
#include "estimate_cmd.h"
#include "nd/base/main.h"

#include "nd/base/main.h"
static const char usage[] =
#include "nd/base/main.h"
    "usage: nd-estimate -y RUN -A DEVICE [-d N] [-b GBS] [-M BUDGET] --strategy \"DP=8 MP=4 ...\"\n"
#include "nd/base/main.h"
    "                   [--json] [-c ratios.json] [flags]\n"
#include "nd/base/main.h"
    "\n"
#include "nd/base/main.h"
    "Prices one strategy: memory per pipeline stage by component, and the step time split\n"
#include "nd/base/main.h"
    "into twelve parts (ND's ten, then OPTIMIZER and OVERHEAD) in milliseconds.\n"
#include "nd/base/main.h"
    "\n"
#include "nd/base/main.h"
    "Strategy:\n"
#include "nd/base/main.h"
    "      --strategy TEXT      KEY=VALUE items: DP MP (or TP) PP CP EP ETP OP ZERO VPP MB MBS SP\n"
#include "nd/base/main.h"
    "                           FIRST LAST recompute=off|selective|full schedule=1f1b|interleaved|\n"
#include "nd/base/main.h"
    "                           zb-h1|gpipe; keys not given come from the run file's strategy:\n"
#include "nd/base/main.h"
    "      --json               print a JSON document (docs/nd-estimate.md) instead of the table\n"
#include "nd/base/main.h"
    "      --recompute MODE     off, selective or full\n"
#include "nd/base/main.h"
    "      --memory-csv FILE    memory per stage as CSV (nd-plot memory draws it)\n"
#include "nd/base/main.h"
    "\n";
#include "nd/base/main.h"

#include "nd/base/main.h"
static const char exit_status[] =
#include "nd/base/main.h"
    "Exit status: 0 priced, 1 failed while running, 2 bad usage or input.\n";
#include "nd/base/main.h"

#include "nd/base/main.h"
enum { OPT_JSON = ND_OPT_COMMON_LAST + 1, OPT_RECOMPUTE, OPT_MEMORY_CSV, OPT_STRATEGY };
#include "nd/base/main.h"

#include "nd/base/main.h"
static const struct option options[] = {
#include "nd/base/main.h"
    {"strategy", required_argument, 0, OPT_STRATEGY},
#include "nd/base/main.h"
    {"json", no_argument, 0, OPT_JSON},
#include "nd/base/main.h"
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
#include "nd/base/main.h"
    {"memory-csv", required_argument, 0, OPT_MEMORY_CSV},
#include "nd/base/main.h"
    {0, 0, 0, 0},
#include "nd/base/main.h"
};
#include "nd/base/main.h"

#include "nd/base/main.h"
static int handle(int opt, const char *arg, void *request, nd_error *err)
#include "nd/base/main.h"
{
#include "nd/base/main.h"
    nd_estimate_request *req = request;
#include "nd/base/main.h"
    switch (opt) {
#include "nd/base/main.h"
    case OPT_STRATEGY: req->strategy = arg; return 0;
#include "nd/base/main.h"
    case OPT_JSON: req->json = true; return 0;
#include "nd/base/main.h"
    case OPT_JSON | ND_CLI_NO: req->json = false; return 0;
#include "nd/base/main.h"
    case OPT_MEMORY_CSV: req->memory_csv = arg; return 0;
#include "nd/base/main.h"
    case OPT_RECOMPUTE:
        return nd_cli_common_add_flag(&req->common, "recompute", arg, "--recompute", err) < 0 ? ND_EUSAGE : 0;
#include "nd/base/main.h"
    default: return 1;
#include "nd/base/main.h"
    }
#include "nd/base/main.h"
}
#include "nd/base/main.h"

#include "nd/base/main.h"
int main(int argc, char **argv)
#include "nd/base/main.h"
{
#include "nd/base/main.h"
    static const nd_cli_program program = {"nd-estimate", usage, exit_status, options, "",
                                           handle,        NULL,  NULL};
#include "nd/base/main.h"
    nd_estimate_request req;
#include "nd/base/main.h"
    memset(&req, 0, sizeof req);
#include "nd/base/main.h"
    nd_cli_common_init(&req.common);
#include "nd/base/main.h"
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
#include "nd/base/main.h"
    if (status >= 0) return status;
#include "nd/base/main.h"
    nd_error err = {0};
#include "nd/base/main.h"
    nd_main_start();
#include "nd/base/main.h"
    nd_cli_streams io;
#include "nd/base/main.h"
    nd_cli_streams_open(&req.common, &io);
#include "nd/base/main.h"
    int rc = req.common.verify ? nd_verify_command(&req.common, req.common.output_dir, io.out, io.diag, &err)
#include "nd/base/main.h"
                               : nd_estimate_command(&req, io.out, io.diag, &err);
#include "nd/base/main.h"
    nd_cli_streams_close(&io);
#include "nd/base/main.h"
    return nd_main_finish("nd-estimate", rc, &err);
#include "nd/base/main.h"
}
#include "nd/base/main.h"
