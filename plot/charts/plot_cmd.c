/*
 * plot_cmd.c — nd-plot: check the request, load the CSV, hand it to a kind,
 * say what was written. Also the helpers the kinds share.
 */
#include "plot_cmd.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "plot_cmd_internal.h"
#include "nd/base/array.h"

/* The kinds nd-plot knows, for the message refusing another. */
static const char kind_names[] = "parity, parts, ranking, memory, potentials, ratios, loo, ranks, kernels";

typedef int (*kind_fn)(const char *base, const nd_plot_cmd_input *in, nd_error *err);

typedef struct kind_info {
    const char *name;
    kind_fn draw;
    const char *source;   /* what it reads, for messages */
    const char *out_name; /* default output name; NULL: <stem>_<kind> */
    bool uses_top, uses_budget, uses_no_idle;
} kind_info;

static const kind_info kinds[] = {
    {"parity", nd_plot_cmd_parity, "nd-compare's <stem>_estimates.csv", NULL, false, false, false},
    {"parts", nd_plot_cmd_parts, "nd-compare's <stem>_estimates.csv", NULL, false, false, true},
    {"ranking", nd_plot_cmd_ranking, "nd-search's ranking.csv", "ranking", true, true, false},
    {"memory", nd_plot_cmd_memory, "memory.csv from nd-search -o or nd-estimate --memory-csv", "memory",
     false, true, false},
    {"potentials", nd_plot_cmd_potentials, "recompute_potentials.csv from nd-search -rp",
     "recompute_potentials", true, true, false},
    {"ratios", nd_plot_cmd_ratios, "nd-fit -o's <stem>_ratios.csv", NULL, false, false, false},
    {"loo", nd_plot_cmd_loo, "nd-fit -o's <stem>_loo.csv", NULL, false, false, false},
    {"ranks", nd_plot_cmd_ranks, "nd-classify's --detail file", "classify_ranks", false, false, false},
    {"kernels", nd_plot_cmd_kernels, "nd-classify's --kernels file", "classify_kernels", false, false, false},
};

/* ---- the flags ------------------------------------------------------------ */

static int whole_flag(const char *flag, const char *text, int64_t max, int64_t *v, nd_error *err)
{
    if (nd_parse_int64(text, 1, max, v) == 0) return ND_OK;
    return nd_error_set(err, ND_EUSAGE, "%s '%s': not a whole number from 1 to %lld", flag, text,
                        (long long)max);
}

/* A flag given to a kind that has no use for it is refused rather than
 * ignored, so a typo in a nightly job's command line shows. */
static int applies(const kind_info *k, const nd_plot_request *req, nd_error *err)
{
    if (req->top && !k->uses_top)
        return nd_error_set(err, ND_EUSAGE, "-t applies to the ranking and potentials plots only");
    if (req->budget && !k->uses_budget)
        return nd_error_set(err, ND_EUSAGE, "-M applies to the ranking, memory and potentials plots only");
    if (req->no_idle && !k->uses_no_idle)
        return nd_error_set(err, ND_EUSAGE, "--no-idle applies to the parts plot only");
    return ND_OK;
}

static int plot_options(const nd_plot_request *req, nd_plot_options *opt, nd_error *err)
{
    nd_plot_options_init(opt);
    int64_t v;
    if (req->format && nd_plot_format_from_name(req->format, &opt->format, err))
        return nd_error_set(err, ND_EUSAGE, "--format '%s': expected png, svg or pdf", req->format);
    int rc;
    if (req->width) {
        if ((rc = whole_flag("--width", req->width, ND_PLOT_SIZE_MAX, &v, err))) return rc;
        opt->width_px = (int)v;
    }
    if (req->height) {
        if ((rc = whole_flag("--height", req->height, ND_PLOT_SIZE_MAX, &v, err))) return rc;
        opt->height_px = (int)v;
    }
    opt->title = req->title;
    opt->script_only = req->script_only;
    return ND_OK;
}

