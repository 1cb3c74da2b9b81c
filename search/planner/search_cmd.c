/*
 * search_cmd.c — nd-search: build the space from the run, the search config and
 * the flags; search; print and write the ranking, best.yaml, plots, potentials.
 */
#include "search_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/html/html.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"
#include "nd/planner/search.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/search_config.h"
#include "nd/planner/search_out.h"
#include "nd/base/text.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

/* ND's host copy cost per device (docs/reference/nd-costmodel.md §5: "A3 copy cost charged to the
 * step: 2.8 ms per GiB moved, measured inside the Demo 2 step"); no other device states one. */
static double nd_host_copy_cost(const char *device)
{
    static const struct {
        const char *device;
        double ms_per_gib;
    } costs[] = {{"A3", 2.8}};
    for (size_t i = 0; i < ND_ARRAY_LEN(costs); i++)
        if (nd_text_equal_nocase(costs[i].device, device)) return costs[i].ms_per_gib;
    return 0;
}

/* Whether ND's rule prices every candidate fully recomputed: a framework config, and no
 * --recompute, -ar, -mppb or recompute mode of a search config. */
static bool nd_search_nd_full_recompute(const nd_search_request *req, const nd_session *ses,
                                        const nd_search_config_file *file)
{
    return ses->run.search_full_recompute && !req->n_modes && !req->per_layer && !req->common.mppb &&
           !ses->run.search_modes && !(file && (file->n_modes || file->per_layer));
}

/* Drops the search config's candidate lists (ND's post-filter found nothing): whether any. */
static bool widen_lists(nd_search_space *sp)
{
    bool any = false;
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) {
        any |= sp->allowed[d] != NULL;
        sp->allowed[d] = NULL;
        sp->n_allowed[d] = 0;
    }
    return any;
}

