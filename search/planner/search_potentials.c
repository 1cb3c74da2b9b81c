/*
 * search_potentials.c — recompute potentials (-rp, docs/reference/nd-calibration.md §7):
 * for each top configuration, start from its per-layer plan and fully recompute one
 * more layer at a time, always the layer whose conversion slows the step least,
 * recording step time and peak memory after each step.
 */
#include "nd/planner/search_out.h"

#include "search_internal.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/progress.h"
#include "nd/charts/plot.h"
#include "nd/costmodel/stage.h"
#include "nd/base/array.h"

typedef struct plan_buf {
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
    int64_t (*off)[ND_LAYER_KINDS];
    nd_recompute_plan plan;
} plan_buf;

static int plan_alloc(plan_buf *b, int64_t pp)
{
    b->layers = calloc((size_t)pp, sizeof *b->layers);
    b->off = calloc((size_t)pp, sizeof *b->off);
    b->plan = (nd_recompute_plan){pp, b->layers, b->off, 0};
    return b->layers && b->off ? 0 : -1;
}

static void plan_free(plan_buf *b)
{
    free(b->layers);
    free(b->off);
}

static void plan_copy(plan_buf *to, const plan_buf *from, int64_t pp)
{
    memcpy(to->layers, from->layers, (size_t)pp * sizeof *to->layers);
    memcpy(to->off, from->off, (size_t)pp * sizeof *to->off);
    to->plan.copy_cost_ms_per_gib = from->plan.copy_cost_ms_per_gib;
    to->plan.offloaded = from->plan.offloaded ? to->off : NULL;
}

/* The column names (formats.h). */
static const nd_potentials_format *const col = &nd_potentials_csv;

static void write_header(FILE *fp)
{
    fprintf(fp, "%s,%s", col->top, col->step);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(fp, ",%s", nd_dim_name((nd_dim)d));
    const char *rest[] = {col->changed_layer,   col->full_layers,     col->memory_mb,
                          col->score,           col->recompute_mode,  col->recompute_layers,
                          col->layer_recompute, col->stage_memory_mb, col->stage_savings,
                          col->plan_scope};
    for (size_t i = 0; i < ND_ARRAY_LEN(rest); i++) fprintf(fp, ",%s", rest[i]);
    fputc('\n', fp);
}

typedef struct row_writer {
    FILE *fp;
    const nd_search_config *cfg;
    size_t top;
} row_writer;

static void put_text(FILE *fp, const char *text)
{
    fputc(',', fp);
    csv_fwrite(fp, text, strlen(text));
}

/* Runs of consecutive layers in one mode other than the main one, as "a-z": "mode". */
typedef struct range_writer {
    char *json;
    size_t size, used;
    int64_t start, last;
    nd_recompute mode, main; /* the run's mode; main: the strategy's, not listed */
} range_writer;

static void range_flush(range_writer *rw)
{
    if (rw->start >= 0 && rw->used < rw->size - 64)
        rw->used += (size_t)snprintf(rw->json + rw->used, rw->size - rw->used, "%s\"%lld-%lld\": \"%s\"",
                                     rw->used > 1 ? ", " : "", (long long)rw->start, (long long)rw->last,
                                     nd_recompute_name(rw->mode));
    rw->start = -1;
}

static void range_add(void *arg, int64_t layer, nd_recompute mode)
{
    range_writer *rw = arg;
    if (rw->start >= 0 && (mode != rw->mode || layer != rw->last + 1)) range_flush(rw);
    if (mode != rw->main && rw->start < 0) {
        rw->start = layer;
        rw->mode = mode;
    }
    rw->last = layer;
}

size_t nd_search_layer_ranges(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                              nd_recompute main, char *json, size_t size, size_t used)
{
    range_writer rw = {json, size, used, -1, -1, main, main};
    nd_plan_each_layer(ctx, s, plan, range_add, &rw);
    range_flush(&rw);
    return rw.used;
}

