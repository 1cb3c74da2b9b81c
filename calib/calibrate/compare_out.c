/*
 * compare_out.c — what nd-compare prints and writes: the per-strategy table,
 * the metrics, <stem>_estimates.csv, <stem>_report.json and the plots.
 */
#include "compare_out.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/charts/plot.h"
#include "nd/costmodel/report.h"
#include "nd/base/version.h"

/* Rows printed in full on the terminal. */
#define PRINTED_ROWS 100

static double pct(double part, double whole)
{
    return whole != 0 ? 100.0 * part / whole : 0.0;
}

static void print_row(FILE *fp, const nd_compare *c, const nd_compare_row *r)
{
    double m = r->measured[ND_FOLD_TOTAL], e = r->est.step_ms;
    fprintf(fp, "%s: measured %.6g ms, estimated %.6g ms (%+.1f %%)", r->label, m, e, pct(e - m, m));
    if (c->normalized) fprintf(fp, "; ranked by %.6g ms x devices / sequence", r->rank_cost);
    if (isfinite(r->step_halfwidth_ms))
        fprintf(fp, ", 95 %% interval %.6g to %.6g ms%s", e - r->step_halfwidth_ms, e + r->step_halfwidth_ms,
                fabs(e - m) > r->step_halfwidth_ms ? " (measured outside)" : "");
    fputc('\n', fp);
    bool parts = false;
    for (int f = 0; f < ND_FOLD_TOTAL; f++) parts |= c->fold_measured[f];
    /* est - meas: each part's error in % of the measured step, with the headline's sign (estimated
     * minus measured); over the parts they add up to the headline's error */
    if (parts)
        fprintf(fp, "  %-9s %10s %7s %10s %9s %13s\n", "part", "measured", "share", "estimated", "share",
                "est - meas");
    for (int f = 0; f < ND_FOLD_TOTAL; f++) {
        if (!c->fold_measured[f]) continue;
        double sm = pct(r->measured[f], m), se = pct(r->estimated[f], e);
        fprintf(fp, "  %-9s %10.1f %6.1f%% %10.1f %8.1f%% %+7.1f%% step\n", nd_fold_name((nd_fold)f),
                r->measured[f], sm, r->estimated[f], se, pct(r->estimated[f] - r->measured[f], m));
    }
    if (!isnan(r->row->peak_mib))
        fprintf(fp, "  peak memory: measured %.0f MiB, estimated %.0f MiB (%+.1f %%)%s\n", r->row->peak_mib,
                r->peak_est_mib, pct(r->peak_est_mib - r->row->peak_mib, r->row->peak_mib),
                r->est.fits ? "" : ", estimated NOT to fit");
    if (!isnan(r->row->peak_mib) && isfinite(r->peak_halfwidth_mib))
        fprintf(fp, "  peak memory 95 %% interval: %.0f to %.0f MiB\n",
                r->peak_est_mib - r->peak_halfwidth_mib, r->peak_est_mib + r->peak_halfwidth_mib);
}

static void print_metric(FILE *fp, const char *name, const nd_compare_metrics *m)
{
    fprintf(fp, "  %-9s", name);
    if (isnan(m->pearson))
        fprintf(fp, " %8s", "-");
    else
        fprintf(fp, " %+8.3f", m->pearson);
    if (isnan(m->spearman))
        fprintf(fp, " %8s", "-");
    else
        fprintf(fp, " %+8.3f", m->spearman);
    if (m->errors.n == 0)
        fprintf(fp, " %8s %8s %8s %4s\n", "-", "-", "-", "0");
    else
        fprintf(fp, " %7.1f%% %+7.1f%% %7.1f%% %4zu\n", 100 * m->errors.mape, 100 * m->errors.bias,
                100 * m->errors.max_abs, m->errors.n);
}

