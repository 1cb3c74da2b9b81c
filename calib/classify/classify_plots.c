/* nd-classify's plots: each rank's step split into ND's parts (which rank is the straggler,
 * and waiting for what), and the kernel classes of the device view (where the device time
 * goes). Drawn by the plot library, which nd_classify reaches beside nd_base. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/classify/classify.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"

/* The parts of a rank's bar, and the palette colour each takes: those of nd-compare's
 * folds where one exists (comp, dp, mp, ep, cp, pp, idle), so a part looks alike in both. */
static const struct {
    nd_classify_quantity q;
    size_t color;
} rank_parts[] = {
    {ND_CQ_COMP, 0},    {ND_CQ_DP_WAIT, 1}, {ND_CQ_OP_WAIT, 8}, {ND_CQ_MP_WAIT, 2},       {ND_CQ_SP_WAIT, 10},
    {ND_CQ_EP_WAIT, 3}, {ND_CQ_CP_WAIT, 4}, {ND_CQ_PP_WAIT, 5}, {ND_CQ_UNCLASSIFIED, 15}, {ND_CQ_IDLE, 6},
};
#define RANK_PARTS (sizeof rank_parts / sizeof rank_parts[0])

typedef struct rank_bar {
    int rank;
    const char *input;
    size_t steps;
    double sum[RANK_PARTS];
} rank_bar;

static bool kept(const nd_classify_run *run, const nd_classify_sample *s)
{
    return s->step_order >= run->opts.skip_steps;
}

static int by_rank(const void *a, const void *b)
{
    const rank_bar *p = a, *q = b;
    if (p->rank != q->rank) return p->rank < q->rank ? -1 : 1;
    return strcmp(p->input, q->input);
}

/* One bar per (input, rank) of the kept rank-steps, the mean of its steps, in rank order. */
static size_t gather_ranks(const nd_classify_run *run, rank_bar *bars)
{
    size_t n = 0;
    for (size_t i = 0; i < run->n_samples; i++) {
        const nd_classify_sample *s = &run->samples[i];
        if (!kept(run, s)) continue;
        size_t b = 0;
        while (b < n && !(bars[b].rank == s->rank && strcmp(bars[b].input, s->input) == 0)) b++;
        if (b == n) bars[n++] = (rank_bar){s->rank, s->input, 0, {0}};
        bars[b].steps++;
        for (size_t k = 0; k < RANK_PARTS; k++)
            if (isfinite(s->q[rank_parts[k].q])) bars[b].sum[k] += s->q[rank_parts[k].q];
    }
    qsort(bars, n, sizeof *bars, by_rank);
    return n;
}

static int ranks_plot(const char *base, const nd_classify_run *run, const nd_plot_options *opt, nd_error *err)
{
    rank_bar *bars = calloc(run->n_samples ? run->n_samples : 1, sizeof *bars);
    if (!bars) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t n = gather_ranks(run, bars);
    const char **labels = calloc(n ? n : 1, sizeof *labels), *names[RANK_PARTS];
    char(*text)[48] = calloc(n ? n : 1, sizeof *text);
    double *v = calloc(n * RANK_PARTS + 1, sizeof *v);
    size_t colors[RANK_PARTS];
    int rc = labels && text && v ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        if (bars[i].rank >= 0)
            snprintf(text[i], sizeof text[i], "%d", bars[i].rank);
        else
            snprintf(text[i], sizeof text[i], "%.40s", bars[i].input);
        labels[i] = text[i];
        for (size_t k = 0; k < RANK_PARTS; k++)
            v[i * RANK_PARTS + k] = bars[i].sum[k] / (double)bars[i].steps;
    }
    for (size_t k = 0; k < RANK_PARTS; k++) {
        names[k] = nd_classify_quantity_name(rank_parts[k].q);
        colors[k] = rank_parts[k].color;
    }
    if (!rc) {
        char title[200];
        snprintf(title, sizeof title,
                 "Step time of each rank, split into ND's parts (mean of %zu rank-steps)\n"
                 "slowest: rank %d, %.1f ms a step",
                 run->summary.n_samples, run->summary.slowest_rank, run->summary.slowest_mean_ms);
        nd_plot_options o = *opt;
        if (!o.title) o.title = title;
        nd_plot_stacks p = {n, labels, RANK_PARTS, names, v, colors, "rank", "ms per step"};
        rc = nd_plot_stacks_write(base, &p, &o, err);
    }
    free(bars);
    free(labels);
    free(text);
    free(v);
    return rc;
}

static int kernels_plot(const char *base, const nd_classify_run *run, const nd_plot_options *opt,
                        nd_error *err)
{
    /* The classes that took time, the largest first (ties in class order). */
    const char *labels[ND_KC_COUNT];
    double ms[ND_KC_COUNT];
    size_t n = 0;
    for (int c = 0; c < ND_KC_COUNT; c++) {
        double v = run->summary.kernels.class_ms[c];
        if (!(v > 0)) continue;
        size_t at = n++;
        while (at > 0 && ms[at - 1] < v) {
            labels[at] = labels[at - 1];
            ms[at] = ms[at - 1];
            at--;
        }
        labels[at] = nd_classify_kernel_class_name((nd_classify_kernel_class)c);
        ms[at] = v;
    }
    if (n == 0) return ND_OK;
    char title[160];
    snprintf(title, sizeof title, "Device time by kernel class, ms per step (mean of %zu rank-steps)",
             run->summary.n_kernel_samples);
    nd_plot_options o = *opt;
    if (!o.title) o.title = title;
    nd_plot_bars p = {n, labels, ms, 0, "kernel time per step (ms)"};
    return nd_plot_bars_write(base, &p, &o, err);
}

int nd_classify_plots(const nd_classify_run *run, const char *dir, const nd_plot_options *opt, nd_error *err)
{
    char *ranks = nd_path_join(dir, "classify_ranks"), *kernels = nd_path_join(dir, "classify_kernels");
    int rc = ranks && kernels ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = ranks_plot(ranks, run, opt, err);
    if (!rc && run->summary.n_kernel_samples) rc = kernels_plot(kernels, run, opt, err);
    free(ranks);
    free(kernels);
    return rc;
}