static void write_row(row_writer *wr, const nd_ranked *r, int step, int64_t changed, const plan_buf *b,
                      const nd_estimate *est, const nd_stage_memory *mem, const double *savings)
{
    FILE *fp = wr->fp;
    const nd_strategy *s = &r->s;
    char buf[ND_DOUBLE_TEXT_MAX], json[4096];
    fprintf(fp, "%zu,%d,", wr->top, step);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(fp, "%lld,", (long long)nd_strategy_dim(s, (nd_dim)d));
    if (changed >= 0) fprintf(fp, "%lld", (long long)changed);
    int64_t full = 0, by_mode[ND_RECOMPUTE_MODES] = {0};
    for (int64_t i = 0; i < s->pp; i++)
        for (int k = 0; k < ND_LAYER_KINDS; k++)
            for (int m = 0; m < ND_RECOMPUTE_MODES; m++) by_mode[m] += b->layers[i][k][m];
    full = by_mode[ND_RECOMPUTE_FULL];
    nd_recompute main = ND_RECOMPUTE_FULL;
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
        if (by_mode[m] > by_mode[main]) main = (nd_recompute)m;
    /* memory_mb in whole MB, as stage_memory_mb and ND's */
    fprintf(fp, ",%lld,%.0f", (long long)full, floor(est->peak_firm_mib));
    fprintf(fp, ",%s,%s", nd_format_double(est->step_ms, buf), nd_recompute_name(main));
    /* recompute_layers: ranges of consecutive layers running another mode than the main one,
     * in the plan's layer order (nd_plan_layer_mode); layer_recompute: per stage and kind, the
     * counts of each mode. */
    size_t used = (size_t)snprintf(json, sizeof json, "{");
    used = nd_search_layer_ranges(wr->cfg->ctx, s, &b->plan, main, json, sizeof json, used);
    snprintf(json + used, sizeof json - used, "}");
    put_text(fp, json);
    used = (size_t)snprintf(json, sizeof json, "[");
    for (int64_t st = 0; st < s->pp && used < sizeof json - 128; st++)
        for (int k = 0; k < ND_LAYER_KINDS; k++) {
            const int64_t *n = b->layers[st][k];
            if (!n[0] && !n[1] && !n[2]) continue;
            used +=
                (size_t)snprintf(json + used, sizeof json - used,
                                 "%s{\"%s\": %lld, \"%s\": \"%s\", \"%s\": %lld, \"%s\": %lld, "
                                 "\"%s\": %lld, \"%s\": %lld}",
                                 used > 1 ? ", " : "", col->cell_stage, (long long)st, col->cell_kind,
                                 nd_layer_kind_name((nd_layer_kind)k), nd_recompute_name(ND_RECOMPUTE_OFF),
                                 (long long)n[0], nd_recompute_name(ND_RECOMPUTE_SELECTIVE), (long long)n[1],
                                 nd_recompute_name(ND_RECOMPUTE_FULL), (long long)n[2], col->cell_offloaded,
                                 (long long)(b->plan.offloaded ? b->off[st][k] : 0));
        }
    snprintf(json + used, sizeof json - used, "]");
    put_text(fp, json);
    used = (size_t)snprintf(json, sizeof json, "[");
    for (int64_t st = 0; st < s->pp && used < sizeof json - 32; st++)
        used += (size_t)snprintf(json + used, sizeof json - used, "%s%s", st ? ", " : "",
                                 nd_format_double(floor(mem[st].total_mib), buf));
    snprintf(json + used, sizeof json - used, "]");
    put_text(fp, json);
    used = (size_t)snprintf(json, sizeof json, "[");
    for (int64_t st = 0; st < s->pp && used < sizeof json - 32; st++)
        used += (size_t)snprintf(json + used, sizeof json - used, "%s%s", st ? ", " : "",
                                 nd_format_double(savings[st], buf));
    snprintf(json + used, sizeof json - used, "]");
    put_text(fp, json);
    bool offload = false;
    for (int64_t st = 0; st < s->pp && b->plan.offloaded; st++) offload |= b->off[st][0] || b->off[st][1];
    fprintf(fp, ",%s\n", offload ? col->scope_offload : col->scope_per_layer);
}

/* One more layer fully recomputed, the cheapest in step time. Returns 0, or -1 when none is left. */
static int convert_one(const nd_search_config *cfg, const nd_strategy *s, plan_buf *cur, plan_buf *trial,
                       int64_t *changed, nd_estimate *best_est)
{
    double best = INFINITY, best_peak = INFINITY;
    int64_t bst = -1;
    int bk = 0, bm = 0;
    for (int64_t st = 0; st < s->pp; st++)
        for (int k = 0; k < ND_LAYER_KINDS; k++)
            for (int m = ND_RECOMPUTE_SELECTIVE; m >= ND_RECOMPUTE_OFF; m--) {
                int64_t movable = cur->layers[st][k][m] -
                                  (m == ND_RECOMPUTE_OFF && cur->plan.offloaded ? cur->off[st][k] : 0);
                if (movable <= 0) continue;
                plan_copy(trial, cur, s->pp);
                trial->layers[st][k][m]--;
                trial->layers[st][k][ND_RECOMPUTE_FULL]++;
                nd_estimate e = {0};
                if (nd_estimate_strategy(cfg->ctx, s, NULL, &trial->plan, &e, NULL)) continue;
                if (e.step_ms < best || (e.step_ms == best && e.peak_firm_mib < best_peak)) {
                    best = e.step_ms;
                    best_peak = e.peak_firm_mib;
                    bst = st;
                    bk = k;
                    bm = m;
                }
            }
    if (bst < 0) return -1;
    /* In the plan's layer order [offloaded | selective | full | off] the converted layer is the
     * last selective one, or the first kept without recompute. */
    const int64_t *n = cur->layers[bst][bk];
    int64_t host = cur->plan.offloaded ? cur->off[bst][bk] : 0;
    int64_t pos = bm == ND_RECOMPUTE_SELECTIVE ? host + n[ND_RECOMPUTE_SELECTIVE] - 1
                                               : host + n[ND_RECOMPUTE_SELECTIVE] + n[ND_RECOMPUTE_FULL];
    *changed = nd_plan_layer_index(cfg->ctx, s, bst, (nd_layer_kind)bk, pos);
    cur->layers[bst][bk][bm]--;
    cur->layers[bst][bk][ND_RECOMPUTE_FULL]++;
    (void)best_est;
    return 0;
}

