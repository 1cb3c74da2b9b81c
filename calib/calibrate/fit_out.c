/*
 * fit_out.c — printing a fit and writing the ratios and report documents.
 */
#include "fit_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/json.h"
#include "nd/costmodel/report.h"
#include "nd/base/version.h"

/* The ratios file's keys (formats.h). */
static const nd_ratios_format *const keys = &nd_ratios_json;

static const char *status_name(nd_ratio_status s)
{
    static const char *names[] = {"fitted", "held", "shared", "fallback"};
    return s <= ND_RATIO_FALLBACK ? names[s] : "?";
}

static void print_ratio(FILE *fp, const nd_fit_result *res, nd_ratio_key k)
{
    fprintf(fp, "  %-10s %10.4f", nd_ratio_key_name(k), res->ratio[k]);
    switch (res->status[k]) {
    case ND_RATIO_FITTED:
        if (isfinite(res->lo[k]))
            fprintf(fp, "   95 %% [%.4f, %.4f]", res->lo[k], res->hi[k]);
        else
            fprintf(fp, "   %-22s", "(no interval)");
        fprintf(fp, "  fitted on %s\n", res->target[k]);
        break;
    case ND_RATIO_HELD: fprintf(fp, "   held at 1: %s\n", res->why[k]); break;
    case ND_RATIO_SHARED:
        fprintf(fp, "   one ratio with %s (the round cannot tell them apart)\n",
                nd_ratio_key_name((nd_ratio_key)res->source[k]));
        break;
    case ND_RATIO_FALLBACK:
        fprintf(fp, "   fallback: %s's ratio\n", nd_ratio_key_name((nd_ratio_key)res->source[k]));
        break;
    }
}

typedef struct keyed_row {
    double corrected;
    size_t i;
} keyed_row;

