/* The report on stdout: ND's three blocks (docs/reference/nd-calibration.md §3.7, means), then what ND
 * lacks: median and spread over rank-steps, the slowest rank, the view each number
 * comes from, and the notes. --json prints the same as one document. */
#include "classify_output.h"
#include "classify_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/formats.h"
#include "nd/base/io.h"

static double mean_of(const nd_classify_run *run, nd_classify_quantity q)
{
    return run->summary.q[q].mean;
}

static void part_line(FILE *f, const char *name, double ms, double time, const char *note)
{
    fprintf(f, "  %-17s %10.1f %6.1f %%", name, ms, time > 0 ? 100 * ms / time : 0);
    if (note && *note) fprintf(f, "  %s", note);
    fputc('\n', f);
}

static void nd_parts_block(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    double t = mean_of(run, ND_CQ_TIME);
    char note[128];
    fprintf(f, "ND real parts, mean of %zu rank-steps, ms per step\n", m->n_samples);
    part_line(f, nd_fold_name(ND_FOLD_COMP), mean_of(run, ND_CQ_COMP), t, NULL);
    snprintf(note, sizeof note, "dp %.1f + op %.1f", mean_of(run, ND_CQ_DP_WAIT),
             mean_of(run, ND_CQ_OP_WAIT));
    part_line(f, nd_fold_name(ND_FOLD_DP), mean_of(run, ND_CQ_DP_WAIT) + mean_of(run, ND_CQ_OP_WAIT), t,
              note);
    snprintf(note, sizeof note, "mp %.1f + sp %.1f", mean_of(run, ND_CQ_MP_WAIT),
             mean_of(run, ND_CQ_SP_WAIT));
    part_line(f, nd_fold_name(ND_FOLD_MP), mean_of(run, ND_CQ_MP_WAIT) + mean_of(run, ND_CQ_SP_WAIT), t,
              note);
    part_line(f, nd_fold_name(ND_FOLD_EP), mean_of(run, ND_CQ_EP_WAIT), t, NULL);
    part_line(f, nd_fold_name(ND_FOLD_CP), mean_of(run, ND_CQ_CP_WAIT), t, NULL);
    part_line(f, nd_fold_name(ND_FOLD_PP), mean_of(run, ND_CQ_PP_WAIT), t, "bubble included");
    snprintf(note, sizeof note, "unclassified comm %.1f", mean_of(run, ND_CQ_UNCLASSIFIED));
    part_line(f, nd_fold_name(ND_FOLD_IDLE), mean_of(run, ND_CQ_IDLE) + mean_of(run, ND_CQ_UNCLASSIFIED), t,
              note);
    part_line(f, nd_classified_csv.time, t, t, NULL);
}

static void estimate_block(const nd_classify_run *run, FILE *f)
{
    double v[PERF_PARTS], t = mean_of(run, ND_CQ_TIME);
    nd_classify_run copy = *run;
    copy.opts.stat = ND_STAT_MEAN; /* ND's blocks are means whatever --stat says */
    nd_classify_perf_parts(&copy, v);
    fprintf(f, "ND estimate columns (debug.csv), ms per step\n");
    for (int i = 0; i < PERF_PARTS; i++) part_line(f, nd_classify_perf_part_name(i), v[i], t, NULL);
}

static int cmp_ms_desc(const void *a, const void *b)
{
    const nd_classify_site *x = a, *y = b;
    if (x->ms != y->ms) return x->ms < y->ms ? 1 : -1;
    return strcmp(x->label, y->label);
}

static void sites_block(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    double n = (double)m->n_samples;
    nd_classify_site *s = malloc((m->n_sites + 1) * sizeof *s);
    if (!s) return;
    if (m->n_sites) memcpy(s, m->sites, m->n_sites * sizeof *s); /* sites: NULL when none */
    qsort(s, m->n_sites, sizeof *s, cmp_ms_desc);
    fprintf(f, "Communication by source, per step: ms, calls, of which waiting, MiB\n");
    for (size_t i = 0; i < m->n_sites; i++) {
        double waiting = s[i].wait_ms > 0 ? s[i].wait_ms / n : s[i].waits / n;
        fprintf(f, "  %-17s %-24s %10.1f %7.1f %7.1f %9.1f\n", nd_classify_quantity_name(s[i].column),
                s[i].label, s[i].ms / n, s[i].calls / n, waiting, s[i].bytes / 1048576.0 / n);
    }
    free(s);
}

