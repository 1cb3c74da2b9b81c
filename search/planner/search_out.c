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

static void put_double(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputc(',', fp);
    fputs(nd_format_double(v, buf), fp);
}

int nd_search_write_ranking(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_odds *odds, nd_error *err)
{
    const nd_ratios *ratios = cfg->ctx->ratios;
    bool intervals = ratios && ratios->time.terms > 0, ranked_odds = odds && odds->count;
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
    if (intervals) fprintf(fp, ",%s,%s", col->step_lo_ms, col->step_hi_ms);
    if (ranked_odds) fprintf(fp, ",%s,%s", col->p_fastest, col->tied_with_best);
    fputc('\n', fp);
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
        if (intervals) {
            double half = nd_ratios_step_halfwidth_ms(ratios, &r->s, r->raw_parts_ms, r->kernels_per_step,
                                                      r->microbatch_slots, r->step_ms);
            put_double(fp, r->step_ms - half);
            put_double(fp, r->step_ms + half);
        }
        if (ranked_odds && i < odds->count) {
            put_double(fp, odds->p_fastest[i]);
            fprintf(fp, ",%d", i > 0 && odds->tied[i]);
        } else if (ranked_odds) {
            fputs(",,", fp);
        }
        fputc('\n', fp);
    }
    nd_progress_end(&bar);
    return nd_outfile_commit(&out, err);
}

int nd_search_write_summary(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_odds *odds, nd_error *err)
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
    if (odds && odds->count) {
        nd_json_add_number(doc, key->draws, (double)odds->draws);
        cJSON *list = cJSON_AddArrayToObject(doc, key->odds);
        for (size_t i = 0; i < odds->count; i++) {
            const nd_ranked *r = &res->items[i];
            cJSON *o = cJSON_CreateObject();
            nd_json_add_number(o, key->rank, (double)(i + 1));
            nd_json_add_number(o, key->step_ms, r->step_ms);
            cJSON *a = cJSON_AddArrayToObject(o, key->step_interval_ms);
            cJSON_AddItemToArray(a, cJSON_CreateNumber(r->step_ms - odds->half[i]));
            cJSON_AddItemToArray(a, cJSON_CreateNumber(r->step_ms + odds->half[i]));
            nd_json_add_number(o, key->p_fastest, odds->p_fastest[i]);
            nd_json_add_number(o, key->p_faster_than_best, odds->p_faster_than_best[i]);
            cJSON_AddBoolToObject(o, key->tied_with_best, odds->tied[i]);
            cJSON_AddItemToArray(list, o);
        }
    }
    int rc = nd_json_write_file(path, doc, err);
    cJSON_Delete(doc);
    return rc;
}
