/*
 * search_out.c — nd-search's printed summary and table, and the ranking CSV and
 * summary JSON.
 */
#include "nd/planner/search_out.h"

#include <math.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/progress.h"
#include "nd/costmodel/report.h"
#include "search_internal.h"
#include "nd/base/version.h"

static bool show_recompute(const nd_search_config *cfg)
{
    return cfg->space.n_modes > 1 || cfg->space.per_layer;
}

static const char *recompute_label(const nd_ranked *r, char *buf, size_t size)
{
    if (!r->per_layer) return nd_recompute_name(r->s.recompute);
    snprintf(buf, size, "per-layer %lld/%lld/%lld%s", (long long)r->layers_by_mode[0],
             (long long)r->layers_by_mode[1], (long long)r->layers_by_mode[2],
             r->offloaded_layers ? "+ao" : "");
    return buf;
}

void nd_search_print_summary(FILE *fp, const nd_search_config *cfg, const nd_search_result *res)
{
    const nd_search_stats *st = &res->stats;
    uint64_t refused = 0;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) refused += st->refused[r];
    fprintf(fp,
            "%llu strategies enumerated for %lld x %s, global batch %lld: %llu refused, %llu fit the "
            "%.0f MiB budget, %llu do not (%llu of them known from a memory bound without pricing); "
            "%llu priced in %.2f s\n",
            (unsigned long long)st->enumerated, (long long)cfg->ctx->devices, cfg->ctx->device->name,
            (long long)cfg->global_batch, (unsigned long long)refused, (unsigned long long)st->fitting,
            cfg->ctx->budget_mib, (unsigned long long)st->dropped_memory, (unsigned long long)st->bounded,
            (unsigned long long)st->priced, st->seconds);
    for (int r = 0; r < ND_REFUSE_REASONS; r++)
        if (st->refused[r])
            fprintf(fp, "  refused: %-56s %llu\n", nd_refusal_name((nd_refusal)r),
                    (unsigned long long)st->refused[r]);
    if (st->fitting == 0 && isfinite(st->min_peak_mib)) {
        char buf[256];
        nd_strategy_format(&st->min_peak, buf, sizeof buf);
        fprintf(fp,
                "Nothing fits: the smallest peak any strategy needs is %.0f MiB (%s), over the "
                "budget of %.0f MiB.\n",
                st->min_peak_mib, buf, cfg->ctx->budget_mib);
    }
}

static void table_header(FILE *fp, const nd_search_config *cfg)
{
    fprintf(fp, "%5s", "TOP");
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(fp, " %5s", nd_dim_name((nd_dim)d));
    if (show_recompute(cfg)) fprintf(fp, " %-22s", "recompute");
    fprintf(fp, " %10s %9s %11s %11s %6s\n", "peak MiB", "headroom", "step ms", "tokens/s/d", "MFU");
}

/* One strategy's two lines; returns whether its headroom is within the calibration's error. */
static bool table_row(FILE *fp, const nd_search_config *cfg, const nd_ranked *r, size_t rank)
{
    char buf[64];
    fprintf(fp, "%5zu", rank);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        fprintf(fp, " %5lld", (long long)nd_strategy_dim(&r->s, (nd_dim)d));
    if (show_recompute(cfg)) fprintf(fp, " %-22s", recompute_label(r, buf, sizeof buf));
    /* headroom: what the budget leaves above the peak (reserved + runtime context); '!'
     * when it is within the calibration's own 95 % error of the peak */
    double headroom = cfg->ctx->budget_mib - r->peak_mib, half = nd_search_peak_halfwidth_mib(cfg, r);
    bool tight = isfinite(half) && headroom < half;
    fprintf(fp, " %10.0f %8.0f%c %11.2f %11.1f %5.1f%%\n", r->peak_mib, headroom, tight ? '!' : ' ',
            r->step_ms, r->tokens_per_s_per_device, 100 * r->mfu);
    fputs("       ", fp);
    for (int p = 0; p < ND_PARTS; p++)
        if (r->parts_ms[p] > 0.005 * r->step_ms)
            fprintf(fp, " %s %.1f (%.0f%%)", nd_part_short((nd_part)p), r->parts_ms[p],
                    100 * r->parts_ms[p] / r->step_ms);
    fputc('\n', fp);
    return tight;
}

