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
#include "nd/costmodel/context.h"

static void summary(nd_html *h, const nd_search_config *cfg, const nd_search_result *res,
                    const nd_search_answer *ans)
{
    const nd_search_choice *c = &ans->choices[0];
    const nd_ranked *b = &res->items[c->index];
    const nd_search_stats *st = &res->stats;
    char label[96], plan[96], verdict[640];
    nd_strategy_label(&b->s, label, sizeof label);
    nd_search_plan_text(b, plan, sizeof plan);
    size_t tied = 0;
    for (size_t j = 1; j < ans->count; j++) tied += ans->choices[j].tied;
    snprintf(
        verdict, sizeof verdict,
        "Run %s (%s): %.1f ms a step (%s %.0f to %.0f ms), peak %.1f GiB, %.1f GiB of headroom under the "
        "%.1f GiB budget%s. %zu of the next %zu distinct choices cannot be told apart from it.",
        label, plan, b->step_ms, ans->interval == ND_INTERVAL_FITTED ? "95 % interval" : "uncalibrated,",
        c->lo_ms, c->hi_ms, b->peak_mib / ND_MIB_PER_GIB, c->headroom_mib / ND_MIB_PER_GIB,
        cfg->ctx->budget_mib / ND_MIB_PER_GIB, cfg->ctx->ratios ? ", corrected by the ratios file" : "", tied,
        ans->count ? ans->count - 1 : 0);
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    uint64_t refused = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) refused += st->refused[r];
    /* No duration: the same search gives the same page. */
    nd_html_text(
        h,
        "%" PRIu64 " strategies enumerated for %lld x %s, global batch %lld: %" PRIu64 " refused, %" PRIu64
        " fit the budget (%zu distinct choices: rows that differ only in OP are one, only in VPP "
        "within %.1f %%), %" PRIu64 " do not; %" PRIu64 " priced.",
        st->enumerated, (long long)cfg->ctx->devices, cfg->ctx->device->name, (long long)cfg->global_batch,
        refused, st->fitting, ans->layouts, 100 * ND_FOLD_STEP_SHARE, st->dropped_memory, st->priced);
    if (ans->draws && isfinite(c->p_fastest))
        nd_html_text(h,
                     "With the calibration's uncertainty (%zu draws), #1 is the fastest in %.0f %% of them.",
                     ans->draws, 100 * c->p_fastest);
}

static void assumptions(nd_html *h, const nd_search_assumptions *a)
{
    static const char *const headers[] = {"what", "the answer assumes"};
    const char **cells = calloc(2 * (a->count ? a->count : 1), sizeof *cells);
    if (!cells) return;
    for (size_t i = 0; i < a->count; i++) {
        cells[2 * i] = a->items[i].what;
        cells[2 * i + 1] = a->items[i].text;
    }
    nd_html_section(h, "assumptions", "What the answer assumes");
    nd_html_table(h, NULL, 2, headers, a->count, cells);
    free(cells);
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

static void ranking_table(nd_html *h, const nd_search_config *cfg, const nd_search_result *res,
                          const nd_search_answer *ans)
{
    static const char *const headers[] = {"#",
                                          "strategy",
                                          "plan (recompute, offload)",
                                          "step ms",
                                          "interval ms",
                                          "vs #1",
                                          "told apart from #1",
                                          "peak GiB",
                                          "headroom GiB",
                                          "tokens/s/device",
                                          "MFU",
                                          "fastest in"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, ND_ARRAY_LEN(headers), ans->count)) return;
    const nd_ranked *best = &res->items[ans->choices[0].index];
    for (size_t i = 0; i < ans->count; i++) {
        const nd_search_choice *c = &ans->choices[i];
        const nd_ranked *r = &res->items[c->index];
        char label[ND_HTML_CELL_MAX], plan[96], variants[64];
        nd_strategy_label(&r->s, label, sizeof label);
        nd_search_plan_text(r, plan, sizeof plan);
        nd_search_variants_text(c, variants, sizeof variants);
        nd_html_grid_set(&g, i, 0, "%zu", i + 1);
        if (c->variants > 1)
            nd_html_grid_set(&g, i, 1, "%s [%s]", label, variants);
        else
            nd_html_grid_set(&g, i, 1, "%s", label);
        nd_html_grid_set(&g, i, 2, "%s", plan);
        nd_html_grid_set(&g, i, 3, "%.1f", r->step_ms);
        nd_html_grid_set(&g, i, 4, "%.0f to %.0f", c->lo_ms, c->hi_ms);
        nd_html_grid_set(&g, i, 5, "%+.2f %%", 100 * (r->step_ms / best->step_ms - 1));
        nd_html_grid_set(&g, i, 6, "%s", i == 0 ? "-" : c->tied ? "no" : "yes");
        nd_html_grid_set(&g, i, 7, "%.1f", r->peak_mib / ND_MIB_PER_GIB);
        nd_html_grid_set(&g, i, 8, "%.1f", c->headroom_mib / ND_MIB_PER_GIB);
        nd_html_grid_set(&g, i, 9, "%.1f", r->tokens_per_s_per_device);
        nd_html_grid_set(&g, i, 10, "%.1f %%", 100 * r->mfu);
        if (isfinite(c->p_fastest))
            nd_html_grid_set(&g, i, 11, "%.0f %%", 100 * c->p_fastest);
        else
            nd_html_grid_set(&g, i, 11, "-");
    }
    nd_html_section(h, "ranking", "Ranking");
    char caption[320];
    snprintf(
        caption, sizeof caption,
        "The fastest distinct choices that fit, best first; interval: %s; \"fastest in\": the share of the "
        "calibration's draws in which it is fastest (with -c)",
        ans->interval == ND_INTERVAL_FITTED ? "95 % prediction, from the ratios file"
                                            : "nd's benchmarked uncalibrated error (docs/benchmarks.md)");
    nd_html_grid_table(h, caption, headers, &g);
    nd_html_grid_free(&g);
    (void)cfg;
}

