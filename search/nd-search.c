/* nd-search — rank every parallel strategy that fits, by estimated step time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_cmd.h"
#include "nd/search.h"
#include "nd/text.h"
#include "nd/version.h"

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
    "  -s, --search-config F    ND's search config: scalar = fixed, list = candidates, auto (docs/search.md)\n"
    "      --recompute M...     recompute modes to try: off selective full, or auto (all three)\n"
    "  -ar                      choose a recompute mode per layer (exact knapsack per stage)\n"
    "  -ao                      with -ar: a stage's first layers may offload activations to the host\n"
    "      --host_link_gibps G  offload link bandwidth, GiB/s (default: the device's host link)\n"
    "      --host_link_overlap F  share of the forward the copies may hide in (default 0.8)\n"
    "      --host_link_cost C   step time each GiB moved costs, ms (default 0)\n"
    "      --sustained_tflops T accepted for ND's command lines; nd prices compute per device\n"
    "  -t, --top_config_number K  strategies printed (default 10)\n"
    "      --ranking_csv FILE   every fitting strategy, ranked (ND's columns, then nd's)\n"
    "  -o, --output-dir DIR     ranking.csv, best.yaml, summary.json, ranking and memory plots\n"
    "  -rp                      with -ar and -o: recompute potentials CSV and plot\n"
    "  -j, --threads N          pricing threads (default 1)\n"
    "      --format F           plot format: png (default), svg or pdf\n"
    "      --no-plots           no plots with -o\n"
    "      --no-progress        no progress on stderr\n"
    "\n";

static const char trailer[] =
    "\n"
    "  -h, --help               this text\n"
    "      --version            version\n"
    "\n"
    "Exit status: 0 ranked, 1 failed while running, 2 bad usage or input, or an impossible request\n"
    "(no strategy reaches the batch, nothing fits the budget: the message says what would).\n";

enum { OPT_RECOMPUTE = ND_OPT_COMMON_LAST + 1, OPT_AR, OPT_AO, OPT_GIBPS, OPT_OVERLAP, OPT_COST,
       OPT_TFLOPS, OPT_RANKING, OPT_FORMAT, OPT_NO_PLOTS, OPT_RP, OPT_VERSION, OPT_NO_PROGRESS };

/* Splits arg in place: it is an argv string (writable, C11 5.1.2.2.1p2) and the words
 * must live as long as req, which a copy would outlive only as a leak. */
