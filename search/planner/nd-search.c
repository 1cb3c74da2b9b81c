/* nd-search — rank every parallel strategy that fits, by estimated step time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "search_cmd.h"
#include "nd/planner/search.h"
#include "nd/base/text.h"
#include "nd/base/main.h"

static const char usage[] =
    "usage: nd-search -y RUN -A DEVICE -d N -b GBS [-M BUDGET] [-l DIMS...] [-t K] [-c ratios.json]\n"
    "                 [--recompute MODES...|auto] [-ar [-ao]] [--ranking_csv FILE] [-o DIR] [-j N]\n"
    "\n"
    "Enumerates every valid strategy for N devices and a global batch of GBS sequences, drops those\n"
    "that do not fit the memory budget, and ranks the rest by estimated step time (ms), each with\n"
    "its parts. Ties break on the degrees, so the ranking is the same whatever -j.\n"
    "\n"
    "  -l, --dimensions D...    dimensions that vary: DP EP MP (TP) CP PP VPP MB MBS SP OP (default all;\n"
    "                           the others keep the run file's value). Names may follow -l as ND's do\n"
    "                           (-l DP MP PP) or be joined by commas\n"
    "      --recompute M...     recompute modes to try: off selective full, or auto (all three)\n"
    "  -ar, --auto_recompute    choose a recompute mode per layer (exact knapsack per stage)\n"
    "  -ao, --auto_offload      with -ar: a stage's first layers may offload activations to the host\n"
    "      --host_link_gibps G  offload link bandwidth, GiB/s (default: the device's host link)\n"
    "      --host_link_overlap F  share of the forward the copies may hide in (default 0.8)\n"
    "      --host_link_cost C   step time each GiB moved costs, ms (default: the device's, ND's\n"
    "                           A3 2.8, else 0)\n"
    "      --sustained_tflops T the forward the copies hide in, at T TFLOP/s (default: as priced;\n"
    "                           unused with -c, whose FORWARD or COMPUTE ratio times it)\n"
    "  -t, --top_config_number K  strategies printed (default 10; ND's debug files: all)\n"
    "      --ranking_csv FILE   every fitting strategy, ranked (ND's columns, then nd's)\n"
    "  -o, --output-dir DIR     ranking.csv, best.yaml, summary.json, ranking and memory plots\n"
    "  -rp, --recompute_potentials  with -ar: recompute potentials CSV and plot (-o, else output/)\n"
    "  -e, --exhaustive N       ND's: each searched dimension above 1 in at least N results\n"
    "  -ee, --force_exhaustive N  ND's: N more results per dimension above 1 (see docs/search.md)\n"
    "  -eee, --fforce-exhaustive N  ND's: N distinct results per dimension above 1\n"
    "  -k, --ppb_k K            the pipeline balancer's description of the K-th strategy (0 = the\n"
    "                           best), into -o DIR (else the current directory)\n"
    "      --format F           plot format: png (default), svg or pdf\n"
    "      --no-plots           no plots with -o\n"
    "      --no-progress        no progress on stderr\n"
    "      --no-what-if         no second searches: tp_comm_overlap (ep_comm_overlap with experts)\n"
    "                           flipped, and CP's other forms where CP is in use, to say\n"
    "                           whether each would change #1\n"
    "      --real_csv FILE      compare with a profiled round instead (ND's): runs nd-compare\n"
    "      --write_ratios FILE  with --real_csv: then fit and write the ratios\n"
    "      --fit_mode M         that fit's mode: parts, total or sums (ND's ratio of sums)\n"
    "      --report FILE        a one-page HTML report: summary, inputs, the top -t strategies, the\n"
    "                           plots (inline SVG, drawn for it even without -o), what was refused\n"
    "\n";

static const char exit_status[] =
    "Exit status: 0 ranked, 1 failed while running, 2 bad usage or input, or an impossible request\n"
    "(no strategy reaches the batch, nothing fits the budget: the message says what would).\n";

enum {
    OPT_RECOMPUTE = ND_OPT_COMMON_LAST + 1,
    OPT_AR,
    OPT_AO,
    OPT_GIBPS,
    OPT_OVERLAP,
    OPT_COST,
    OPT_TFLOPS,
    OPT_RANKING,
    OPT_FORMAT,
    OPT_NO_PLOTS,
    OPT_RP,
    OPT_NO_PROGRESS,
    OPT_REAL,
    OPT_WRITE,
    OPT_FIT_MODE,
    OPT_REPORT,
    OPT_EE,
    OPT_EEE,
    OPT_NO_WHAT_IF
};

static const struct option options[] = {
    {"dimensions", required_argument, 0, 'l'},
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"ar", no_argument, 0, OPT_AR},
    {"ao", no_argument, 0, OPT_AO},
    {"host_link_gibps", required_argument, 0, OPT_GIBPS},
    {"host_link_overlap", required_argument, 0, OPT_OVERLAP},
    {"host_link_cost", required_argument, 0, OPT_COST},
    {"sustained_tflops", required_argument, 0, OPT_TFLOPS},
    {"top_config_number", required_argument, 0, 't'},
    {"ranking_csv", required_argument, 0, OPT_RANKING},
    {"rp", no_argument, 0, OPT_RP},
    {"recompute_potentials", no_argument, 0, OPT_RP},
    {"auto_recompute", no_argument, 0, OPT_AR},
    {"auto_offload", no_argument, 0, OPT_AO},
    {"format", required_argument, 0, OPT_FORMAT},
    {"no-plots", no_argument, 0, OPT_NO_PLOTS},
    {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
    {"real_csv", required_argument, 0, OPT_REAL},
    {"write_ratios", required_argument, 0, OPT_WRITE},
    {"fit_mode", required_argument, 0, OPT_FIT_MODE},
    {"report", required_argument, 0, OPT_REPORT},
    {"exhaustive", required_argument, 0, 'e'},
    {"ee", required_argument, 0, OPT_EE},
    {"force_exhaustive", required_argument, 0, OPT_EE},
    {"eee", required_argument, 0, OPT_EEE},
    {"fforce-exhaustive", required_argument, 0, OPT_EEE},
    {"ppb_k", required_argument, 0, 'k'},
    {"no-what-if", no_argument, 0, OPT_NO_WHAT_IF},
    {0, 0, 0, 0},
};

/* Splits arg in place: it is an argv string (writable, C11 5.1.2.2.1p2) and the words
 * must live as long as req, which a copy would outlive only as a leak. */