static int by_corrected(const void *a, const void *b)
{
    const keyed_row *p = a, *q = b;
    if (p->corrected != q->corrected) return p->corrected < q->corrected ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The fitted quantities beside the ratios: a fixed cost or a memory ratio. */
static void print_term(FILE *fp, const char *name, const nd_fit_term *t, const char *unit)
{
    fprintf(fp, "  %-15s %10.4g", name, t->value);
    if (t->status == ND_RATIO_HELD) {
        fprintf(fp, "   held: %s\n", t->why);
        return;
    }
    if (isfinite(t->lo))
        fprintf(fp, "   95 %% [%.4g, %.4g]", t->lo, t->hi);
    else
        fprintf(fp, "   %-22s", "(no interval)");
    fprintf(fp, "  %sfitted on %s\n", unit, t->target);
}

static void print_loo(FILE *fp, const char *name, const nd_fit_loo *l)
{
    if (l->n == 0) {
        fprintf(fp, "  %-10s no leave-one-out estimate\n", name);
        return;
    }
    fprintf(fp, "  %-10s MAPE %6.1f %%   max %6.1f %%   Spearman %+.2f   regret ", name, 100 * l->mape,
            100 * l->max_abs, l->spearman);
    if (isnan(l->regret))
        fprintf(fp, "    -  ");
    else
        fprintf(fp, "%5.1f %%", 100 * l->regret);
    fprintf(fp, "   (%zu rows)\n", l->n);
}

/* The per-shape corrections: how many, their pull, the largest. */
static void print_shapes(FILE *fp, const nd_fit_result *res)
{
    if (res->mode != ND_FIT_TOTAL) return;
    if (!res->shapes) {
        fprintf(
            fp,
            "Shapes: none corrected (%zu distinct layer shardings; corrections would not predict left-out "
            "strategies better)\n",
            res->shape_groups);
        return;
    }
    fprintf(fp, "Shapes: %d layer shardings corrected (pull toward 0 of %g rows), spread %.1f %%:\n",
            res->shapes, res->shape_ridge_rows, 100 * res->shape_spread);
    fprintf(fp, "  %4s %4s %4s %4s %5s %3s %9s %8s %5s\n", "MP", "CP", "EP", "ETP", "MBS", "SP", "delta",
            "se", "rows");
    for (int k = 0; k < res->shapes; k++) {
        const nd_shape_ratio *s = &res->shape[k];
        fprintf(fp, "  %4lld %4lld %4lld %4lld %5lld %3s %+8.1f%% %7.1f%% %5d\n", (long long)s->key.tp,
                (long long)s->key.cp, (long long)s->key.ep, (long long)s->key.etp, (long long)s->key.mbs,
                s->key.sp ? "yes" : "no", 100 * s->delta, 100 * s->se, s->rows);
    }
}

static const char *const fixed_units[ND_FIXED_COSTS] = {"us per kernel, ", "ms per micro-batch, ",
                                                        "ms per step, "};

void nd_fit_print(FILE *fp, const nd_fit_result *res, const nd_fit_row *rows, size_t n, bool per_sequence,
                  const char *ratios_path)
{
    const char *unit = per_sequence ? "ms x devices / sequence" : "ms";
    fprintf(fp, "Ratios (measured / estimated), %s mode, %zu strategies (%zu distinct), --max-ci %g %%:\n",
            nd_fit_mode_name(res->mode), n, res->distinct, 100 * res->max_ci);
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (k != ND_RATIO_FORWARD) print_ratio(fp, res, (nd_ratio_key)k);
    if (res->mode != ND_FIT_SUMS) {
        fprintf(fp, "Fixed costs beyond the estimate (added to OVERHEAD):\n");
        for (int f = 0; f < ND_FIXED_COSTS; f++)
            print_term(fp, nd_fixed_cost_name((nd_fixed_cost)f), &res->fixed[f], fixed_units[f]);
        fprintf(fp, "Memory ratios (measured / estimated peak), %zu strategies with a peak:\n",
                res->memory_rows);
        for (int m = 0; m < ND_MEM_RATIOS; m++)
            print_term(fp, nd_memory_ratio_name((nd_memory_ratio)m), &res->memory[m], "");
        print_shapes(fp, res);
    }
    keyed_row *order = malloc(n * sizeof *order);
    if (order) {
        for (size_t i = 0; i < n; i++) order[i] = (keyed_row){res->corrected_ms[i], i};
        qsort(order, n, sizeof *order, by_corrected);
        fprintf(fp, "  %-34s %9s %9s %9s %7s %9s\n", "strategy", "corrected", "left out",
                res->mode == ND_FIT_SUMS ? "busy" : "measured", "error",
                per_sequence ? "ms*dev/seq" : "step");
        for (size_t j = 0; j < n; j++) {
            size_t i = order[j].i;
            fprintf(fp, "  %-34.34s %9.1f", rows[i].label, res->corrected_ms[i]);
            if (isfinite(res->left_out_ms[i]))
                fprintf(fp, " %9.1f %9.1f %+6.1f%% %9.1f\n", res->left_out_ms[i], res->target_ms[i],
                        100 * (res->left_out_ms[i] / res->target_ms[i] - 1), rows[i].rank_ms);
            else
                fprintf(fp, " %9s %9.1f %7s %9.1f\n", "-", res->target_ms[i], "-", rows[i].rank_ms);
        }
        free(order);
    }
    fprintf(fp, "Leave-one-out (each strategy predicted by ratios fitted on the others):\n");
    if (res->distinct < ND_FIT_MIN_DISTINCT) {
        /* Ranks and errors over one or two strategies say nothing (a Spearman of -1 on three
         * runs of one strategy is noise). */
        fprintf(fp, "  not shown: %zu distinct strateg%s (metrics need at least %d)\n", res->distinct,
                res->distinct == 1 ? "y" : "ies", ND_FIT_MIN_DISTINCT);
    } else {
        print_loo(fp, keys->total, &res->loo_total);
        for (int k = 0; k < ND_RATIO_KEYS; k++)
            if (res->loo_key[k].n && res->status[k] == ND_RATIO_FITTED)
                print_loo(fp, nd_ratio_key_name((nd_ratio_key)k), &res->loo_key[k]);
        if (res->loo_memory.n) print_loo(fp, "peak mem", &res->loo_memory);
    }
    /* in ms a step as nd-compare says it, with the cost it ranks by when the rows differ in
     * devices or batch */
    const nd_fit_row *pick = &rows[res->pick], *fast = &rows[res->fastest];
    if (res->distinct >= ND_FIT_MIN_DISTINCT && per_sequence)
        fprintf(
            fp,
            "Corrected, nd ranks %s first: it measures %.1f ms a step, %.1f %s; the fastest, %s, %.1f ms, "
            "%.1f %s: following the corrected estimate costs %.1f%%.\n",
            pick->label, pick->rank_ms / pick->rank_scale, pick->rank_ms, unit, fast->label,
            fast->rank_ms / fast->rank_scale, fast->rank_ms, unit, 100 * res->regret);
    else if (res->distinct >= ND_FIT_MIN_DISTINCT)
        fprintf(fp,
                "Corrected, nd ranks %s first: it measures %.1f ms; the fastest, %s, %.1f ms: "
                "following the corrected estimate costs %.1f%%.\n",
                pick->label, pick->rank_ms, fast->label, fast->rank_ms, 100 * res->regret);
    if (res->distinct >= ND_FIT_MIN_DISTINCT && isfinite(res->spearman))
        fprintf(fp, "Rank correlation of the corrected estimate with the measured step: %+.2f.\n",
                res->spearman);
    if (ratios_path) fprintf(fp, "Ratios written to %s; nd-search -c reads them.\n", ratios_path);
}

/* Metrics as numbers only on ND_FIT_MIN_DISTINCT distinct strategies; null otherwise. */
static cJSON *loo_json(const nd_fit_loo *l, size_t distinct)
{
    cJSON *o = cJSON_CreateObject();
    bool shown = l->n && distinct >= ND_FIT_MIN_DISTINCT;
    nd_json_add_number(o, keys->mape, shown ? l->mape : NAN);
    nd_json_add_number(o, keys->max_error, shown ? l->max_abs : NAN);
    nd_json_add_number(o, keys->spearman, shown ? l->spearman : NAN);
    nd_json_add_number(o, keys->regret, shown ? l->regret : NAN);
    nd_json_add_number(o, keys->rows, (double)l->n);
    return o;
}

static cJSON *term_json(const nd_fit_term *t)
{
    cJSON *r = cJSON_CreateObject();
    nd_json_add_number(r, keys->value, t->value);
    cJSON_AddStringToObject(r, keys->status, status_name(t->status));
    if (t->status == ND_RATIO_FITTED) {
        cJSON_AddStringToObject(r, keys->ratio_fitted_on, t->target);
        cJSON *ci = cJSON_AddArrayToObject(r, keys->ci95);
        cJSON_AddItemToArray(ci, isfinite(t->lo) ? cJSON_CreateNumber(t->lo) : cJSON_CreateNull());
        cJSON_AddItemToArray(ci, isfinite(t->hi) ? cJSON_CreateNumber(t->hi) : cJSON_CreateNull());
    } else {
        cJSON_AddStringToObject(r, keys->why, t->why);
    }
    return r;
}

static cJSON *ratio_details(const nd_fit_result *res)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (k == ND_RATIO_FORWARD) continue;
        cJSON *r = cJSON_AddObjectToObject(o, nd_ratio_key_name((nd_ratio_key)k));
        nd_json_add_number(r, keys->value, res->ratio[k]);
        cJSON_AddStringToObject(r, keys->status, status_name(res->status[k]));
        if (res->status[k] == ND_RATIO_FITTED) {
            cJSON_AddStringToObject(r, keys->ratio_fitted_on, res->target[k]);
            cJSON *ci = cJSON_AddArrayToObject(r, keys->ci95);
            cJSON_AddItemToArray(ci,
                                 isfinite(res->lo[k]) ? cJSON_CreateNumber(res->lo[k]) : cJSON_CreateNull());
            cJSON_AddItemToArray(ci,
                                 isfinite(res->hi[k]) ? cJSON_CreateNumber(res->hi[k]) : cJSON_CreateNull());
        }
        if (res->status[k] == ND_RATIO_HELD) cJSON_AddStringToObject(r, keys->why, res->why[k]);
        if (res->source[k] >= 0)
            cJSON_AddStringToObject(r, keys->source, nd_ratio_key_name((nd_ratio_key)res->source[k]));
    }
    for (int f = 0; res->mode != ND_FIT_SUMS && f < ND_FIXED_COSTS; f++)
        cJSON_AddItemToObject(o, nd_fixed_cost_name((nd_fixed_cost)f), term_json(&res->fixed[f]));
    for (int m = 0; res->mode != ND_FIT_SUMS && m < ND_MEM_RATIOS; m++)
        cJSON_AddItemToObject(o, nd_memory_ratio_name((nd_memory_ratio)m), term_json(&res->memory[m]));
    return o;
}

