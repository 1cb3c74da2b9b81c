/*
 * fit_plots.c — nd-fit's plots: the ratios with their 95 % intervals, and the
 * leave-one-out parity (each strategy predicted by ratios fitted on the others).
 */
#include "fit_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/array.h"
#include "nd/base/io.h"
#include <csv.h>

/* Why a ratio is what it is, beside it in the plot. */
static void ratio_note(const nd_fit_result *res, int k, char *out, size_t size)
{
    switch (res->status[k]) {
    case ND_RATIO_FITTED: snprintf(out, size, "fitted on %s", res->target[k]); break;
    case ND_RATIO_HELD: /* a note of one line beside the plot: the report has the whole reason */
        snprintf(out, size, "held at 1: %.40s%s", res->why[k], strlen(res->why[k]) > 40 ? "..." : "");
        break;
    case ND_RATIO_SHARED:
        snprintf(out, size, "one ratio with %s", nd_ratio_key_name((nd_ratio_key)res->source[k]));
        break;
    case ND_RATIO_FALLBACK:
        snprintf(out, size, "ND's fallback: %s's", nd_ratio_key_name((nd_ratio_key)res->source[k]));
        break;
    default: snprintf(out, size, "?"); break;
    }
}

static int ratios_plot(const char *base, const nd_fit_result *res, const nd_plot_options *opt, nd_error *err)
{
    const char *names[ND_RATIO_KEYS], *notes[ND_RATIO_KEYS];
    double value[ND_RATIO_KEYS], lo[ND_RATIO_KEYS], hi[ND_RATIO_KEYS];
    bool estimated[ND_RATIO_KEYS];
    char note[ND_RATIO_KEYS][160];
    size_t n = 0;
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (k == ND_RATIO_FORWARD) continue; /* ND's optional key: nd-fit fits COMPUTE */
        ratio_note(res, k, note[n], sizeof note[n]);
        names[n] = nd_ratio_key_name((nd_ratio_key)k);
        notes[n] = note[n];
        value[n] = res->ratio[k];
        estimated[n] = res->status[k] == ND_RATIO_FITTED;
        lo[n] = estimated[n] ? res->lo[k] : NAN;
        hi[n] = estimated[n] ? res->hi[k] : NAN;
        n++;
    }
    char title[160];
    snprintf(title, sizeof title, "Fitted ratios (measured / estimated), %s mode, with 95 %% intervals",
             nd_fit_mode_name(res->mode));
    nd_plot_options o = *opt;
    if (!o.title) o.title = title;
    nd_plot_intervals p = {n, names, value, lo, hi, estimated, notes, NULL};
    return nd_plot_intervals_write(base, &p, &o, err);
}

/* The step (or busy time, ND's sums mode), then each ratio fitted on a measured column of
 * its own (parts mode): in-sample fit beside the left-out prediction. panels holds 1 +
 * ND_RATIO_KEYS, buf 2 * ND_RATIO_KEYS * n + n values; returns how many panels. */
static size_t loo_panels(const nd_fit_result *res, size_t n, double *buf, nd_plot_parity_panel *panels)
{
    double *none = buf;
    size_t k_panels = 0;
    for (size_t i = 0; i < n; i++) none[i] = NAN;
    panels[k_panels++] = (nd_plot_parity_panel){res->mode == ND_FIT_SUMS ? "busy" : "step",
                                                res->target_ms,
                                                res->corrected_ms,
                                                res->left_out_ms,
                                                "ms",
                                                NULL};
    for (int k = 0; res->group_target && res->group_left_out && k < ND_RATIO_KEYS; k++) {
        if (res->status[k] != ND_RATIO_FITTED) continue;
        double *m = buf + n + (size_t)k * 2 * n, *l = m + n;
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            m[i] = res->group_target[i * ND_RATIO_KEYS + (size_t)k];
            l[i] = res->group_left_out[i * ND_RATIO_KEYS + (size_t)k];
            any |= isfinite(m[i]) && m[i] > 0 && isfinite(l[i]);
        }
        if (any)
            panels[k_panels++] =
                (nd_plot_parity_panel){nd_ratio_key_name((nd_ratio_key)k), m, none, l, "ms", NULL};
    }
    return k_panels;
}

