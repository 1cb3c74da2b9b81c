/*
 * search_plots.c — nd-search's plots (ranking, memory per stage) and its memory CSV,
 * both from the winner priced again stage by stage.
 */
#include "nd/planner/search_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"
#include "nd/base/progress.h"
#include "nd/costmodel/report.h"
#include "search_internal.h"
#include "nd/costmodel/stage.h"

static int ranking_plot(const char *dir, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                        const nd_plot_options *opt, nd_error *err)
{
    size_t n = top && top < res->count ? top : res->count;
    if (n > 20) n = 20;
    const char **labels = calloc(n, sizeof *labels);
    char(*text)[112] = calloc(n, sizeof *text);
    double *parts = calloc(n * ND_PARTS + n, sizeof *parts), *peak = parts + n * ND_PARTS;
    int rc = labels && text && parts ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        char lab[80];
        nd_strategy_label(&res->items[i].s, lab, sizeof lab);
        snprintf(text[i], sizeof text[i], "#%zu  %s", i + 1, lab);
        labels[i] = text[i];
        memcpy(&parts[i * ND_PARTS], res->items[i].parts_ms, sizeof res->items[i].parts_ms);
        peak[i] = res->items[i].peak_mib;
    }
    if (!rc) {
        nd_plot_ranking p = {n, labels, ND_PARTS, nd_part_names, parts, peak, cfg->ctx->budget_mib};
        /* The title says what was searched: how many fit, on which cluster. */
        char title[512];
        snprintf(title, sizeof title,
                 "Top %zu of %llu fitting strategies, %s on %lld x %s: what separates them "
                 "from #1",
                 n, (unsigned long long)res->stats.fitting, cfg->ctx->model->name,
                 (long long)cfg->ctx->devices, cfg->ctx->device->name);
        nd_plot_options o = *opt;
        if (!o.title) o.title = title;
        char *base = nd_path_join(dir, "ranking");
        rc = base ? nd_plot_ranking_write(base, &p, &o, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        free(base);
    }
    free(labels);
    free(text);
    free(parts);
    return rc;
}

static int memory_plot(const char *dir, const nd_search_config *cfg, const nd_ranked *best,
                       const nd_plot_options *opt, nd_error *err)
{
    int64_t pp = best->s.pp;
    nd_priced_stages ps;
    int rc = nd_search_price_stages(cfg, best, &ps, err);
    double *comp = rc ? NULL : calloc((size_t)pp * ND_MEMORY_COMPONENTS, sizeof *comp);
    if (!rc && !comp) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int64_t i = 0; !rc && i < pp; i++) {
        const nd_stage_memory *m = &ps.mem[i];
        nd_stage_memory_components(m, &comp[i * ND_MEMORY_COMPONENTS]);
    }
    char label[96], strategy[112];
    nd_strategy_label(&best->s, label, sizeof label);
    snprintf(strategy, sizeof strategy, "#1 %s", label);
    if (!rc) {
        nd_plot_stage_memory p = {
            (size_t)pp,           NULL,     ND_MEMORY_COMPONENTS, nd_memory_csv.title, comp,
            cfg->ctx->budget_mib, strategy, ND_MEMORY_RECLAIMABLE};
        char *base = nd_path_join(dir, "memory");
        rc = base ? nd_plot_stage_memory_write(base, &p, opt, err)
                  : nd_error_set(err, ND_ENOMEM, "out of memory");
        free(base);
    }
    nd_priced_stages_free(&ps);
    free(comp);
    return rc;
}

int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                    const nd_plot_options *opt, nd_error *err)
{
    if (!res->count) return ND_OK;
    /* The memory plot prices the winner again stage by stage: on a large model, seconds. */
    nd_progress bar;
    nd_progress_begin(&bar, cfg->progress, "nd-search: drawing the plots", "plots", 2);
    int rc = ranking_plot(dir, cfg, res, top, opt, err);
    nd_progress_update(&bar, 1);
    if (!rc) rc = memory_plot(dir, cfg, &res->items[0], opt, err);
    nd_progress_end(&bar);
    return rc;
}

int nd_search_write_memory(const char *path, const nd_search_config *cfg, const nd_ranked *best,
                           nd_error *err)
{
    nd_priced_stages ps;
    int rc = nd_search_price_stages(cfg, best, &ps, err);
    if (!rc) rc = nd_report_memory_csv(path, &ps.est, cfg->ctx->budget_mib, err);
    nd_priced_stages_free(&ps);
    return rc;
}