static int add_words(const char **list, int *n, int cap, const char *arg, nd_error *err)
{
    char *words = (char *)arg; /* argv's own storage, see above */
    for (char *save = NULL, *w = strtok_r(words, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (*n >= cap) return nd_error_set(err, ND_EUSAGE, "too many values for -l or --recompute");
        list[(*n)++] = w;
    }
    return ND_OK;
}

static int parse_number(const char *flag, const char *arg, double lo, double hi, double *out, nd_error *err)
{
    if (nd_parse_double(arg, out) || *out < lo)
        return nd_error_set(err, ND_EUSAGE, "%s '%s': not a number >= %g", flag, arg, lo);
    if (*out > hi) return nd_error_set(err, ND_EUSAGE, "%s '%s': more than %g", flag, arg, hi);
    return ND_OK;
}

/* ND's _non_negative_int. */
static int count_arg(const char *flag, const char *arg, int *out, nd_error *err)
{
    int64_t v;
    if (nd_parse_int64(arg, 0, 1000000, &v))
        return nd_error_set(err, ND_EUSAGE, "%s: '%s' must be a non-negative integer", flag, arg);
    *out = (int)v;
    return 0;
}

static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    nd_search_request *req = request;
    switch (opt) {
    case 'l': req->dims_given = true; return add_words(req->dims, &req->n_dims, 16, arg, err);
    case OPT_RECOMPUTE: return add_words(req->modes, &req->n_modes, 4, arg, err);
    case OPT_AR: req->per_layer = true; return 0;
    case OPT_AR | ND_CLI_NO: req->per_layer = false; return 0;
    case OPT_AO: req->offload = true; return 0;
    case OPT_AO | ND_CLI_NO: req->offload = false; return 0;
    /* Ranges where each number enters: a bandwidth a link can have, a share, a cost. */
    case OPT_GIBPS: return parse_number("--host_link_gibps", arg, 1e-6, 1e9, &req->host_gibps, err);
    case OPT_OVERLAP: return parse_number("--host_link_overlap", arg, 0, 1, &req->host_overlap, err);
    case OPT_COST: return parse_number("--host_link_cost", arg, 0, 1e9, &req->host_cost, err);
    case OPT_TFLOPS: return parse_number("--sustained_tflops", arg, 1e-6, 1e9, &req->sustained_tflops, err);
    case 't': {
        int64_t top; /* whole, and checked before any cast: (long)1e300 is undefined */
        if (nd_parse_int64(arg, 1, 1000000000, &top))
            return nd_error_set(err, ND_EUSAGE, "-t '%s': not a whole number in [1, 1000000000]", arg);
        req->top = (long)top;
        return 0;
    }
    case OPT_RANKING: req->ranking_csv = arg; return 0;
    case OPT_FORMAT: req->plot_format = arg; return 0;
    case OPT_NO_PLOTS: req->no_plots = true; return 0;
    case OPT_NO_PROGRESS: req->quiet = true; return 0;
    case 'e': return count_arg("-e/--exhaustive", arg, &req->exhaustive[0], err);
    case OPT_EE: return count_arg("-ee/--force_exhaustive", arg, &req->exhaustive[1], err);
    case OPT_EEE: return count_arg("-eee/--fforce-exhaustive", arg, &req->exhaustive[2], err);
    case 'k': {
        int k = 0;
        int rc = count_arg("-k/--ppb_k", arg, &k, err);
        req->ppb_k = k;
        req->has_ppb_k = true;
        return rc;
    }
    case OPT_REAL: req->real_csv = arg; return 0;
    case OPT_WRITE: req->write_ratios = arg; return 0;
    case OPT_FIT_MODE: req->fit_mode = arg; return 0; /* nd-compare's: passed on with the line */
    case OPT_REPORT: req->report = arg; return 0;
    case OPT_NO_WHAT_IF: req->no_what_if = true; return 0;
    case OPT_RP: req->potentials = true; return 0;
    case OPT_RP | ND_CLI_NO: req->potentials = false; return 0;
    default: return 1;
    }
}