void nd_search_print_table(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t top)
{
    size_t n = top && top < res->count ? top : res->count;
    if (!n) return;
    fprintf(fp, "Top %zu of %llu fitting strategies%s (step in ms; parts in ms and %% of the step):\n", n,
            (unsigned long long)res->stats.fitting, cfg->ctx->ratios ? ", corrected by the ratios file" : "");
    table_header(fp, cfg);
    int tight_rows = 0;
    for (size_t i = 0; i < n; i++) tight_rows += table_row(fp, cfg, &res->items[i], i + 1);
    if (tight_rows)
        fprintf(fp,
                "! %d of these fit by less than the calibration's 95 %% error of their peak: "
                "measure before you rely on them\n",
                tight_rows);
}

void nd_search_print_rows(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                          const size_t *index, size_t n, const char *heading)
{
    if (!n) return;
    fprintf(fp, "%s:\n", heading);
    table_header(fp, cfg);
    for (size_t i = 0; i < n; i++) table_row(fp, cfg, &res->items[index[i]], index[i] + 1);
}

/* One choice's two lines: the degrees, its plan, memory, step and interval; then its parts,
 * its variants and whether it can be told apart from #1. */
static bool choice_row(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                       const nd_search_answer *ans, size_t j)
{
    const nd_search_choice *c = &ans->choices[j];
    const nd_ranked *r = &res->items[c->index];
    char plan[96], variants[64], interval[48];
    nd_search_plan_text(r, plan, sizeof plan);
    nd_search_variants_text(c, variants, sizeof variants);
    snprintf(interval, sizeof interval, "%.0f-%.0f", c->lo_ms, c->hi_ms);
    fprintf(fp, "%5zu", j + 1);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        fprintf(fp, " %5lld", (long long)nd_strategy_dim(&r->s, (nd_dim)d));
    /* '!' when the headroom is within the calibration's own 95 % error of the peak */
    double half = nd_search_peak_halfwidth_mib(cfg, r);
    bool tight = isfinite(half) && c->headroom_mib < half;
    fprintf(fp, "  %-30s %9.0f %8.0f%c %10.2f %13s %10.1f %5.1f%%\n", plan, r->peak_mib, c->headroom_mib,
            tight ? '!' : ' ', r->step_ms, interval, r->tokens_per_s_per_device, 100 * r->mfu);
    fputs("       ", fp);
    for (int p = 0; p < ND_PARTS; p++)
        if (r->parts_ms[p] > 0.005 * r->step_ms)
            fprintf(fp, " %s %.1f (%.0f%%)", nd_part_short((nd_part)p), r->parts_ms[p],
                    100 * r->parts_ms[p] / r->step_ms);
    if (c->variants > 1) fprintf(fp, "   [%s]", variants);
    if (j > 0) {
        double behind = 100 * (r->step_ms / res->items[ans->choices[0].index].step_ms - 1);
        fprintf(fp, "   %+.2f %% vs #1%s", behind, c->tied ? ", cannot be told apart from #1" : "");
    }
    fputc('\n', fp);
    return tight;
}

void nd_search_print_choices(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                             const nd_search_answer *ans)
{
    if (!ans->count) return;
    fprintf(
        fp,
        "Top %zu of %llu fitting strategies%s, as distinct choices (%zu in all: rows that differ only in OP "
        "are one, only in VPP within %.1f %%); ms, parts in ms and %% of the step:\n",
        ans->count, (unsigned long long)res->stats.fitting,
        cfg->ctx->ratios ? ", corrected by the ratios file" : ", uncalibrated", ans->layouts,
        100 * ND_FOLD_STEP_SHARE);
    fprintf(fp, "%5s", "#");
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(fp, " %5s", nd_dim_name((nd_dim)d));
    fprintf(fp, "  %-30s %9s %9s %10s %13s %10s %6s\n", "plan (recompute, offload)", "peak MiB", "headroom",
            "step ms", ans->interval == ND_INTERVAL_FITTED ? "95 % interval" : "interval", "tokens/s/d",
            "MFU");
    int tight_rows = 0;
    for (size_t j = 0; j < ans->count; j++) tight_rows += choice_row(fp, cfg, res, ans, j);
    if (tight_rows)
        fprintf(fp,
                "! %d of these fit by less than the calibration's 95 %% error of their peak: "
                "measure before you rely on them\n",
                tight_rows);
}

static void put_double(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputc(',', fp);
    fputs(nd_format_double(v, buf), fp);
}