static int one_configuration(row_writer *wr, const nd_ranked *r, nd_plot_recompute_series *series,
                             double *steps, double *peaks, size_t cap, nd_error *err)
{
    const nd_search_config *cfg = wr->cfg;
    const nd_strategy *s = &r->s;
    int64_t pp = s->pp;
    plan_buf cur, trial;
    nd_stage_memory *mem = calloc((size_t)pp, sizeof *mem);
    nd_stage_time *tm = calloc((size_t)pp, sizeof *tm), *full_tm = calloc((size_t)pp, sizeof *full_tm);
    double *savings = calloc((size_t)pp, sizeof *savings);
    int rc = !plan_alloc(&cur, pp) && !plan_alloc(&trial, pp) && mem && tm && full_tm && savings
                 ? ND_OK
                 : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && nd_search_plan(cfg, r, &cur.plan))
        rc = nd_error_set(err, ND_ERUNTIME, "no per-layer plan to start from");
    nd_strategy full = *s;
    full.recompute = ND_RECOMPUTE_FULL;
    nd_estimate fe = {0};
    fe.stage_time = full_tm;
    if (!rc) nd_estimate_strategy(cfg->ctx, &full, NULL, NULL, &fe, NULL);
    size_t n = 0;
    int64_t changed = -1;
    for (int step = 0; !rc && n < cap; step++) {
        nd_estimate e = {0};
        e.stage_memory = mem;
        e.stage_time = tm;
        if (nd_estimate_strategy(cfg->ctx, s, NULL, &cur.plan, &e, NULL)) break;
        for (int64_t st = 0; st < pp; st++)
            savings[st] = (full_tm[st].total_ms - tm[st].total_ms) * (double)s->mb;
        write_row(wr, r, step, changed, &cur, &e, mem, savings);
        steps[n] = e.step_ms;
        peaks[n] = floor(e.peak_firm_mib); /* as the CSV writes it */
        n++;
        if (convert_one(cfg, s, &cur, &trial, &changed, NULL)) break;
    }
    series->n_steps = n;
    plan_free(&cur);
    plan_free(&trial);
    free(mem);
    free(tm);
    free(full_tm);
    free(savings);
    return rc;
}

int nd_search_potentials(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                         const nd_search_answer *ans, const nd_plot_options *opt, bool plots, nd_error *err)
{
    /* the answer's distinct choices: variants of one choice would draw near-identical lines */
    size_t n = ans->count < 20 ? ans->count : 20;
    char *path = nd_path_join(dir, "recompute_potentials.csv");
    if (!path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    free(path);
    if (rc) return rc;
    write_header(out.fp);
    size_t cap = (size_t)cfg->ctx->model->layers + (size_t)cfg->ctx->model->mtp_layers + 2;
    nd_plot_recompute_series *series = calloc(n ? n : 1, sizeof *series);
    char(*labels)[112] = calloc(n ? n : 1, sizeof *labels);
    double *values = calloc((n ? n : 1) * cap * 2, sizeof *values);
    if (!series || !labels || !values) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t drawn = 0;
    nd_progress bar;
    nd_progress_begin(&bar, cfg->progress, "nd-search: recompute potentials", "configurations", (double)n);
    for (size_t i = 0; !rc && i < n; i++) {
        nd_progress_update(&bar, (double)i);
        const nd_ranked *r = &res->items[ans->choices[i].index];
        if (!r->per_layer) continue;
        row_writer wr = {out.fp, cfg, i + 1};
        nd_plot_recompute_series *se = &series[drawn];
        double *steps = &values[drawn * cap * 2], *peaks = steps + cap;
        char lab[80];
        nd_strategy_label(&r->s, lab, sizeof lab);
        snprintf(labels[drawn], sizeof labels[drawn], "%s %zu: %s", col->top, i + 1, lab);
        *se = (nd_plot_recompute_series){labels[drawn], 0, steps, peaks};
        rc = one_configuration(&wr, r, se, steps, peaks, cap, err);
        if (!rc && se->n_steps) drawn++;
    }
    nd_progress_end(&bar);
    if (rc)
        nd_outfile_discard(&out);
    else
        rc = nd_outfile_commit(&out, err);
    if (!rc && plots && drawn) {
        nd_plot_recompute p = {drawn, series, cfg->ctx->budget_mib};
        char *base = nd_path_join(dir, "recompute_potentials");
        rc = base ? nd_plot_recompute_write(base, &p, opt, err)
                  : nd_error_set(err, ND_ENOMEM, "out of memory");
        free(base);
    }
    free(series);
    free(labels);
    free(values);
    return rc;
}
