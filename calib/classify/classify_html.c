/* nd-classify's one-page report (--report FILE): the verdict, the inputs, the step split into
 * ND's parts over the kept rank-steps, communication by source, the plots, and the run's
 * warnings and notes. docs/report.md lists the sections. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify_kernels.h"
#include "nd/classify/classify.h"
#include "nd/html/html.h"
#include "nd/base/version.h"

static void summary(nd_html *h, const nd_classify_run *run)
{
    const nd_classify_summary *m = &run->summary;
    double time = m->q[ND_CQ_TIME].mean, comp = m->q[ND_CQ_COMP].mean, idle = m->q[ND_CQ_IDLE].mean;
    char verdict[320];
    snprintf(verdict, sizeof verdict,
             "A step takes %.3f ms on average: %.0f %% compute, %.0f %% waiting for "
             "communication, %.0f %% idle. The slowest rank is %d (%.3f ms a step).",
             time, time > 0 ? 100 * comp / time : 0, time > 0 ? 100 * (time - comp - idle) / time : 0,
             time > 0 ? 100 * idle / time : 0, m->slowest_rank, m->slowest_mean_ms);
    nd_html_section(h, "summary", "Summary");
    nd_html_verdict(h, verdict);
    nd_html_text(
        h, "%zu rank-steps of %zu ranks kept (%zu warm-up rank-steps dropped); the round's row holds the %s.",
        m->n_samples, m->n_ranks, m->n_dropped, run->opts.stat == ND_STAT_MEDIAN ? "median" : "mean");
    if (m->n_overlap_samples)
        nd_html_text(
            h,
            "Communication kernels ran beside compute %.1f %% of their time (HTA's comm/compute overlap; "
            "per rank-step %.1f to %.1f %%).",
            m->overlap_pct_all, m->overlap_pct.min, m->overlap_pct.max);
}

/* The kernel view's collectives: what --kernels writes, per rank-step; unknown numbers blank. */
static void collectives_table(nd_html *h, const nd_classify_run *run)
{
    static const char *const headers[] = {"collective", "calls",         "MiB",        "kernel ms",
                                          "exposed ms", "overlapped ms", "algbw GB/s", "busbw GB/s"};
    const nd_classify_kernels *k = &run->summary.kernels;
    size_t n = 0;
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) n += k->coll_calls[c] > 0 || k->coll_ms[c] > 0;
    nd_html_grid g;
    if (!run->summary.n_kernel_samples || !n || !nd_html_grid_init(&g, 8, n)) return;
    size_t row = 0;
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        if (k->coll_calls[c] <= 0 && k->coll_ms[c] <= 0) continue;
        double v;
        nd_html_grid_set(&g, row, 0, "%s", nd_classify_coll_name(c));
        nd_html_grid_set(&g, row, 1, "%.2f", k->coll_calls[c]);
        if (nd_classify_coll_mib(k, c, &v)) nd_html_grid_set(&g, row, 2, "%.1f", v);
        nd_html_grid_set(&g, row, 3, "%.3f", k->coll_ms[c]);
        nd_html_grid_set(&g, row, 4, "%.3f", k->coll_exposed_ms[c]);
        nd_html_grid_set(&g, row, 5, "%.3f", fmax(0, k->coll_ms[c] - k->coll_exposed_ms[c]));
        if (nd_classify_coll_algbw(k, c, &v)) nd_html_grid_set(&g, row, 6, "%.1f", v);
        if (nd_classify_coll_busbw(k, c, &v)) nd_html_grid_set(&g, row, 7, "%.1f", v);
        row++;
    }
    nd_html_grid_table(h, "Collectives on the device, per rank-step (the kernel view; blank: not known)",
                       headers, &g);
    nd_html_grid_free(&g);
}

static void inputs(nd_html *h, const nd_classify_run *run, const char *csv)
{
    char dims[160] = "none";
    if (run->opts.has_dims) nd_classify_dims_text(&run->opts.dims, dims, sizeof dims);
    size_t n = run->n_inputs + 2;
    const char **names = calloc(n, sizeof *names), **values = calloc(n, sizeof *values);
    if (!names || !values) {
        free(names);
        free(values);
        return;
    }
    for (size_t i = 0; i < run->n_inputs; i++) {
        names[i] = "input";
        values[i] = run->inputs[i];
    }
    names[n - 2] = "degrees (--dims)";
    values[n - 2] = dims;
    names[n - 1] = "round file (--csv)";
    values[n - 1] = csv ? csv : "none";
    nd_html_section(h, "inputs", "Inputs");
    nd_html_facts(h, n, names, values);
    free(names);
    free(values);
}