/* The space: the run's defaults, then the search config, then the command line over both. */
static int build_space(const nd_search_request *req, const nd_session *ses, const nd_search_config_file *file,
                       nd_search_space *sp, nd_strategy *base, nd_error *err)
{
    nd_search_space_init(sp, &ses->run.train);
    /* a MindFormers yaml is priced with MindSpeed's profile, but MindFormers runs no DualPipe
     * (pipeline_scheduler: 1f1b, gpipe, seqpipe, zero_bubble_v) and its writer states none */
    if (ses->run.format == ND_CONFIG_MINDFORMERS)
        sp->schedules &= ~(1u << ND_SCHEDULE_DUALPIPE | 1u << ND_SCHEDULE_DUALPIPE_V);
    /* SimuMax's pp_schedule: 1f1b (interleaved with interleaving_size) and zb_h2 */
    if (ses->run.format == ND_CONFIG_SIMUMAX)
        sp->schedules &= 1u << ND_SCHEDULE_1F1B | 1u << ND_SCHEDULE_INTERLEAVED | 1u << ND_SCHEDULE_ZB_H2;
    *base = ses->run.strategy;
    /* a schedule stated on the command line is the one to search; the run's is one of them */
    if (nd_cli_sets(&req->common, "schedule")) sp->schedules = 1u << base->schedule;
    if (file) {
        nd_schedule run_schedule = base->schedule;
        nd_search_config_apply(file, sp, base);
        /* ND's rule: the micro-batch count follows whenever DP, PP or MBS varies */
        if ((sp->vary & (ND_DIM_BIT(ND_DIM_DP) | ND_DIM_BIT(ND_DIM_PP) | ND_DIM_BIT(ND_DIM_MBS))) &&
            !file->fixed[ND_DIM_MB])
            sp->vary |= ND_DIM_BIT(ND_DIM_MB);
        if (nd_cli_sets(&req->common, "schedule")) base->schedule = run_schedule;
    }
    if (req->dims_given) {
        sp->vary = 0;
        for (int i = 0; i < req->n_dims; i++) {
            int d = nd_search_dim_from_name(req->dims[i]);
            if (d < 0) {
                char names[64];
                nd_dim_names(ND_DIM_BIT(ND_DIMS_SEARCHED) - 1, names, sizeof names);
                return nd_error_set(err, ND_EUSAGE, "-l %s: not a dimension (%s)", req->dims[i], names);
            }
            sp->vary |= ND_DIM_BIT(d);
        }
        /* ND's rule: the micro-batch count follows whenever DP, PP or MBS varies. */
        if (sp->vary & (ND_DIM_BIT(ND_DIM_DP) | ND_DIM_BIT(ND_DIM_PP) | ND_DIM_BIT(ND_DIM_MBS)))
            sp->vary |= ND_DIM_BIT(ND_DIM_MB);
    }
    if (ses->run.search_modes && !req->n_modes && !(file && file->n_modes)) { /* context.recompute */
        sp->n_modes = 0;
        for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
            if (ses->run.search_modes & (1u << m)) sp->modes[sp->n_modes++] = (nd_recompute)m;
    }
    if (req->n_modes) {
        sp->n_modes = 0;
        for (int i = 0; i < req->n_modes; i++) {
            if (nd_text_equal_nocase(req->modes[i], "auto")) {
                sp->n_modes = 3;
                for (int m = 0; m < 3; m++) sp->modes[m] = (nd_recompute)m;
                break;
            }
            nd_recompute m;
            if (nd_recompute_parse(req->modes[i], &m))
                return nd_error_set(err, ND_EUSAGE, "--recompute %s: not off, selective, full or auto",
                                    req->modes[i]);
            bool dup = false;
            for (int j = 0; j < sp->n_modes; j++) dup |= sp->modes[j] == m;
            if (!dup) sp->modes[sp->n_modes++] = m;
        }
    }
    sp->per_layer |= req->per_layer;
    sp->offload = req->offload;
    if (req->offload && !sp->per_layer)
        return nd_error_set(err, ND_EUSAGE, "-ao needs -ar (offload is planned per layer)");
    /* The knapsack picks each layer's mode among the listed ones (-ar --recompute MODES, a
     * search config's recompute_modes, ND's meaning): one pass per candidate. */
    if (sp->per_layer) {
        sp->layer_modes = 0;
        for (int m = 0; m < sp->n_modes && (req->n_modes || (file && file->n_modes) || ses->run.search_modes);
             m++)
            sp->layer_modes |= 1u << sp->modes[m];
        sp->n_modes = 1;
        sp->modes[0] = ND_RECOMPUTE_FULL;
    }
    /* ND's default for a framework config: every candidate fully recomputed, unless the
     * command line or the search config says otherwise (docs/reference/nd-costmodel.md §3.1) */
    if (nd_search_nd_full_recompute(req, ses, file)) {
        sp->n_modes = 1;
        sp->modes[0] = ND_RECOMPUTE_FULL;
    }
    bool link =
        req->host_gibps > 0 || req->host_overlap >= 0 || req->host_cost >= 0 || req->sustained_tflops > 0;
    if (link && !sp->offload)
        return nd_error_set(err, ND_EUSAGE,
                            "--host_link_gibps, --sustained_tflops, --host_link_overlap and "
                            "--host_link_cost price offload, which needs -ao/--auto_offload");
    if (req->per_layer && req->common.mppb)
        return nd_error_set(err, ND_EUSAGE,
                            "-ar/--auto_recompute chooses the recompute, so it cannot take it from "
                            "the config (-mppb)");
    if (req->n_modes && req->common.mppb)
        return nd_error_set(err, ND_EUSAGE,
                            "--recompute searches the recompute modes, so it cannot take them from "
                            "the config (-mppb): give one or the other");
    const nd_run_layout *L = &ses->run.layout;
    bool counts =
        req->common.mppb || (ses->run.format == ND_CONFIG_SIMUMAX && !req->per_layer && !req->n_modes);
    if (counts && (L->has_recompute || L->has_selective)) sp->layout = L;
    sp->host_gbps = req->host_gibps > 0 ? req->host_gibps * ND_GB_PER_GIB : 0;
    if (req->host_overlap >= 0) sp->host_overlap = req->host_overlap;
    sp->host_cost_ms_per_gib = req->host_cost >= 0 ? req->host_cost : nd_host_copy_cost(ses->device->name);
    sp->sustained_tflops = req->sustained_tflops;
    return ND_OK;
}