void nd_compare_print(FILE *fp, const nd_compare *c, const char *csv_path)
{
    fprintf(fp, "Comparison of %zu strategies from %s, estimates %s\n\n", c->count, csv_path,
            c->corrected ? "corrected by the ratios file" : "uncorrected (no -c)");
    /* A table of 100,000 rows is read by no one and costs a second to print: the first rows
     * in measured order (the fastest), then a count; every row is in the CSV and the report. */
    fprintf(fp, "Rows fastest first, by %s\n\n",
            c->normalized ? "measured ms x devices / sequence (the rows differ in devices or global batch; "
                            "each row says its figure)"
                          : "the measured step (the trainer's own step where the round has one)");
    for (size_t i = 0; i < c->count && i < PRINTED_ROWS; i++) {
        print_row(fp, c, &c->rows[i]);
        fputc('\n', fp);
    }
    if (c->count > PRINTED_ROWS)
        fprintf(fp,
                "... and %zu more rows, slower as measured (all of them are in the estimates CSV and the "
                "report JSON)\n\n",
                c->count - PRINTED_ROWS);
    fprintf(fp,
            "Accuracy per part (relative errors over rows where the part is >= %.1f %% of the step; '-': no "
            "such row, and the parity plot leaves it unjudged too)\n",
            100 * ND_PLOT_JUDGED_PART_SHARE);
    fprintf(fp, "  %-9s %8s %8s %8s %8s %8s %4s\n", "part", "pearson", "spearman", "MAPE", "bias", "max err",
            "n");
    for (int f = 0; f < ND_FOLDS; f++)
        if (c->fold_measured[f]) print_metric(fp, nd_fold_name((nd_fold)f), &c->fold[f]);
    if (c->memory_rows) print_metric(fp, "peak mem", &c->memory);
    bool shares = false;
    for (int f = 0; f < ND_FOLD_IDLE; f++) shares |= c->fold_measured[f];
    if (shares) { /* ND's Euclidean distance (lower is better) */
        fprintf(fp, "Distance of shares (ND's; the mean of |measured - estimated share|, lower is better):");
        for (int f = 0; f < ND_FOLD_IDLE; f++)
            if (c->fold_measured[f])
                fprintf(fp, " %s %.1f %%", nd_fold_name((nd_fold)f), 100 * c->share_distance[f]);
        fprintf(fp, "; Euclidean over the parts %.1f %%\n", 100 * c->share_distance[ND_FOLD_TOTAL]);
    }
    const nd_compare_row *pick = &c->rows[c->pick], *fast = &c->rows[c->fastest];
    fprintf(fp, "\nTop-k agreement: %zu of %zu (ND's: leading rows the estimate also ranks first)\n",
            c->top_k, c->count);
    if (c->normalized)
        fprintf(fp, "Rows differ in devices or global batch: ranking compares ms x devices / sequences.\n");
    if (c->normalized)
        fprintf(fp,
                "The estimate ranks %s first: it measures %.1f ms a step, %.1f ms x devices / sequence; the "
                "fastest, %s, %.1f ms, %.1f ms x devices / sequence: following the estimate costs %.1f %%.\n",
                pick->label, pick->rank_ms, pick->rank_cost, fast->label, fast->rank_ms, fast->rank_cost,
                100 * c->regret);
    else
        fprintf(fp,
                "The estimate ranks %s first: it measures %.1f ms; the fastest, %s, %.1f ms: "
                "following the estimate costs %.1f %%.\n",
                pick->label, pick->rank_ms, fast->label, fast->rank_ms, 100 * c->regret);
    if (c->trainer_steps)
        fprintf(fp, "Ranking uses the trainer's own step on %zu of %zu strategies.\n", c->trainer_steps,
                c->count);
    if (c->fits_but_measured_over)
        fprintf(fp, "Warning: %zu strategies the estimate calls fitting measured above the budget.\n",
                c->fits_but_measured_over);
}

/* ---- <stem>_estimates.csv ------------------------------------------------ */

/* A text cell quoted only where it must be, as ND's csv.writer (QUOTE_MINIMAL) writes it. */
static void put_field(FILE *fp, const char *text, bool first)
{
    if (!first) fputc(',', fp);
    if (strpbrk(text, ",\"\r\n"))
        csv_fwrite(fp, text, strlen(text));
    else
        fputs(text, fp);
}

static void put_number(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputc(',', fp);
    if (isnan(v)) return;
    fputs(nd_format_double(v, buf), fp);
}

/* ND's memory_mb: whole MB, as ND floors its memory (ND's consumer reads int(row['memory_mb'])). */
static void put_mib(FILE *fp, double v)
{
    fputc(',', fp);
    if (isfinite(v)) fprintf(fp, "%.0f", floor(v));
}

