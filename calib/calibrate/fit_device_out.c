/*
 * fit_device_out.c — nd-fit --write_device: the fitted device's report and its device file.
 *
 * The file is a device file (docs/devices.md) that --device-file reads: one device, named
 * NAME, `base:` the device it was fitted from, the fitted fields (each with its 95 %
 * interval and base value in a comment), and beside `devices:` a `fit:` record of how it
 * was fitted (rounds, fields, intervals, errors), which the device reader passes over and
 * the next fit reads to report drift (docs/calibration.md §The fitted device).
 */
#include "fit_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/kernel_table.h"

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/version.h"

static void print_report(FILE *fp, const nd_device *base, const nd_device_fit_result *res,
                         const nd_device_fit_row *rows, const nd_fit_device_context *ctx, const char *name)
{
    fprintf(fp, "Device %s fitted from %s on %zu measured steps of %zu model%s (%d solver iterations):\n",
            name, base->name, res->n, res->models, res->models == 1 ? "" : "s", res->iterations);
    fprintf(fp, "  %-26s %12s %12s   %-28s %s\n", "field", "base", "fitted", "95 % interval",
            "steps move (field +10 %)");
    for (size_t j = 0; j < res->count; j++) {
        char interval[64];
        if (isfinite(res->lo[j]))
            snprintf(interval, sizeof interval, "[%.4g, %.4g]", res->lo[j], res->hi[j]);
        else
            snprintf(interval, sizeof interval, "(none)");
        fprintf(fp, "  %-26s %12.5g %12.5g   %-28s %.1f %%\n", nd_device_params[res->param[j]].name,
                res->base[j], res->value[j], interval, 100 * res->effect[j]);
    }
    fprintf(fp, "  (%zu more fields move no step by 0.1 %%: left at the base)\n", res->skipped);
    if (res->unpinned_count) {
        fprintf(fp, "  (kept at the base: the rows move but cannot pin");
        for (size_t j = 0; j < res->unpinned_count; j++)
            fprintf(fp, "%s %s", j ? "," : "", nd_device_params[res->unpinned[j]].name);
        fprintf(fp, ")\n");
    }
    fprintf(fp, "Step MAPE: base %.1f %%, fitted %.1f %%, leave-one-out %.1f %% (linearised)",
            100 * res->base_mape, 100 * res->fitted_mape, 100 * res->loo_mape);
    if (res->models > 1) fprintf(fp, ", leave-one-model-out %.1f %%", 100 * res->lomo_mape);
    fprintf(fp, "\n");
    for (size_t m = 0; res->models > 1 && m < res->models; m++) {
        double s = 0;
        size_t k = 0;
        for (size_t i = 0; i < res->n; i++)
            if ((size_t)rows[i].model_index == m && isfinite(res->lomo_ms[i])) {
                s += fabs(res->lomo_ms[i] / rows[i].time_ms - 1);
                k++;
            }
        fprintf(fp, "  %-26s fitted without it: %.1f %% on its %zu steps\n",
                m < (size_t)ctx->rounds ? ctx->models[m] : "?", k ? 100 * s / (double)k : NAN, k);
    }
}

static void yaml_number(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputs(isfinite(v) ? nd_format_double(v, buf) : "null", fp);
}

/* The drift of each fitted field against the file being replaced. */
static size_t device_drift(const nd_device_fit_result *res, const nd_fit_previous *prev,
                           nd_fit_drift_entry *d)
{
    size_t n = 0;
    for (size_t j = 0; j < res->count; j++)
        n = nd_fit_drift(prev, nd_device_params[res->param[j]].name, res->value[j], d, n);
    return n;
}

/* fit.history (earlier fits: rows and values) and fit.drift. */
static void write_record(FILE *fp, const nd_device_fit_result *res, const nd_fit_device_context *ctx)
{
    const nd_fit_previous *prev = ctx->previous;
    if (!prev || !prev->present) return;
    fprintf(fp, "  history:\n");
    const cJSON *e;
    cJSON_ArrayForEach(e, prev->history)
    {
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(e, "rows"), *v;
        fprintf(fp, "    - {rows: ");
        yaml_number(fp, cJSON_IsNumber(rows) ? rows->valuedouble : NAN);
        fprintf(fp, ", parameters: {");
        int k = 0;
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(e, "parameters"))
        {
            fprintf(fp, "%s%s: ", k++ ? ", " : "", v->string);
            yaml_number(fp, v->valuedouble);
        }
        fprintf(fp, "}}\n");
    }
    nd_fit_drift_entry d[ND_HISTORY_TERMS];
    size_t n = device_drift(res, prev, d);
    fprintf(fp, "  drift:%s\n", n ? "" : " []");
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "    - {key: %s, previous: ", d[i].name);
        yaml_number(fp, d[i].previous);
        fprintf(fp, ", ci95: [");
        yaml_number(fp, d[i].lo);
        fprintf(fp, ", ");
        yaml_number(fp, d[i].hi);
        fprintf(fp, "], value: ");
        yaml_number(fp, d[i].value);
        fprintf(fp, "}\n");
    }
}

