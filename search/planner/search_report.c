/*
 * search_report.c — nd-search's one-page report (--report FILE): the verdict, the inputs,
 * the top strategies against #1 and the budget, what was refused, the plots and the notes
 * the run printed. docs/report.md lists the sections.
 */
#include "nd/planner/search_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/html/html.h"
#include "nd/base/version.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

static void summary(nd_html *h, const nd_search_config *cfg, const nd_search_result *res,
                    const nd_search_odds *odds)
{
    const nd_ranked *b = &res->items[0];
    const nd_search_stats *st = &res->stats;
    char label[96], verdict[400];
    nd_strategy_label(&b->s, label, sizeof label);
    snprintf(verdict, sizeof verdict,
             "Best: %s, %.1f ms a step, peak %.1f GiB (%.0f %% of the %.1f GiB budget)%s.", label, b->step_ms,
             b->peak_mib / ND_MIB_PER_GIB, 100 * b->peak_mib / cfg->ctx->budget_mib,
             cfg->ctx->budget_mib / ND_MIB_PER_GIB, cfg->ctx->ratios ? ", corrected by the ratios file" : "");
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    uint64_t refused = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) refused += st->refused[r];
    /* No duration: the same search gives the same page. */
    nd_html_text(h,
                 "%" PRIu64 " strategies enumerated for %lld x %s, global batch %lld: %" PRIu64
                 " refused, %" PRIu64 " fit the budget, %" PRIu64 " do not; %" PRIu64 " priced.",
                 st->enumerated, (long long)cfg->ctx->devices, cfg->ctx->device->name,
                 (long long)cfg->global_batch, refused, st->fitting, st->dropped_memory, st->priced);
    if (odds && odds->count > 1 && isfinite(odds->p_fastest[0]))
        nd_html_text(h,
                     "With the calibration's uncertainty (%zu draws), #1 is the fastest in %.0f %% of them.",
                     odds->draws, 100 * odds->p_fastest[0]);
}

static void inputs(nd_html *h, const nd_search_report_inputs *in, const nd_search_config *cfg)
{
    char devices[192], batch[32], budget[48];
    snprintf(devices, sizeof devices, "%lld x %s", (long long)cfg->ctx->devices, cfg->ctx->device->name);
    snprintf(batch, sizeof batch, "%lld", (long long)cfg->global_batch);
    snprintf(budget, sizeof budget, "%.0f MiB (%.1f GiB)", cfg->ctx->budget_mib,
             cfg->ctx->budget_mib / ND_MIB_PER_GIB);
    const char *names[] = {"run file (-y)",
                           "model",
                           "devices",
                           "global batch",
                           "memory budget",
                           "ratios (-c)",
                           "search config (-s)",
                           "output directory (-o)"};
    const char *values[] = {in->run_path,
                            cfg->ctx->model->name,
                            devices,
                            batch,
                            budget,
                            in->ratios_path ? in->ratios_path : "none: raw estimates",
                            in->search_config ? in->search_config : "none",
                            in->out_dir ? in->out_dir : "none"};
    nd_html_section(h, "inputs", "Inputs");
    nd_html_facts(h, ND_ARRAY_LEN(names), names, values);
}

static void ranking_table(nd_html *h, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                          const nd_search_odds *odds)
{
    static const char *const headers[] = {"#",         "strategy",        "step ms", "vs #1",     "peak GiB",
                                          "of budget", "tokens/s/device", "MFU",     "fastest in"};
    size_t n = top < res->count ? top : res->count;
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 9, n)) return;
    for (size_t i = 0; i < n; i++) {
        const nd_ranked *r = &res->items[i];
        char label[ND_HTML_CELL_MAX];
        nd_strategy_label(&r->s, label, sizeof label);
        nd_html_grid_set(&g, i, 0, "%zu", i + 1);
        nd_html_grid_set(&g, i, 1, "%s", label);
        nd_html_grid_set(&g, i, 2, "%.1f", r->step_ms);
        nd_html_grid_set(&g, i, 3, "%+.2f %%", 100 * (r->step_ms / res->items[0].step_ms - 1));
        nd_html_grid_set(&g, i, 4, "%.1f", r->peak_mib / ND_MIB_PER_GIB);
        nd_html_grid_set(&g, i, 5, "%.0f %%", 100 * r->peak_mib / cfg->ctx->budget_mib);
        nd_html_grid_set(&g, i, 6, "%.1f", r->tokens_per_s_per_device);
        nd_html_grid_set(&g, i, 7, "%.1f %%", 100 * r->mfu);
        if (odds && i < odds->count && isfinite(odds->p_fastest[i]))
            nd_html_grid_set(&g, i, 8, "%.0f %%", 100 * odds->p_fastest[i]);
        else
            nd_html_grid_set(&g, i, 8, "-");
    }
    nd_html_section(h, "ranking", "Ranking");
    nd_html_grid_table(
        h,
        "The fastest strategies that fit, best first; \"fastest in\": the share of the calibration's "
        "draws in which it is fastest (with -c)",
        headers, &g);
    nd_html_grid_free(&g);
}

static void refusals(nd_html *h, const nd_search_result *res)
{
    static const char *const headers[] = {"reason", "strategies"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 2, ND_REFUSE_REASONS + 1)) return;
    size_t n = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) {
        if (!res->stats.refused[r]) continue;
        nd_html_grid_set(&g, n, 0, "%s", nd_refusal_name((nd_refusal)r));
        nd_html_grid_set(&g, n++, 1, "%" PRIu64, res->stats.refused[r]);
    }
    nd_html_grid_set(&g, n, 0, "over the memory budget");
    nd_html_grid_set(&g, n, 1, "%" PRIu64, res->stats.dropped_memory);
    nd_html_section(h, "refused", "What was left out");
    nd_html_grid_table(h, NULL, headers, &g);
    nd_html_grid_free(&g);
}

int nd_search_report_html(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                          size_t top, const nd_search_odds *odds, const nd_search_report_inputs *in,
                          const nd_plot_gallery *plots, nd_html_capture *notes, nd_error *err)
{
    char title[448], generator[64];
    snprintf(title, sizeof title, "nd-search: %s on %lld x %s", cfg->ctx->model->name,
             (long long)cfg->ctx->devices, cfg->ctx->device->name);
    snprintf(generator, sizeof generator, "nd-search %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    int rc = h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && res->count == 0) rc = nd_error_set(err, ND_EINPUT, "no strategy to report");
    if (!rc) {
        summary(h, cfg, res, odds);
        inputs(h, in, cfg);
        ranking_table(h, cfg, res, top, odds);
        static const char *const captions[] = {
            ("Ranking: each strategy's step against #1's by part (what separates them), and its peak memory "
             "against the budget."),
            "Memory per pipeline stage of #1 against the budget.",
            "Recompute potentials: one more fully recomputed layer per step."};
        nd_html_plots_section(h, plots, captions, ND_ARRAY_LEN(captions));
        refusals(h, res);
        if (notes) nd_html_notes_from_capture(h, notes);
        rc = nd_html_write(h, path, err);
    }
    nd_html_free(h);
    return rc;
}
