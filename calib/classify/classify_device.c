/* The device view: a sweep over the kernels of a trace in start order.
 *
 * At every instant the sweep knows which kernels run (a handful: one per busy
 * stream). Time where a compute kernel runs is compute; time where only
 * communication kernels run is exposed communication, split evenly between the
 * groups running then, so the parts of a step still add up to its time. Each step
 * window [ts, ts + dur) of the host's ProfilerStep collects the device time inside
 * it: the device numbers answer "what did the device do during this step's wall
 * time", the question the step time asks. Memory: the running kernels only. */
#include "classify_steps.h"

#include <stdlib.h>
#include <string.h>

/* Kernels running at one instant: a device runs at most ~128 (CUDA's concurrent-kernel
 * limit); more is a broken trace (durations far too long), and each kernel fed scans
 * the running set. */
#define MAX_RUNNING 1024

typedef struct running {
    nd_ns end;
    int32_t group; /* -1: compute */
} running;

struct device_sweep {
    running *run;
    size_t n, cap;
    nd_ns pos;
    bool started;
    size_t cursor; /* first step (by time) that may still get device time */
};

device_sweep *nd_classify_device_sweep_alloc(void)
{
    return calloc(1, sizeof(device_sweep));
}

void nd_classify_device_sweep_free(device_sweep *d)
{
    if (!d) return;
    free(d->run);
    free(d);
}

nd_ns nd_classify_device_sweep_position(const device_sweep *d)
{
    return d->started ? d->pos : INT64_MIN;
}

static int step_add_group(trace_step *s, int32_t group, double ns)
{
    if ((size_t)group >= s->n_dev_groups) {
        size_t n = (size_t)group + 8;
        double *g = realloc(s->dev_group_ns, n * sizeof *g);
        if (!g) return -1;
        memset(g + s->n_dev_groups, 0, (n - s->n_dev_groups) * sizeof *g);
        s->dev_group_ns = g, s->n_dev_groups = n;
    }
    s->dev_group_ns[group] += ns;
    return 0;
}

/* Charges [a, b) with the running set to every step window it overlaps. */
static int charge(device_sweep *d, trace_ctx *t, nd_ns a, nd_ns b)
{
    if (b <= a || d->n == 0) return 0;
    size_t n_steps, n_comm = 0;
    bool compute = false;
    for (size_t i = 0; i < d->n; i++) {
        if (d->run[i].group < 0)
            compute = true;
        else
            n_comm++;
    }
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n_steps);
    while (d->cursor < n_steps) {
        const trace_step *s = nd_classify_trace_step_at(t, order[d->cursor]);
        if (s->ts + s->dur > a) break;
        d->cursor++;
    }
    for (size_t k = d->cursor; k < n_steps; k++) {
        trace_step *s = nd_classify_trace_step_at(t, order[k]);
        if (s->ts >= b) break;
        nd_ns lo = a > s->ts ? a : s->ts, hi = b < s->ts + s->dur ? b : s->ts + s->dur;
        if (hi <= lo) continue;
        double len = (double)(hi - lo);
        s->has_device = true;
        if (compute) {
            s->dev_comp_ns += len;
            continue;
        }
        for (size_t i = 0; i < d->n; i++)
            if (step_add_group(s, d->run[i].group, len / (double)n_comm)) return -1;
    }
    return 0;
}

/* Moves the sweep to time `to`, retiring kernels that end on the way. */
static int advance(device_sweep *d, trace_ctx *t, nd_ns to)
{
    for (;;) {
        nd_ns next = to;
        for (size_t i = 0; i < d->n; i++)
            if (d->run[i].end < next) next = d->run[i].end;
        if (charge(d, t, d->pos, next)) return -1;
        if (next > d->pos) d->pos = next;
        size_t k = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->run[i].end > d->pos) d->run[k++] = d->run[i];
        d->n = k;
        if (next >= to) return 0;
    }
}

int nd_classify_device_sweep_feed(device_sweep *d, trace_ctx *t, const trace_rec *r, nd_error *err)
{
    if (r->dur <= 0) return ND_OK;
    if (!d->started) d->pos = r->ts, d->started = true;
    if (r->ts > d->pos && advance(d, t, r->ts))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (d->n >= MAX_RUNNING)
        return nd_error_set(err, ND_EINPUT,
                            "%s: byte %llu: more than %d device kernels overlap in time (no "
                            "device runs that many at once)",
                            t->path, (unsigned long long)t->offset, MAX_RUNNING);
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        running *run = realloc(d->run, cap * sizeof *run);
        if (!run) return nd_error_set(err, ND_ENOMEM, "out of memory");
        d->run = run, d->cap = cap;
    }
    bool comm = (r->feat & (F_NCCL_KERNEL | F_HCOM)) && r->group >= 0;
    /* A kernel released slightly late (start before pos) runs from pos. */
    d->run[d->n++] = (running){r->ts + r->dur, comm ? r->group : -1};
    return ND_OK;
}

int nd_classify_device_sweep_finish(device_sweep *d, trace_ctx *t, nd_error *err)
{
    if (d->started && advance(d, t, INT64_MAX))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}
