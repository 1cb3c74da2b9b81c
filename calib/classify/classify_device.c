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
#include "classify_links.h"

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
    size_t cursor;  /* first step (by time) that may still get device time */
    size_t kcursor; /* the same for the kernel view (kernels arrive in start order) */
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

/* The step's record of a group, created (zeroed) if new; NULL when out of memory. */
static step_group *step_group_of(trace_step *s, int32_t group)
{
    if ((size_t)group >= s->n_dev_groups) {
        size_t n = (size_t)group + 8;
        step_group *g = realloc(s->dev_groups, n * sizeof *g);
        if (!g) return NULL;
        memset(g + s->n_dev_groups, 0, (n - s->n_dev_groups) * sizeof *g);
        s->dev_groups = g, s->n_dev_groups = n;
    }
    return &s->dev_groups[group];
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
        for (size_t i = 0; i < d->n; i++) {
            step_group *g = step_group_of(s, d->run[i].group);
            if (!g) return -1;
            g->exposed_ns += len / (double)n_comm;
        }
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

static step_shape *step_shape_of(trace_step *s, int32_t shape)
{
    for (size_t i = 0; i < s->n_shapes; i++)
        if (s->shapes[i].shape == shape) return &s->shapes[i];
    if (s->n_shapes == s->cap_shapes) {
        size_t cap = s->cap_shapes ? s->cap_shapes * 2 : 8;
        step_shape *n = realloc(s->shapes, cap * sizeof *n);
        if (!n) return NULL;
        s->shapes = n, s->cap_shapes = cap;
    }
    s->shapes[s->n_shapes] = (step_shape){.shape = shape};
    return &s->shapes[s->n_shapes++];
}

/* The kernel view: k's time inside each step window it overlaps, by class; a
 * collective's time, call and payload by group; a GEMM's or attention's by shape. A call
 * counts in the step its kernel starts in. */
static int kernel_view(device_sweep *d, trace_ctx *t, const trace_rec *k, const link_info *li)
{
    size_t n;
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n);
    while (d->kcursor < n) {
        const trace_step *s = nd_classify_trace_step_at(t, order[d->kcursor]);
        if (s->ts + s->dur > k->ts) break;
        d->kcursor++;
    }
    nd_classify_kernel_class cls = k->cat == CAT_MEMORY ? ND_KC_MEMORY : F_KCLASS(k->feat);
    bool comm = (k->feat & (F_NCCL_KERNEL | F_HCOM)) && k->group >= 0;
    for (size_t i = d->kcursor; i < n; i++) {
        trace_step *s = nd_classify_trace_step_at(t, order[i]);
        if (s->ts >= k->ts + k->dur) break;
        nd_ns lo = k->ts > s->ts ? k->ts : s->ts, hi = k->ts + k->dur;
        if (hi > s->ts + s->dur) hi = s->ts + s->dur;
        if (hi <= lo) continue;
        bool starts = k->ts >= s->ts && k->ts < s->ts + s->dur;
        s->kclass_ns[cls] += (double)(hi - lo);
        if (comm) {
            step_group *g = step_group_of(s, k->group);
            if (!g) return -1;
            g->kernel_ns += (double)(hi - lo);
            if (starts) g->calls += 1, g->bytes += (double)k->bytes;
        } else if (li && li->shape >= 0) {
            step_shape *x = step_shape_of(s, li->shape);
            if (!x) return -1;
            x->ns += (double)(hi - lo);
            if (starts && x->last_op != li->op) x->calls += 1, x->flops += li->flops, x->last_op = li->op;
        }
    }
    return 0;
}

/* A kernel's collective and payload from the op that launched it, unless its own
 * arguments name its group (newer torch). SendRecv kernels run all-to-all too: only the
 * launching op says which. */
static void link_kernel(trace_ctx *t, trace_rec *k, link_info *li, bool *found)
{
    *found = (k->corr || k->ext) && !nd_classify_links_empty(t->links) &&
             nd_classify_links_find(t->links, k->corr, k->ext, li);
    if (!(k->feat & (F_NCCL_KERNEL | F_HCOM))) return;
    if (!(k->flags & REC_OWN_GROUP)) {
        coll_kind named = F_COLL(k->feat);
        if (*found && li->group >= 0) k->group = li->group, t->linked_comm++;
        else if ((k->feat & F_NCCL_KERNEL) && (named == COLL_P2P || named == COLL_UNKNOWN))
            t->unlinked_comm++; /* SendRecv: the name cannot tell p2p from all-to-all */
    }
    if (*found && k->bytes == 0 && li->bytes > 0 && li->bytes <= 1e18) k->bytes = (int64_t)li->bytes;
}

int nd_classify_device_sweep_feed(device_sweep *d, trace_ctx *t, const trace_rec *r, nd_error *err)
{
    if (r->dur <= 0) return ND_OK;
    trace_rec k = *r;
    link_info li;
    bool found;
    link_kernel(t, &k, &li, &found);
    if (kernel_view(d, t, &k, found ? &li : NULL)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (k.cat == CAT_MEMORY) return ND_OK; /* a copy is not compute: only the kernel view */
    if (!d->started) d->pos = k.ts, d->started = true;
    if (k.ts > d->pos && advance(d, t, k.ts))
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
    bool comm = (k.feat & (F_NCCL_KERNEL | F_HCOM)) && k.group >= 0;
    /* A kernel released slightly late (start before pos) runs from pos. */
    d->run[d->n++] = (running){k.ts + k.dur, comm ? k.group : -1};
    return ND_OK;
}

int nd_classify_device_sweep_finish(device_sweep *d, trace_ctx *t, nd_error *err)
{
    if (d->started && advance(d, t, INT64_MAX))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}