static void stats_block(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    fprintf(f,
            "Statistics over %zu rank-steps of %zu rank(s) (%zu warm-up rank-steps dropped), "
            "ms per step; the CSV row holds the %s\n",
            m->n_samples, m->n_ranks, m->n_dropped, run->opts.stat == ND_STAT_MEDIAN ? "median" : "mean");
    fprintf(f, "  %-17s %10s %10s %10s %10s  %s\n", "quantity", "mean", "median", "min", "max", "view");
    for (int q = 0; q < ND_CQ_COUNT; q++) {
        const nd_classify_stats *s = &m->q[q];
        fprintf(f, "  %-17s %10.3f %10.3f %10.3f %10.3f  %s\n",
                nd_classify_quantity_name((nd_classify_quantity)q), s->mean, s->median, s->min, s->max,
                nd_classify_view_name(m->view[q]));
    }
    char input[1024]; /* a trace's path may hold an ESC sequence or a newline */
    fprintf(f, "Slowest rank: %d (%s), mean step %.3f ms\n", m->slowest_rank,
            m->slowest_input ? nd_text_shown(m->slowest_input, input, sizeof input) : "?",
            m->slowest_mean_ms);
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* The one view every number comes from, or "mixed". */
static const char *run_view(const nd_classify_run *run)
{
    return nd_classify_view_name(run->summary.view[ND_CQ_COMP]);
}

/* The concise summary: what was read, warnings first, then the row's parts that are not
 * zero, in ms per step and as shares of the step. */
void nd_classify_dims_text(const nd_classify_dims *dims, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < dims->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%lld", i ? " " : "",
                                 nd_dim_name(dims->dim[i]), (long long)dims->value[i]);
}

static void summary_block(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    bool median = run->opts.stat == ND_STAT_MEDIAN;
    fprintf(f,
            "%zu rank-step%s of %zu rank%s (%zu warm-up rank-step%s dropped), %s view; the row "
            "holds the %s\n",
            m->n_samples, plural(m->n_samples), m->n_ranks, plural(m->n_ranks), m->n_dropped,
            plural(m->n_dropped), run_view(run), median ? "median" : "mean");
    if (run->opts.has_dims && strcmp(run->dims_source, "--dims")) {
        char dims[160], source[2 * sizeof run->dims_source];
        nd_classify_dims_text(&run->opts.dims, dims, sizeof dims);
        fprintf(f, "Degrees %s, from %s\n", dims, nd_text_shown(run->dims_source, source, sizeof source));
    }
    if (run->warnings.n) fprintf(f, "Warnings\n");
    for (size_t i = 0; i < run->warnings.n; i++) fprintf(f, "  ! %s\n", run->warnings.items[i]);
    double t = median ? m->q[ND_CQ_TIME].median : m->q[ND_CQ_TIME].mean;
    if (m->n_overlap_samples)
        fprintf(f,
                "Communication kernels ran beside compute %.1f %% of their time (HTA's comm/compute "
                "overlap over %zu rank-step%s; per rank-step %.1f to %.1f %%)\n",
                m->overlap_pct_all, m->n_overlap_samples, plural(m->n_overlap_samples), m->overlap_pct.min,
                m->overlap_pct.max);
    fprintf(f, "Per step        %12s %8s\n", "ms", "share");
    for (int q = 0; q < ND_CQ_CSV_COLUMNS; q++) {
        double v = median ? m->q[q].median : m->q[q].mean;
        if (q != ND_CQ_TIME && fabs(v) < 5e-4) continue;
        fprintf(f, "  %-13s %12.3f %6.1f %%%s\n", nd_classify_quantity_name((nd_classify_quantity)q), v,
                t > 0 ? 100 * v / t : 0, q == ND_CQ_OPTIMIZER ? "  (part of comp)" : "");
    }
}

void nd_classify_report_print(const nd_classify_run *run, FILE *f, bool verbose)
{
    summary_block(run, f);
    if (!verbose) {
        fprintf(f, "Details with -v: ND's blocks, communication by source, statistics, kernels%s",
                run->notes.n ? ", " : "");
        if (run->notes.n) fprintf(f, "%zu note%s", run->notes.n, plural(run->notes.n));
        fputc('\n', f);
        return;
    }
    nd_parts_block(run, f);
    estimate_block(run, f);
    sites_block(run, f);
    stats_block(run, f);
    nd_classify_kernels_report(run, f);
    if (run->notes.n) fprintf(f, "Notes\n");
    for (size_t i = 0; i < run->notes.n; i++) fprintf(f, "  - %s\n", run->notes.items[i]);
}

