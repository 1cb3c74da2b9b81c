/* nd-fit — fit per-part correction ratios from a profiling round. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "fit_cmd.h"

static const char usage[] =
    "usage: nd-fit -y RUN -A DEVICE --real_csv ROUND.csv --write_ratios ratios.json\n"
    "              [--mode parts|total|sums] [--weights relative|absolute] [--robust]\n"
    "              [--allow-fallback] [--report-json FILE]\n"
    "\n"
    "Fits one ratio per part (measured / estimated) so the estimates match the round, checks\n"
    "each by exact leave-one-out, and writes the ratios file nd-search -c reads. The file is\n"
    "written atomically: a failed fit leaves an existing file untouched.\n"
    "\n"
    "  --real_csv FILE          the round: ND's classified CSV (docs/calibration.md)\n"
    "  --write_ratios FILE      the ratios file to write\n"
    "  --mode M                 parts: each ratio on its measured columns; total: all ratios jointly\n"
    "                           on the step (only `time` measured); sums: ND's ratio of sums.\n"
    "                           Default: parts when the round has a comp column, else total\n"
    "  --weights W              relative (default: every strategy counts by its relative error) or\n"
    "                           absolute (milliseconds: long steps dominate)\n"
    "  --robust                 down-weight outlying strategies (bisquare, GSL)\n"
    "  --allow-fallback         ND's fallbacks: unfitted ratios take COMPUTE's\n"
    "  --report-json FILE       the fit report as JSON (docs/calibration.md)\n"
    "\n";

static const char exit_status[] =
    "Exit status: 0 fitted and written, 1 failed while running (I/O), 2 bad usage or input,\n"
    "including a round that cannot support the fit (too few rows, parts it cannot separate).\n";

enum { OPT_REAL = ND_OPT_COMMON_LAST + 1, OPT_WRITE, OPT_REPORT, OPT_MODE, OPT_WEIGHTS, OPT_ROBUST,
       OPT_FALLBACK };

static const struct option options[] = {
    {"real_csv", required_argument, 0, OPT_REAL},
    {"write_ratios", required_argument, 0, OPT_WRITE},
    {"report-json", required_argument, 0, OPT_REPORT},
    {"mode", required_argument, 0, OPT_MODE},
    {"weights", required_argument, 0, OPT_WEIGHTS},
    {"robust", no_argument, 0, OPT_ROBUST},
    {"allow-fallback", no_argument, 0, OPT_FALLBACK},
    {0, 0, 0, 0},
};

static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    nd_fit_request *req = request;
    (void)err;
    switch (opt) {
    case OPT_REAL: req->real_csv = arg; return 0;
    case OPT_WRITE: req->write_ratios = arg; return 0;
    case OPT_REPORT: req->report_json = arg; return 0;
    case OPT_MODE: req->mode = arg; return 0;
    case OPT_WEIGHTS: req->weights = arg; return 0;
    case OPT_ROBUST: req->robust = true; return 0;
    case OPT_FALLBACK: req->allow_fallback = true; return 0;
    default: return 1;
    }
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    static const nd_cli_unused unused[] = {
        {'c', true, "nd-fit fits the raw estimates (a ratios file would correct them first)"},
        {'d', false, "each row's device count follows from its degrees, DP x MP x PP x CP"},
        {'b', false, "each row's global batch follows from its degrees, DP x MB x MBS"},
        {0, false, NULL},
    };
    static const nd_cli_program program = {"nd-fit", usage, exit_status, options, "", handle, NULL, unused};
    nd_fit_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
    if (status >= 0) return status;
    nd_error err = {0};
    nd_main_start();
    return nd_main_finish("nd-fit", nd_fit_command(&req, stdout, stderr, &err), &err);
}