/* ND's -e/-ee/-eee additions after the table, and -k's description. */
static int print_extras(const nd_search_request *req, const nd_search_config *cfg,
                        const nd_search_result *res, size_t top, FILE *out, FILE *diag, nd_error *err)
{
    if (req->exhaustive[0] || req->exhaustive[1] || req->exhaustive[2]) {
        nd_dim dims[ND_DIMS_SEARCHED];
        int n = 0;
        for (int i = 0; i < req->n_dims && n < ND_DIMS_SEARCHED; i++)
            dims[n++] = (nd_dim)nd_search_dim_from_name(req->dims[i]);
        for (int d = 0; !req->dims_given && d < ND_DIMS_SEARCHED; d++) dims[n++] = (nd_dim)d;
        size_t *idx = malloc((res->count ? res->count : 1) * sizeof *idx);
        if (!idx) return nd_error_set(err, ND_ENOMEM, "out of memory");
        size_t k = nd_search_exhaustive(res, top, dims, n, req->exhaustive, idx, res->count, diag);
        nd_search_print_rows(out, cfg, res, idx, k, "Additional exhaustive configurations");
        free(idx);
    }
    if (!req->has_ppb_k) return ND_OK;
    char *stem = nd_path_stem(req->common.run_path), path[1200];
    int rc = nd_search_write_ppb(req->out_dir ? req->out_dir : ".", stem ? stem : "nd", cfg, res, req->ppb_k,
                                 path, sizeof path, err);
    free(stem);
    if (rc) return rc;
    const nd_strategy *s = &res->items[req->ppb_k].s;
    char desc[256];
    nd_strategy_format(s, desc, sizeof desc);
    fprintf(out, "Pipeline balancer's description of configuration %zu (%s) written to %s\n", req->ppb_k,
            desc, path);
    return ND_OK;
}

/* The winner in the framework's own files, and ND's lines saying where. */
static int write_resolved(const char *dir, const nd_search_config *cfg, const nd_session *ses,
                          const nd_search_result *res, FILE *out, nd_error *err)
{
    char written[2048];
    int rc = nd_search_write_resolved(dir, cfg, &ses->run, &res->items[0], written, sizeof written, err);
    for (char *line = written, *end; !rc && *line; line = end + 1) {
        if (!(end = strchr(line, '\n'))) break;
        fprintf(out, "Resolved strategy written to %.*s\n", (int)(end - line), line);
    }
    return rc;
}

/* The plots into -o DIR; with a gallery (--report) an SVG copy of each too, and without -o
 * only the copies. */
static int write_plots(const nd_search_request *req, const nd_search_config *cfg, const nd_search_result *res,
                       const nd_search_answer *ans, nd_plot_gallery *gallery, nd_error *err)
{
    nd_plot_options opt;
    nd_plot_options_init(&opt);
    int rc = req->plot_format ? nd_plot_format_from_name(req->plot_format, &opt.format, err) : ND_OK;
    opt.gallery = gallery;
    opt.gallery_only = gallery && !req->out_dir;
    const char *dir = req->out_dir ? req->out_dir : ".";
    if (!rc && !req->no_plots) rc = nd_search_plots(dir, cfg, res, ans, &opt, err);
    if (!rc && req->potentials && req->top > 0)
        rc = nd_search_potentials(dir, cfg, res, ans, &opt, !req->no_plots, err);
    if (!rc && req->potentials && req->top <= 0) {
        /* ND's potentials take its first 20 configurations unless -t says otherwise */
        nd_search_answer wide;
        if (!(rc = nd_search_answer_build(cfg, res, ND_SEARCH_POTENTIALS_TOP, &wide, err))) {
            rc = nd_search_potentials(dir, cfg, res, &wide, &opt, !req->no_plots, err);
            nd_search_answer_free(&wide);
        }
    }
    return rc;
}