int nd_compare_write_estimates(const char *path, const nd_compare *c, const nd_classified *round,
                               nd_error *err)
{
    const nd_estimates_format *col = &nd_estimates_csv;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    FILE *fp = out.fp;
    bool first = true;
    for (int d = 0; d < ND_DIMS; d++)
        if (round->dims & ND_DIM_BIT(d)) {
            put_field(fp, nd_dim_name((nd_dim)d), first);
            first = false;
        }
    if (round->has_recompute) {
        put_field(fp, col->recompute, first);
        first = false;
    }
    fprintf(fp, "%s%s,%s,%s", first ? "" : ",", col->time, col->memory_mb, col->score);
    for (int p = 0; p < ND_PARTS; p++) fprintf(fp, ",%s", nd_part_name((nd_part)p));
    fprintf(fp, ",%s,%s,%s", col->raw_ms, col->measured_peak_mib, col->label);
    for (int f = 0; f < ND_FOLD_TOTAL; f++)
        fprintf(fp, ",%s%s", col->measured_prefix, nd_fold_name((nd_fold)f));
    fprintf(fp, ",%s", col->memory_error);
    if (c->corrected)
        fprintf(fp, ",%s,%s,%s,%s", col->score_lo, col->score_hi, col->memory_lo, col->memory_hi);
    fputc('\n', fp);
    for (size_t i = 0; i < c->count; i++) {
        const nd_compare_row *r = &c->rows[i];
        char buf[ND_DOUBLE_TEXT_MAX];
        first = true;
        for (int d = 0; d < ND_DIMS; d++) {
            if (!(round->dims & ND_DIM_BIT(d))) continue;
            if (!first) fputc(',', fp);
            fprintf(fp, "%lld", (long long)nd_strategy_dim(&r->strategy, (nd_dim)d));
            first = false;
        }
        if (round->has_recompute) {
            put_field(fp, nd_recompute_name(r->strategy.recompute), first);
            first = false;
        }
        if (!first) fputc(',', fp);
        fputs(nd_format_double(r->row->time_ms, buf), fp);
        put_mib(fp, r->peak_est_mib);
        put_number(fp, r->est.step_ms);
        for (int p = 0; p < ND_PARTS; p++) put_number(fp, r->est.parts_ms[p]);
        put_number(fp, r->est.raw_step_ms);
        put_number(fp, r->row->peak_mib);
        put_field(fp, r->label, false);
        for (int f = 0; f < ND_FOLD_TOTAL; f++) put_number(fp, c->fold_measured[f] ? r->measured[f] : NAN);
        put_number(fp, r->peak_est_mib / r->row->peak_mib - 1); /* NaN (blank) without a measured peak */
        if (c->corrected) {
            put_number(fp, r->est.step_ms - r->step_halfwidth_ms);
            put_number(fp, r->est.step_ms + r->step_halfwidth_ms);
            put_number(fp, r->peak_est_mib - r->peak_halfwidth_mib);
            put_number(fp, r->peak_est_mib + r->peak_halfwidth_mib);
        }
        fputc('\n', fp);
    }
    return nd_outfile_commit(&out, err);
}

/* ---- <stem>_report.json -------------------------------------------------- */

/* The keys of the report JSON (formats.h). */
static const nd_report_format *const key = &nd_report_json;

static cJSON *metrics_json(const nd_compare_metrics *m)
{
    cJSON *o = cJSON_CreateObject();
    nd_json_add_number(o, key->pearson, m->pearson);
    nd_json_add_number(o, key->spearman, m->spearman);
    nd_json_add_number(o, key->mape, m->errors.mape);
    nd_json_add_number(o, key->bias, m->errors.bias);
    nd_json_add_number(o, key->max_error, m->errors.max_abs);
    nd_json_add_number(o, key->rows, (double)m->errors.n);
    return o;
}