/* The terms of a spread: each an array of the key names it scales. */
static cJSON *spread_json(const nd_spread *s, bool time)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *terms = cJSON_AddArrayToObject(o, keys->terms);
    cJSON *cov = cJSON_AddArrayToObject(o, keys->covariance);
    for (int t = 0; t < s->terms; t++) {
        cJSON *names = cJSON_CreateArray();
        if (s->fixed[t] >= 0)
            cJSON_AddItemToArray(names, cJSON_CreateString(nd_fixed_cost_name((nd_fixed_cost)s->fixed[t])));
        for (int k = 0; s->fixed[t] < 0 && k < (time ? ND_RATIO_KEYS : ND_MEM_RATIOS); k++)
            if (s->scales[t] & 1u << k)
                cJSON_AddItemToArray(names,
                                     cJSON_CreateString(time ? nd_ratio_key_name((nd_ratio_key)k)
                                                             : nd_memory_ratio_name((nd_memory_ratio)k)));
        cJSON_AddItemToArray(terms, names);
        cJSON *row = cJSON_CreateArray();
        for (int u = 0; u < s->terms; u++) cJSON_AddItemToArray(row, cJSON_CreateNumber(s->cov[t][u]));
        cJSON_AddItemToArray(cov, row);
    }
    nd_json_add_number(o, keys->residual_sd, s->residual_sd);
    nd_json_add_number(o, keys->dof, s->dof);
    nd_json_add_number(o, keys->t95, s->t95);
    return o;
}