/* What the outputs are written from: the answer and what it assumes. */
typedef struct search_outputs {
    const nd_search_answer *ans;
    const nd_search_assumptions *assumed;
    const nd_search_facts *facts;
} search_outputs;

static int write_files(const nd_search_request *req, const nd_search_config *cfg, const nd_session *ses,
                       const nd_search_result *res, const search_outputs *o, nd_plot_gallery *gallery,
                       FILE *out, nd_error *err)
{
    int rc = ND_OK;
    if (req->ranking_csv) rc = nd_search_write_ranking(req->ranking_csv, cfg, res, o->ans, err);
    /* ND writes resolved.yaml beside its search config's run, in the current directory
     * without -o */
    if (!rc && !req->out_dir && ses->search && ses->run.format != ND_CONFIG_ND)
        rc = write_resolved(".", cfg, ses, res, out, err);
    if (!rc && !req->out_dir && gallery) rc = write_plots(req, cfg, res, o->ans, gallery, err);
    if (rc || !req->out_dir) return rc;
    if ((rc = nd_make_dir(req->out_dir, err))) return rc;
    char *ranking = nd_path_join(req->out_dir, "ranking.csv");
    char *summary = nd_path_join(req->out_dir, "summary.json");
    char *best = nd_path_join(req->out_dir, "best.yaml");
    char *memory = nd_path_join(req->out_dir, "memory.csv");
    if (!ranking || !summary || !best || !memory) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = nd_search_write_ranking(ranking, cfg, res, o->ans, err);
    if (!rc) rc = nd_search_write_summary(summary, cfg, res, o->ans, o->assumed, o->facts, err);
    if (!rc) rc = nd_search_write_best(best, cfg, &ses->run, res, o->ans, o->assumed, err);
    if (!rc) rc = nd_search_write_memory(memory, cfg, &res->items[0], err);
    free(ranking);
    free(summary);
    free(best);
    free(memory);
    if (rc) return rc;
    if (ses->run.format != ND_CONFIG_ND && (rc = write_resolved(req->out_dir, cfg, ses, res, out, err)))
        return rc;
    /* ND's debug files hold its top -t, every fitting strategy without -t (ND lists all) */
    size_t top = req->top > 0 ? (size_t)req->top : res->count;
    if (nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT) &&
        (rc = nd_search_write_debug(req->out_dir, cfg, res,
                                    nd_cli_says(&req->common, ND_VERBOSITY_DETAIL) ? res->count : top, err)))
        return rc;
    return write_plots(req, cfg, res, o->ans, gallery, err);
}

/* A search of the same space under another training setting t (name=value): whether #1
 * would change, as a "what if" line; the advice for a changed pick is `then`. */
static int search_with(const nd_search_config *cfg, const nd_search_result *res, const nd_train *t,
                       const char *name, const char *value, const char *then, nd_search_assumptions *out,
                       nd_error *err)
{
    nd_context ctx = *cfg->ctx;
    ctx.train = t;
    nd_search_config other_cfg = *cfg;
    other_cfg.ctx = &ctx;
    other_cfg.keep = 1;
    other_cfg.progress = NULL;
    nd_search_result other;
    nd_error quiet = {0};
    int rc = nd_search_run(&other_cfg, &other, &quiet);
    if (rc == ND_ENOMEM) return nd_error_set(err, ND_ENOMEM, "out of memory");
    char was[128], now[128] = "";
    nd_strategy_label(&res->items[0].s, was, sizeof was);
    if (!rc && other.count) nd_strategy_label(&other.items[0].s, now, sizeof now);
    if (rc || !other.count)
        nd_search_assumptions_add(out, "what if", "with %s %s nothing would fit", name, value);
    else if (!strcmp(now, was))
        nd_search_assumptions_add(out, "what if", "with %s %s #1 stays %s (%.1f ms against %.1f ms)", name,
                                  value, was, other.items[0].step_ms, res->items[0].step_ms);
    else
        nd_search_assumptions_add(out, "what if",
                                  "with %s %s the pick changes: #1 would be %s (%.1f ms against %.1f ms): "
                                  "%s (--set %s=%s)",
                                  name, value, now, other.items[0].step_ms, res->items[0].step_ms, then, name,
                                  value);
    if (!rc) nd_search_result_free(&other);
    return ND_OK;
}

