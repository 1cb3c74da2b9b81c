/* The device view: a sweep over the kernels of a trace in start order.
 *
 * Every kernel belongs to one step: the step that launched it (its correlation's runtime
 * call falls in the step's window: HTA's iteration rule), else, when no launch is known,
 * the step whose window holds its start. At every instant the sweep knows which kernels
 * run (a handful: one per busy stream). Time where a compute kernel runs is compute,
 * split evenly between the compute kernels running then, each share to its kernel's step
 * and launch phase; time where only communication kernels run is exposed communication,
 * split evenly between them, each share to its kernel's step and group. So the parts of
 * all steps add up to the device's busy time, and a step's kernels count wherever they
 * run: a kernel launched in step k that runs in step k+1's window is step k's. Memory:
 * the running kernels only. */
#include "classify_steps.h"
#include "classify_links.h"
#include "classify_shapes.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(PHASE_BUCKETS == sizeof((trace_step *)0)->dev_phase_ns / sizeof(double),
               "a device phase per launch bucket");

/* Kernels running at one instant: a device runs at most ~128 (CUDA's concurrent-kernel
 * limit); more is a broken trace (durations far too long), and each kernel fed scans
 * the running set. */
#define MAX_RUNNING 1024

typedef struct running {
    nd_ns end;
    int32_t group; /* -1: compute */
    int32_t step;  /* -1: no step holds it (it still occupies the device) */
    uint8_t phase; /* PHASE_* of its launch */
} running;

struct device_sweep {
    running *run;
    size_t n, cap;
    nd_ns pos;
    bool started;
    uint64_t own_ops; /* kernels that were their own op (Ascend's), numbered apart from the store's */
};

#define OWN_OP_BIT ((uint64_t)1 << 63)

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
        s->dev_groups = g;
        s->n_dev_groups = n;
    }
    return &s->dev_groups[group];
}

/* Charges [a, b) with the running set: each running kernel's share to its step. */
static int charge(device_sweep *d, trace_ctx *t, nd_ns a, nd_ns b)
{
    if (b <= a || d->n == 0) return 0;
    size_t n_comp = 0, n_comm = 0;
    for (size_t i = 0; i < d->n; i++) d->run[i].group < 0 ? n_comp++ : n_comm++;
    double len = (double)(b - a);
    for (size_t i = 0; i < d->n; i++) {
        const running *r = &d->run[i];
        trace_step *s = nd_classify_trace_step_at(t, r->step);
        if (!s) continue;
        if (r->group < 0) {
            s->dev_phase_ns[r->phase] += len / (double)n_comp;
            s->dev_comp_ns += len / (double)n_comp;
            continue;
        }
        s->dev_comm_ns += len / (double)n_comm;
        if (n_comp) {
            s->dev_overlap_ns += len / (double)n_comm;
            continue;
        }
        step_group *g = step_group_of(s, r->group);
        if (!g) return -1;
        g->exposed_ns += len / (double)n_comm;
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
        s->shapes = n;
        s->cap_shapes = cap;
    }
    s->shapes[s->n_shapes] = (step_shape){.shape = shape};
    return &s->shapes[s->n_shapes++];
}

/* The kernel view: k's whole time in its step, by class; a collective's time, call and
 * payload by group; a GEMM's or attention's by shape (its op's other kernels add time,
 * not calls; a memset or copy the op launched is no part of its time). */
static int kernel_view(trace_step *s, const trace_rec *k, bool comm, const link_info *li)
{
    nd_classify_kernel_class cls = k->cat == CAT_MEMORY ? ND_KC_MEMORY : F_KCLASS(k->feat);
    double ns = (double)k->dur;
    s->kclass_ns[cls] += ns;
    if (comm) {
        step_group *g = step_group_of(s, k->group);
        if (!g) return -1;
        g->kernel_ns += ns;
        g->calls += 1;
        g->bytes += (double)k->bytes;
    } else if (li && li->shape >= 0 && cls != ND_KC_MEMORY) {
        step_shape *x = step_shape_of(s, li->shape);
        if (!x) return -1;
        x->ns += ns;
        if (x->last_op != li->op) {
            x->calls += 1;
            x->flops += li->flops;
            x->last_op = li->op;
        }
    }
    return 0;
}

/* A group of kind k alone (a kernel whose launching collective names none). */
static int32_t kind_group(trace_ctx *t, coll_kind k)
{
    comm_group g = {.kind = k};
    int i = nd_classify_group_table_intern(&t->groups, &g);
    return i >= 0 ? i : -1;
}

/* A kernel's collective and payload from the op that launched it, unless its own
 * arguments name its group (newer torch). SendRecv kernels run all-to-all too: only the
 * launching op says which. A kernel of no known family that a collective op launched,
 * and that its name does not make a GEMM, an elementwise or a copy, is communication too
 * (a custom all-to-all). Returns whether k is communication. */
static bool link_kernel(trace_ctx *t, trace_rec *k, link_info *li, bool *found)
{
    *found = (k->corr || k->ext) && nd_classify_links_find(t->links, k->corr, k->ext, li);
    bool comm = (k->feat & F_COMM_KERNEL) != 0;
    if (!comm && *found && li->in_comm && k->cat == CAT_KERNEL && F_KCLASS(k->feat) == ND_KC_OTHER) {
        comm = true;
        k->feat = (k->feat & ~(0xfu << F_KCLASS_SHIFT)) | ((uint32_t)ND_KC_COMM << F_KCLASS_SHIFT);
        k->group = li->group >= 0 ? li->group : kind_group(t, COLL_UNKNOWN);
    }
    if (!comm) return false;
    if (!(k->flags & REC_OWN_GROUP)) {
        coll_kind named = F_COLL(k->feat);
        if (*found && li->group >= 0) {
            k->group = li->group;
            t->linked_comm++;
        } else if ((k->feat & F_NCCL_FAMILY) && (named == COLL_P2P || named == COLL_UNKNOWN))
            t->unlinked_comm++; /* SendRecv: the name cannot tell p2p from all-to-all */
    }
    if (*found && k->bytes == 0 && li->bytes > 0 && li->bytes <= 1e18) k->bytes = (int64_t)li->bytes;
    return k->group >= 0;
}

