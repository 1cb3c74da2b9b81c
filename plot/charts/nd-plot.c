/* nd-plot — draw a plot again from the CSV another nd binary wrote. */
#include <stdio.h>
#include <string.h>

#include "nd/base/cmdline.h"
#include "plot_cmd.h"
#include "nd/base/main.h"

static const char usage[] =
    "usage: nd-plot KIND INPUT.csv [-o DIR] [--name NAME] [--format png|svg|pdf] [options]\n"
    "\n"
    "Draws a plot again from the CSV file an nd binary wrote, so plots can be rendered later\n"
    "or restyled. Writes DIR/NAME.png (or .svg, .pdf), DIR/NAME.gp (the gnuplot script, data\n"
    "inline) and DIR/NAME.dat (the data).\n"
    "\n"
    "KIND and what it reads:\n"
    "  parity       <stem>_estimates.csv from nd-compare: estimated against measured\n"
    "  parts        <stem>_estimates.csv from nd-compare: measured parts beside estimated\n"
    "  ranking      ranking.csv from nd-search: the distinct layouts, intervals and headroom\n"
    "  memory       memory.csv from nd-search -o or nd-estimate -o\n"
    "  potentials   recompute_potentials.csv from nd-search -rp\n"
    "  ratios       <stem>_ratios.csv from nd-fit -o: each ratio with its 95 % interval\n"
    "  loo          <stem>_loo.csv from nd-fit -o: leave-one-out against measured\n"
    "  ranks        nd-classify's --detail file: each rank's step by part\n"
    "  kernels      nd-classify's --kernels file: device time by kernel class\n"
    "\n"
    "      --name NAME        the files' name without extension (default: the name the program\n"
    "                         that drew it gives it: <stem>_parity, ranking, classify_ranks, ...)\n"
    "      --format F         png (default), svg or pdf\n"
    "  -t, --top K            ranking: the first K distinct layouts (default 10); potentials:\n"
    "                         the first K configurations (default all)\n"
    "      --no-idle          parts: leave idle out of both bars (NAME default <stem>_parts_no_idle)\n"
    "      --title TEXT       the plot's title\n"
    "      --width PX         image width (default 1000; PDF: PX/100 inches)\n"
    "      --height PX        image height (default 700)\n"
    "      --script-only      write NAME.gp and NAME.dat only; do not run gnuplot\n";

static const char exit_status[] =
    "Exit status: 0 drawn, 1 failed while running (I/O, gnuplot), 2 bad usage or input.\n";

enum { OPT_FORMAT = 256, OPT_NAME, OPT_NO_IDLE, OPT_TITLE, OPT_WIDTH, OPT_HEIGHT, OPT_SCRIPT_ONLY };

static const struct option options[] = {
    {"name", required_argument, 0, OPT_NAME},
    {"format", required_argument, 0, OPT_FORMAT},
    {"top", required_argument, 0, 't'},
    {"no-idle", no_argument, 0, OPT_NO_IDLE},
    {"title", required_argument, 0, OPT_TITLE},
    {"width", required_argument, 0, OPT_WIDTH},
    {"height", required_argument, 0, OPT_HEIGHT},
    {"script-only", no_argument, 0, OPT_SCRIPT_ONLY},
    {0, 0, 0, 0},
};

typedef struct plot_args {
    nd_plot_request req;
    const char *words[2]; /* KIND and INPUT.csv */
    int n_words;
} plot_args;

/* nd-plot's own flags (nd_cmdline_handler). */
static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    (void)err;
    nd_plot_request *req = &((plot_args *)request)->req;
    switch (opt) {
    case OPT_NAME: req->name = arg; return 0;
    case OPT_FORMAT: req->format = arg; return 0;
    case 't': req->top = arg; return 0;
    case OPT_NO_IDLE: req->no_idle = true; return 0;
    case OPT_NO_IDLE | ND_CMDLINE_NO: req->no_idle = false; return 0;
    case OPT_TITLE: req->title = arg; return 0;
    case OPT_WIDTH: req->width = arg; return 0;
    case OPT_HEIGHT: req->height = arg; return 0;
    case OPT_SCRIPT_ONLY: req->script_only = true; return 0;
    case OPT_SCRIPT_ONLY | ND_CMDLINE_NO: req->script_only = false; return 0;
    default: return 1;
    }
}

static int operand(const char *arg, void *request)
{
    plot_args *a = request;
    if (a->n_words >= 2) return 1; /* "unexpected argument" */
    a->words[a->n_words++] = arg;
    return 0;
}

int main(int argc, char **argv)
{
    static const nd_cmdline_unused unused[] = {
        {ND_FLAG_RATIOS, true, "nd-plot draws what a CSV holds; it corrects no estimate"},
        {ND_FLAG_VERIFY, true, "nd-plot reads no model to check against a checkpoint"},
        {0, false, NULL}};
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     where the files go (created if missing; default: the current\n"
         "                           directory, never the input's unless -o names it)\n"},
        {ND_FLAG_BUDGET,
         "  -M, --max_mem SIZE       the memory budget line, e.g. 58GB or 80GiB (ranking,\n"
         "                           potentials; memory: instead of the file's budget_mib)\n"},
        {0, NULL}};
    static const nd_cmdline_program program = {.name = "nd-plot",
                                               .usage = usage,
                                               .exit_status = exit_status,
                                               .options = options,
                                               .short_options = "t:",
                                               .handle = handle,
                                               .operand = operand,
                                               .unused = unused,
                                               .shared_help = own};
    static plot_args a; /* static: the words the parser spells outlive it (sh.words) */
    static nd_cmdline_shared sh;
    nd_cmdline_shared_init(&sh);
    int status = nd_cmdline_parse(&program, argc, argv, &sh, &a);
    if (status >= 0) return status;
    if (a.n_words != 2) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected KIND and INPUT.csv, got %d argument%s", a.n_words,
                 a.n_words == 1 ? "" : "s");
        return nd_cmdline_usage_error("nd-plot", msg);
    }
    a.req.kind = a.words[0];
    a.req.input = a.words[1];
    a.req.out_dir = sh.out_dir;
    a.req.budget = sh.budget;
    nd_error err = {0};
    nd_main_start();
    int rc = nd_plot_command(&a.req, &err);
    return nd_main_end("nd-plot", sh.verbosity, rc, &err);
}