static cJSON *row_json(const nd_compare_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, key->label, r->label);
    nd_json_add_number(o, key->line, r->row->line);
    cJSON_AddItemToObject(o, key->strategy, nd_report_strategy_json(&r->strategy));
    nd_json_add_number(o, key->devices, (double)r->devices);
    nd_json_add_number(o, key->seq_len, (double)r->seq_len);
    cJSON *m = cJSON_AddObjectToObject(o, key->measured_ms);
    cJSON *e = cJSON_AddObjectToObject(o, key->estimated_ms);
    for (int f = 0; f < ND_FOLDS; f++) {
        nd_json_add_number(m, nd_fold_name((nd_fold)f), r->measured[f]);
        nd_json_add_number(e, nd_fold_name((nd_fold)f), r->estimated[f]);
    }
    nd_json_add_number(o, key->rank_ms, r->rank_ms);
    nd_json_add_number(o, key->step_trainer_ms, r->row->step_trainer_ms);
    cJSON *parts = cJSON_AddObjectToObject(o, key->parts_ms);
    for (int p = 0; p < ND_PARTS; p++)
        nd_json_add_number(parts, nd_part_name((nd_part)p), r->est.parts_ms[p]);
    nd_json_add_number(o, key->raw_step_ms, r->est.raw_step_ms);
    nd_json_add_number(o, key->measured_peak_mib, r->row->peak_mib);
    nd_json_add_number(o, key->estimated_peak_mib, r->peak_est_mib);
    nd_json_add_number(o, key->memory_error, r->peak_est_mib / r->row->peak_mib - 1);
    if (isfinite(r->step_halfwidth_ms)) {
        cJSON *a = cJSON_AddArrayToObject(o, key->step_interval_ms);
        cJSON_AddItemToArray(a, cJSON_CreateNumber(r->est.step_ms - r->step_halfwidth_ms));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(r->est.step_ms + r->step_halfwidth_ms));
    }
    if (isfinite(r->peak_halfwidth_mib)) {
        cJSON *a = cJSON_AddArrayToObject(o, key->peak_interval_mib);
        cJSON_AddItemToArray(a, cJSON_CreateNumber(r->peak_est_mib - r->peak_halfwidth_mib));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(r->peak_est_mib + r->peak_halfwidth_mib));
    }
    cJSON_AddBoolToObject(o, key->fits, r->est.fits);
    return o;
}

static cJSON *row_item(size_t i, const void *ctx)
{
    const nd_compare *c = ctx;
    return row_json(&c->rows[i]);
}

int nd_compare_print_report(FILE *fp, const cJSON *doc, const nd_compare *c)
{
    return nd_json_print_streamed(fp, doc, key->rows, c->count, row_item, c);
}

int nd_compare_write_report(const char *path, const cJSON *doc, const nd_compare *c, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    if (nd_compare_print_report(out.fp, doc, c)) {
        rc = nd_error_set(err, ND_EIO, "%s: cannot write: %s", path, strerror(errno ? errno : ENOMEM));
        nd_outfile_discard(&out);
        return rc;
    }
    return nd_outfile_commit(&out, err);
}

cJSON *nd_compare_report_json(const nd_compare *c, const char *csv_path, const char *model,
                              const char *device)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, key->nd_version, ND_VERSION);
    cJSON_AddStringToObject(doc, key->cost_model, ND_COST_MODEL_VERSION);
    cJSON_AddStringToObject(doc, key->csv, csv_path);
    cJSON_AddStringToObject(doc, key->model, model);
    cJSON_AddStringToObject(doc, key->device, device);
    cJSON_AddBoolToObject(doc, key->corrected, c->corrected);
    cJSON_AddArrayToObject(doc, key->rows); /* filled as it is printed: nd_compare_print_report */
    cJSON *metrics = cJSON_AddObjectToObject(doc, key->metrics);
    for (int f = 0; f < ND_FOLDS; f++)
        if (c->fold_measured[f])
            cJSON_AddItemToObject(metrics, nd_fold_name((nd_fold)f), metrics_json(&c->fold[f]));
    cJSON_AddBoolToObject(doc, key->ranked_per_sequence_and_device, c->normalized);
    cJSON_AddItemToObject(doc, key->memory, metrics_json(&c->memory));
    nd_json_add_number(doc, key->top_k, (double)c->top_k);
    nd_json_add_number(doc, key->regret, c->regret);
    cJSON_AddStringToObject(doc, key->pick, c->rows[c->pick].label);
    cJSON_AddStringToObject(doc, key->fastest, c->rows[c->fastest].label);
    nd_json_add_number(doc, key->trainer_steps, (double)c->trainer_steps);
    nd_json_add_number(doc, key->fits_but_measured_over_budget, (double)c->fits_but_measured_over);
    return doc;
}