/* A built-in base is named; any other (a device of the user's file, a SimuMax system file)
 * is written out field by field, with its kernel tables' file, so that the fitted file reads
 * on its own. */
static void write_base(FILE *fp, const nd_device *base, const nd_device_fit_result *res)
{
    const nd_device *builtin = nd_device_builtin_named(base->name);
    if (builtin && nd_device_same_figures(builtin, base)) {
        fprintf(fp, "    base: %s\n", base->name);
        return;
    }
    fprintf(fp, "    # every figure of %s, which is not built in; the fitted ones below override\n",
            base->name);
    for (size_t i = 0; nd_device_field_key(i); i++) {
        const char *key = nd_device_field_key(i);
        bool fitted = false;
        for (size_t j = 0; j < res->count && !fitted; j++)
            fitted = !strcmp(nd_device_params[res->param[j]].name, key);
        double v;
        if (fitted || nd_device_field(base, key, &v)) continue;
        fprintf(fp, "    %s: ", key);
        yaml_number(fp, v);
        fprintf(fp, "\n");
    }
    if (base->tables) fprintf(fp, "    kernel_tables: \"%s\"\n", base->tables->source);
}

static void write_yaml(FILE *fp, const nd_device *base, const nd_device_fit_result *res,
                       const nd_fit_device_context *ctx, const char *name)
{
    fprintf(fp,
            "# nd-fit --write_device: %s fitted on %zu measured steps; read it with\n"
            "# --device-file FILE -A %s. The fit: record below says how (docs/calibration.md).\n",
            base->name, res->n, name);
    fprintf(fp, "devices:\n  %s:\n", name);
    write_base(fp, base, res);
    fprintf(fp, "    description: \"%s fitted by nd-fit on %zu steps\"\n", base->name, res->n);
    for (size_t j = 0; j < res->count; j++) {
        fprintf(fp, "    %s: ", nd_device_params[res->param[j]].name);
        yaml_number(fp, res->value[j]);
        fprintf(fp, "  # 95 %% [%.4g, %.4g], base %.4g\n", res->lo[j], res->hi[j], res->base[j]);
    }
    fprintf(fp, "fit:\n  nd_version: %s\n  cost_model: %s\n  base: %s\n  rows: %zu\n", ND_VERSION,
            ND_COST_MODEL_VERSION, base->name, res->n);
    fprintf(fp, "  rounds:\n");
    for (int r = 0; r < ctx->rounds; r++)
        fprintf(fp, "    - {csv: \"%s\", model: \"%s\", fnv1a64: \"%016llx\"}\n", ctx->csv[r], ctx->models[r],
                (unsigned long long)ctx->hash[r]);
    fprintf(fp, "  parameters:\n");
    for (size_t j = 0; j < res->count; j++) {
        fprintf(fp, "    %s: {value: ", nd_device_params[res->param[j]].name);
        yaml_number(fp, res->value[j]);
        fprintf(fp, ", ci95: [");
        yaml_number(fp, res->lo[j]);
        fprintf(fp, ", ");
        yaml_number(fp, res->hi[j]);
        fprintf(fp, "], base: ");
        yaml_number(fp, res->base[j]);
        fprintf(fp, "}\n");
    }
    fprintf(fp, "  step_mape: {base: ");
    yaml_number(fp, res->base_mape);
    fprintf(fp, ", fitted: ");
    yaml_number(fp, res->fitted_mape);
    fprintf(fp, ", leave_one_out: ");
    yaml_number(fp, res->loo_mape);
    fprintf(fp, ", leave_one_model_out: ");
    yaml_number(fp, res->lomo_mape);
    fprintf(fp, "}\n");
    write_record(fp, res, ctx);
}

int nd_fit_device_write(const char *path, const nd_device *base, const nd_device_fit_result *res,
                        const nd_device_fit_row *rows, const nd_fit_device_context *ctx, FILE *report,
                        FILE *written, nd_device *fitted, nd_error *err)
{
    char name[sizeof fitted->name];
    if (ctx->name) {
        if (!ctx->name[0] || strlen(ctx->name) >= sizeof name || strpbrk(ctx->name, " :#{}[],\"'\n"))
            return nd_error_set(err, ND_EUSAGE,
                                "--device-name '%s': 1 to %zu characters, no spaces or YAML "
                                "punctuation",
                                ctx->name, sizeof name - 1);
        nd_text_copy(name, ctx->name, sizeof name);
    } else {
        snprintf(name, sizeof name, "%.27s-fit", base->name);
    }
    *fitted = res->device;
    nd_text_copy(fitted->name, name, sizeof fitted->name);
    print_report(report, base, res, rows, ctx, name);
    if (!path) return ND_OK;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    write_yaml(out.fp, base, res, ctx, name);
    rc = nd_outfile_commit(&out, err);
    if (!rc) {
        fprintf(written, "Device written to %s; price with --device-file %s -A %s.\n", path, path, name);
        if (ctx->previous) {
            nd_fit_drift_entry d[ND_HISTORY_TERMS];
            nd_fit_drift_print(written, path, ctx->previous, d, device_drift(res, ctx->previous, d));
        }
    }
    return rc;
}
