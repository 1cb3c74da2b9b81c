/* Cross-checks of the device view against the profiler's own summaries, where the
 * profiler wrote one: torch_npu's "Overlap Analysis" rows in trace_view.json (its
 * compute, exposed communication and free time, projected from the same device tasks),
 * and the step_trace_time.csv torch_npu writes beside trace_view.json. Over the steps of
 * a trace, nd's means are set beside the profiler's; more than 5 % apart (and more than
 * 0.01 ms) is a warning, within it a note. */
#include "classify_checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "classify_ascend.h"
#include "classify_output.h"
#include "nd/base/io.h"

#define CHECK_TOLERANCE 0.05
#define CHECK_FLOOR_MS  0.01

enum { Q_COMP, Q_EXPOSED, Q_FREE, Q_N };

typedef struct check_sum {
    double nd[Q_N], prof[Q_N];
    size_t steps;
    int n; /* quantities compared (free only against Overlap Analysis) */
} check_sum;

static double exposed_ns(const trace_step *s)
{
    double ns = 0;
    for (size_t g = 0; g < s->n_dev_groups; g++) ns += s->dev_groups[g].exposed_ns;
    return ns;
}

static void report(trace_ctx *t, const char *source, const check_sum *c)
{
    static const char *const names[Q_N] = {"compute", "exposed communication", "free"};
    char text[600];
    size_t used = 0;
    bool off = false;
    for (int i = 0; i < c->n; i++) {
        double nd = c->nd[i] / (double)c->steps, pr = c->prof[i] / (double)c->steps;
        double diff = fabs(nd - pr);
        off |= diff > CHECK_FLOOR_MS && diff > CHECK_TOLERANCE * pr;
        char a[ND_CLASSIFY_MS_TEXT], b[ND_CLASSIFY_MS_TEXT];
        nd_classify_format_ms(nd, a);
        nd_classify_format_ms(pr, b);
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s %s vs %s ms", i ? ", " : "", names[i],
                                 a, b);
        if (pr > 0 && used < sizeof text)
            used += (size_t)snprintf(text + used, sizeof text - used, " (%+.1f %%)", 100 * (nd - pr) / pr);
        if (used >= sizeof text) break;
    }
    if (off)
        nd_classify_run_warn(t->run,
                             "%s: nd's device split differs from %s by more than 5 %% (nd vs "
                             "profiler, mean of %zu steps): %s",
                             t->path, source, c->steps, text);
    else
        nd_classify_run_note(t->run,
                             "%s: cross-check with %s, mean of %zu steps (nd vs profiler): %s; "
                             "within 5 %%",
                             t->path, source, c->steps, text);
}

/* torch_npu's Overlap Analysis: its rows cover the device's busy span, so nd's free time
 * is that span less nd's compute and exposed communication. */
static void check_overlap(trace_ctx *t)
{
    check_sum c = {.n = Q_N};
    for (size_t i = 0; i < t->n_steps; i++) {
        const trace_step *s = &t->steps[i];
        if (!s->has_prof || !s->has_device || s->dur <= 0) continue;
        double comp = s->dev_comp_ns, exp = exposed_ns(s);
        c.nd[Q_COMP] += comp / 1e6;
        c.nd[Q_EXPOSED] += exp / 1e6;
        c.nd[Q_FREE] += ((double)(s->prof_hi - s->prof_lo) - comp - exp) / 1e6;
        c.prof[Q_COMP] += s->prof_ns[SUM_COMPUTING] / 1e6;
        c.prof[Q_EXPOSED] += s->prof_ns[SUM_NOT_OVERLAPPED] / 1e6;
        c.prof[Q_FREE] += s->prof_ns[SUM_FREE] / 1e6;
        c.steps++;
    }
    if (c.steps) report(t, "torch_npu's Overlap Analysis", &c);
}

/* The N of "ProfilerStep#N" (or of kernel_details.csv's "stepN"), or -1. */
static long step_number(const char *name)
{
    const char *h = strchr(name, '#');
    if (!h && !strncmp(name, "step", 4)) h = name + 3;
    char *end;
    long v = h ? strtol(h + 1, &end, 10) : -1;
    return h && end != h + 1 && v >= 0 ? v : -1;
}

