/* nd-fit — fit per-part correction ratios from a profiling round. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "nd/commands.h"
#include "nd/version.h"

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

static const char trailer[] =
    "\n"
    "  -h, --help               this text\n"
    "      --version            version\n"
    "\n"
    "Exit status: 0 fitted and written, 1 failed while running (I/O), 2 bad usage or input,\n"
    "including a round that cannot support the fit (too few rows, parts it cannot separate).\n";

enum { OPT_REAL = ND_OPT_COMMON_LAST + 1, OPT_WRITE, OPT_REPORT, OPT_MODE, OPT_WEIGHTS, OPT_ROBUST,
       OPT_FALLBACK, OPT_VERSION };

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    struct option options[64];
    int n = 0;
    for (int i = 0; i < nd_cli_common_option_count; i++) options[n++] = nd_cli_common_options[i];
    options[n++] = (struct option){"real_csv", required_argument, 0, OPT_REAL};
    options[n++] = (struct option){"write_ratios", required_argument, 0, OPT_WRITE};
    options[n++] = (struct option){"report-json", required_argument, 0, OPT_REPORT};
    options[n++] = (struct option){"mode", required_argument, 0, OPT_MODE};
    options[n++] = (struct option){"weights", required_argument, 0, OPT_WEIGHTS};
    options[n++] = (struct option){"robust", no_argument, 0, OPT_ROBUST};
    options[n++] = (struct option){"allow-fallback", no_argument, 0, OPT_FALLBACK};
    options[n++] = (struct option){"help", no_argument, 0, 'h'};
    options[n++] = (struct option){"version", no_argument, 0, OPT_VERSION};
    options[n] = (struct option){0, 0, 0, 0};

    nd_fit_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    nd_error err = {0};
    int opt;
    opterr = 0;
    while ((opt = getopt_long_only(argc, argv, ND_CLI_COMMON_SHORT "h", options, NULL)) != -1) {
        int rc = nd_cli_common_option(&req.common, opt, optarg, &err);
        if (rc < 0) {
            fprintf(stderr, "nd-fit: %s\nTry 'nd-fit --help'.\n", err.message);
            return 2;
        }
        if (rc) continue;
        switch (opt) {
        case OPT_REAL: req.real_csv = optarg; break;
        case OPT_WRITE: req.write_ratios = optarg; break;
        case OPT_REPORT: req.report_json = optarg; break;
        case OPT_MODE: req.mode = optarg; break;
        case OPT_WEIGHTS: req.weights = optarg; break;
        case OPT_ROBUST: req.robust = true; break;
        case OPT_FALLBACK: req.allow_fallback = true; break;
        case 'h': fputs(usage, stdout); fputs(nd_cli_common_help, stdout); fputs(trailer, stdout); return 0;
        case OPT_VERSION: printf("nd-fit %s\n", ND_VERSION); return 0;
        default:
            fprintf(stderr, "nd-fit: unknown or incomplete option '%s'\nTry 'nd-fit --help'.\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nd-fit: unexpected argument '%s'\nTry 'nd-fit --help'.\n", argv[optind]);
        return 2;
    }
    int rc = nd_fit_command(&req, stdout, stderr, &err);
    if (rc) {
        fprintf(stderr, "nd-fit: %s\n", err.message);
        return nd_exit_status(rc);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nd-fit: cannot write the output\n");
        return 1;
    }
    return 0;
}