static cJSON *shapes_json(const nd_fit_result *res)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *parts = cJSON_AddArrayToObject(o, keys->parts);
    for (int p = 0; p < ND_PARTS; p++)
        if (nd_shape_parts() & 1u << p)
            cJSON_AddItemToArray(parts, cJSON_CreateString(nd_part_name((nd_part)p)));
    nd_json_add_number(o, keys->ridge_rows, res->shape_ridge_rows);
    nd_json_add_number(o, keys->spread, res->shape_spread);
    cJSON *table = cJSON_AddArrayToObject(o, keys->table);
    for (int k = 0; k < res->shapes; k++) {
        const nd_shape_ratio *s = &res->shape[k];
        cJSON *e = cJSON_CreateObject();
        nd_json_add_number(e, nd_dim_name(ND_DIM_MP), (double)s->key.tp);
        nd_json_add_number(e, nd_dim_name(ND_DIM_CP), (double)s->key.cp);
        nd_json_add_number(e, nd_dim_name(ND_DIM_EP), (double)s->key.ep);
        nd_json_add_number(e, nd_dim_name(ND_DIM_ETP), (double)s->key.etp);
        nd_json_add_number(e, nd_dim_name(ND_DIM_MBS), (double)s->key.mbs);
        cJSON_AddBoolToObject(e, nd_dim_name(ND_DIM_SP), s->key.sp);
        nd_json_add_number(e, keys->delta, s->delta);
        nd_json_add_number(e, keys->se, s->se);
        nd_json_add_number(e, keys->rows, s->rows);
        cJSON_AddItemToArray(table, e);
    }
    return o;
}