/* Where CP is in use (#1's or the run's) on a framework that runs several of its forms, each
 * other form in a search of the same space: a choice the user makes, where the overlaps are
 * facts to state. */
static int what_if_cp_forms(const nd_search_config *cfg, const nd_search_result *res,
                            nd_search_assumptions *out, nd_error *err)
{
    const nd_train *run = cfg->ctx->train;
    bool megatron = run->framework == ND_FRAMEWORK_MEGATRON;
    if ((!megatron && run->framework != ND_FRAMEWORK_MINDSPEED) ||
        (res->items[0].s.cp == 1 && cfg->base.cp == 1))
        return ND_OK;
    static const struct {
        nd_cp_comm comm;
        const char *name, *megatron, *mindspeed, *mindformers;
    } forms[] = {{ND_CP_RING, "ring", "p2p", "megatron_cp_algo", "colossalai_cp"},
                 {ND_CP_A2A, "a2a", "a2a", "ulysses_cp_algo", "ulysses_cp"},
                 {ND_CP_ALLGATHER, "allgather", "allgather", NULL, NULL}};
    int rc = ND_OK;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(forms); i++) {
        if (forms[i].comm == run->cp_comm || (!megatron && !forms[i].mindspeed)) continue;
        nd_train t = *run;
        t.cp_comm = forms[i].comm;
        char then[160];
        if (megatron)
            snprintf(then, sizeof then, "the trainer runs it with --cp-comm-type %s", forms[i].megatron);
        else
            snprintf(then, sizeof then,
                     "the trainer runs it (MindSpeed's --context-parallel-algo %s, MindFormers' "
                     "context_parallel_algo: %s)",
                     forms[i].mindspeed, forms[i].mindformers);
        rc = search_with(cfg, res, &t, "cp_comm", forms[i].name, then, out, err);
    }
    return rc;
}

/* The switches that may decide the pick, each flipped in a search of the same space: whether
 * #1 would change. tp_comm_overlap always, ep_comm_overlap for a model with experts; then the
 * other forms of CP (what_if_cp_forms). */
static int what_if(const nd_search_config *cfg, const nd_search_result *res, nd_search_assumptions *out,
                   nd_error *err)
{
    const nd_train *run = cfg->ctx->train;
    int rc = ND_OK;
    for (int i = 0; !rc && i < 2; i++) {
        if (i == 1 && cfg->ctx->model->experts == 0) continue;
        nd_train t = *run;
        bool flipped_to = i == 0 ? !nd_train_tp_comm_overlap(&t) : !t.ep_comm_overlap;
        if (i == 0)
            t.tp_comm_overlap = flipped_to; /* TP overlap: the framework's when the run leaves it */
        else
            t.ep_comm_overlap = flipped_to;
        rc = search_with(cfg, res, &t, i == 0 ? "tp_comm_overlap" : "ep_comm_overlap",
                         flipped_to ? "true" : "false", "state what the trainer runs", out, err);
    }
    return rc ? rc : what_if_cp_forms(cfg, res, out, err);
}

/* ND's -d with a search config: num_nodes = devices // cards_per_node (the config's, else the
 * device's server size, devices_per_server), whole nodes only, a warning naming the devices
 * left out (run_nd.py _apply_cli_overrides). Fewer devices than a node: nd keeps them as one node (ND would
 * place a whole node). --strict refuses a count that is not whole nodes. */
