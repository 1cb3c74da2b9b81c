/* The host view: ND's Chrome-path classifier (docs/reference/nd-calibration.md §3.2-§3.3),
 * one thread at a time, online.
 *
 * ND sorts a step's events and walks them with an open-frame stack, then takes unions
 * of intervals. Because events on one thread nest (a call stack), communication roots
 * never overlap each other (an event starting inside a root is its descendant) and
 * neither do compute ops (a cpu_op inside a cpu_op is not top-level). So each union is
 * a plain sum, and "compute minus communication" is each compute op's length minus the
 * roots nested in it. That needs only the stack: memory is the call depth, not the
 * trace. nd adds: record_param_comms and nccl:/gloo: annotations are roots too (older
 * traces have no c10d op), and a root no rule places is placed by its process group
 * when the trace names one (else it stays unclassified, as in ND). */
#include "classify_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct frame {
    nd_ns start, end, cend; /* end as recorded; cend clipped to the step's end */
    uint32_t feat;
    uint8_t cat;
    bool under_cpu;  /* this frame or an ancestor is a cpu_op */
    bool is_compute; /* a top-level cpu_op outside communication */
    uint32_t phases; /* F_BW | F_REC | F_OPT | F_FW inherited */
    int root;        /* stack index of the enclosing communication root, or -1 */
    /* when this frame is a root: */
    int column; /* decided column, or -1 (group or unclassified at the end) */
    const char *label;
    int32_t group;
    double bytes;
    bool is_wait;
    nd_ns comm_inside; /* compute frames: root time nested inside */
} frame;

struct host_track {
    frame *frames;
    size_t depth, cap;
    int32_t step; /* index of the open step, or -1 */
    nd_ns step_start, step_end;
};

host_track *nd_classify_host_track_alloc(void)
{
    host_track *h = calloc(1, sizeof *h);
    if (h) h->step = -1;
    return h;
}

void nd_classify_host_track_free(host_track *h)
{
    if (!h) return;
    free(h->frames);
    free(h);
}

static const char *fsdp_label(unsigned kind)
{
    switch (kind) {
    case 2: return "fsdp grad reduce-scatter";
    case 3: return "fsdp grad all-reduce";
    case 4: return "fsdp grad all-to-all";
    case 5: return "fsdp grad p2p";
    default: return "fsdp grad unknown";
    }
}

/* ND §3.3: frames innermost outward (self first), the first rule that matches decides. */
static int classify_root(const host_track *h, uint32_t self, const char **label)
{
    for (size_t i = h->depth + 1; i-- > 0;) {
        uint32_t f = i == h->depth ? self : h->frames[i].feat;
        switch (F_RULE(f)) {
        case 0: continue;
        case 1: *label = "sequence parallel"; return ND_CQ_SP_WAIT;
        case 2: *label = "tensor parallel"; return ND_CQ_MP_WAIT;
        case 3: *label = "context parallel"; return ND_CQ_CP_WAIT;
        case 4: *label = "expert parallel"; return ND_CQ_EP_WAIT;
        case 5: *label = "pipeline p2p"; return ND_CQ_PP_WAIT;
        case 6: *label = "grad-norm all-reduce"; return ND_CQ_DP_WAIT;
        case 8: *label = "trainer all-reduce"; return ND_CQ_DP_WAIT;
        case 7: {
            unsigned kind = F_FSDP(self);
            for (size_t k = h->depth; !kind && k-- > 0;) kind = F_FSDP(h->frames[k].feat);
            if (kind == 1) {
                *label = "fsdp param all-gather";
                return ND_CQ_OP_WAIT;
            }
            *label = fsdp_label(kind);
            return ND_CQ_DP_WAIT;
        }
        }
    }
    *label = NULL;
    return -1;
}

static bool is_root(const trace_rec *r)
{
    switch (r->cat) {
    case CAT_PYTHON: return (r->feat & (F_WAIT_ROOT | F_C10D_PY)) != 0;
    case CAT_CPU_OP: return (r->feat & (F_C10D_OP | F_RPC)) != 0;
    case CAT_ANNOTATION: return (r->feat & F_COMM_ANNOT) != 0;
    default: return false;
    }
}

static int bucket_of(uint32_t phases)
{
    if ((phases & F_BW) && (phases & F_REC)) return 2;
    if (phases & F_BW) return 1;
    if (phases & F_OPT) return 3;
    if (phases & F_FW) return 0;
    return 4;
}

static int frame_close(host_track *h, trace_ctx *t, const frame *f, nd_error *err)
{
    trace_step *s = nd_classify_trace_step_at(t, h->step);
    nd_ns len = f->cend > f->start ? f->cend - f->start : 0;
    if (f->is_compute) s->phase_ns[bucket_of(f->phases)] += (double)(len - f->comm_inside);
    if (f->root != (int)(f - h->frames)) return ND_OK;
    step_site *site;
    if (f->column >= 0)
        site = nd_classify_trace_step_site(s, f->column, f->label, -1);
    else if (f->group >= 0)
        site = nd_classify_trace_step_site(s, -1, NULL, f->group);
    else
        site = nd_classify_trace_step_site(s, ND_CQ_UNCLASSIFIED,
                                           nd_classify_quantity_name(ND_CQ_UNCLASSIFIED), -1);
    if (!site) return nd_error_set(err, ND_ENOMEM, "out of memory");
    site->ns += (double)len;
    site->bytes += f->bytes;
    if (f->is_wait)
        site->waits += 1;
    else
        site->calls += 1;
    return ND_OK;
}