static cJSON *stamp(const nd_fit_result *res, size_t n, const nd_fit_context *ctx)
{
    cJSON *nd = cJSON_CreateObject();
    nd_json_add_number(nd, keys->format, ND_RATIOS_FORMAT);
    cJSON_AddStringToObject(nd, keys->cost_model, ND_COST_MODEL_VERSION);
    cJSON_AddStringToObject(nd, keys->units, keys->units_ms);
    cJSON_AddStringToObject(nd, keys->nd_version, ND_VERSION);
    cJSON_AddStringToObject(nd, keys->device, ctx->device);
    cJSON_AddStringToObject(nd, keys->model, ctx->model);
    nd_json_add_number(nd, keys->seq_len, (double)ctx->seq_len);
    cJSON_AddStringToObject(nd, keys->mode, nd_fit_mode_name(res->mode));
    cJSON_AddStringToObject(nd, keys->weights, ctx->weights == ND_WEIGHTS_ABSOLUTE ? "absolute" : "relative");
    cJSON_AddBoolToObject(nd, keys->robust, ctx->robust);
    cJSON_AddBoolToObject(nd, keys->allow_fallback, ctx->allow_fallback);
    nd_json_add_number(nd, keys->max_ci, res->max_ci);
    if (ctx->peak) cJSON_AddStringToObject(nd, keys->peak, ctx->peak);
    nd_json_add_number(nd, keys->rows, (double)n);
    nd_json_add_number(nd, keys->distinct, (double)res->distinct);
    cJSON_AddItemToObject(nd, keys->ratios, ratio_details(res));
    cJSON *loo = cJSON_AddObjectToObject(nd, keys->leave_one_out);
    cJSON_AddItemToObject(loo, keys->total, loo_json(&res->loo_total, res->distinct));
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (res->loo_key[k].n && res->status[k] == ND_RATIO_FITTED)
            cJSON_AddItemToObject(loo, nd_ratio_key_name((nd_ratio_key)k),
                                  loo_json(&res->loo_key[k], res->distinct));
    if (res->loo_memory.n)
        cJSON_AddItemToObject(loo, keys->memory, loo_json(&res->loo_memory, res->distinct));
    cJSON *in = cJSON_AddObjectToObject(nd, keys->in_sample);
    bool shown = res->distinct >= ND_FIT_MIN_DISTINCT;
    nd_json_add_number(in, keys->spearman, shown ? res->spearman : NAN);
    nd_json_add_number(in, keys->regret, shown ? res->regret : NAN);
    if (res->shapes) cJSON_AddItemToObject(nd, keys->shapes, shapes_json(res));
    if (ctx->rounds) {
        cJSON *rounds = cJSON_AddArrayToObject(nd, keys->rounds);
        for (int r = 0; r < ctx->rounds; r++) {
            cJSON *e = cJSON_CreateObject();
            char hash[24];
            snprintf(hash, sizeof hash, "%016llx", (unsigned long long)ctx->round_hash[r]);
            cJSON_AddStringToObject(e, keys->fitted_csv, ctx->round_csv[r]);
            nd_json_add_number(e, keys->rows, (double)ctx->round_rows[r]);
            cJSON_AddStringToObject(e, keys->hash, hash);
            cJSON_AddItemToArray(rounds, e);
        }
    }
    if (ctx->history && cJSON_GetArraySize(ctx->history))
        cJSON_AddItemToObject(nd, keys->history, cJSON_Duplicate(ctx->history, 1));
    if (ctx->drift) cJSON_AddItemToObject(nd, keys->drift, cJSON_Duplicate(ctx->drift, 1));
    if (res->time_spread.terms || res->memory_spread.terms) {
        cJSON *u = cJSON_AddObjectToObject(nd, keys->uncertainty);
        if (res->time_spread.terms)
            cJSON_AddItemToObject(u, keys->time, spread_json(&res->time_spread, true));
        if (res->memory_spread.terms)
            cJSON_AddItemToObject(u, keys->memory, spread_json(&res->memory_spread, false));
    }
    return nd;
}

cJSON *nd_fit_ratios_json(const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                          const nd_fit_context *ctx)
{
    cJSON *doc = cJSON_CreateObject();
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (k != ND_RATIO_FORWARD) nd_json_add_number(doc, nd_ratio_key_name((nd_ratio_key)k), res->ratio[k]);
    for (int f = 0; res->mode != ND_FIT_SUMS && f < ND_FIXED_COSTS; f++)
        nd_json_add_number(doc, nd_fixed_cost_name((nd_fixed_cost)f), res->fixed[f].value);
    for (int m = 0; res->mode != ND_FIT_SUMS && m < ND_MEM_RATIOS; m++)
        nd_json_add_number(doc, nd_memory_ratio_name((nd_memory_ratio)m), res->memory[m].value);
    cJSON *fitted = cJSON_AddObjectToObject(doc, keys->fitted_on);
    cJSON_AddStringToObject(fitted, keys->fitted_csv, ctx->csv);
    cJSON *labels = cJSON_AddArrayToObject(fitted, keys->fitted_strategies);
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(labels, cJSON_CreateString(rows[i].label));
    cJSON_AddItemToObject(doc, keys->stamp, stamp(res, n, ctx));
    return doc;
}

cJSON *nd_fit_report_json(const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                          const nd_fit_context *ctx)
{
    const nd_report_format *report = &nd_report_json;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, report->csv, ctx->csv);
    cJSON_AddItemToObject(doc, report->fit, stamp(res, n, ctx));
    cJSON *arr = cJSON_AddArrayToObject(doc, report->rows);
    for (size_t i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, report->label, rows[i].label);
        nd_json_add_number(r, report->measured_ms, res->target_ms[i]);
        nd_json_add_number(r, report->corrected_ms, res->corrected_ms[i]);
        nd_json_add_number(r, report->left_out_ms, res->left_out_ms[i]);
        nd_json_add_number(r, report->left_out_error, res->left_out_ms[i] / res->target_ms[i] - 1);
        nd_json_add_number(r, report->rank_ms, rows[i].rank_ms);
        cJSON_AddItemToArray(arr, r);
    }
    return doc;
}