/* #1's plan stage by stage: layers by kind and recompute mode, the offloaded ones. */
static void plan_table(nd_html *h, const nd_search_config *cfg, const nd_ranked *best)
{
    if (!best->per_layer) return;
    int64_t pp = best->s.pp;
    int64_t(*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = calloc((size_t)pp, sizeof *layers);
    int64_t(*off)[ND_LAYER_KINDS] = calloc((size_t)pp, sizeof *off);
    nd_recompute_plan plan = {pp, layers, off, 0};
    static const char *const headers[] = {"stage",   "dense off",     "dense selective", "dense full",
                                          "MoE off", "MoE selective", "MoE full",        "offloaded"};
    nd_html_grid g;
    if (layers && off && !nd_search_plan(cfg, best, &plan) &&
        nd_html_grid_init(&g, ND_ARRAY_LEN(headers), (size_t)pp)) {
        for (int64_t i = 0; i < pp; i++) {
            nd_html_grid_set(&g, (size_t)i, 0, "%lld", (long long)i);
            for (int k = 0; k < ND_LAYER_KINDS; k++)
                for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
                    nd_html_grid_set(&g, (size_t)i, (size_t)(1 + 3 * k + m), "%lld",
                                     (long long)layers[i][k][m]);
            nd_html_grid_set(&g, (size_t)i, 7, "%lld", (long long)(off[i][0] + off[i][1]));
        }
        nd_html_section(h, "plan", "#1's recompute and offload plan");
        nd_html_grid_table(
            h,
            "Body layers per pipeline stage by kind and recompute mode; offloaded layers run without "
            "recompute and keep their activations in host memory (best.yaml's recompute_plan)",
            headers, &g);
        nd_html_grid_free(&g);
    }
    free(layers);
    free(off);
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
                          const nd_search_answer *ans, const nd_search_assumptions *assumed,
                          const nd_search_report_inputs *in, const nd_plot_gallery *plots,
                          nd_html_capture *notes, nd_error *err)
{
    char title[448], generator[64];
    snprintf(title, sizeof title, "nd-search: %s on %lld x %s", cfg->ctx->model->name,
             (long long)cfg->ctx->devices, cfg->ctx->device->name);
    snprintf(generator, sizeof generator, "nd-search %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    int rc = h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && (res->count == 0 || !ans->count)) rc = nd_error_set(err, ND_EINPUT, "no strategy to report");
    if (!rc) {
        summary(h, cfg, res, ans);
        assumptions(h, assumed);
        inputs(h, in, cfg);
        ranking_table(h, cfg, res, ans);
        plan_table(h, cfg, &res->items[ans->choices[0].index]);
        static const char *const captions[] = {
            ("Ranking: which to run, and how sure nd is. Each distinct choice's step against #1's with its "
             "interval, the parts that set it apart, whether it can be told apart from #1, and its peak "
             "memory "
             "and headroom against the budget."),
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