/* The answer's columns of row i, after ND's and nd's first ones. */
static void answer_cells(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                         const nd_search_answer *ans, size_t i)
{
    const nd_ranked *r = &res->items[i];
    char plan[96];
    nd_search_plan_text(r, plan, sizeof plan);
    size_t layout = ans->layout ? ans->layout[i] : i + 1, into = ans->folded_into ? ans->folded_into[i] : 0;
    fprintf(fp, ",%zu,", layout);
    if (into) fprintf(fp, "%zu", into);
    fprintf(fp, ",%s,%lld", plan, (long long)r->offloaded_layers);
    put_double(fp, cfg->ctx->budget_mib - r->peak_mib);
    const nd_search_choice *c = !into && layout <= ans->count ? &ans->choices[layout - 1] : NULL;
    double lo, hi;
    if (c) {
        lo = c->lo_ms;
        hi = c->hi_ms;
    } else if (ans->interval == ND_INTERVAL_FITTED) {
        double half = nd_ratios_step_halfwidth_ms(cfg->ctx->ratios, &r->s, r->raw_parts_ms,
                                                  r->kernels_per_step, r->microbatch_slots, r->step_ms);
        lo = fmax(0, r->step_ms - half);
        hi = r->step_ms + half;
    } else {
        lo = r->step_ms * (1 - ND_UNCALIBRATED_STEP_ERROR);
        hi = r->step_ms * (1 + ND_UNCALIBRATED_STEP_ERROR);
    }
    put_double(fp, lo);
    put_double(fp, hi);
    fprintf(fp, ",%s", ans->interval == ND_INTERVAL_FITTED ? "fitted" : "uncalibrated");
    if (c && isfinite(c->p_fastest))
        put_double(fp, c->p_fastest);
    else
        fputc(',', fp);
    if (c)
        fprintf(fp, ",%d", c->tied);
    else
        fputc(',', fp);
    put_double(fp, r->mfu);
}

int nd_search_write_ranking(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    FILE *fp = out.fp;
    const nd_ranking_format *col = &nd_ranking_csv;
    fputs(col->rank, fp);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(fp, ",%s", nd_dim_name((nd_dim)d));
    if (show_recompute(cfg)) fprintf(fp, ",%s", col->recompute);
    fprintf(fp, ",%s,%s", col->memory_mb, col->score);
    for (int p = 0; p < ND_PARTS; p++) fprintf(fp, ",%s", nd_part_name((nd_part)p));
    fprintf(fp, ",%s,%s", col->step_ms, col->tokens_per_s);
    fprintf(fp, ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", col->layout, col->folded_into, col->plan,
            col->offloaded_layers, col->headroom_mib, col->step_lo_ms, col->step_hi_ms, col->interval,
            col->p_fastest, col->tied_with_best, col->mfu);
    /* Shortest round-trip digits cost ~20 us a row: a large search's ranking takes seconds. */
    nd_progress bar;
    nd_progress_begin(&bar, cfg->progress, "nd-search: writing the ranking", "rows", (double)res->count);
    for (size_t i = 0; i < res->count; i++) {
        if (i % 1024 == 0) nd_progress_update(&bar, (double)i);
        const nd_ranked *r = &res->items[i];
        char buf[64];
        fprintf(fp, "%zu", i + 1);
        for (int d = 0; d < ND_DIMS_SEARCHED; d++)
            fprintf(fp, ",%lld", (long long)nd_strategy_dim(&r->s, (nd_dim)d));
        if (show_recompute(cfg)) fprintf(fp, ",%s", recompute_label(r, buf, sizeof buf));
        put_double(fp, r->peak_mib);
        put_double(fp, r->step_ms);
        for (int p = 0; p < ND_PARTS; p++) put_double(fp, r->parts_ms[p]);
        put_double(fp, r->step_ms);
        put_double(fp, r->tokens_per_s_per_device);
        answer_cells(fp, cfg, res, ans, i);
        fputc('\n', fp);
    }
    nd_progress_end(&bar);
    return nd_outfile_commit(&out, err);
}

