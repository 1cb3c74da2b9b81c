/* nd-fit — fit per-part correction ratios from a profiling round. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "compare_cmd.h"
#include "fit_cmd.h"
#include "nd/base/text.h"
#include "nd/base/main.h"

static const char usage[] =
    "usage: nd-fit -y RUN -A DEVICE --real_csv ROUND.csv [-y RUN2 --real_csv ROUND2.csv ...]\n"
    "              [--write_ratios ratios.json] [--write_device fitted.yaml [--device-name NAME]]\n"
    "              [--mode parts|total|sums] [--weights relative|absolute] [--robust]\n"
    "              [--allow-fallback] [--max-ci F] [--hold KEY[,KEY]|auto] [--no-fixed]\n"
    "              [--no-shapes] [--peak device|reserved|allocated] [--report-json FILE]\n"
    "              [--suggest K [--run-list FILE] [-d N -b N]]\n"
    "\n"
    "Fits what a profiling round supports, checks it by exact leave-one-out, and writes it for\n"
    "-c and --device-file: one ratio per part (measured / estimated) and fixed costs per kernel,\n"
    "per micro-batch and per step, on the step or on the measured parts; memory ratios on the\n"
    "measured peaks; with --write_device, the device's physical parameters. A ratio the round\n"
    "does not identify refuses the fit (exit 2) and says what to profile or hold. Files are\n"
    "written atomically: a failed fit leaves existing files untouched. docs/calibration.md.\n"
    "\n"
    "  --real_csv FILE          a round: ND's classified CSV; repeatable, each round priced with\n"
    "                           the -y given last before it (rounds before any -y: the last -y)\n"
    "  --write_ratios FILE      the ratios file to write (with --write_device: fitted on the\n"
    "                           fitted device's estimates)\n"
    "  --write_device FILE      fit the device to every round's steps (nonlinear least squares)\n"
    "                           and write it as a device file --device-file reads\n"
    "  --device-name NAME       the fitted device's name (default: the base's + \"-fit\")\n"
    "  --mode, --fit_mode M     parts: each ratio on its measured columns; total: all ratios jointly\n"
    "                           on the step (only `time` measured); sums: ND's ratio of sums.\n"
    "                           Default: parts when the round has a comp column, else total\n"
    "  --weights W              relative (default: every strategy counts by its relative error) or\n"
    "                           absolute (milliseconds: long steps dominate)\n"
    "  --robust                 down-weight outlying strategies (bisquare, GSL)\n"
    "  --allow-fallback         ND's fallbacks: ratios the round does not identify take COMPUTE's\n"
    "  --max-ci F               a written ratio's 95 % interval half-width must stay under F x\n"
    "                           the ratio (default 0.5); a wider one refuses the fit\n"
    "  --hold KEY[,KEY]         hold these ratios at 1 (fixed costs at 0) and fit the rest;\n"
    "                           auto: hold what the round does not identify (the identified set\n"
    "                           with the best leave-one-out error), and say so\n"
    "  --no-fixed               fit no fixed cost (per kernel, per micro-batch, per step)\n"
    "  --no-shapes              fit no per-shape correction (total mode)\n"
    "  --peak KIND              what the round's peak_mib measures: device (nvidia-smi: reserved\n"
    "                           plus the runtime context; default), reserved or allocated (torch)\n"
    "  --report-json FILE       the fit report as JSON (docs/calibration.md)\n"
    "  -o, --output-dir DIR     plots: <stem>_ratios (each ratio with its 95 % interval) and\n"
    "                           <stem>_loo (leave-one-out against measured), <stem> the first\n"
    "                           round's file name\n"
    "      --format F           plot format: png (default), svg or pdf\n"
    "      --no-plots           no plots with -o\n"
    "  --recompute MODE         the recompute mode of rows that state none (off, selective, full)\n"
    "  --suggest K              propose K strategies to profile next: D-optimal for what the round\n"
    "                           does not identify, and the calibrated top candidates it cannot tell\n"
    "                           apart; searched for -d devices and a global batch of -b (default:\n"
    "                           the round's most frequent), for the first round's model\n"
    "  --run-list FILE          write the suggestions as a run list (CSV of strategies)\n"
    "      --report FILE        a one-page HTML report: summary, inputs, ratios, the plots (inline\n"
    "                           SVG, drawn for it even without -o), every row, the notes\n"
    "\n";

static const char exit_status[] =
    "Exit status: 0 fitted and written, 1 failed while running (I/O), 2 bad usage or input,\n"
    "including a round that cannot support the fit (too few rows, parts it cannot separate).\n";

enum {
    OPT_REAL = ND_OPT_COMMON_LAST + 1,
    OPT_WRITE,
    OPT_REPORT,
    OPT_MODE,
    OPT_WEIGHTS,
    OPT_ROBUST,
    OPT_FALLBACK,
    OPT_MAX_CI,
    OPT_HOLD,
    OPT_NO_FIXED,
    OPT_PEAK,
    OPT_WRITE_DEVICE,
    OPT_DEVICE_NAME,
    OPT_NO_SHAPES,
    OPT_FORMAT,
    OPT_NO_PLOTS,
    OPT_RECOMPUTE,
    OPT_SUGGEST,
    OPT_RUN_LIST,
    OPT_REPORT_HTML
};

static const struct option options[] = {
    {"real_csv", required_argument, 0, OPT_REAL},
    {"write_ratios", required_argument, 0, OPT_WRITE},
    {"report-json", required_argument, 0, OPT_REPORT},
    {"mode", required_argument, 0, OPT_MODE},
    {"fit_mode", required_argument, 0, OPT_MODE}, /* as nd-compare and nd-search spell it */
    {"weights", required_argument, 0, OPT_WEIGHTS},
    {"robust", no_argument, 0, OPT_ROBUST},
    {"allow-fallback", no_argument, 0, OPT_FALLBACK},
    {"max-ci", required_argument, 0, OPT_MAX_CI},
    {"hold", required_argument, 0, OPT_HOLD},
    {"no-fixed", no_argument, 0, OPT_NO_FIXED},
    {"no-shapes", no_argument, 0, OPT_NO_SHAPES},
    {"suggest", required_argument, 0, OPT_SUGGEST},
    {"run-list", required_argument, 0, OPT_RUN_LIST},
    {"peak", required_argument, 0, OPT_PEAK},
    {"write_device", required_argument, 0, OPT_WRITE_DEVICE},
    {"device-name", required_argument, 0, OPT_DEVICE_NAME},
    {"format", required_argument, 0, OPT_FORMAT},
    {"no-plots", no_argument, 0, OPT_NO_PLOTS},
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"report", required_argument, 0, OPT_REPORT_HTML},
    {0, 0, 0, 0},
};

