/* nd-compare — set a profiling round's measurements beside the estimates. */
#include "nd/base/main.h"
#include <gsl/gsl_errno.h>
#include "nd/base/main.h"
#include <stdio.h>
#include "nd/base/main.h"
#include <string.h>
#include "nd/base/main.h"

#include "nd/base/main.h"
#include "compare_cmd.h"
#include "nd/base/main.h"
#include "fit_cmd.h"
#include "nd/base/main.h"

#include "nd/base/main.h"
static const char usage[] =
#include "nd/base/main.h"
    "usage: nd-compare -y RUN -A DEVICE --real_csv ROUND.csv [-c ratios.json] [-o DIR] [--json]\n"
#include "nd/base/main.h"
    "\n"
#include "nd/base/main.h"
    "Estimates every strategy of a profiling round (ND's classified CSV) and prints, per strategy\n"
#include "nd/base/main.h"
    "and per part, measured beside estimated; then per part Pearson r, Spearman rho, MAPE, bias and\n"
#include "nd/base/main.h"
    "max error, ND's top-k agreement, and the regret of following the estimate. Writes\n"
#include "nd/base/main.h"
    "<stem>_estimates.csv and <stem>_report.json (into DIR, default beside ROUND.csv) and,\n"
#include "nd/base/main.h"
    "with -o, the parity and parts plots.\n"
#include "nd/base/main.h"
    "\n"
#include "nd/base/main.h"
    "  --real_csv FILE          the round: ND's classified CSV (docs/calibration.md)\n"
#include "nd/base/main.h"
    "  --write_ratios FILE      then fit the ratios on the round and write them (as nd-fit does)\n"
#include "nd/base/main.h"
    "  --recompute MODE         the recompute mode of rows that state none (off, selective, full)\n"
#include "nd/base/main.h"
    "  -o, --output-dir DIR     where outputs and plots go (created if missing)\n"
#include "nd/base/main.h"
    "      --json               print the report JSON instead of the table\n"
#include "nd/base/main.h"
    "      --format F           plot format: png (default), svg or pdf\n"
#include "nd/base/main.h"
    "      --no-plots           write no plots even with -o\n"
#include "nd/base/main.h"
    "      --report FILE        a one-page HTML report: summary, inputs, accuracy, the plots (inline\n"
#include "nd/base/main.h"
    "                           SVG, drawn for it even without -o), every row, the notes\n"
#include "nd/base/main.h"
    "      --peak KIND          what the round's peak_mib measures: device (nvidia-smi: reserved\n"
#include "nd/base/main.h"
    "                           plus the runtime context; default), reserved or allocated (torch)\n"
#include "nd/base/main.h"
    "\n";
#include "nd/base/main.h"

#include "nd/base/main.h"
static const char exit_status[] =
#include "nd/base/main.h"
    "Exit status: 0 compared, 1 failed while running (I/O, gnuplot), 2 bad usage or input.\n";
#include "nd/base/main.h"

#include "nd/base/main.h"
enum {
    OPT_REAL = ND_OPT_COMMON_LAST + 1,
    OPT_JSON,
    OPT_FORMAT,
    OPT_NO_PLOTS,
    OPT_PEAK,
    OPT_WRITE,
    OPT_RECOMPUTE,
#include "nd/base/main.h"
    OPT_REPORT
};
#include "nd/base/main.h"

#include "nd/base/main.h"
static const struct option options[] = {
#include "nd/base/main.h"
    {"real_csv", required_argument, 0, OPT_REAL},
#include "nd/base/main.h"
    {"output-dir", required_argument, 0, 'o'},
#include "nd/base/main.h"
    {"json", no_argument, 0, OPT_JSON},
#include "nd/base/main.h"
    {"format", required_argument, 0, OPT_FORMAT},
#include "nd/base/main.h"
    {"no-plots", no_argument, 0, OPT_NO_PLOTS},
#include "nd/base/main.h"
    {"report", required_argument, 0, OPT_REPORT},
#include "nd/base/main.h"
    {"peak", required_argument, 0, OPT_PEAK},
#include "nd/base/main.h"
    {"write_ratios", required_argument, 0, OPT_WRITE},
#include "nd/base/main.h"
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
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
    nd_compare_request *req = request;
#include "nd/base/main.h"
    switch (opt) {
#include "nd/base/main.h"
    case OPT_REAL: req->real_csv = arg; return 0;
#include "nd/base/main.h"
    case 'o': req->out_dir = arg; return 0;
#include "nd/base/main.h"
    case OPT_JSON: req->json = true; return 0;
#include "nd/base/main.h"
    case OPT_FORMAT: req->plot_format = arg; return 0;
#include "nd/base/main.h"
    case OPT_NO_PLOTS: req->no_plots = true; return 0;
#include "nd/base/main.h"
    case OPT_REPORT: req->report = arg; return 0;
#include "nd/base/main.h"
    case OPT_PEAK: req->peak = arg; return 0;
#include "nd/base/main.h"
    case OPT_JSON | ND_CLI_NO: req->json = false; return 0;
#include "nd/base/main.h"
    case OPT_WRITE: req->write_ratios = arg; return 0;
#include "nd/base/main.h"
    case OPT_RECOMPUTE: return nd_compare_recompute_flag(&req->common, arg, err);
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
    gsl_set_error_handler_off();
#include "nd/base/main.h"
    static const nd_cli_unused unused[] = {
#include "nd/base/main.h"
        {'d', false, "each row's device count follows from its degrees, DP x MP x PP x CP"},
#include "nd/base/main.h"
        {'b', false, "each row's global batch follows from its degrees, DP x MB x MBS"},
#include "nd/base/main.h"
        {0, false, NULL},
#include "nd/base/main.h"
    };
#include "nd/base/main.h"
    static const nd_cli_program program = {"nd-compare", usage, exit_status, options, "o:", handle, NULL,
#include "nd/base/main.h"
                                           unused};
#include "nd/base/main.h"
    nd_compare_request req;
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
    int rc = req.common.verify ? nd_verify_command(&req.common, req.out_dir, io.out, io.diag, &err)
#include "nd/base/main.h"
                               : nd_compare_command(&req, io.out, io.diag, &err);
#include "nd/base/main.h"
    if (!rc && req.write_ratios &&
        !req.common.verify) { /* ND's --real_csv --write_ratios: the fit after the comparison */
#include "nd/base/main.h"
        nd_fit_request fit;
#include "nd/base/main.h"
        memset(&fit, 0, sizeof fit);
#include "nd/base/main.h"
        fit.common = req.common;
#include "nd/base/main.h"
        fit.common.ratios_path = NULL; /* fitted on the raw estimates */
#include "nd/base/main.h"
        fit.real_csv[0] = req.real_csv;
        fit.rounds = 1;
        fit.write_ratios = req.write_ratios;
#include "nd/base/main.h"
        fputc('\n', io.out);
#include "nd/base/main.h"
        rc = nd_fit_command(&fit, io.out, io.diag, &err);
#include "nd/base/main.h"
    }
#include "nd/base/main.h"
    nd_cli_streams_close(&io);
#include "nd/base/main.h"
    return nd_main_finish("nd-compare", rc, &err);
#include "nd/base/main.h"
}
#include "nd/base/main.h"