/* The answer's choices, each with its strategy, plan, interval, odds and headroom. */
static void add_choices(cJSON *doc, const nd_search_config *cfg, const nd_search_result *res,
                        const nd_search_answer *ans)
{
    const nd_report_format *key = &nd_report_json;
    nd_json_add_number(doc, key->layouts, (double)ans->layouts);
    nd_json_add_number(doc, key->fold_step_share, ND_FOLD_STEP_SHARE);
    cJSON_AddStringToObject(doc, key->interval,
                            ans->interval == ND_INTERVAL_FITTED ? "fitted" : "uncalibrated");
    if (ans->draws) nd_json_add_number(doc, key->draws, (double)ans->draws);
    cJSON *list = cJSON_AddArrayToObject(doc, key->choices);
    for (size_t j = 0; j < ans->count; j++) {
        const nd_search_choice *c = &ans->choices[j];
        const nd_ranked *r = &res->items[c->index];
        char plan[96];
        nd_search_plan_text(r, plan, sizeof plan);
        cJSON *o = cJSON_CreateObject();
        nd_json_add_number(o, key->rank, (double)(j + 1));
        cJSON_AddItemToObject(o, key->strategy, nd_report_strategy_json(&r->s));
        cJSON_AddStringToObject(o, key->plan, plan);
        nd_json_add_number(o, key->variants, (double)c->variants);
        cJSON *ops = cJSON_AddArrayToObject(o, key->op_range);
        cJSON_AddItemToArray(ops, cJSON_CreateNumber((double)c->op_min));
        cJSON_AddItemToArray(ops, cJSON_CreateNumber((double)c->op_max));
        nd_json_add_number(o, key->step_ms, r->step_ms);
        cJSON *a = cJSON_AddArrayToObject(o, key->step_interval_ms);
        cJSON_AddItemToArray(a, cJSON_CreateNumber(c->lo_ms));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(c->hi_ms));
        if (isfinite(c->p_fastest)) nd_json_add_number(o, key->p_fastest, c->p_fastest);
        if (isfinite(c->p_faster)) nd_json_add_number(o, key->p_faster_than_best, c->p_faster);
        cJSON_AddBoolToObject(o, key->tied_with_best, c->tied);
        nd_json_add_number(o, key->peak_mib, r->peak_mib);
        nd_json_add_number(o, key->headroom_mib, c->headroom_mib);
        nd_json_add_number(o, key->mfu, r->mfu);
        cJSON_AddItemToArray(list, o);
    }
    (void)cfg;
}

int nd_search_write_summary(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans, const nd_search_assumptions *assumed,
                            const nd_search_facts *facts, nd_error *err)
{
    const nd_search_stats *st = &res->stats;
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return nd_error_set(err, ND_ENOMEM, "out of memory");
    const nd_report_format *key = &nd_report_json;
    cJSON_AddStringToObject(doc, key->nd_version, ND_VERSION);
    cJSON_AddStringToObject(doc, key->model, cfg->ctx->model->name);
    cJSON_AddStringToObject(doc, key->device, cfg->ctx->device->name);
    nd_json_add_number(doc, key->devices, (double)cfg->ctx->devices);
    nd_json_add_number(doc, key->global_batch, (double)cfg->global_batch);
    nd_json_add_number(doc, key->budget_mib, cfg->ctx->budget_mib);
    if (facts) {
        nd_json_add_number(doc, key->device_budget_mib, facts->device_budget_mib);
        nd_json_add_number(doc, key->margin_mib, facts->margin_mib);
    }
    nd_json_add_number(doc, key->enumerated, (double)st->enumerated);
    cJSON *refused = cJSON_AddObjectToObject(doc, key->refused);
    for (int r = 0; r < ND_REFUSE_REASONS; r++)
        if (st->refused[r])
            nd_json_add_number(refused, nd_refusal_name((nd_refusal)r), (double)st->refused[r]);
    nd_json_add_number(doc, key->priced, (double)st->priced);
    nd_json_add_number(doc, key->dropped_for_memory, (double)st->dropped_memory);
    nd_json_add_number(doc, key->dropped_by_bound, (double)st->bounded);
    nd_json_add_number(doc, key->fitting, (double)st->fitting);
    nd_json_add_number(doc, key->min_peak_mib, st->min_peak_mib);
    if (res->count) {
        cJSON_AddItemToObject(doc, key->best, nd_report_strategy_json(&res->items[0].s));
        nd_json_add_number(doc, key->best_step_ms, res->items[0].step_ms);
    }
    if (ans && ans->count) add_choices(doc, cfg, res, ans);
    if (assumed && assumed->count) {
        cJSON *list = cJSON_AddArrayToObject(doc, key->assumptions);
        for (size_t i = 0; i < assumed->count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, key->what, assumed->items[i].what);
            cJSON_AddStringToObject(o, key->text, assumed->items[i].text);
            cJSON_AddItemToArray(list, o);
        }
    }
    int rc = nd_json_write_file(path, doc, err);
    cJSON_Delete(doc);
    return rc;
}
