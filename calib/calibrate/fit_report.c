/*
 * fit_report.c — nd-fit's one-page report (--report FILE): the verdict, the inputs, each
 * ratio with its interval and status, the plots, every strategy fitted and left out, the
 * notes the run printed. docs/report.md lists the sections.
 */
#include "fit_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/html/html.h"
#include "nd/base/version.h"
#include "nd/base/array.h"

static const char *status_text(nd_ratio_status s)
{
    switch (s) {
    case ND_RATIO_FITTED: return "fitted";
    case ND_RATIO_HELD: return "held at 1";
    case ND_RATIO_SHARED: return "shared";
    case ND_RATIO_FALLBACK: return "ND's fallback";
    default: return "?";
    }
}

static void summary(nd_html *h, const nd_fit_result *res, const nd_fit_row *rows, size_t n)
{
    char verdict[320];
    const nd_fit_loo *l = &res->loo_total;
    if (l->n)
        snprintf(verdict, sizeof verdict,
                 "Left out, each strategy is predicted within %.1f %% on average "
                 "(MAPE over %zu strategies, %.1f %% at worst) by ratios fitted on the others.",
                 100 * l->mape, l->n, 100 * l->max_abs);
    else
        snprintf(verdict, sizeof verdict, "No strategy could be predicted left out.");
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    size_t fitted = 0, held = 0;
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (k != ND_RATIO_FORWARD) {
            fitted += res->status[k] == ND_RATIO_FITTED;
            held += res->status[k] == ND_RATIO_HELD;
        }
    nd_html_text(h,
                 "%s mode, %zu strategies: %zu ratios fitted, %zu held at 1. Corrected, nd ranks %s first; "
                 "following it costs %.1f %% against the fastest measured (%s).",
                 nd_fit_mode_name(res->mode), n, fitted, held, rows[res->pick].label, 100 * res->regret,
                 rows[res->fastest].label);
}

static void inputs(nd_html *h, const nd_fit_report_inputs *in, size_t n)
{
    char strategies[32];
    snprintf(strategies, sizeof strategies, "%zu", n);
    const char *names[] = {"run file (-y)",
                           "round (--real_csv)",
                           "strategies",
                           "model",
                           "device",
                           "ratios written (--write_ratios)",
                           "report JSON (--report-json)"};
    const char *values[] = {in->run_path,
                            in->round_path,
                            strategies,
                            in->model,
                            in->device,
                            in->ratios_path ? in->ratios_path : "none",
                            in->report_json ? in->report_json : "none"};
    nd_html_section(h, "inputs", "Inputs");
    nd_html_facts(h, ND_ARRAY_LEN(names), names, values);
}

static void ratios_table(nd_html *h, const nd_fit_result *res)
{
    static const char *const headers[] = {"ratio", "value", "95 % interval", "status", "why"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 5, ND_RATIO_KEYS)) return;
    size_t r = 0;
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        if (k == ND_RATIO_FORWARD) continue;
        nd_html_grid_set(&g, r, 0, "%s", nd_ratio_key_name((nd_ratio_key)k));
        nd_html_grid_set(&g, r, 1, "%.4f", res->ratio[k]);
        if (res->status[k] == ND_RATIO_FITTED && isfinite(res->lo[k]))
            nd_html_grid_set(&g, r, 2, "%.4f to %.4f", res->lo[k], res->hi[k]);
        else
            nd_html_grid_set(&g, r, 2, "-");
        nd_html_grid_set(&g, r, 3, "%s", status_text(res->status[k]));
        if (res->status[k] == ND_RATIO_FITTED)
            nd_html_grid_set(&g, r, 4, "fitted on %s", res->target[k]);
        else if (res->status[k] == ND_RATIO_HELD)
            nd_html_grid_set(&g, r, 4, "%s", res->why[k]);
        else
            nd_html_grid_set(&g, r, 4, "with %s", nd_ratio_key_name((nd_ratio_key)res->source[k]));
        r++;
    }
    nd_html_section(h, "ratios", "Ratios");
    nd_html_grid_table(h, "Measured / estimated, each part's correction", headers, &g);
    nd_html_grid_free(&g);
}

static void rows_table(nd_html *h, const nd_fit_result *res, const nd_fit_row *rows, size_t n)
{
    static const char *const headers[] = {"strategy", "measured ms", "fitted ms", "left out ms",
                                          "left-out error"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 5, n)) return;
    for (size_t i = 0; i < n; i++) {
        nd_html_grid_set(&g, i, 0, "%s", rows[i].label);
        nd_html_grid_set(&g, i, 1, "%.1f", res->target_ms[i]);
        nd_html_grid_set(&g, i, 2, "%.1f", res->corrected_ms[i]);
        if (isfinite(res->left_out_ms[i]) && res->target_ms[i] > 0) {
            nd_html_grid_set(&g, i, 3, "%.1f", res->left_out_ms[i]);
            nd_html_grid_set(&g, i, 4, "%+.1f %%", 100 * (res->left_out_ms[i] / res->target_ms[i] - 1));
        } else {
            nd_html_grid_set(&g, i, 3, "-");
            nd_html_grid_set(&g, i, 4, "-");
        }
    }
    nd_html_section(h, "rows", "Every strategy");
    nd_html_grid_table(h, NULL, headers, &g);
    nd_html_grid_free(&g);
}

int nd_fit_report_html(const char *path, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                       const nd_fit_report_inputs *in, const nd_plot_gallery *plots, nd_html_capture *notes,
                       nd_error *err)
{
    char title[512], generator[64];
    snprintf(title, sizeof title, "nd-fit: %s, %s on %s", in->round_path, in->model, in->device);
    snprintf(generator, sizeof generator, "nd-fit %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    int rc = h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        summary(h, res, rows, n);
        inputs(h, in, n);
        ratios_table(h, res);
        static const char *const captions[] = {
            "Each ratio with its 95 % interval; hollow: not fitted (held, shared).",
            "Leave-one-out: fitted on every row (blue) and left out (red) against the "
            "measurement."};
        nd_html_plots_section(h, plots, captions, ND_ARRAY_LEN(captions));
        rows_table(h, res, rows, n);
        if (notes) nd_html_notes_from_capture(h, notes);
        rc = nd_html_write(h, path, err);
    }
    nd_html_free(h);
    return rc;
}