static int pop_until(host_track *h, trace_ctx *t, nd_ns ts, nd_error *err)
{
    while (h->depth && h->frames[h->depth - 1].end <= ts) {
        h->depth--;
        int rc = frame_close(h, t, &h->frames[h->depth], err);
        if (rc) return rc;
    }
    return ND_OK;
}

static int step_close(host_track *h, trace_ctx *t, nd_error *err)
{
    if (h->step < 0) return ND_OK;
    while (h->depth) {
        h->depth--;
        int rc = frame_close(h, t, &h->frames[h->depth], err);
        if (rc) return rc;
    }
    nd_classify_trace_step_at(t, h->step)->host_done = true;
    h->step = -1;
    return ND_OK;
}

static void frame_init(host_track *h, frame *f, const trace_rec *r)
{
    const frame *parent = h->depth ? &h->frames[h->depth - 1] : NULL;
    memset(f, 0, sizeof *f);
    f->start = r->ts;
    f->end = r->ts + r->dur;
    f->cend = f->end < h->step_end ? f->end : h->step_end;
    f->feat = r->feat;
    f->cat = r->cat;
    f->phases = (parent ? parent->phases : 0) | (r->feat & F_PHASES);
    f->under_cpu = parent && (parent->under_cpu || parent->cat == CAT_CPU_OP);
    f->root = parent ? parent->root : -1;
    f->column = -1;
    f->group = -1;
}

/* A new communication root: classify it and take its time out of the compute op
 * it is nested in. */
static void root_open(host_track *h, frame *f, const trace_rec *r)
{
    f->root = (int)h->depth;
    f->column = classify_root(h, r->feat, &f->label);
    f->is_wait = r->cat == CAT_PYTHON && (r->feat & F_WAIT_ROOT);
    for (size_t i = 0; i < h->depth; i++) {
        const frame *a = &h->frames[i];
        if (!a->is_compute) continue;
        nd_ns end = f->cend < a->cend ? f->cend : a->cend;
        if (end > f->start) h->frames[i].comm_inside += end - f->start;
    }
}

int nd_classify_host_track_feed(host_track *h, trace_ctx *t, uint32_t track, const trace_rec *r,
                                nd_error *err)
{
    int rc;
    if (r->feat & F_STEP) {
        if ((rc = step_close(h, t, err))) return rc;
        trace_step *s = nd_classify_trace_step_at(t, r->group);
        if (!s || s->track != track) return ND_OK;
        h->step = r->group;
        h->step_start = r->ts;
        h->step_end = r->ts + r->dur;
        return ND_OK;
    }
    if (h->step < 0 || r->ts < h->step_start) return ND_OK;
    if (r->ts >= h->step_end) return step_close(h, t, err);
    if ((rc = pop_until(h, t, r->ts, err))) return rc;
    if (h->depth == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        frame *fr = realloc(h->frames, cap * sizeof *fr);
        if (!fr) return nd_error_set(err, ND_ENOMEM, "out of memory");
        h->frames = fr;
        h->cap = cap;
    }
    frame *f = &h->frames[h->depth];
    frame_init(h, f, r);
    if (f->root < 0 && is_root(r))
        root_open(h, f, r);
    else if (f->root < 0 && r->cat == CAT_CPU_OP && !f->under_cpu)
        f->is_compute = true;
    if (f->root >= 0) {
        frame *root = f->root == (int)h->depth ? f : &h->frames[f->root];
        /* A group that is a kind alone places only nd's own roots (record_param_comms,
         * nccl:*): ND leaves its roots that no rule places unclassified. Their payload is
         * the largest tensor they or their annotations name (they hold no c10d op). */
        bool nd_root = (root->feat & (F_RPC | F_COMM_ANNOT)) != 0;
        if (r->cat == CAT_CPU_OP && (r->feat & F_C10D_OP))
            root->bytes += (double)r->bytes;
        else if (nd_root && (r->feat & (F_RPC | F_COMM_ANNOT)) && (double)r->bytes > root->bytes)
            root->bytes = (double)r->bytes;
        if (root->group < 0 && r->group >= 0 && (nd_root || !(r->flags & REC_KIND_ONLY)))
            root->group = r->group;
    }
    h->depth++;
    return ND_OK;
}

int nd_classify_host_track_open(host_track *h, trace_ctx *t, int32_t index, nd_error *err)
{
    int rc = step_close(h, t, err);
    trace_step *s = nd_classify_trace_step_at(t, index);
    if (rc || !s) return rc;
    h->step = index;
    h->step_start = s->ts;
    h->step_end = s->ts + s->dur;
    return ND_OK;
}

int nd_classify_host_track_finish(host_track *h, trace_ctx *t, nd_error *err)
{
    return step_close(h, t, err);
}
