/* nd-plot — draw a plot again from the CSV another nd binary wrote. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/flags.h"
#include "plot_cmd.h"
#include "nd/base/version.h"
#include "nd/base/main.h"

static const char usage[] =
    "usage: nd-plot KIND INPUT.csv [-o OUT] [--format png|svg|pdf] [options]\n"
    "\n"
    "Draws a plot again from the CSV file an nd binary wrote, so plots can be rendered later\n"
    "or restyled. Writes OUT.png (or .svg, .pdf), OUT.gp (the gnuplot script, data inline)\n"
    "and OUT.dat (the data).\n"
    "\n"
    "KIND and what it reads:\n"
    "  parity       <stem>_estimates.csv from nd-compare: estimated against measured\n"
    "  parts        <stem>_estimates.csv from nd-compare: measured parts beside estimated\n"
    "  ranking      ranking.csv from nd-search: the top strategies, parts and peak memory\n"
    "  memory       memory.csv from nd-search -o or nd-estimate --memory-csv\n"
    "  potentials   recompute_potentials.csv from nd-search -rp\n"
    "\n"
    "  -o, --output OUT       output path without extension, or a directory (an existing one,\n"
    "                         or ending with /) for the default name in it (default: beside\n"
    "                         INPUT, <stem>_parity, <stem>_parts, ranking, memory or\n"
    "                         recompute_potentials)\n"
    "      --format F         png (default), svg or pdf\n"
    "  -t, --top K            ranking: the first K rows (default 10); potentials: the first\n"
    "                         K configurations (default all)\n"
    "      --budget SIZE      memory budget line, e.g. 58GB or 80GiB (ranking, potentials;\n"
    "                         memory: instead of the file's budget_mib)\n"
    "      --no-idle          parts: leave idle out of both bars (OUT default "
    "<stem>_parts_no_idle)\n"
    "      --title TEXT       the plot's title\n"
    "      --width PX         image width (default 1000; PDF: PX/100 inches)\n"
    "      --height PX        image height (default 700)\n"
    "      --script-only      write OUT.gp and OUT.dat only; do not run gnuplot\n"
    "  -h, --help             this text\n"
    "      --version          version\n"
    "\n"
    "Exit status: 0 drawn, 1 failed while running (I/O, gnuplot), 2 bad usage or input.\n";

enum {
    OPT_FORMAT = 256,
    OPT_BUDGET,
    OPT_NO_IDLE,
    OPT_TITLE,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_SCRIPT_ONLY,
    OPT_VERSION
};

static const struct option options[] = {
    {"output", required_argument, 0, 'o'},
    {"format", required_argument, 0, OPT_FORMAT},
    {"top", required_argument, 0, 't'},
    {"budget", required_argument, 0, OPT_BUDGET},
    {"no-idle", no_argument, 0, OPT_NO_IDLE},
    {"title", required_argument, 0, OPT_TITLE},
    {"width", required_argument, 0, OPT_WIDTH},
    {"height", required_argument, 0, OPT_HEIGHT},
    {"script-only", no_argument, 0, OPT_SCRIPT_ONLY},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, OPT_VERSION},
    {0, 0, 0, 0},
};

/* 0: a flag recorded; 1: --help or --version printed; 2: bad usage (printed). */
static int take_option(int opt, const char *arg, const char *typed, nd_plot_request *req)
{
    switch (opt) {
    case 'o': req->out_base = arg; return 0;
    case OPT_FORMAT: req->format = arg; return 0;
    case 't': req->top = arg; return 0;
    case OPT_BUDGET: req->budget = arg; return 0;
    case OPT_NO_IDLE: req->no_idle = true; return 0;
    case OPT_TITLE: req->title = arg; return 0;
    case OPT_WIDTH: req->width = arg; return 0;
    case OPT_HEIGHT: req->height = arg; return 0;
    case OPT_SCRIPT_ONLY: req->script_only = true; return 0;
    case 'h': fputs(usage, stdout); return 1;
    case OPT_VERSION: printf("nd-plot %s\n", ND_VERSION); return 1;
    default: {
        char msg[400];
        nd_flag_refused_message(options, "o:t:h", typed, msg, sizeof msg);
        fprintf(stderr, "nd-plot: %s\nTry 'nd-plot --help'.\n", msg);
        return 2;
    }
    }
}

int main(int argc, char **argv)
{
    nd_plot_request req;
    memset(&req, 0, sizeof req);
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:t:h", options, NULL)) != -1) {
        int rc = take_option(opt, optarg, argv[optind - 1], &req);
        if (rc) return rc == 1 ? 0 : 2;
    }
    if (argc - optind != 2) {
        fprintf(stderr,
                "nd-plot: expected KIND and INPUT.csv, got %d argument%s\n"
                "Try 'nd-plot --help'.\n",
                argc - optind, argc - optind == 1 ? "" : "s");
        return 2;
    }
    req.kind = argv[optind];
    req.input = argv[optind + 1];
    nd_error err = {0};
    nd_main_start();
    int rc = nd_plot_command(&req, stdout, &err);
    return nd_main_finish("nd-plot", rc, &err);
}