static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    nd_fit_request *req = request;
    switch (opt) {
    case OPT_REAL:
        if (req->rounds >= ND_FIT_MAX_ROUNDS)
            return nd_error_set(err, ND_EUSAGE, "--real_csv: at most %d rounds", ND_FIT_MAX_ROUNDS);
        /* A round is priced with the run (-y) given last before it. */
        req->round_run[req->rounds] = req->common.run_path;
        req->real_csv[req->rounds++] = arg;
        return 0;
    case OPT_WRITE_DEVICE: req->write_device = arg; return 0;
    case OPT_DEVICE_NAME: req->device_name = arg; return 0;
    case OPT_WRITE: req->write_ratios = arg; return 0;
    case OPT_REPORT: req->report_json = arg; return 0;
    case OPT_MODE: req->mode = arg; return 0;
    case OPT_WEIGHTS: req->weights = arg; return 0;
    case OPT_ROBUST: req->robust = true; return 0;
    case OPT_FALLBACK: req->allow_fallback = true; return 0;
    case OPT_MAX_CI: req->max_ci = arg; return 0;
    case OPT_HOLD: req->hold = arg; return 0;
    case OPT_NO_FIXED: req->no_fixed = true; return 0;
    case OPT_NO_SHAPES: req->no_shapes = true; return 0;
    case OPT_SUGGEST: {
        int64_t k;
        if (nd_parse_int64(arg, 1, 1000, &k))
            return nd_error_set(err, ND_EUSAGE, "--suggest %s: expected a count of strategies from 1 to 1000",
                                arg);
        req->suggest = (int)k;
        return 0;
    }
    case OPT_RUN_LIST: req->run_list = arg; return 0;
    case OPT_PEAK: req->peak = arg; return 0;
    case OPT_FORMAT: req->plot_format = arg; return 0;
    case OPT_NO_PLOTS: req->no_plots = true; return 0;
    case OPT_ROBUST | ND_CLI_NO: req->robust = false; return 0;
    case OPT_FALLBACK | ND_CLI_NO: req->allow_fallback = false; return 0;
    case OPT_RECOMPUTE: return nd_compare_recompute_flag(&req->common, arg, err);
    case OPT_REPORT_HTML: req->report = arg; return 0;
    default: return 1;
    }
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    static const nd_cli_unused unused[] = {
        {'c', true, "nd-fit fits the raw estimates (a ratios file would correct them first)"},
        {0, false, NULL},
    };
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     the fit's plots and their CSVs: ratios with intervals,\n"
         "                           leave-one-out (created if missing)\n"},
        {0, NULL}};
    static const nd_cli_program program = {.name = "nd-fit",
                                           .usage = usage,
                                           .exit_status = exit_status,
                                           .options = options,
                                           .short_options = "",
                                           .handle = handle,
                                           .unused = unused,
                                           .shared_help = own};
    nd_fit_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
    if (status >= 0) return status;
    req.out_dir = req.common.shared.out_dir;
    nd_error err = {0};
    nd_main_start();
    nd_cli_streams io;
    nd_cli_streams_open(&req.common, &io);
    int rc = req.common.shared.verify ? nd_verify_command(&req.common, req.out_dir, io.out, io.diag, &err)
                                      : nd_fit_command(&req, io.out, io.diag, &err);
    nd_cli_streams_close(&io);
    return nd_main_end("nd-fit", req.common.shared.verbosity, rc, &err);
}