/* The step of k: its launch's (none when no step held the launch: HTA's iteration -1),
 * else, when no launch is known, the one whose window holds its start; and the phase of
 * its launch. Counts what no step holds. */
static void place_kernel(trace_ctx *t, const trace_rec *k, launch_place *at)
{
    if (!(k->corr && nd_classify_links_place(t->links, k->corr, at))) {
        at->step = nd_classify_trace_step_of(t, k->ts);
        at->phase = PHASE_UNKNOWN;
        if (at->step >= 0) t->by_window++;
    }
    if (at->step >= 0) return;
    t->unassigned_kernels++;
    t->unassigned_ns += (double)k->dur;
    size_t n;
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n);
    const trace_step *last = n ? &t->steps[order[n - 1]] : NULL;
    if (last && k->ts >= last->ts + last->dur) {
        t->late_kernels++;
        t->late_ns += (double)k->dur;
    }
}

/* Adds [ts, end) to a union of intervals that arrive in start order. */
static void union_add(nd_ns *run_end, double *sum, nd_ns ts, nd_ns end, bool first)
{
    nd_ns from = first || ts > *run_end ? ts : *run_end;
    if (end > from) *sum += (double)(end - from);
    if (first || end > *run_end) *run_end = end;
}

/* HTA's temporal breakdown of the kernels of the steps (classify_steps.h). */
static void hta_add(hta_breakdown *h, const trace_rec *k)
{
    nd_ns end = k->ts + k->dur;
    bool first = !h->any;
    if (first || k->ts < h->lo) h->lo = k->ts;
    if (first || end > h->hi) h->hi = end;
    union_add(&h->all_end, &h->busy_ns, k->ts, end, first);
    bool comp = !(k->flags & (REC_HTA_COMM | REC_HTA_MEMORY)) && k->cat != CAT_MEMORY;
    if (comp) {
        union_add(&h->comp_end, &h->comp_ns, k->ts, end, !h->any_comp);
        h->any_comp = true;
    }
    h->any = true;
}

/* Records k in its step: the kernel view, and the time it runs past the step's end. */
static int step_record(trace_ctx *t, const trace_rec *k, const launch_place *at, bool comm,
                       const link_info *li)
{
    trace_step *s = nd_classify_trace_step_at(t, at->step);
    if (!s) return 0;
    s->has_device = true;
    hta_add(&t->hta, k);
    nd_ns end = s->ts + s->dur, from = k->ts > end ? k->ts : end;
    if (k->ts + k->dur > end) {
        s->tail_kernels++;
        s->tail_ns += (double)(k->ts + k->dur - from);
    }
    return kernel_view(s, k, comm, li);
}

static int running_add(device_sweep *d, trace_ctx *t, const trace_rec *k, bool comm, const launch_place *at,
                       nd_error *err)
{
    if (!d->started) {
        d->pos = k->ts;
        d->started = true;
    }
    if (k->ts > d->pos && advance(d, t, k->ts)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (d->n >= MAX_RUNNING)
        return nd_error_set(err, ND_EINPUT,
                            "%s: byte %llu: more than %d device kernels overlap in time (no "
                            "device runs that many at once)",
                            t->path, (unsigned long long)t->offset, MAX_RUNNING);
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        running *run = realloc(d->run, cap * sizeof *run);
        if (!run) return nd_error_set(err, ND_ENOMEM, "out of memory");
        d->run = run;
        d->cap = cap;
    }
    /* A kernel released slightly late (start before pos) runs from pos. */
    d->run[d->n++] = (running){k->ts + k->dur, comm ? k->group : -1, at->step, at->phase};
    return ND_OK;
}

int nd_classify_device_sweep_feed(device_sweep *d, trace_ctx *t, const trace_rec *r, nd_error *err)
{
    if (r->dur <= 0) return ND_OK;
    trace_rec k = *r;
    link_info li;
    bool found;
    bool comm = link_kernel(t, &k, &li, &found);
    if (!found && !comm && k.own_shape > 0 && (size_t)k.own_shape <= t->shapes.n) {
        /* a kernel that states its own sizes (Ascend's kernel_details): its own op */
        const shape_key *sk = &t->shapes.items[k.own_shape - 1];
        li = (link_info){.group = -1,
                         .shape = k.own_shape - 1,
                         .flops = nd_classify_shape_flops(sk),
                         .op = OWN_OP_BIT | ++d->own_ops};
        found = true;
    }
    launch_place at;
    place_kernel(t, &k, &at);
    if (step_record(t, &k, &at, comm, found ? &li : NULL))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (k.cat == CAT_MEMORY) return ND_OK; /* a copy is not compute: only the kernel view */
    return running_add(d, t, &k, comm, &at, err);
}

int nd_classify_device_sweep_finish(device_sweep *d, trace_ctx *t, nd_error *err)
{
    if (d->started && advance(d, t, INT64_MAX)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}