static int add_words(const char **list, int *n, int cap, char *arg)
{
    for (char *save = NULL, *w = strtok_r(arg, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (*n >= cap) return -1;
        list[(*n)++] = w;
    }
    return 0;
}

static int parse_number(const char *flag, const char *arg, double lo, double *out)
{
    if (nd_parse_double(arg, out) || *out < lo) {
        fprintf(stderr, "nd-search: %s '%s': not a number >= %g\nTry 'nd-search --help'.\n", flag, arg, lo);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct option options[80];
    int n = 0;
    for (int i = 0; i < nd_cli_common_option_count; i++) options[n++] = nd_cli_common_options[i];
    const struct option mine[] = {
        {"dimensions", required_argument, 0, 'l'}, {"search-config", required_argument, 0, 's'},
        {"recompute", required_argument, 0, OPT_RECOMPUTE}, {"ar", no_argument, 0, OPT_AR},
        {"ao", no_argument, 0, OPT_AO}, {"host_link_gibps", required_argument, 0, OPT_GIBPS},
        {"host_link_overlap", required_argument, 0, OPT_OVERLAP}, {"host_link_cost", required_argument, 0, OPT_COST},
        {"sustained_tflops", required_argument, 0, OPT_TFLOPS}, {"top_config_number", required_argument, 0, 't'},
        {"ranking_csv", required_argument, 0, OPT_RANKING}, {"output-dir", required_argument, 0, 'o'},
        {"rp", no_argument, 0, OPT_RP}, {"threads", required_argument, 0, 'j'},
        {"format", required_argument, 0, OPT_FORMAT}, {"no-plots", no_argument, 0, OPT_NO_PLOTS},
        {"no-progress", no_argument, 0, OPT_NO_PROGRESS}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, OPT_VERSION},
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) options[n++] = mine[i];
    options[n] = (struct option){0, 0, 0, 0};

    nd_search_request req;
    memset(&req, 0, sizeof req);
    nd_cli_common_init(&req.common);
    req.host_overlap = req.host_cost = -1;
    nd_error err = {0};
    int opt, last = 0;
    double x;
    opterr = 0;
    while ((opt = getopt_long_only(argc, argv, ND_CLI_COMMON_SHORT "l:s:t:o:j:h", options, NULL)) != -1) {
        int rc = nd_cli_common_option(&req.common, opt, optarg, &err);
        if (rc < 0) {
            fprintf(stderr, "nd-search: %s\nTry 'nd-search --help'.\n", err.message);
            return 2;
        }
        if (rc) continue;
        last = opt;
        switch (opt) {
        case 'l':
            req.dims_given = true;
            if (add_words(req.dims, &req.n_dims, 16, optarg)) goto too_many;
            break;
        case OPT_RECOMPUTE:
            if (add_words(req.modes, &req.n_modes, 4, optarg)) goto too_many;
            break;
        case 's': req.search_config = optarg; break;
        case OPT_AR: req.per_layer = true; break;
        case OPT_AO: req.offload = true; break;
        case OPT_GIBPS: if (parse_number("--host_link_gibps", optarg, 1e-6, &req.host_gibps)) return 2; break;
        case OPT_OVERLAP: if (parse_number("--host_link_overlap", optarg, 0, &req.host_overlap)) return 2; break;
        case OPT_COST: if (parse_number("--host_link_cost", optarg, 0, &req.host_cost)) return 2; break;
        case OPT_TFLOPS: if (parse_number("--sustained_tflops", optarg, 0, &x)) return 2; break;
        case 't': if (parse_number("-t", optarg, 1, &x)) return 2; req.top = (long)x; break;
        case OPT_RANKING: req.ranking_csv = optarg; break;
        case 'o': req.out_dir = optarg; break;
        case 'j':
            if (parse_number("-j", optarg, 1, &x) || x > 256) return 2;
            req.threads = (int)x;
            break;
        case OPT_FORMAT: req.plot_format = optarg; break;
        case OPT_NO_PLOTS: req.no_plots = true; break;
        case OPT_NO_PROGRESS: req.quiet = true; break;
        case OPT_RP: req.potentials = true; break;
        case 'h': fputs(usage, stdout); fputs(nd_cli_common_help, stdout); fputs(trailer, stdout); return 0;
        case OPT_VERSION: printf("nd-search %s\n", ND_VERSION); return 0;
        default:
            fprintf(stderr, "nd-search: unknown or incomplete option '%s'\nTry 'nd-search --help'.\n", argv[optind - 1]);
            return 2;
        }
    }
    /* ND's -l and --recompute take several words: the operands getopt left belong to them. */
    for (int i = optind; i < argc; i++) {
        bool dim = nd_search_dim_from_name(argv[i]) >= 0, mode = false;
        nd_recompute m;
        mode = !nd_recompute_parse(argv[i], &m) || nd_text_equal_nocase(argv[i], "auto");
        if (dim && req.dims_given && req.n_dims < 16) req.dims[req.n_dims++] = argv[i];
        else if (mode && req.n_modes && req.n_modes < 4) req.modes[req.n_modes++] = argv[i];
        else {
            fprintf(stderr, "nd-search: unexpected argument '%s'\nTry 'nd-search --help'.\n", argv[i]);
            return 2;
        }
    }
    (void)last;
    int rc = nd_search_command(&req, stdout, stderr, &err);
    return nd_main_finish("nd-search", rc, &err);
too_many:
    fprintf(stderr, "nd-search: too many values for -l or --recompute\n");
    return 2;
}