static int loo_plot(const char *base, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                    const nd_plot_options *opt, nd_error *err)
{
    const char **labels = calloc(n, sizeof *labels);
    double *buf = calloc(2 * ND_RATIO_KEYS * n + n, sizeof *buf);
    nd_plot_parity_panel panels[1 + ND_RATIO_KEYS];
    int rc = labels && buf ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) labels[i] = rows[i].label;
    if (!rc) {
        size_t k_panels = loo_panels(res, n, buf, panels);
        char title[200];
        snprintf(title, sizeof title,
                 "Leave-one-out: each strategy predicted by ratios fitted on the others "
                 "(MAPE %.1f %%)",
                 100 * res->loo_total.mape);
        nd_plot_options o = *opt;
        if (!o.title) o.title = title;
        nd_plot_parity p = {
            n, labels, k_panels, panels, "fitted on every row", "left out", ND_PLOT_SCALE_AUTO};
        rc = nd_plot_parity_write(base, &p, &o, err);
    }
    free(labels);
    free(buf);
    return rc;
}

static const char *const status_names[] = {"fitted", "held", "shared", "fallback"};

static void put_text(FILE *fp, const char *text, bool first)
{
    if (!first) fputc(',', fp);
    csv_fwrite(fp, text, strlen(text));
}

static void put_value(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputc(',', fp);
    if (isfinite(v)) fputs(nd_format_double(v, buf), fp);
}

/* <stem>_ratios.csv: what the ratios plot draws, for nd-plot ratios. */
static int ratios_csv(const char *path, const nd_fit_result *res, nd_error *err)
{
    const nd_fit_plot_format *f = &nd_fit_plot_csv;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    fprintf(out.fp, "%s,%s,%s,%s,%s,%s\n", f->ratio, f->value, f->lo, f->hi, f->status, f->note);
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (k == ND_RATIO_FORWARD) continue;
        char note[160];
        ratio_note(res, k, note, sizeof note);
        bool fitted = res->status[k] == ND_RATIO_FITTED;
        put_text(out.fp, nd_ratio_key_name((nd_ratio_key)k), true);
        put_value(out.fp, res->ratio[k]);
        put_value(out.fp, fitted ? res->lo[k] : NAN);
        put_value(out.fp, fitted ? res->hi[k] : NAN);
        int st = (int)res->status[k];
        put_text(out.fp, st >= 0 && st < (int)ND_ARRAY_LEN(status_names) ? status_names[st] : "?", false);
        put_text(out.fp, note, false);
        fputc('\n', out.fp);
    }
    return nd_outfile_commit(&out, err);
}

/* <stem>_loo.csv: what the leave-one-out plot draws, for nd-plot loo. */
static int loo_csv(const char *path, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                   nd_error *err)
{
    const nd_fit_plot_format *f = &nd_fit_plot_csv;
    double *buf = calloc(2 * ND_RATIO_KEYS * n + n, sizeof *buf);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    nd_plot_parity_panel panels[1 + ND_RATIO_KEYS];
    size_t k_panels = loo_panels(res, n, buf, panels);
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) {
        free(buf);
        return rc;
    }
    fputs(f->label, out.fp);
    for (size_t k = 0; k < k_panels; k++)
        fprintf(out.fp, ",%s%s,%s%s,%s%s", panels[k].name, f->measured, panels[k].name, f->fitted,
                panels[k].name, f->left_out);
    fputc('\n', out.fp);
    for (size_t i = 0; i < n; i++) {
        put_text(out.fp, rows[i].label, true);
        for (size_t k = 0; k < k_panels; k++) {
            put_value(out.fp, panels[k].measured_ms[i]);
            put_value(out.fp, panels[k].estimated_ms[i]);
            put_value(out.fp, panels[k].corrected_ms[i]);
        }
        fputc('\n', out.fp);
    }
    free(buf);
    return nd_outfile_commit(&out, err);
}

int nd_fit_plot_csvs(const char *dir, const char *stem, const nd_fit_result *res, const nd_fit_row *rows,
                     size_t n, nd_error *err)
{
    char *ratios = nd_path_printf("%s/%s_ratios.csv", dir, stem);
    char *loo = nd_path_printf("%s/%s_loo.csv", dir, stem);
    int rc = ratios && loo ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = ratios_csv(ratios, res, err);
    if (!rc) rc = loo_csv(loo, res, rows, n, err);
    free(ratios);
    free(loo);
    return rc;
}

int nd_fit_plots(const char *dir, const char *stem, const nd_fit_result *res, const nd_fit_row *rows,
                 size_t n, const nd_plot_options *opt, nd_error *err)
{
    char *ratios = nd_path_printf("%s/%s_ratios", dir, stem);
    char *loo = nd_path_printf("%s/%s_loo", dir, stem);
    int rc = ratios && loo ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = ratios_plot(ratios, res, opt, err);
    if (!rc) rc = loo_plot(loo, res, rows, n, opt, err);
    free(ratios);
    free(loo);
    return rc;
}