static int whole_nodes(const nd_cli_common *c, const nd_search_config_file *f, nd_session *ses, FILE *diag,
                       nd_error *err)
{
    int64_t server =
        ses->device->devices_per_server ? ses->device->devices_per_server : ses->device->devices_per_node;
    int64_t cards = f->cards_per_node ? f->cards_per_node : server;
    int64_t d = ses->run.devices;
    if (!c->devices || cards <= 0 || d <= 0 || d % cards == 0) return ND_OK;
    if (c->strict)
        return nd_error_set(
            err, ND_EUSAGE,
            "-d %lld is not a whole number of %lld-device nodes (%s): --strict refuses what ND "
            "would not place",
            (long long)d, (long long)cards,
            f->cards_per_node ? "cluster.cards_per_node" : "the device's server size");
    if (d < cards) {
        if (nd_cli_says(c, ND_VERBOSITY_RESULTS))
            fprintf(diag,
                    "warning: devices=%lld is less than cards_per_node=%lld: priced as one node of %lld (ND "
                    "places a whole node of %lld)\n",
                    (long long)d, (long long)cards, (long long)d, (long long)cards);
        return ND_OK;
    }
    if (nd_cli_says(c, ND_VERBOSITY_RESULTS))
        fprintf(diag,
                "warning: devices=%lld is not a multiple of cards_per_node=%lld: %lld device(s) will not be "
                "placed\n",
                (long long)d, (long long)cards, (long long)(d % cards));
    ses->run.devices = d / cards * cards;
    return ND_OK;
}

/* The files every search writes (-o DIR's fixed ones, --ranking_csv, --report), refused once the
 * inputs are read and before the search: a run read from DIR/best.yaml and written back there
 * stops here, not after the answer is printed. */