static int read_flags(const kind_info *k, const nd_plot_request *req, nd_plot_cmd_input *in, nd_error *err)
{
    int rc = applies(k, req, err);
    if (!rc) rc = plot_options(req, &in->opt, err);
    if (rc) return rc;
    in->kind = k->name;
    in->source = k->source;
    in->budget_mib = NAN;
    in->no_idle = req->no_idle;
    int64_t v = 0;
    if (req->top && (rc = whole_flag("-t", req->top, 1000000, &v, err))) return rc;
    in->top = (size_t)v;
    if (req->budget && (nd_parse_memory_mib(req->budget, &in->budget_mib) || !(in->budget_mib > 0)))
        return nd_error_set(err, ND_EUSAGE, "-M '%s': not a memory size such as 58GB, 60000MB or 80GiB",
                            req->budget);
    return ND_OK;
}

/* ---- the output name ------------------------------------------------------ */

/* The files' path without extension: -o's directory (else the current one) and --name (else
 * the kind's own name). nd-compare names its plots after the round, and its CSV
 * <round>_estimates.csv, nd-fit its plots' CSVs <round>_ratios.csv and <round>_loo.csv:
 * dropping "_estimates" (or "_<kind>") gives the programs' own names. */
static char *output_base(const kind_info *k, const nd_plot_request *req)
{
    const char *dir = req->out_dir ? req->out_dir : ".";
    if (req->name) return nd_path_join(dir, req->name);
    char *stem = nd_path_stem(req->input), *base = NULL;
    if (stem) {
        char own[40];
        snprintf(own, sizeof own, "_%s", k->name);
        const char *suffixes[] = {"_estimates", own};
        for (size_t i = 0; i < ND_ARRAY_LEN(suffixes); i++) {
            size_t n = strlen(stem), s = strlen(suffixes[i]);
            if (n > s && strcmp(stem + n - s, suffixes[i]) == 0) stem[n - s] = '\0';
        }
        if (k->out_name)
            base = nd_path_join(dir, k->out_name);
        else
            base = nd_path_printf("%s/%s_%s%s", dir, stem, k->name, req->no_idle ? "_no_idle" : "");
    }
    free(stem);
    return base;
}

/* --name is a file name: a directory in it belongs in -o. */
static int check_name(const char *name, nd_error *err)
{
    if (name && (!*name || strchr(name, '/')))
        return nd_error_set(err, ND_EUSAGE, "--name '%s': a file name without '/' (the directory is -o DIR)",
                            name);
    return ND_OK;
}

/* ---- the command ---------------------------------------------------------- */

static const kind_info *find_kind(const char *name)
{
    for (size_t i = 0; name && i < ND_ARRAY_LEN(kinds); i++)
        if (strcmp(name, kinds[i].name) == 0) return &kinds[i];
    return NULL;
}

int nd_plot_command(const nd_plot_request *req, nd_error *err)
{
    const kind_info *k = find_kind(req->kind);
    char hint_buf[ND_TEXT_HINT_MAX];
    if (!k)
        return nd_error_set(err, ND_EUSAGE, "unknown plot kind '%s' (%sknown: %s)",
                            req->kind ? req->kind : "", nd_text_hint(req->kind, kind_names, hint_buf),
                            kind_names);
    if (!req->input) return nd_error_set(err, ND_EUSAGE, "no input CSV file given");
    nd_plot_cmd_input in;
    memset(&in, 0, sizeof in);
    int rc = read_flags(k, req, &in, err);
    if (!rc) rc = check_name(req->name, err);
    if (!rc && req->out_dir) rc = nd_make_dir(req->out_dir, err);
    if (rc) return rc;
    nd_csv_table t;
    if ((rc = nd_csv_table_load(req->input, &t, err))) return rc;
    in.t = &t;
    char *base = output_base(k, req);
    if (!base) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = k->draw(base, &in, err);
    free(base);
    nd_csv_table_free(&t);
    return rc;
}