void nd_classify_sweep_report_print(const nd_classify_sweep *s, FILE *f, bool verbose)
{
    fprintf(f, "Sweep of %zu run%s, ms per step (the rows' %s)\n", s->n, plural(s->n),
            s->n && s->runs[0]->opts.stat == ND_STAT_MEDIAN ? "medians" : "means");
    size_t warnings = 0;
    for (size_t i = 0; i < s->n; i++) warnings += s->runs[i]->warnings.n;
    if (warnings) fprintf(f, "Warnings\n");
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < s->runs[i]->warnings.n; k++)
            fprintf(f, "  ! %s\n", s->runs[i]->warnings.items[k]);
    fprintf(f, "  %-24s %-22s", "run", "degrees");
    for (int q = 0; q < ND_CQ_CSV_COLUMNS - 1; q++) /* optimizer is part of comp */
        fprintf(f, " %9.9s", nd_classify_quantity_name((nd_classify_quantity)q));
    fputc('\n', f);
    for (size_t i = 0; i < s->n; i++) {
        const nd_classify_run *run = s->runs[i];
        const char *base = strrchr(s->dirs[i], '/');
        char dims[160], name[512]; /* a directory's name may hold an ESC or a newline */
        nd_classify_dims_text(&run->opts.dims, dims, sizeof dims);
        fprintf(f, "  %-24s %-22s", nd_text_shown(base ? base + 1 : s->dirs[i], name, sizeof name),
                run->opts.has_dims ? dims : "?");
        for (int q = 0; q < ND_CQ_CSV_COLUMNS - 1; q++) {
            const nd_classify_stats *x = &run->summary.q[q];
            fprintf(f, " %9.3f", run->opts.stat == ND_STAT_MEDIAN ? x->median : x->mean);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; verbose && i < s->n; i++) {
        char dir[1024];
        fprintf(f, "\n== %s\n", nd_text_shown(s->dirs[i], dir, sizeof dir));
        nd_classify_report_print(s->runs[i], f, true);
    }
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    if (!isfinite(v))
        fputs("null", f);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(f, "%.0f", v); /* 1000, not 1e+03 */
    else
        fputs(nd_format_double(v, buf), f);
}

static void json_sites(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    double n = (double)m->n_samples;
    fputs("  \"sites_per_step\": [", f);
    for (size_t i = 0; i < m->n_sites; i++) {
        const nd_classify_site *s = &m->sites[i];
        fputs(i ? ",\n    {\"column\": " : "\n    {\"column\": ", f);
        json_string(f, nd_classify_quantity_name(s->column));
        fputs(", \"label\": ", f);
        json_string(f, s->label);
        fputs(", \"ms\": ", f);
        json_number(f, s->ms / n);
        fputs(", \"calls\": ", f);
        json_number(f, s->calls / n);
        fputs(", \"waits\": ", f);
        json_number(f, s->waits / n);
        fputs(", \"wait_ms\": ", f);
        json_number(f, s->wait_ms / n);
        fputs(", \"mib\": ", f);
        json_number(f, s->bytes / 1048576.0 / n);
        fputc('}', f);
    }
    fputs(m->n_sites ? "\n  ],\n" : "],\n", f);
}

/* The kernel view: "kernels": {"rank_steps", "class_ms": {...}, "collectives": [...],
 * "shapes": [...]}, means per rank-step. */
static void json_kernels(const nd_classify_run *run, FILE *f)
{
    const nd_classify_kernels *k = &run->summary.kernels;
    fprintf(f, "  \"kernels\": {\"rank_steps\": %zu, \"class_ms\": {", run->summary.n_kernel_samples);
    for (int c = 0; c < ND_KC_COUNT; c++) {
        fputs(c ? ", " : "", f);
        json_string(f, nd_classify_kernel_class_name((nd_classify_kernel_class)c));
        fputs(": ", f);
        json_number(f, k->class_ms[c]);
    }
    fputs("},\n    \"collectives\": [", f);
    bool first = true;
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        if (k->coll_calls[c] <= 0 && k->coll_ms[c] <= 0) continue;
        fputs(first ? "\n      {\"type\": " : ",\n      {\"type\": ", f);
        first = false;
        json_string(f, nd_classify_coll_name(c));
        double mib, alg, bus;
        bool has_mib = nd_classify_coll_mib(k, c, &mib), has_alg = nd_classify_coll_algbw(k, c, &alg);
        bool has_bus = nd_classify_coll_busbw(k, c, &bus);
        fputs(", \"calls\": ", f);
        json_number(f, k->coll_calls[c]);
        fputs(", \"mib\": ", f);
        json_number(f, has_mib ? mib : NAN);
        fputs(", \"kernel_ms\": ", f);
        json_number(f, k->coll_ms[c]);
        fputs(", \"exposed_ms\": ", f);
        json_number(f, k->coll_exposed_ms[c]);
        fputs(", \"overlapped_ms\": ", f);
        json_number(f, fmax(0, k->coll_ms[c] - k->coll_exposed_ms[c]));
        fputs(", \"algbw_gbps\": ", f);
        json_number(f, has_alg ? alg : NAN);
        fputs(", \"busbw_gbps\": ", f);
        json_number(f, has_bus ? bus : NAN);
        fputc('}', f);
    }
    fputs(first ? "],\n    \"shapes\": [" : "\n    ],\n    \"shapes\": [", f);
    for (size_t i = 0; i < k->n_shapes; i++) {
        const nd_classify_shape *x = &k->shapes[i];
        fputs(i ? ",\n      {\"label\": " : "\n      {\"label\": ", f);
        json_string(f, x->label);
        fputs(", \"calls\": ", f);
        json_number(f, x->calls);
        fputs(", \"ms\": ", f);
        json_number(f, x->ms);
        fputs(", \"tflops\": ", f);
        json_number(f, x->ms > 0 ? x->flops / (x->ms * 1e-3) / 1e12 : NAN);
        fputc('}', f);
    }
    fputs(k->n_shapes ? "\n    ]},\n" : "]},\n", f);
}