/* torch_npu writes step_trace_time.csv beside trace_view.json: its rows, by step
 * number (and rank when both say it). */
static void check_step_trace(trace_ctx *t)
{
    char *dir = nd_path_dir(t->path), *csv = dir ? nd_path_join(dir, "step_trace_time.csv") : NULL;
    free(dir);
    ascend_row *rows = NULL;
    size_t n = 0;
    nd_error err = {0};
    struct stat st;
    if (!csv || stat(csv, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(csv);
        return;
    }
    if (nd_classify_ascend_rows(csv, &rows, &n, NULL, &err)) {
        nd_classify_run_note(t->run, "%s: no cross-check with the step_trace_time.csv beside it: %s", t->path,
                             err.message);
        free(csv);
        return;
    }
    check_sum c = {.n = 2};
    for (size_t i = 0; i < t->n_steps; i++) {
        const trace_step *s = &t->steps[i];
        long num = step_number(s->name);
        if (!s->has_device || num < 0) continue;
        for (size_t k = 0; k < n; k++) {
            const ascend_row *r = &rows[k];
            if (r->step_num != num || (r->rank >= 0 && t->rank >= 0 && r->rank != t->rank)) continue;
            c.nd[Q_COMP] += s->dev_comp_ns / 1e6;
            c.nd[Q_EXPOSED] += exposed_ns(s) / 1e6;
            c.prof[Q_COMP] += r->comp_ms;
            c.prof[Q_EXPOSED] += r->exposed_ms;
            c.steps++;
            break;
        }
    }
    if (c.steps) report(t, "the step_trace_time.csv beside it", &c);
    free(rows);
    free(csv);
}

/* HTA's temporal breakdown of the same kernels, with HTA's kernel types: its compute is
 * nd's device compute when both call the same kernels communication; HTA calls only names
 * holding "ncclKernel" so (not ncclDevKernel_, DeepEP, HCCL...), and the note says so. */
static void check_hta(trace_ctx *t)
{
    const hta_breakdown *h = &t->hta;
    if (!h->any || h->hi <= h->lo) return;
    double nd = 0, span = (double)(h->hi - h->lo);
    for (size_t i = 0; i < t->n_steps; i++) nd += t->steps[i].dev_comp_ns;
    double idle = span - h->busy_ns, non = span - h->comp_ns - idle;
    char a[ND_CLASSIFY_MS_TEXT], b[ND_CLASSIFY_MS_TEXT], c[ND_CLASSIFY_MS_TEXT], d[ND_CLASSIFY_MS_TEXT];
    nd_classify_format_ms(h->comp_ns / 1e6, a);
    nd_classify_format_ms(non / 1e6, b);
    nd_classify_format_ms(idle / 1e6, c);
    nd_classify_format_ms(nd / 1e6, d);
    bool same = fabs(nd - h->comp_ns) / 1e6 < 0.0005;
    nd_classify_run_note(
        t->run,
        "%s: HTA's temporal breakdown of the steps' kernels (their span, %.3f ms): compute %s "
        "ms (%.1f %%), non-compute %s ms (%.1f %%), idle %s ms (%.1f %%); nd's device compute %s ms%s",
        t->path, span / 1e6, a, 100 * h->comp_ns / span, b, 100 * non / span, c, 100 * idle / span, d,
        same              ? ": agrees"
        : nd < h->comp_ns ? ": HTA counts as compute the kernels nd knows as communication but whose "
                            "names hold no \"ncclKernel\" (ncclDevKernel_, DeepEP, HCCL, --comm-kernel ...)"
                          : ": HTA counts as memory the kernels named Memcpy or Memset that nd computes");
}

void nd_classify_cross_check(trace_ctx *t, bool device)
{
    if (!device) return; /* the summaries describe the device, not the host's blocking */
    check_overlap(t);
    check_step_trace(t);
    check_hta(t);
}
