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

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/kernel_table.h"

#include "nd/base/array.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/version.h"
#include "nd/inputs/device_file.h"

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

/* The bytes of one well-formed UTF-8 character at p (not a control), or 0. */
static size_t utf8_char(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c >= 0x20 && c < 0x7f    ? 1
               : c >= 0xc2 && c <= 0xdf ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 2 && c == 0xc2 && p[1] < 0xa0) return 0; /* C1 controls */
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
        return 0; /* overlong, surrogates */
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) return 0;
    return n;
}

/* s as a YAML double-quoted scalar: '"' and '\\' escaped, every other byte that is not part of
 * a printable UTF-8 character written \xHH, so any name or path reads back (docs/calibration.md
 * §The fitted device). */
static bool utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_char(p);
        if (!n) return false;
        p += n;
    }
    return true;
}

static void yaml_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_char(p);
        if (n == 1 && (*p == '"' || *p == '\\')) {
            fprintf(fp, "\\%c", *p);
        } else if (n) {
            fwrite(p, 1, n, fp);
        } else {
            fprintf(fp, "\\x%02x", *p);
            n = 1;
        }
        p += n;
    }
    fputc('"', fp);
}

/* A device name: plain when it is letters, digits (or any non-ASCII character) and "-_.+()/",
 * as every built-in name is, else double-quoted. */
static void yaml_name(FILE *fp, const char *s)
{
    bool plain = isalnum((unsigned char)s[0]) || (unsigned char)s[0] >= 0x80;
    for (const char *p = s; plain && *p; p++)
        plain = isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || strchr("-_.+()/", *p);
    if (plain && utf8_valid(s))
        fputs(s, fp);
    else
        yaml_string(fp, s);
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
            /* names of letters, digits and '_' only (fit_history.c keeps no other) */
            fprintf(fp, "%s%s: ", k++ ? ", " : "", v->string);
            yaml_number(fp, cJSON_IsNumber(v) ? v->valuedouble : NAN);
        }
        fprintf(fp, "}}\n");
    }
    nd_fit_drift_entry d[ND_HISTORY_TERMS];
    size_t n = device_drift(res, prev, d);
    fprintf(fp, "  drift:%s\n", n ? "" : " []");
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "    - {key: %s, previous: ", d[i].name); /* one of nd's device fields */
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

/* A built-in base is named (true); any other (a device of the user's file, a SimuMax system
 * file) is written out field by field as fitted, with its kernel tables' file, so that the
 * fitted file reads on its own. */
static bool write_base(FILE *fp, const nd_device *base, const nd_device_fit_result *res)
{
    const nd_device *builtin = nd_device_builtin_named(base->name);
    if (builtin && nd_device_same_figures(builtin, base)) {
        fprintf(fp, "    base: ");
        yaml_name(fp, base->name);
        fprintf(fp, "\n");
        return true;
    }
    fprintf(fp, "    # every figure of %s, which is not built in; the fitted ones below override\n",
            base->name);
    for (size_t i = 0; nd_device_field_key(i); i++) {
        const char *key = nd_device_field_key(i);
        bool fitted = false;
        for (size_t j = 0; j < res->count && !fitted; j++)
            fitted = !strcmp(nd_device_params[res->param[j]].name, key);
        double v;
        if (fitted || nd_device_field(&res->device, key, &v)) continue;
        fprintf(fp, "    %s: ", key);
        yaml_number(fp, v);
        fprintf(fp, "\n");
    }
    if (base->tables && base->tables->files_count) {
        const nd_kernel_tables *t = base->tables;
        fprintf(fp, "    kernel_tables: [");
        for (int i = 0; i < t->files_count; i++) {
            if (i) fputs(", ", fp);
            yaml_string(fp, t->files[i]);
        }
        fprintf(fp, "]\n");
    }
    return false;
}

/* The other attention kernels' rates, which the fit carries with the best kernel's
 * (fit_device.c): written where they moved, so the file reads as the device fitted. */
static void write_carried(FILE *fp, const nd_device *base, const nd_device_fit_result *res)
{
    static const char *const carried[] = {"fa2_fwd_efficiency", "fa2_bwd_efficiency", "cudnn_fwd_efficiency",
                                          "cudnn_bwd_efficiency"};
    for (size_t i = 0; i < ND_ARRAY_LEN(carried); i++) {
        double was, now;
        if (nd_device_field(base, carried[i], &was) || nd_device_field(&res->device, carried[i], &now) ||
            now == was)
            continue;
        fprintf(fp, "    %s: ", carried[i]);
        yaml_number(fp, now);
        fprintf(fp, "  # carried with the best kernel's rate, base %.4g\n", was);
    }
}

