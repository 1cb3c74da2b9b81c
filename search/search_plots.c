/*
 * search_plots.c — nd-search's plots (ranking, memory per stage) and the
 * recompute potentials of -rp (reference/nd-calibration.md §7).
 */
#include "nd/search_out.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/formats.h"
#include "nd/io.h"
#include "nd/plot.h"
#include "nd/report.h"
#include "nd/stage.h"

/* Per-stage memory and timing of a ranked strategy (with its plan under -ar). */
static int price_again(const nd_search_config *cfg, const nd_ranked *r, nd_estimate *est,
                       nd_stage_memory *mem, nd_stage_time *tm, nd_recompute_plan *plan, bool *has_plan)
{
    *has_plan = r->per_layer && !nd_search_plan(cfg, r, plan);
    memset(est, 0, sizeof *est);
    est->stage_memory = mem, est->stage_time = tm;
    return nd_estimate_strategy(cfg->ctx, &r->s, NULL, *has_plan ? plan : NULL, est, NULL);
}

static int ranking_plot(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                        size_t top, const nd_plot_options *opt, nd_error *err)
{
    size_t n = top && top < res->count ? top : res->count;
    if (n > 20) n = 20;
    const char **labels = calloc(n, sizeof *labels);
    char (*text)[112] = calloc(n, sizeof *text);
    double *parts = calloc(n * ND_PARTS + n, sizeof *parts), *peak = parts + n * ND_PARTS;
    int rc = labels && text && parts ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        char lab[80];
        nd_strategy_label(&res->items[i].s, lab, sizeof lab);
        snprintf(text[i], sizeof text[i], "%zu: %s", i + 1, lab);
        labels[i] = text[i];
        memcpy(&parts[i * ND_PARTS], res->items[i].parts_ms, sizeof res->items[i].parts_ms);
        peak[i] = res->items[i].peak_mib;
    }
    if (!rc) {
        nd_plot_ranking p = {n, labels, ND_PARTS, nd_part_names, parts, peak, cfg->ctx->budget_mib};
        char base[1024];
        snprintf(base, sizeof base, "%s/ranking", dir);
        rc = nd_plot_ranking_write(base, &p, opt, err);
    }
    free(labels), free(text), free(parts);
    return rc;
}

static int memory_plot(const char *dir, const nd_search_config *cfg, const nd_ranked *best,
                       const nd_plot_options *opt, nd_error *err)
{
    int64_t pp = best->s.pp;
    nd_stage_memory *mem = calloc((size_t)pp, sizeof *mem);
    nd_stage_time *tm = calloc((size_t)pp, sizeof *tm);
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = calloc((size_t)pp, sizeof *layers);
    int64_t (*off)[ND_LAYER_KINDS] = calloc((size_t)pp, sizeof *off);
    double *comp = calloc((size_t)pp * ND_MEMORY_COMPONENTS, sizeof *comp);
    int rc = mem && tm && layers && off && comp ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    nd_recompute_plan plan = {0, layers, off, 0};
    nd_estimate est;
    bool has_plan;
    if (!rc && price_again(cfg, best, &est, mem, tm, &plan, &has_plan))
        rc = nd_error_set(err, ND_ERUNTIME, "cannot price the best strategy again");
    for (int64_t i = 0; !rc && i < pp; i++) {
        double v[ND_MEMORY_COMPONENTS] = {mem[i].params_mib,      mem[i].grads_mib,   mem[i].optimizer_mib,
                                          mem[i].activations_mib, mem[i].working_mib, mem[i].buffers_mib,
                                          mem[i].reserve_mib};
        memcpy(&comp[i * ND_MEMORY_COMPONENTS], v, sizeof v);
    }
    if (!rc) {
        nd_plot_stage_memory p = {(size_t)pp, NULL, ND_MEMORY_COMPONENTS, nd_memory_csv.title, comp,
                                  cfg->ctx->budget_mib};
        char base[1024];
        snprintf(base, sizeof base, "%s/memory", dir);
        rc = nd_plot_stage_memory_write(base, &p, opt, err);
    }
    free(mem), free(tm), free(layers), free(off), free(comp);
    return rc;
}

int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                    const nd_plot_options *opt, nd_error *err)
{
    if (!res->count) return ND_OK;
    int rc = ranking_plot(dir, cfg, res, top, opt, err);
    return rc ? rc : memory_plot(dir, cfg, &res->items[0], opt, err);
}

int nd_search_write_memory(const char *path, const nd_search_config *cfg, const nd_ranked *best, nd_error *err)
{
    int64_t pp = best->s.pp;
    nd_stage_memory *mem = calloc((size_t)pp, sizeof *mem);
    nd_stage_time *tm = calloc((size_t)pp, sizeof *tm);
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = calloc((size_t)pp, sizeof *layers);
    int64_t (*off)[ND_LAYER_KINDS] = calloc((size_t)pp, sizeof *off);
    int rc = mem && tm && layers && off ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    nd_recompute_plan plan = {0, layers, off, 0};
    nd_estimate est;
    bool has_plan;
    if (!rc && price_again(cfg, best, &est, mem, tm, &plan, &has_plan))
        rc = nd_error_set(err, ND_ERUNTIME, "cannot price the best strategy again");
    if (!rc) rc = nd_report_memory_csv(path, &est, cfg->ctx->budget_mib, err);
    free(mem), free(tm), free(layers), free(off);
    return rc;
}
