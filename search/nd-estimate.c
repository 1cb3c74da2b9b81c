/* nd-estimate — price exactly one parallel strategy. */
#include <stdio.h>
#include <string.h>

#include "nd/commands.h"
#include "nd/version.h"

static const char usage[] =
    "usage: nd-estimate -y RUN -A DEVICE [-d N] [-b GBS] [-M BUDGET] --strategy \"DP=8 MP=4 ...\"\n"
    "                   [--json] [-c ratios.json] [flags]\n"
    "\n"
    "Prices one strategy: memory per pipeline stage by component, and the step time split\n"
    "into twelve parts (ND's ten, then OPTIMIZER and OVERHEAD) in milliseconds.\n"
    "\n"
    "Strategy:\n"
    "  -s, --strategy TEXT      KEY=VALUE items: DP MP (or TP) PP CP EP ETP OP ZERO VPP MB MBS SP\n"
    "                           FIRST LAST recompute=off|selective|full schedule=1f1b|interleaved|\n"
    "                           zb-h1|gpipe; keys not given come from the run file's strategy:\n"
    "      --json               print a JSON document (docs/nd-estimate.md) instead of the table\n"
    "      --recompute MODE     off, selective or full\n"
    "      --memory-csv FILE    memory per stage as CSV (nd-plot memory draws it)\n"
    "\n";

static const char trailer[] =
    "\n"
    "  -h, --help               this text\n"
    "      --version            version\n"
    "\n"
    "Exit status: 0 priced, 1 failed while running, 2 bad usage or input.\n";

enum { OPT_JSON = ND_OPT_COMMON_LAST + 1, OPT_VERSION, OPT_RECOMPUTE, OPT_MEMORY_CSV };

int main(int argc, char **argv)
{
    struct option options[64];
    int n = 0;
    for (int i = 0; i < nd_cli_common_option_count; i++) options[n++] = nd_cli_common_options[i];
    options[n++] = (struct option){"strategy", required_argument, 0, 's'};
    options[n++] = (struct option){"json", no_argument, 0, OPT_JSON};
    options[n++] = (struct option){"recompute", required_argument, 0, OPT_RECOMPUTE};
    options[n++] = (struct option){"memory-csv", required_argument, 0, OPT_MEMORY_CSV};
    options[n++] = (struct option){"help", no_argument, 0, 'h'};
    options[n++] = (struct option){"version", no_argument, 0, OPT_VERSION};
    options[n] = (struct option){0, 0, 0, 0};

    nd_estimate_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    nd_error err = {0};
    int opt;
    opterr = 0;
    while ((opt = getopt_long_only(argc, argv, ND_CLI_COMMON_SHORT "s:h", options, NULL)) != -1) {
        int rc = nd_cli_common_option(&req.common, opt, optarg, &err);
        if (rc < 0) {
            fprintf(stderr, "nd-estimate: %s\nTry 'nd-estimate --help'.\n", err.message);
            return 2;
        }
        if (rc) continue;
        switch (opt) {
        case 's': req.strategy = optarg; break;
        case OPT_JSON: req.json = true; break;
        case OPT_MEMORY_CSV: req.memory_csv = optarg; break;
        case OPT_RECOMPUTE:
            if (nd_cli_common_add_flag(&req.common, "recompute", optarg, "--recompute", &err) < 0) {
                fprintf(stderr, "nd-estimate: %s\n", err.message);
                return 2;
            }
            break;
        case 'h': fputs(usage, stdout); fputs(nd_cli_common_help, stdout); fputs(trailer, stdout); return 0;
        case OPT_VERSION: printf("nd-estimate %s\n", ND_VERSION); return 0;
        default:
            fprintf(stderr, "nd-estimate: unknown or incomplete option '%s'\nTry 'nd-estimate --help'.\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nd-estimate: unexpected argument '%s'\nTry 'nd-estimate --help'.\n", argv[optind]);
        return 2;
    }
    int rc = nd_estimate_command(&req, stdout, stderr, &err);
    if (rc) {
        fprintf(stderr, "nd-estimate: %s\n", err.message);
        return nd_exit_status(rc);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nd-estimate: cannot write the output\n");
        return 1;
    }
    return 0;
}