static void write_yaml(FILE *fp, const nd_device *base, const nd_device_fit_result *res,
                       const nd_fit_device_context *ctx, const char *name)
{
    fprintf(fp,
            "# nd-fit --write_device: %s fitted on %zu measured steps; read it with\n"
            "# --device-file FILE -A %s. The fit: record below says how (docs/calibration.md).\n",
            base->name, res->n, name);
    fprintf(fp, "devices:\n  ");
    yaml_name(fp, name);
    fprintf(fp, ":\n");
    bool named = write_base(fp, base, res);
    char description[sizeof base->name + 64];
    snprintf(description, sizeof description, "%s fitted by nd-fit on %zu steps", base->name, res->n);
    fprintf(fp, "    description: ");
    yaml_string(fp, description);
    fprintf(fp, "\n");
    for (size_t j = 0; j < res->count; j++) {
        fprintf(fp, "    %s: ", nd_device_params[res->param[j]].name);
        yaml_number(fp, res->value[j]);
        fprintf(fp, "  # 95 %% [%.4g, %.4g], base %.4g\n", res->lo[j], res->hi[j], res->base[j]);
    }
    if (named) write_carried(fp, base, res);
    fprintf(fp, "fit:\n  nd_version: %s\n  cost_model: %s\n  base: ", ND_VERSION, ND_COST_MODEL_VERSION);
    yaml_name(fp, base->name);
    fprintf(fp, "\n  rows: %zu\n", res->n);
    fprintf(fp, "  rounds:\n");
    for (int r = 0; r < ctx->rounds; r++) {
        fprintf(fp, "    - {csv: ");
        yaml_string(fp, ctx->csv[r]);
        fprintf(fp, ", model: ");
        yaml_string(fp, ctx->models[r]);
        fprintf(fp, ", fnv1a64: \"%016llx\"}\n", (unsigned long long)ctx->hash[r]);
    }
    fprintf(fp, "  parameters:\n");
    for (size_t j = 0; j < res->count; j++) {
        fprintf(fp, "    %s: {value: ", nd_device_params[res->param[j]].name); /* names of nd's own */
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

/* The first figure in which the device read back differs from the one fitted, or NULL. */
static const char *differing_figure(const nd_device *read, const nd_device *fitted)
{
    for (size_t i = 0; nd_device_field_key(i); i++) {
        const char *key = nd_device_field_key(i);
        double a, b;
        if (!nd_device_field(read, key, &a) && !nd_device_field(fitted, key, &b) && a != b) return key;
    }
    return NULL;
}

/* The written file read back by the device reader before it is committed: one that
 * --device-file would refuse, that does not define the fitted device, or that reads as another
 * device (a figure the fit moved and the file does not state) is not written (exit 1, the
 * earlier file kept). */
static int read_back(nd_outfile *out, const nd_device *fitted, nd_error *err)
{
    if (fflush(out->fp) != 0) return ND_OK; /* the commit reports the write error */
    nd_device_table t;
    nd_error inner = {0};
    int rc = nd_device_table_builtin(&t, &inner);
    if (!rc) rc = nd_device_table_load(&t, out->tmp_path, &inner);
    const nd_device *read = rc ? NULL : nd_device_table_find(&t, fitted->name);
    const char *differs = read ? differing_figure(read, fitted) : NULL;
    if (!rc && !read) rc = nd_error_set(&inner, ND_EINPUT, "it defines no device %s", fitted->name);
    if (!rc && differs) rc = nd_error_set(&inner, ND_EINPUT, "its %s is not the one fitted", differs);
    nd_device_table_free(&t);
    if (!rc) return ND_OK;
    rc = nd_error_set(err, ND_EIO,
                      "%s: internal: the device file nd-fit wrote does not read back (%s); "
                      "nothing written, any earlier file is unchanged",
                      out->path, inner.message);
    nd_outfile_discard(out);
    return rc;
}

int nd_fit_device_write(const char *path, const nd_device *base, const nd_device_fit_result *res,
                        const nd_device_fit_row *rows, const nd_fit_device_context *ctx, FILE *report,
                        FILE *written, nd_device *fitted, nd_error *err)
{
    char name[sizeof fitted->name];
    if (ctx->name) {
        long chars = nd_text_name_chars(ctx->name);
        if (chars < 1 || chars > ND_DEVICE_NAME_CHARS || strpbrk(ctx->name, " :#{}[],\"'\\"))
            return nd_error_set(err, ND_EUSAGE,
                                "--device-name '%s': 1 to %d characters of printable UTF-8, no spaces or "
                                "YAML punctuation",
                                ctx->name, ND_DEVICE_NAME_CHARS);
        nd_text_copy(name, ctx->name, sizeof name);
    } else { /* the base's first characters (whole ones) and "-fit": a name the reader takes */
        size_t bytes = 0;
        for (int c = 0; c < ND_DEVICE_NAME_CHARS - 4 && base->name[bytes]; c++) do
                bytes++;
            while (((unsigned char)base->name[bytes] & 0xc0) == 0x80);
        snprintf(name, sizeof name, "%.*s-fit", (int)bytes, base->name);
    }
    *fitted = res->device;
    nd_text_copy(fitted->name, name, sizeof fitted->name);
    print_report(report, base, res, rows, ctx, name);
    if (!path) return ND_OK;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    write_yaml(out.fp, base, res, ctx, name);
    if (!(rc = read_back(&out, fitted, err))) rc = nd_outfile_commit(&out, err);
    if (!rc) {
        fprintf(written, "Device written to %s; price with --device-file %s -A %s.\n", path, path, name);
        if (ctx->previous) {
            nd_fit_drift_entry d[ND_HISTORY_TERMS];
            nd_fit_drift_print(written, path, ctx->previous, d, device_drift(res, ctx->previous, d));
        }
    }
    return rc;
}
