/*
 * search_report.c — nd-search's one-page report (--report FILE): the verdict, the inputs,
 * the top strategies against #1 and the budget, what was refused, the plots and the notes
 * the run printed. docs/report.md lists the sections.
 */
#include "nd/search_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/html.h"
#include "nd/version.h"

#define CELL 112
typedef char cell_text[CELL];

static void summary(nd_html *h, const nd_search_config *cfg, const nd_search_result *res,
                    const nd_search_odds *odds)
{
    const nd_ranked *b = &res->items[0];
    const nd_search_stats *st = &res->stats;
    char label[96], verdict[400];
    nd_strategy_label(&b->s, label, sizeof label);
    snprintf(verdict, sizeof verdict, "Best: %s, %.1f ms a step, peak %.1f GiB (%.0f %% of the %.1f GiB budget)%s.",
             label, b->step_ms, b->peak_mib / 1024, 100 * b->peak_mib / cfg->ctx->budget_mib,
             cfg->ctx->budget_mib / 1024, cfg->ctx->ratios ? ", corrected by the ratios file" : "");
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    uint64_t refused = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) refused += st->refused[r];
    nd_html_text(h, "%" PRIu64 " strategies enumerated for %lld x %s, global batch %lld: %" PRIu64 " refused, %" PRIu64
                 " fit the budget, %" PRIu64 " do not; %" PRIu64 " priced in %.2f s.",
                 st->enumerated, (long long)cfg->ctx->devices, cfg->ctx->device->name, (long long)cfg->global_batch,
                 refused, st->fitting, st->dropped_memory, st->priced, st->seconds);
    if (odds && odds->count > 1 && isfinite(odds->p_fastest[0]))
        nd_html_text(h, "With the calibration's uncertainty (%zu draws), #1 is the fastest in %.0f %% of them.",
                     odds->draws, 100 * odds->p_fastest[0]);
}

static void inputs(nd_html *h, const nd_search_report_inputs *in, const nd_search_config *cfg)
{
    char devices[192], batch[32], budget[48];
    snprintf(devices, sizeof devices, "%lld x %s", (long long)cfg->ctx->devices, cfg->ctx->device->name);
    snprintf(batch, sizeof batch, "%lld", (long long)cfg->global_batch);
    snprintf(budget, sizeof budget, "%.0f MiB (%.1f GiB)", cfg->ctx->budget_mib, cfg->ctx->budget_mib / 1024);
    const char *names[] = {"run file (-y)", "model", "devices", "global batch", "memory budget", "ratios (-c)",
                           "search config (-s)", "output directory (-o)"};
    const char *values[] = {in->run_path, cfg->ctx->model->name, devices, batch, budget,
                            in->ratios_path ? in->ratios_path : "none: raw estimates",
                            in->search_config ? in->search_config : "none", in->out_dir ? in->out_dir : "none"};
    nd_html_section(h, "inputs", "Inputs");
    nd_html_facts(h, sizeof names / sizeof names[0], names, values);
}

static void ranking_table(nd_html *h, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                          const nd_search_odds *odds, cell_text *cells, const char **ptrs)
{
    static const char *const headers[] = {"#", "strategy", "step ms", "vs #1", "peak GiB", "of budget",
                                          "tokens/s/device", "MFU", "fastest in"};
    size_t n = top < res->count ? top : res->count, cols = 9;
    for (size_t i = 0; i < n; i++) {
        const nd_ranked *r = &res->items[i];
        cell_text *row = &cells[cols * i];
        snprintf(row[0], CELL, "%zu", i + 1);
        nd_strategy_label(&r->s, row[1], CELL);
        snprintf(row[2], CELL, "%.1f", r->step_ms);
        snprintf(row[3], CELL, "%+.2f %%", 100 * (r->step_ms / res->items[0].step_ms - 1));
        snprintf(row[4], CELL, "%.1f", r->peak_mib / 1024);
        snprintf(row[5], CELL, "%.0f %%", 100 * r->peak_mib / cfg->ctx->budget_mib);
        snprintf(row[6], CELL, "%.1f", r->tokens_per_s_per_device);
        snprintf(row[7], CELL, "%.1f %%", 100 * r->mfu);
        if (odds && i < odds->count && isfinite(odds->p_fastest[i])) snprintf(row[8], CELL, "%.0f %%", 100 * odds->p_fastest[i]);
        else snprintf(row[8], CELL, "-");
    }
    for (size_t i = 0; i < cols * n; i++) ptrs[i] = cells[i];
    nd_html_section(h, "ranking", "Ranking");
    nd_html_table(h, "The fastest strategies that fit, best first; \"fastest in\": the share of the calibration's "
                  "draws in which it is fastest (with -c)", cols, headers, n, ptrs);
}

static void refusals(nd_html *h, const nd_search_result *res, cell_text *cells, const char **ptrs)
{
    static const char *const headers[] = {"reason", "strategies"};
    size_t n = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) {
        if (!res->stats.refused[r]) continue;
        snprintf(cells[2 * n], CELL, "%s", nd_refusal_name((nd_refusal)r));
        snprintf(cells[2 * n + 1], CELL, "%" PRIu64, res->stats.refused[r]);
        n++;
    }
    snprintf(cells[2 * n], CELL, "over the memory budget");
    snprintf(cells[2 * n + 1], CELL, "%" PRIu64, res->stats.dropped_memory);
    n++;
    for (size_t i = 0; i < 2 * n; i++) ptrs[i] = cells[i];
    nd_html_section(h, "refused", "What was left out");
    nd_html_table(h, NULL, 2, headers, n, ptrs);
}

int nd_search_report_html(const char *path, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                          const nd_search_odds *odds, const nd_search_report_inputs *in, const nd_plot_gallery *plots,
                          nd_html_capture *notes, nd_error *err)
{
    char title[448], generator[64];
    snprintf(title, sizeof title, "nd-search: %s on %lld x %s", cfg->ctx->model->name, (long long)cfg->ctx->devices,
             cfg->ctx->device->name);
    snprintf(generator, sizeof generator, "nd-search %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    size_t count = 9 * (top + 1) + 2 * (ND_REFUSE_REASONS + 1);
    cell_text *cells = calloc(count, sizeof *cells);
    const char **ptrs = calloc(count, sizeof *ptrs);
    int rc = h && cells && ptrs ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && res->count == 0) rc = nd_error_set(err, ND_EINPUT, "no strategy to report");
    if (!rc) {
        summary(h, cfg, res, odds);
        inputs(h, in, cfg);
        ranking_table(h, cfg, res, top, odds, cells, ptrs);
        nd_html_section(h, "plots", "Plots");
        if (plots && plots->count) {
            const char *captions[] = {
                "Ranking: each strategy's step against #1's by part (what separates them), and its peak memory "
                "against the budget.",
                "Memory per pipeline stage of #1 against the budget.",
                "Recompute potentials: one more fully recomputed layer per step."};
            nd_html_gallery(h, plots, plots->count <= 3 ? captions : NULL);
        } else {
            nd_html_text(h, "No plots (--no-plots).");
        }
        refusals(h, res, cells + 9 * (top + 1), ptrs + 9 * (top + 1));
        if (notes) nd_html_notes_from_capture(h, notes);
        rc = nd_html_write(h, path, err);
    }
    nd_html_free(h);
    free(cells), free(ptrs);
    return rc;
}