/* "overlap_pct": HTA's comm/compute overlap, its statistics over the rank-steps whose
 * communication kernels ran and each kept rank-step's (null: no communication kernel). */
static void json_overlap(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    bool any = m->n_overlap_samples > 0;
    fprintf(f, "  \"overlap_pct\": {\"rank_steps\": %zu, \"all\": ", m->n_overlap_samples);
    json_number(f, any ? m->overlap_pct_all : NAN);
    fputs(", \"mean\": ", f);
    json_number(f, any ? m->overlap_pct.mean : NAN);
    fputs(", \"median\": ", f);
    json_number(f, any ? m->overlap_pct.median : NAN);
    fputs(", \"min\": ", f);
    json_number(f, any ? m->overlap_pct.min : NAN);
    fputs(", \"max\": ", f);
    json_number(f, any ? m->overlap_pct.max : NAN);
    fputs(", \"per_rank_step\": [", f);
    bool first = true;
    for (size_t i = 0; i < run->n_samples; i++) {
        const nd_classify_sample *s = &run->samples[i];
        if (s->step_order < run->opts.skip_steps) continue;
        fputs(first ? "" : ", ", f);
        first = false;
        json_number(f, s->comm_ms > 0 ? 100 * s->overlapped_ms / s->comm_ms : NAN);
    }
    fputs("]},\n", f);
}

void nd_classify_json_print(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    fprintf(f,
            "{\n  \"rank_steps\": %zu,\n  \"warmup_rank_steps_dropped\": %zu,\n"
            "  \"ranks\": %zu,\n  \"skip_steps\": %d,\n  \"row_statistic\": \"%s\",\n",
            m->n_samples, m->n_dropped, m->n_ranks, run->opts.skip_steps,
            run->opts.stat == ND_STAT_MEDIAN ? "median" : "mean");
    fputs("  \"quantities_ms\": {", f);
    for (int q = 0; q < ND_CQ_COUNT; q++) {
        const nd_classify_stats *s = &m->q[q];
        fputs(q ? ",\n    " : "\n    ", f);
        json_string(f, nd_classify_quantity_name((nd_classify_quantity)q));
        fputs(": {\"mean\": ", f);
        json_number(f, s->mean);
        fputs(", \"median\": ", f);
        json_number(f, s->median);
        fputs(", \"min\": ", f);
        json_number(f, s->min);
        fputs(", \"max\": ", f);
        json_number(f, s->max);
        fputs(", \"view\": ", f);
        json_string(f, nd_classify_view_name(m->view[q]));
        fputc('}', f);
    }
    fputs("\n  },\n  \"slowest_rank\": {\"rank\": ", f);
    fprintf(f, "%d, \"input\": ", m->slowest_rank);
    json_string(f, m->slowest_input ? m->slowest_input : "");
    fputs(", \"mean_time_ms\": ", f);
    json_number(f, m->slowest_mean_ms);
    fputs("},\n", f);
    json_sites(run, f);
    json_kernels(run, f);
    json_overlap(run, f);
    fputs("  \"warnings\": [", f);
    for (size_t i = 0; i < run->warnings.n; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, run->warnings.items[i]);
    }
    fputs("],\n  \"notes\": [", f);
    for (size_t i = 0; i < run->notes.n; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, run->notes.items[i]);
    }
    fputs("]\n}\n", f);
}
