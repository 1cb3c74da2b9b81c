/*
 * compare_report.c — nd-compare's one-page report (--report FILE): the verdict, the inputs,
 * the accuracy per part, the plots, every strategy measured beside estimated, and the notes
 * the run printed. docs/report.md lists the sections.
 */
#include "compare_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/html/html.h"
#include "nd/base/version.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

/* "+6.3 %", or "-" for a value that is not a number. */
static void pct(nd_html_grid *g, size_t row, size_t col, double v)
{
    if (isfinite(v))
        nd_html_grid_set(g, row, col, "%+.1f %%", 100 * v);
    else
        nd_html_grid_set(g, row, col, "-");
}

static void summary(nd_html *h, const nd_compare *c)
{
    const nd_compare_metrics *step = &c->fold[ND_FOLD_TOTAL];
    char verdict[320];
    if (step->errors.n)
        snprintf(verdict, sizeof verdict,
                 "The %s estimates are %.1f %% off the measured step on average "
                 "(MAPE over %zu strategies), %.1f %% at worst; they are %s by %.1f %% on average.",
                 c->corrected ? "corrected" : "raw", 100 * step->errors.mape, step->errors.n,
                 100 * step->errors.max_abs, step->errors.bias < 0 ? "low" : "high",
                 100 * fabs(step->errors.bias));
    else
        snprintf(verdict, sizeof verdict, "No strategy's step could be compared.");
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    const nd_compare_row *pick = &c->rows[c->pick], *fast = &c->rows[c->fastest];
    nd_html_text(h,
                 "The estimate ranks %s first; it measures %.1f ms, the fastest (%s) %.1f ms: following the "
                 "estimate costs %.1f %%. Top-k agreement (ND's): %zu of %zu.",
                 pick->label, pick->rank_ms, fast->label, fast->rank_ms, 100 * c->regret, c->top_k, c->count);
    if (c->memory_rows)
        nd_html_text(h,
                     "Peak memory: %.1f %% off the measured peak on average over %zu strategies (%+.1f %% "
                     "bias).",
                     100 * c->memory.errors.mape, c->memory.errors.n, 100 * c->memory.errors.bias);
}

static void inputs(nd_html *h, const nd_compare_report_inputs *in, const nd_compare *c)
{
    char rows[32], budget[48];
    snprintf(rows, sizeof rows, "%zu", c->count);
    snprintf(budget, sizeof budget, "%.0f MiB (%.1f GiB)", in->budget_mib, in->budget_mib / ND_MIB_PER_GIB);
    const char *names[] = {"run file (-y)", "round (--real_csv)", "strategies", "model",
                           "device",        "memory budget",      "ratios (-c)"};
    const char *values[] = {in->run_path,
                            in->round_path,
                            rows,
                            in->model,
                            in->device,
                            budget,
                            in->ratios_path ? in->ratios_path : "none: raw estimates"};
    nd_html_section(h, "inputs", "Inputs");
    nd_html_facts(h, ND_ARRAY_LEN(names), names, values);
}

static void metric_row(nd_html_grid *g, size_t r, const char *name, const nd_compare_metrics *m)
{
    nd_html_grid_set(g, r, 0, "%s", name);
    if (isfinite(m->pearson))
        nd_html_grid_set(g, r, 1, "%+.3f", m->pearson);
    else
        nd_html_grid_set(g, r, 1, "-");
    if (isfinite(m->spearman))
        nd_html_grid_set(g, r, 2, "%+.3f", m->spearman);
    else
        nd_html_grid_set(g, r, 2, "-");
    if (m->errors.n) {
        nd_html_grid_set(g, r, 3, "%.1f %%", 100 * m->errors.mape);
        pct(g, r, 4, m->errors.bias);
        nd_html_grid_set(g, r, 5, "%.1f %%", 100 * m->errors.max_abs);
    } else {
        for (size_t k = 3; k < 6; k++) nd_html_grid_set(g, r, k, "-");
    }
    nd_html_grid_set(g, r, 6, "%zu", m->errors.n);
}

static void accuracy(nd_html *h, const nd_compare *c)
{
    static const char *const headers[] = {"part", "Pearson r", "Spearman rho", "MAPE",
                                          "bias", "max error", "rows"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 7, ND_FOLDS + 1)) return;
    size_t n = 0;
    for (int f = 0; f < ND_FOLDS; f++)
        if (c->fold_measured[f] || f == ND_FOLD_TOTAL)
            metric_row(&g, n++, f == ND_FOLD_TOTAL ? "step" : nd_fold_name((nd_fold)f), &c->fold[f]);
    if (c->memory_rows) metric_row(&g, n++, "peak memory", &c->memory);
    nd_html_section(h, "accuracy", "Accuracy per part");
    nd_html_text(h,
                 "Relative errors (estimated - measured) / measured over the rows where the part is at least "
                 "0.5 %% of the step; metrics in docs/calibration.md.");
    nd_html_grid_table(h, NULL, headers, &g);
    nd_html_grid_free(&g);
}

static void rows_table(nd_html *h, const nd_compare *c)
{
    static const char *const headers[] = {"strategy", "measured ms",  "estimated ms",
                                          "error",    "measured GiB", "estimated GiB"};
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 6, c->count)) return;
    for (size_t i = 0; i < c->count; i++) {
        const nd_compare_row *r = &c->rows[i];
        double m = r->row->time_ms, e = r->estimated[ND_FOLD_TOTAL];
        nd_html_grid_set(&g, i, 0, "%s", r->label);
        nd_html_grid_set(&g, i, 1, "%.1f", m);
        nd_html_grid_set(&g, i, 2, "%.1f", e);
        pct(&g, i, 3, m > 0 ? e / m - 1 : NAN);
        if (isfinite(r->row->peak_mib))
            nd_html_grid_set(&g, i, 4, "%.1f", r->row->peak_mib / ND_MIB_PER_GIB);
        else
            nd_html_grid_set(&g, i, 4, "-");
        nd_html_grid_set(&g, i, 5, "%.1f", r->est.peak_mib / ND_MIB_PER_GIB);
    }
    nd_html_section(h, "rows", "Every strategy");
    nd_html_grid_table(h, "In measured order, fastest first", headers, &g);
    nd_html_grid_free(&g);
}

int nd_compare_report_html(const char *path, const nd_compare *c, const nd_compare_report_inputs *in,
                           const nd_plot_gallery *plots, nd_html_capture *notes, nd_error *err)
{
    char title[512], generator[64];
    snprintf(title, sizeof title, "nd-compare: %s against %s on %s", in->round_path, in->model, in->device);
    snprintf(generator, sizeof generator, "nd-compare %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    int rc = h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        summary(h, c);
        inputs(h, in, c);
        accuracy(h, c);
        static const char *const captions[] = {
            "Parity: estimated against measured, per part; the worst three points of each panel are named.",
            ("Time parts: measured (M) beside estimated (E), the error on the step above each pair, ND's "
             "table "
             "under it."),
            "The same without idle (ND's _no_idle view)."};
        nd_html_plots_section(h, plots, captions, ND_ARRAY_LEN(captions));
        rows_table(h, c);
        if (notes) nd_html_notes_from_capture(h, notes);
        rc = nd_html_write(h, path, err);
    }
    nd_html_free(h);
    return rc;
}
