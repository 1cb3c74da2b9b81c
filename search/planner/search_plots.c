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

/* The ranking plot of the answer's choices (at most 20): steps, intervals, ties, memory. */
static int ranking_plot(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                        const nd_search_answer *ans, const nd_plot_options *opt, nd_error *err)
{
    size_t n = ans->count < 20 ? ans->count : 20;
    const char **labels = calloc(n, sizeof *labels);
    char(*text)[160] = calloc(n, sizeof *text);
    double *parts = calloc(n * ND_PARTS + 4 * n, sizeof *parts), *peak = parts + n * ND_PARTS;
    double *lo = peak + n, *hi = lo + n, *pf = hi + n;
    int *tied = calloc(n, sizeof *tied);
    int rc = labels && text && parts && tied ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const nd_search_choice *c = &ans->choices[i];
        const nd_ranked *r = &res->items[c->index];
        char lab[96];
        nd_strategy_label(&r->s, lab, sizeof lab);
        if (c->variants > 1)
            snprintf(text[i], sizeof text[i], "#%zu  %s (+%zu)", i + 1, lab, c->variants - 1);
        else
            snprintf(text[i], sizeof text[i], "#%zu  %s", i + 1, lab);
        labels[i] = text[i];
        memcpy(&parts[i * ND_PARTS], r->parts_ms, sizeof r->parts_ms);
        peak[i] = r->peak_mib;
        lo[i] = c->lo_ms;
        hi[i] = c->hi_ms;
        pf[i] = c->p_fastest;
        tied[i] = c->tied;
    }
    if (!rc) {
        char subtitle[400], interval[96];
        snprintf(subtitle, sizeof subtitle, "%s on %lld x %s, %zu of %zu distinct choices (%llu fitting), %s",
                 cfg->ctx->model->name, (long long)cfg->ctx->devices, cfg->ctx->device->name, n, ans->layouts,
                 (unsigned long long)res->stats.fitting,
                 ans->interval == ND_INTERVAL_FITTED ? "calibrated" : "uncalibrated");
        if (ans->interval == ND_INTERVAL_FITTED)
            snprintf(interval, sizeof interval, "its 95 %% interval (fitted)");
        else
            snprintf(interval, sizeof interval, "its interval, \xc2\xb1%.1f %% (uncalibrated)", /* U+00B1 */
                     100 * ND_UNCALIBRATED_STEP_ERROR);
        nd_plot_ranking p = {n,  labels, ND_PARTS, nd_part_names, parts,   peak, cfg->ctx->budget_mib, lo,
                             hi, tied,   pf,       interval,      subtitle};
        char *base = nd_path_join(dir, "ranking");
        rc = base ? nd_plot_ranking_write(base, &p, opt, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        free(base);
    }
    free(labels);
    free(text);
    free(parts);
    free(tied);
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
    /* the layers each stage's plan offloads (-ao) */
    int64_t *host = rc ? NULL : calloc((size_t)pp, sizeof *host);
    if (!rc && !host) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int64_t i = 0; !rc && ps.plan.offloaded && i < pp; i++)
        for (int k = 0; k < ND_LAYER_KINDS; k++) host[i] += ps.plan.offloaded[i][k];
    if (!rc) {
        nd_plot_stage_memory p = {(size_t)pp,
                                  NULL,
                                  ND_MEMORY_COMPONENTS,
                                  nd_memory_csv.title,
                                  comp,
                                  cfg->ctx->budget_mib,
                                  strategy,
                                  ND_MEMORY_RECLAIMABLE,
                                  best->offloaded_layers ? host : NULL};
        char *base = nd_path_join(dir, "memory");
        rc = base ? nd_plot_stage_memory_write(base, &p, opt, err)
                  : nd_error_set(err, ND_ENOMEM, "out of memory");
        free(base);
    }
    nd_priced_stages_free(&ps);
    free(comp);
    free(host);
    return rc;
}

int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                    const nd_search_answer *ans, const nd_plot_options *opt, nd_error *err)
{
    if (!res->count) return ND_OK;
    /* The memory plot prices the winner again stage by stage: on a large model, seconds. */
    nd_progress bar;
    nd_progress_begin(&bar, cfg->progress, "nd-search: drawing the plots", "plots", 2);
    int rc = ranking_plot(dir, cfg, res, ans, opt, err);
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
