/* nd-compare — set a profiling round's measurements beside the estimates. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "nd/commands.h"
#include "nd/version.h"

static const char usage[] =
    "usage: nd-compare -y RUN -A DEVICE --real_csv ROUND.csv [-c ratios.json] [-o DIR] [--json]\n"
    "\n"
    "Estimates every strategy of a profiling round (ND's classified CSV) and prints, per strategy\n"
    "and per part, measured beside estimated; then per part Pearson r, Spearman rho, MAPE, bias and\n"
    "max error, ND's top-k agreement, and the regret of following the estimate. Writes\n"
    "<stem>_estimates.csv and <stem>_report.json (into DIR, default the current directory) and,\n"
    "with -o, the parity and parts plots.\n"
    "\n"
    "  --real_csv FILE          the round: ND's classified CSV (docs/calibration.md)\n"
    "  -o, --output-dir DIR     where outputs and plots go (created if missing)\n"
    "      --json               print the report JSON instead of the table\n"
    "      --format F           plot format: png (default), svg or pdf\n"
    "      --no-plots           write no plots even with -o\n"
    "\n";

static const char trailer[] =
    "\n"
    "  -h, --help               this text\n"
    "      --version            version\n"
    "\n"
    "Exit status: 0 compared, 1 failed while running (I/O, gnuplot), 2 bad usage or input.\n";

enum { OPT_REAL = ND_OPT_COMMON_LAST + 1, OPT_JSON, OPT_VERSION, OPT_FORMAT, OPT_NO_PLOTS };

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    struct option options[64];
    int n = 0;
    for (int i = 0; i < nd_cli_common_option_count; i++) options[n++] = nd_cli_common_options[i];
    options[n++] = (struct option){"real_csv", required_argument, 0, OPT_REAL};
    options[n++] = (struct option){"output-dir", required_argument, 0, 'o'};
    options[n++] = (struct option){"json", no_argument, 0, OPT_JSON};
    options[n++] = (struct option){"format", required_argument, 0, OPT_FORMAT};
    options[n++] = (struct option){"no-plots", no_argument, 0, OPT_NO_PLOTS};
    options[n++] = (struct option){"help", no_argument, 0, 'h'};
    options[n++] = (struct option){"version", no_argument, 0, OPT_VERSION};
    options[n] = (struct option){0, 0, 0, 0};

    nd_compare_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    nd_error err = {0};
    int opt;
    opterr = 0;
    while ((opt = getopt_long_only(argc, argv, ND_CLI_COMMON_SHORT "o:h", options, NULL)) != -1) {
        int rc = nd_cli_common_option(&req.common, opt, optarg, &err);
        if (rc < 0) {
            fprintf(stderr, "nd-compare: %s\nTry 'nd-compare --help'.\n", err.message);
            return 2;
        }
        if (rc) continue;
        switch (opt) {
        case OPT_REAL: req.real_csv = optarg; break;
        case 'o': req.out_dir = optarg; break;
        case OPT_JSON: req.json = true; break;
        case OPT_FORMAT: req.plot_format = optarg; break;
        case OPT_NO_PLOTS: req.no_plots = true; break;
        case 'h': fputs(usage, stdout); fputs(nd_cli_common_help, stdout); fputs(trailer, stdout); return 0;
        case OPT_VERSION: printf("nd-compare %s\n", ND_VERSION); return 0;
        default:
            fprintf(stderr, "nd-compare: unknown or incomplete option '%s'\nTry 'nd-compare --help'.\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nd-compare: unexpected argument '%s'\nTry 'nd-compare --help'.\n", argv[optind]);
        return 2;
    }
    int rc = nd_compare_command(&req, stdout, stderr, &err);
    if (rc) {
        fprintf(stderr, "nd-compare: %s\n", err.message);
        return nd_exit_status(rc);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nd-compare: cannot write the output\n");
        return 1;
    }
    return 0;
}
