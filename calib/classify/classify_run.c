/* A classification run: the inputs read into rank-step samples, the warm-up steps
 * dropped, and the statistics over what is left. */
#include "classify_internal.h"
#include "classify_kernel_details.h"
#include "classify_kernels.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "nd/base/io.h"

static int input_add(nd_classify_run *run, const char *path)
{
    char **n = realloc(run->inputs, (run->n_inputs + 1) * sizeof *n);
    if (!n) return ND_ENOMEM;
    run->inputs = n;
    if (!(run->inputs[run->n_inputs] = nd_strdup(path))) return ND_ENOMEM;
    run->n_inputs++;
    return ND_OK;
}

int nd_classify_run_add(nd_classify_run *run, const char *path, nd_error *err)
{
    if (input_add(run, path)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0)
        return nd_error_set(err, ND_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISREG(st.st_mode) && nd_classify_kernel_details_is(path))
        return nd_classify_kernel_details_read(run, path, err);
    char *csv = NULL;
    int found = nd_classify_ascend_find(path, &csv, err);
    if (found < 0) return found;
    if (found == 0 && S_ISDIR(st.st_mode))
        return nd_error_set(err, ND_EINPUT,
                            "%s: a directory without step_trace_time.csv (looked in it, in "
                            "ASCEND_PROFILER_OUTPUT/ and in */ASCEND_PROFILER_OUTPUT/)",
                            path);
    if (found == 0) return nd_classify_chrome_read(run, path, err);
    int rc = ND_OK;
    if (!run->opts.has_dims)
        rc = nd_error_set(err, ND_EUSAGE, "--dims is required to classify an Ascend run (%s)", path);
    if (!rc) rc = nd_classify_ascend_read(run, csv, err);
    free(csv);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats_of(const nd_classify_run *run, const bool *keep, nd_classify_summary *m, double *tmp)
{
    for (int q = 0; q < ND_CQ_COUNT; q++) {
        size_t n = 0;
        double sum = 0;
        int view = -1;
        for (size_t i = 0; i < run->n_samples; i++) {
            if (!keep[i]) continue;
            tmp[n++] = run->samples[i].q[q];
            sum += run->samples[i].q[q];
            int v = run->samples[i].view[q];
            view = view < 0 || view == v ? v : ND_VIEW_MIXED;
        }
        qsort(tmp, n, sizeof *tmp, cmp_double);
        nd_classify_stats *s = &m->q[q];
        s->mean = sum / (double)n;
        s->median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
        s->min = tmp[0];
        s->max = tmp[n - 1];
        m->view[q] = (nd_classify_view)view;
    }
}

/* HTA's overlap over the rank-steps whose communication kernels ran. */
static void overlap_of(const nd_classify_run *run, const bool *keep, nd_classify_summary *m, double *tmp)
{
    size_t n = 0;
    double comm = 0, over = 0, sum = 0;
    for (size_t i = 0; i < run->n_samples; i++) {
        const nd_classify_sample *s = &run->samples[i];
        if (!keep[i] || s->comm_ms <= 0) continue;
        tmp[n] = 100 * s->overlapped_ms / s->comm_ms;
        sum += tmp[n++];
        comm += s->comm_ms;
        over += s->overlapped_ms;
    }
    m->n_overlap_samples = n;
    if (!n) return;
    qsort(tmp, n, sizeof *tmp, cmp_double);
    m->overlap_pct = (nd_classify_stats){
        sum / (double)n, n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2, tmp[0], tmp[n - 1]};
    m->overlap_pct_all = 100 * over / comm;
}

typedef struct rank_key {
    const char *input;
    int rank;
    size_t first; /* the sample index it is for */
} rank_key;

static int cmp_rank_key(const void *a, const void *b)
{
    const rank_key *x = a, *y = b;
    int c = strcmp(x->input, y->input);
    if (c) return c;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* The rank (input, rank) with the highest mean step time, the earliest in input order on
 * a tie; also counts the ranks. Sorted, not compared pairwise: a cluster's run has
 * hundreds of thousands of rank-steps. */
static int slowest_of(const nd_classify_run *run, const bool *keep, nd_classify_summary *m)
{
    rank_key *k = malloc((run->n_samples + 1) * sizeof *k);
    if (!k) return ND_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < run->n_samples; i++)
        if (keep[i]) k[n++] = (rank_key){run->samples[i].input, run->samples[i].rank, i};
    qsort(k, n, sizeof *k, cmp_rank_key);
    m->slowest_mean_ms = -1;
    size_t best_first = SIZE_MAX;
    for (size_t a = 0, b; a < n; a = b) {
        double sum = 0;
        for (b = a; b < n && k[b].rank == k[a].rank && !strcmp(k[b].input, k[a].input); b++)
            sum += run->samples[k[b].first].q[ND_CQ_TIME];
        m->n_ranks++;
        double mean = sum / (double)(b - a);
        if (mean > m->slowest_mean_ms || (mean == m->slowest_mean_ms && k[a].first < best_first)) {
            m->slowest_mean_ms = mean;
            best_first = k[a].first;
            m->slowest_rank = k[a].rank;
            m->slowest_input = k[a].input;
        }
    }
    free(k);
    return ND_OK;
}

static int sites_of(const nd_classify_run *run, const bool *keep, nd_classify_summary *m)
{
    for (size_t i = 0; i < run->n_samples; i++) {
        if (!keep[i]) continue;
        for (size_t k = 0; k < run->samples[i].n_sites; k++) {
            const nd_classify_site *x = &run->samples[i].sites[k];
            nd_classify_site *y = NULL;
            for (size_t j = 0; j < m->n_sites && !y; j++)
                if (m->sites[j].column == x->column && !strcmp(m->sites[j].label, x->label)) y = &m->sites[j];
            if (!y) {
                nd_classify_site *n = realloc(m->sites, (m->n_sites + 1) * sizeof *n);
                if (!n) return ND_ENOMEM;
                m->sites = n;
                y = &m->sites[m->n_sites];
                memset(y, 0, sizeof *y);
                y->column = x->column;
                if (!(y->label = nd_strdup(x->label))) return ND_ENOMEM;
                m->n_sites++;
            }
            y->ms += x->ms;
            y->calls += x->calls;
            y->waits += x->waits;
            y->wait_ms += x->wait_ms;
            y->bytes += x->bytes;
        }
    }
    return ND_OK;
}

int nd_classify_run_finish(nd_classify_run *run, nd_error *err)
{
    nd_classify_summary_free(&run->summary);
    nd_classify_summary *m = &run->summary;
    if (run->n_samples == 0) {
        char names[512] = "";
        for (size_t i = 0; i < run->n_inputs && strlen(names) + 8 < sizeof names; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     run->inputs[i]);
        return nd_error_set(err, ND_EINPUT,
                            "no profiled steps found in %s (no ProfilerStep# event of any length, "
                            "no step_trace_time.csv row)",
                            run->n_inputs ? names : "the given inputs");
    }
    bool *keep = calloc(run->n_samples, sizeof *keep);
    double *tmp = malloc(run->n_samples * sizeof *tmp);
    if (!keep || !tmp) {
        free(keep);
        free(tmp);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int most = 0;
    for (size_t i = 0; i < run->n_samples; i++) {
        keep[i] = run->samples[i].step_order >= run->opts.skip_steps;
        if (run->samples[i].step_order + 1 > most) most = run->samples[i].step_order + 1;
        m->n_samples += keep[i];
    }
    m->n_dropped = run->n_samples - m->n_samples;
    int rc = ND_OK;
    if (m->n_samples == 0)
        rc = nd_error_set(err, ND_EINPUT,
                          "--skip-steps %d drops every step (the ranks have at most %d profiled "
                          "steps)",
                          run->opts.skip_steps, most);
    if (!rc) {
        stats_of(run, keep, m, tmp);
        overlap_of(run, keep, m, tmp);
        if (slowest_of(run, keep, m) || sites_of(run, keep, m) || nd_classify_kernels_summarize(run, keep, m))
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    free(keep);
    free(tmp);
    run->finished = rc == ND_OK;
    return rc;
}