static int check_outputs(const nd_search_request *req, nd_error *err)
{
    static const char *const fixed[] = {"ranking.csv", "summary.json", "best.yaml",
                                        "memory.csv",  "debug.csv",    "debug_mem.csv"};
    enum { N = 2 + ND_ARRAY_LEN(fixed) };
    const char *names[N] = {"--ranking_csv", "--report"}, *paths[N] = {req->ranking_csv, req->report};
    char *joined[ND_ARRAY_LEN(fixed)] = {0};
    int rc = ND_OK;
    for (size_t i = 0; i < ND_ARRAY_LEN(fixed) && req->out_dir && !rc; i++) {
        names[2 + i] = "-o";
        paths[2 + i] = joined[i] = nd_path_join(req->out_dir, fixed[i]);
        if (!joined[i]) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    if (!rc) rc = nd_outputs_writable(names, paths, req->out_dir ? N : 2, err);
    for (size_t i = 0; i < ND_ARRAY_LEN(fixed); i++) free(joined[i]);
    return rc;
}

int nd_search_command(const nd_search_request *req, FILE *out, FILE *diag, nd_error *err)
{
    int rc = ND_OK;
    nd_plot_format format; /* a bad --format is known before the search, not after it */
    if (req->plot_format && (rc = nd_plot_format_from_name(req->plot_format, &format, err))) return rc;
    /* With --report, what the run says on stderr is also kept for the report's notes; progress
     * goes to stderr alone. */
    FILE *progress = diag;
    nd_html_capture capture = {0};
    if (req->report && nd_html_capture_open(&capture, diag, err)) return err->code;
    if (req->report) diag = capture.fp;
    nd_session ses;
    if ((rc = nd_session_open(&ses, &req->common, false, diag, err))) goto done;
    if ((rc = check_outputs(req, err))) goto done;
    const nd_search_config_file *file = ses.search;
    if (file && (rc = whole_nodes(&req->common, file, &ses, diag, err))) goto done;
    if ((req->exhaustive[0] || req->exhaustive[1] || req->exhaustive[2]) && file) {
        rc = nd_error_set(err, ND_EUSAGE,
                          "--exhaustive, --force_exhaustive, and --fforce-exhaustive apply to the "
                          "standard ND search, not --real_csv, --search-config, or --verify");
        goto done;
    }
    if (req->potentials && !req->per_layer && !(file && file->per_layer)) {
        rc = nd_error_set(err, ND_EUSAGE, "-rp needs -ar: potentials start from a per-layer plan");
        goto done;
    }
    nd_search_request rp_req;
    if (req->potentials && !req->out_dir) {
        /* ND writes its files, the potentials too, into its output folder without -o */
        rp_req = *req;
        rp_req.out_dir = ND_SEARCH_OUTPUT_DIR;
        req = &rp_req;
        if (nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
            fprintf(diag, "nd-search: note: -rp without -o: writing into %s/, ND's output folder\n",
                    ND_SEARCH_OUTPUT_DIR);
    }
    /* Plot files are drawn into -o's directory only: --format without it would do nothing. */
    if (!req->out_dir && req->plot_format && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag, "nd-search: note: --format is not used: plot files are drawn only with -o DIR\n");
    if (!req->out_dir && !req->report && req->no_plots && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag,
                "nd-search: note: --no-plots is not used: plots are drawn only with -o DIR or --report\n");
    if (ses.run.devices <= 0) {
        rc = nd_error_set(err, ND_EUSAGE, "no device count: give -d N (or cluster.devices in the run file)");
        goto done;
    }
    if (ses.run.train.global_batch <= 0) {
        rc = nd_error_set(err, ND_EUSAGE,
                          "no global batch: give -b GBS (or train.global_batch in the run file)");
        goto done;
    }
    nd_search_space space;
    nd_strategy base;
    if ((rc = build_space(req, &ses, file, &space, &base, err))) goto done;
    unsigned writable = nd_config_format_dims(ses.run.format);
    if ((space.vary & ~writable) & (ND_DIM_BIT(ND_DIMS_SEARCHED) - 1)) {
        bool simumax = ses.run.format == ND_CONFIG_SIMUMAX;
        if (nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT) && simumax)
            fprintf(diag,
                    "nd-search: note: simumax configs cannot state CP when written back: it stays the "
                    "config's (CP %lld)\n",
                    (long long)base.cp);
        else if (nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
            fprintf(diag,
                    "nd-search: note: %s configs cannot state PP or EP when written back: they stay the "
                    "config's (PP %lld, EP %lld)\n",
                    nd_config_format_name(ses.run.format), (long long)base.pp, (long long)base.ep);
        space.vary &= writable;
    }
    if (nd_search_nd_full_recompute(req, &ses, file) && ses.run.train.recompute != ND_RECOMPUTE_FULL &&
        nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag,
                "note: every strategy is priced fully recomputed, as ND does without -mppb, --recompute or "
                "-ar (%s runs %s)\n",
                ses.run.source, nd_recompute_name(ses.run.train.recompute));
    nd_context ctx;
    nd_context_init(&ctx, &ses.run.model, &ses.run.train, ses.device, ses.run.devices, ses.budget_mib,
                    ses.has_ratios ? &ses.ratios.ratios : NULL);
    nd_search_config cfg = {&ctx,
                            base,
                            ses.run.train.global_batch,
                            space,
                            0, /* every fitting row: the answer folds them into distinct choices */
                            req->common.jobs > 0 ? req->common.jobs : 1,
                            req->quiet || !nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT) ? NULL : progress};
    if (nd_cli_says(&req->common, ND_VERBOSITY_INFO)) nd_search_print_space(diag, &cfg);
    nd_search_result res;
    rc = nd_search_run(&cfg, &res, err);
    if (file && (rc == ND_EINPUT || (!rc && res.count == 0)) && widen_lists(&cfg.space)) {
        /* ND's search config filters by its lists after the search: when nothing in them is
         * left, the best strategy that fits is kept, with a warning. */
        char why[ND_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", rc ? err->message : "nothing fits the memory budget");
        if (!rc) nd_search_result_free(&res);
        nd_error wide = {0};
        rc = nd_search_run(&cfg, &res, &wide);
        if (rc) {
            *err = wide;
        } else if (res.count && nd_cli_says(&req->common, ND_VERBOSITY_RESULTS)) {
            fprintf(diag,
                    "warning: no strategy within the search config's lists (%s): the best strategies "
                    "outside them follow, as ND keeps the best that fits\n",
                    why);
        }
    }
    if (rc) goto done;
    if (res.count == 0) {
        char s[256];
        nd_strategy_format(&res.stats.min_peak, s, sizeof s);
        rc = nd_error_set(err, ND_EINPUT,
                          "nothing fits the %.0f MiB budget: the least any strategy needs is "
                          "%.0f MiB (%s); raise -M, add devices, or allow recompute (--recompute full, -ar)",
                          ctx.budget_mib, res.stats.min_peak_mib, s);
    } else {
        /* To the terminal only: the report has its own summary, and this one says how long the
         * search took, which would make the report differ from run to run. */
        if (nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT)) nd_search_print_summary(progress, &cfg, &res);
        size_t top = req->top > 0 ? (size_t)req->top : 10;
        nd_search_answer ans;
        nd_search_assumptions assumed;
        rc = nd_search_answer_build(&cfg, &res, top, &ans, err);
        const char *notes[ND_RUN_MAX_NOTES];
        size_t n_notes = 0;
        for (int i = 0; i < ses.run.n_notes && n_notes < ND_ARRAY_LEN(notes); i++)
            notes[n_notes++] = ses.run.notes[i];
        nd_search_facts facts = {ses.budget_mib + ses.margin_mib, ses.margin_mib, req->common.reserve != NULL,
                                 req->common.shared.ratios,       notes,          n_notes};
        if (!rc) nd_search_assumptions_build(&cfg, &res, &ans, &facts, &assumed);
        if (!rc && !req->no_what_if) rc = what_if(&cfg, &res, &assumed, err);
        /* ND's levels: -v 4 ranks every fitting strategy, 5 and 6 add the top ones' stages */
        if (!rc && nd_cli_says(&req->common, ND_VERBOSITY_DETAIL))
            nd_search_print_table(out, &cfg, &res, res.count);
        else if (!rc)
            nd_search_print_choices(out, &cfg, &res, &ans);
        if (!rc && nd_cli_says(&req->common, ND_VERBOSITY_TRACE))
            nd_search_print_stages(diag, &cfg, &res, top, false);
        if (!rc && nd_cli_says(&req->common, ND_VERBOSITY_DEBUG))
            nd_search_print_stages(diag, &cfg, &res, top, true);
        if (!rc) nd_search_print_answer(out, &cfg, &res, &ans);
        if (!rc) {
            fputc('\n', out);
            nd_search_print_assumptions(out, &assumed, "");
        }
        if (!rc && file) nd_search_print_config_space(out, &cfg, file);
        if (!rc) rc = print_extras(req, &cfg, &res, top, out, diag, err);
        search_outputs o = {&ans, &assumed, &facts};
        nd_plot_gallery gallery = {0};
        if (!rc) rc = write_files(req, &cfg, &ses, &res, &o, req->report ? &gallery : NULL, out, err);
        /* ND prints its result after "Resolved strategy written to" */
        if (!rc && file) nd_search_print_config_result(out, &cfg, &res);
        if (!rc && req->report) {
            nd_search_report_inputs in = {req->common.run_path, req->common.shared.ratios,
                                          req->common.search_config, req->out_dir};
            rc = nd_search_report_html(req->report, &cfg, &res, &ans, &assumed, &in, &gallery, &capture, err);
        }
        nd_search_answer_free(&ans);
        nd_plot_gallery_free(&gallery);
    }
    nd_search_result_free(&res);
done:
    nd_session_close(&ses);
    nd_html_capture_close(&capture);
    return rc;
}