static void parts_table(nd_html *h, const nd_classify_run *run)
{
    static const char *const headers[] = {"part",   "mean ms", "median ms",
                                          "min ms", "max ms",  "share of the step"};
    const nd_classify_summary *m = &run->summary;
    nd_html_grid g;
    if (!nd_html_grid_init(&g, 6, ND_CQ_CSV_COLUMNS)) return;
    double time = m->q[ND_CQ_TIME].mean;
    for (size_t q = 0; q < ND_CQ_CSV_COLUMNS; q++) {
        const nd_classify_stats *s = &m->q[q];
        nd_html_grid_set(&g, q, 0, "%s", nd_classify_quantity_name((nd_classify_quantity)q));
        nd_html_grid_set(&g, q, 1, "%.3f", s->mean);
        nd_html_grid_set(&g, q, 2, "%.3f", s->median);
        nd_html_grid_set(&g, q, 3, "%.3f", s->min);
        nd_html_grid_set(&g, q, 4, "%.3f", s->max);
        nd_html_grid_set(&g, q, 5, "%.1f %%", time > 0 ? 100 * s->mean / time : 0);
    }
    nd_html_section(h, "parts", "ND's parts");
    nd_html_grid_table(h, "Per rank-step, over the kept rank-steps", headers, &g);
    nd_html_grid_free(&g);
}

/* The first `max` sources of communication, per rank-step. */
static void sites_table(nd_html *h, const nd_classify_run *run, size_t max)
{
    static const char *const headers[] = {"column", "source", "ms per step", "calls", "MiB"};
    const nd_classify_summary *m = &run->summary;
    size_t n = m->n_sites < max ? m->n_sites : max;
    double steps = m->n_samples ? (double)m->n_samples : 1;
    nd_html_section(h, "communication", "Communication by source");
    nd_html_grid g;
    if (!n) {
        nd_html_text(h, "No communication was recorded.");
        return;
    }
    if (!nd_html_grid_init(&g, 5, n)) return;
    for (size_t i = 0; i < n; i++) {
        const nd_classify_site *s = &m->sites[i];
        nd_html_grid_set(&g, i, 0, "%s", nd_classify_quantity_name(s->column));
        nd_html_grid_set(&g, i, 1, "%s", s->label ? s->label : "");
        nd_html_grid_set(&g, i, 2, "%.3f", s->ms / steps);
        nd_html_grid_set(&g, i, 3, "%.1f", s->calls / steps);
        nd_html_grid_set(&g, i, 4, "%.1f", s->bytes / steps / 1048576);
    }
    nd_html_grid_table(h, "Per rank-step", headers, &g);
    nd_html_grid_free(&g);
}

/* The run's own warnings and notes, then what it printed on stderr. */
static void notes(nd_html *h, const nd_classify_run *run, nd_html_capture *capture)
{
    size_t n = run->warnings.n + run->notes.n;
    const char **items = calloc(n ? n : 1, sizeof *items);
    if (!items) return;
    for (size_t i = 0; i < run->warnings.n; i++) items[i] = run->warnings.items[i];
    for (size_t i = 0; i < run->notes.n; i++) items[run->warnings.n + i] = run->notes.items[i];
    nd_html_section(h, "warnings", "Warnings and notes of the classification");
    if (n)
        nd_html_notes(h, n, items);
    else
        nd_html_text(h, "None.");
    free(items);
    if (capture) nd_html_notes_from_capture(h, capture);
}

int nd_classify_report_html(const nd_classify_run *run, const char *path, const char *csv,
                            const nd_plot_gallery *plots, nd_html_capture *capture, nd_error *err)
{
    char title[256], generator[64];
    snprintf(title, sizeof title, "nd-classify: %zu rank-steps of %zu ranks", run->summary.n_samples,
             run->summary.n_ranks);
    snprintf(generator, sizeof generator, "nd-classify %s", ND_VERSION);
    nd_html *h = nd_html_open(title, generator);
    int rc = h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        summary(h, run);
        inputs(h, run, csv);
        parts_table(h, run);
        static const char *const captions[] = {
            "Each rank's step (the mean of its kept steps) split into ND's parts.",
            "Device time by kernel class, ms per step, largest first."};
        nd_html_plots_section(h, plots, captions, sizeof captions / sizeof captions[0]);
        sites_table(h, run, 40);
        collectives_table(h, run);
        notes(h, run, capture);
        rc = nd_html_write(h, path, err);
    }
    nd_html_free(h);
    return rc;
}