/* ND's -l and --recompute take several words: the operands getopt left belong to them. */
static int operand(const char *arg, void *request)
{
    nd_search_request *req = request;
    nd_recompute m;
    bool dim = nd_search_dim_from_name(arg) >= 0;
    bool mode = !nd_recompute_parse(arg, &m) || nd_text_equal_nocase(arg, "auto");
    if (dim && req->dims_given && req->n_dims < 16)
        req->dims[req->n_dims++] = arg;
    else if (mode && req->n_modes && req->n_modes < 4)
        req->modes[req->n_modes++] = arg;
    else
        return 1;
    return 0;
}

/* ND's run_nd --real_csv compares instead of searching: nd-compare, beside this program,
 * takes the same command line. Returns only when it cannot be run. */
static int run_compare(char **argv)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv[0]);
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof path, "%s/nd-compare", slash ? self : ".");
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "nd-search: --real_csv compares a round, nd-compare's job, but %s cannot be run: %s\n",
            path, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     ranking.csv, summary.json, best.yaml, memory.csv, the ranking\n"
         "                           and memory plots (created if missing)\n"},
        {0, NULL}};
    static const nd_cli_program program = {.name = "nd-search",
                                           .usage = usage,
                                           .exit_status = exit_status,
                                           .options = options,
                                           .short_options = "l:t:e:k:",
                                           .handle = handle,
                                           .operand = operand,
                                           .shared_help = own};
    nd_search_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    req.host_overlap = req.host_cost = -1;
    int status = nd_cli_parse(&program, argc, argv, &req.common, &req);
    if (status >= 0) return status;
    req.out_dir = req.common.shared.out_dir;
    if (req.fit_mode && !req.write_ratios) {
        fprintf(stderr, "nd-search: --fit_mode is the mode of the fit --write_ratios makes: it needs "
                        "--real_csv and --write_ratios\nTry 'nd-search --help'.\n");
        return 2;
    }
    if (req.write_ratios && !req.real_csv) {
        fprintf(stderr, "nd-search: --write_ratios fits the ratios on a comparison: it needs --real_csv\n"
                        "Try 'nd-search --help'.\n");
        return 2;
    }
    if ((req.exhaustive[0] || req.exhaustive[1] || req.exhaustive[2]) &&
        (req.real_csv || req.common.shared.verify)) {
        fprintf(stderr,
                "nd-search: --exhaustive, --force_exhaustive, and --fforce-exhaustive apply to the standard "
                "ND search, not --real_csv, --search-config, or --verify\nTry 'nd-search --help'.\n");
        return 2;
    }
    if (req.real_csv) return run_compare(argv);
    nd_error err = {0};
    nd_main_start();
    nd_cli_streams io;
    nd_cli_streams_open(&req.common, &io);
    int rc = req.common.shared.verify ? nd_verify_command(&req.common, req.out_dir, io.out, io.diag, &err)
                                      : nd_search_command(&req, io.out, io.diag, &err);
    nd_cli_streams_close(&io);
    return nd_main_end("nd-search", req.common.shared.verbosity, rc, &err);
}
