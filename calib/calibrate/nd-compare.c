/* nd-compare — set a profiling round's measurements beside the estimates. */
#include "nd/base/main.h"
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "compare_cmd.h"
#include "fit_cmd.h"

static const char usage[] =
    "usage: nd-compare -y RUN -A DEVICE --real_csv ROUND.csv [-c ratios.json] [-o DIR] [--json]\n"
    "\n"
    "Estimates every strategy of a profiling round (ND's classified CSV) and prints, per strategy\n"
    "and per part, measured beside estimated; then per part Pearson r, Spearman rho, MAPE, bias and\n"
    "max error, ND's top-k agreement, and the regret of following the estimate. With -o DIR\n"
    "it writes <stem>_estimates.csv, <stem>_report.json and the parity and parts plots into\n"
    "DIR; without -o it writes nothing but what --report names.\n"
    "\n"
    "  --real_csv FILE          the round: ND's classified CSV (docs/calibration.md)\n"
    "  --write_ratios FILE      then fit the ratios on the round and write them (as nd-fit does)\n"
    "      --fit_mode M         that fit's mode: parts, total or sums (ND's ratio of sums, which\n"
    "                           fits any round; nd-fit --mode)\n"
    "  --recompute MODE         the recompute mode of rows that state none (off, selective, full)\n"
    "  -o, --output-dir DIR     where outputs and plots go (created if missing)\n"
    "      --json               print the report JSON instead of the table\n"
    "      --format F           plot format: png (default), svg or pdf\n"
    "      --no-plots           write no plots even with -o\n"
    "      --report FILE        a one-page HTML report: summary, inputs, accuracy, the plots (inline\n"
    "                           SVG, drawn for it even without -o), every row, the notes\n"
    "      --peak KIND          what the round's peak_mib measures: device (nvidia-smi: reserved\n"
    "                           plus the runtime context; default), reserved or allocated (torch)\n"
    "\n";

static const char exit_status[] =
    "Exit status: 0 compared, 1 failed while running (I/O, gnuplot), 2 bad usage or input.\n";

enum {
    OPT_REAL = ND_OPT_COMMON_LAST + 1,
    OPT_JSON,
    OPT_FORMAT,
    OPT_NO_PLOTS,
    OPT_PEAK,
    OPT_WRITE,
    OPT_RECOMPUTE,
    OPT_REPORT,
    OPT_FIT_MODE
};

static const char *fit_mode; /* --fit_mode: the fit's --mode after the comparison */

static const struct option options[] = {
    {"real_csv", required_argument, 0, OPT_REAL},      {"json", no_argument, 0, OPT_JSON},
    {"format", required_argument, 0, OPT_FORMAT},      {"no-plots", no_argument, 0, OPT_NO_PLOTS},
    {"report", required_argument, 0, OPT_REPORT},      {"peak", required_argument, 0, OPT_PEAK},
    {"write_ratios", required_argument, 0, OPT_WRITE}, {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"fit_mode", required_argument, 0, OPT_FIT_MODE},  {0, 0, 0, 0},
};

static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    nd_compare_request *req = request;
    switch (opt) {
    case OPT_REAL: req->real_csv = arg; return 0;
    case OPT_JSON: req->json = true; return 0;
    case OPT_FORMAT: req->plot_format = arg; return 0;
    case OPT_NO_PLOTS: req->no_plots = true; return 0;
    case OPT_REPORT: req->report = arg; return 0;
    case OPT_PEAK: req->peak = arg; return 0;
    case OPT_JSON | ND_CLI_NO: req->json = false; return 0;
    case OPT_WRITE: req->write_ratios = arg; return 0;
    case OPT_FIT_MODE: fit_mode = arg; return 0;
    case OPT_RECOMPUTE: return nd_compare_recompute_flag(&req->common, arg, err);
    default: return 1;
    }
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    static const nd_cli_unused unused[] = {
        {'d', false, "each row's device count follows from its degrees, DP x MP x PP x CP"},
        {'b', false, "each row's global batch follows from its degrees, DP x MB x MBS"},
        {0, false, NULL},
    };
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     <stem>_estimates.csv, <stem>_report.json and the plots (created\n"
         "                           if missing); without it the table only\n"},
        {0, NULL}};
    static const nd_cli_program program = {.name = "nd-compare",
                                           .usage = usage,
                                           .exit_status = exit_status,
                                           .options = options,
                                           .short_options = "",
                                           .handle = handle,
                                           .unused = unused,
                                           .shared_help = own};
    nd_compare_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
    if (status >= 0) return status;
    /* -d and -b were noted as unused: their values are not checked either */
    req.common.devices = req.common.gbs = NULL;
    req.out_dir = req.common.shared.out_dir;
    if (fit_mode && !req.write_ratios) {
        fprintf(stderr, "nd-compare: --fit_mode is the mode of the fit --write_ratios makes: it needs "
                        "--write_ratios\nTry 'nd-compare --help'.\n");
        return 2;
    }
    nd_error err = {0};
    nd_main_start();
    nd_cli_streams io;
    nd_cli_streams_open(&req.common, &io);
    int rc = req.common.shared.verify ? nd_verify_command(&req.common, req.out_dir, io.out, io.diag, &err)
                                      : nd_compare_command(&req, io.out, io.diag, &err);
    if (!rc && req.write_ratios &&
        !req.common.shared.verify) { /* ND's --real_csv --write_ratios: the fit after the comparison */
        nd_fit_request fit;
        memset(&fit, 0, sizeof fit);
        fit.common = req.common;
        fit.common.shared.ratios = NULL; /* fitted on the raw estimates */
        fit.real_csv[0] = req.real_csv;
        fit.rounds = 1;
        fit.write_ratios = req.write_ratios;
        fit.mode = fit_mode;
        fputc('\n', io.out);
        rc = nd_fit_command(&fit, io.out, io.diag, &err);
    }
    nd_cli_streams_close(&io);
    return nd_main_end("nd-compare", req.common.shared.verbosity, rc, &err);
}
