/* One Chrome trace: the steps it holds, the streams its events are routed to (one
 * per host thread, one for the device), and the rank-step samples it yields. */
#include "classify_trace.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"
#include "nd/base/text.h"

/* Records held in all reorder windows of a trace together: about 14 MiB. When more
 * are held, the fullest stream releases its oldest record early. */
#define HELD_BUDGET (1u << 18)
/* Host threads (pid, tid pairs) and ProfilerStep events in one trace: torch writes a
 * few threads and a few steps; the bounds keep the per-event searches (tracks) and the
 * step order (an insertion) from growing with a hostile file. */
#define MAX_TRACKS 4096
#define MAX_STEPS  65536

/* A step the first reading registered (a second reading knows every step before its
 * events): the index of the one starting at ts, or -1. */
static int32_t preset_step_at(const trace_ctx *t, nd_ns ts, nd_ns dur)
{
    int32_t i = nd_classify_trace_step_of(t, ts);
    return i >= 0 && t->steps[i].ts == ts && t->steps[i].dur == dur ? i : -1;
}

/* Registers a ProfilerStep window recorded on host thread `track`; *index_out gets its
 * index. The by_time order is kept by insertion. A step whose window holds a launch read
 * before it, or whose start the device sweep has passed, asks for a second reading
 * (classify_chrome.c) with every step known from the start. */
static int trace_step_add(trace_ctx *t, const char *name, nd_ns ts, nd_ns dur, uint32_t track,
                          int32_t *index_out)
{
    if (t->preset) {
        *index_out = preset_step_at(t, ts, dur);
        return ND_OK;
    }
    if (t->n_steps == t->cap_steps) {
        size_t cap = t->cap_steps ? t->cap_steps * 2 : 16;
        trace_step *s = realloc(t->steps, cap * sizeof *s);
        int32_t *o = s ? realloc(t->by_time, cap * sizeof *o) : NULL;
        if (s) t->steps = s;
        if (!s || !o) return ND_ENOMEM;
        t->by_time = o;
        t->cap_steps = cap;
    }
    trace_step *s = &t->steps[t->n_steps];
    memset(s, 0, sizeof *s);
    nd_text_copy(s->name, name, sizeof s->name);
    s->ts = ts;
    s->dur = dur;
    s->track = track;
    /* Keep by_time sorted; steps arrive nearly in order, so this is cheap. */
    size_t i = t->n_steps;
    while (i > 0 && t->steps[t->by_time[i - 1]].ts > ts) {
        t->by_time[i] = t->by_time[i - 1];
        i--;
    }
    t->by_time[i] = (int32_t)t->n_steps;
    *index_out = (int32_t)t->n_steps++;
    if (t->dev && ts < nd_classify_device_sweep_position(t->dev)) t->device_late = true;
    if (t->stepless_launches && ts <= t->stepless_hi && t->stepless_lo < ts + dur) t->launch_late = true;
    return ND_OK;
}

/* ---- streams ------------------------------------------------------------------- */

static int track_of(trace_ctx *t, uint64_t key, uint32_t *index, nd_error *err)
{
    for (size_t i = t->n_tracks; i-- > 0;) /* few threads; the busy one is usually last used */
        if (t->tracks[i].key == key) {
            *index = (uint32_t)i;
            return ND_OK;
        }
    if (t->n_tracks >= MAX_TRACKS)
        return nd_error_set(err, ND_EINPUT, "%s: byte %llu: events on more than %d threads (pid, tid)",
                            t->path, (unsigned long long)t->offset, MAX_TRACKS);
    if (t->n_tracks == t->cap_tracks) {
        size_t cap = t->cap_tracks ? t->cap_tracks * 2 : 8;
        host_stream *n = realloc(t->tracks, cap * sizeof *n);
        if (!n) return nd_error_set(err, ND_ENOMEM, "out of memory");
        t->tracks = n;
        t->cap_tracks = cap;
    }
    host_stream *s = &t->tracks[t->n_tracks];
    memset(s, 0, sizeof *s);
    s->key = key;
    s->host = nd_classify_host_track_alloc();
    if (!s->host) return nd_error_set(err, ND_ENOMEM, "out of memory");
    *index = (uint32_t)t->n_tracks++;
    return ND_OK;
}

static int late_error(trace_ctx *t, const char *what, nd_error *err)
{
    return nd_error_set(err, ND_EINPUT,
                        "%s: byte %llu: %s events are out of time order by more than %u "
                        "events; nd-classify streams traces and needs each thread's events "
                        "written about in time order, as torch and torch_npu write them",
                        t->path, (unsigned long long)t->offset, what, REORDER_WINDOW);
}

/* An "Overlap Analysis" row: its time inside each step window it overlaps. */
static void summary_charge(trace_ctx *t, const trace_rec *r)
{
    size_t n;
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n);
    size_t lo = 0, hi = n; /* the first step starting after r */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->steps[order[mid]].ts <= r->ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo ? lo - 1 : 0; k < n; k++) {
        trace_step *s = &t->steps[order[k]];
        if (s->ts >= r->ts + r->dur) break;
        nd_ns a = r->ts > s->ts ? r->ts : s->ts, b = r->ts + r->dur;
        if (b > s->ts + s->dur) b = s->ts + s->dur;
        if (b <= a) continue;
        if (!s->has_prof || a < s->prof_lo) s->prof_lo = a;
        if (!s->has_prof || b > s->prof_hi) s->prof_hi = b;
        s->has_prof = true;
        s->prof_ns[r->group] += (double)(b - a);
    }
}

/* Releases the oldest record of the fullest stream (the memory budget is reached). */
static int release_one(trace_ctx *t, nd_error *err)
{
    reorder_buf *best = &t->dev_buf;
    size_t best_i = SIZE_MAX;
    for (size_t i = 0; i < t->n_tracks; i++)
        if (t->tracks[i].buf.len > best->len) {
            best = &t->tracks[i].buf;
            best_i = i;
        }
    if (t->sum_buf.len > best->len) {
        best = &t->sum_buf;
        best_i = SIZE_MAX - 1;
    }
    trace_rec r;
    if (!nd_classify_reorder_pop(best, &r)) return ND_OK;
    t->held--;
    if (best_i == SIZE_MAX - 1) {
        summary_charge(t, &r);
        return ND_OK;
    }
    if (best_i == SIZE_MAX) return nd_classify_device_sweep_feed(t->dev, t, &r, err);
    return nd_classify_host_track_feed(t->tracks[best_i].host, t, (uint32_t)best_i, &r, err);
}

/* A host op that launches kernels worth knowing (a collective, a GEMM or attention with
 * its shape) or that sets the phase of what it launches: kept for the links. */
static int host_links(trace_ctx *t, uint64_t key, const trace_rec *r, const trace_extra *x)
{
    bool frame = r->cat == CAT_CPU_OP || r->cat == CAT_PYTHON || r->cat == CAT_ANNOTATION;
    link_info li = {.group = x->link_group,
                    .shape = -1,
                    .bytes = (double)r->bytes,
                    .phases = frame ? (uint8_t)(r->feat & F_PHASES) : 0,
                    .in_comm = (r->feat & (F_C10D_OP | F_RPC | F_COMM_ANNOT)) != 0};
    op_kind k = F_OPK(r->feat);
    shape_key sk;
    double flops = 0;
    if (k != OPK_NONE && x->dims && x->dims->n > 0 && nd_classify_shape_of(k, x->dims, &sk, &flops)) {
        int i = nd_classify_shape_intern(&t->shapes, &sk);
        if (i >= 0) {
            li.shape = i;
            li.flops = flops;
        }
    }
    if (li.group < 0 && li.shape < 0 && !li.phases && !li.in_comm) return 0;
    return nd_classify_links_op(t->links, key, x->ext, r->ts, r->dur, &li);
}

static int device_event(trace_ctx *t, trace_rec *r, nd_error *err)
{
    trace_rec out;
    int rc;
    t->has_kernels = true;
    if (nd_classify_reorder_late(&t->dev_buf, r)) return late_error(t, "device", err);
    if ((rc = nd_classify_reorder_push(&t->dev_buf, r, &out)) < 0)
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (rc == 0) {
        t->held++;
        return ND_OK;
    }
    return nd_classify_device_sweep_feed(t->dev, t, &out, err);
}

static int host_event(trace_ctx *t, uint64_t key, trace_rec *r, const char *name, nd_error *err)
{
    trace_rec out;
    int rc;
    uint32_t track = 0;
    if ((rc = track_of(t, key, &track, err))) return rc;
    if ((r->feat & F_STEP) && t->n_steps >= MAX_STEPS)
        return nd_error_set(err, ND_EINPUT, "%s: byte %llu: more than %d ProfilerStep events", t->path,
                            (unsigned long long)t->offset, MAX_STEPS);
    if ((r->feat & F_STEP) && (rc = trace_step_add(t, name, r->ts, r->dur, track, &r->group)))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    host_stream *s = &t->tracks[track];
    s->cpu_ops += r->cat == CAT_CPU_OP;
    if (nd_classify_reorder_late(&s->buf, r)) return late_error(t, "host thread", err);
    if ((rc = nd_classify_reorder_push(&s->buf, r, &out)) < 0)
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (rc == 0) {
        t->held++;
        return ND_OK;
    }
    return nd_classify_host_track_feed(s->host, t, track, &out, err);
}

/* A launch: its step, and which op around it, for its kernel. One that no step holds
 * is remembered: a step registered later over it asks for a second reading. */
static int launch_event(trace_ctx *t, uint64_t key, const trace_rec *r, const trace_extra *x, nd_error *err)
{
    if (!x->corr) return ND_OK;
    int32_t step = nd_classify_trace_step_of(t, r->ts);
    if (step < 0 && !t->preset) {
        if (!t->stepless_launches || r->ts < t->stepless_lo) t->stepless_lo = r->ts;
        if (!t->stepless_launches || r->ts > t->stepless_hi) t->stepless_hi = r->ts;
        t->stepless_launches++;
    }
    if (nd_classify_links_launch(t->links, &t->groups, key, r->ts, x->corr, step))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}

/* The span of the trace's events (a trace without steps is one window over it). */
static void span_add(trace_ctx *t, const trace_rec *r)
{
    if (!t->has_span || r->ts < t->span_lo) t->span_lo = r->ts;
    if (!t->has_span || r->ts + r->dur > t->span_hi) t->span_hi = r->ts + r->dur;
    t->has_span = true;
}

int nd_classify_trace_event(trace_ctx *t, uint64_t key, trace_rec *r, const char *name, const trace_extra *x,
                            nd_error *err)
{
    int rc = ND_OK;
    trace_rec out;
    span_add(t, r);
    if (r->cat == CAT_RUNTIME) return launch_event(t, key, r, x, err);
    if (r->cat == CAT_SUMMARY) {
        if (x->summary < 0) return ND_OK;
        r->group = x->summary;
        if ((rc = nd_classify_reorder_push(&t->sum_buf, r, &out)) < 0)
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        if (rc == 0)
            t->held++;
        else
            summary_charge(t, &out);
        rc = ND_OK;
    } else if (x->device) {
        rc = device_event(t, r, err);
    } else {
        if (host_links(t, key, r, x)) return nd_error_set(err, ND_ENOMEM, "out of memory");
        rc = host_event(t, key, r, name, err);
    }
    while (!rc && t->held > HELD_BUDGET) rc = release_one(t, err);
    return rc;
}

int nd_classify_trace_drain(trace_ctx *t, nd_error *err)
{
    trace_rec r;
    int rc;
    for (size_t i = 0; i < t->n_tracks; i++) {
        while (nd_classify_reorder_pop(&t->tracks[i].buf, &r))
            if ((rc = nd_classify_host_track_feed(t->tracks[i].host, t, (uint32_t)i, &r, err))) return rc;
        if ((rc = nd_classify_host_track_finish(t->tracks[i].host, t, err))) return rc;
    }
    while (nd_classify_reorder_pop(&t->sum_buf, &r)) summary_charge(t, &r);
    while (nd_classify_reorder_pop(&t->dev_buf, &r))
        if ((rc = nd_classify_device_sweep_feed(t->dev, t, &r, err))) return rc;
    t->held = 0;
    return nd_classify_device_sweep_finish(t->dev, t, err);
}

int nd_classify_trace_presets(const trace_ctx *t, preset_step **out, size_t *n)
{
    *n = 0;
    size_t count = t->n_steps ? t->n_steps : 1;
    if (!(*out = calloc(count, sizeof **out))) return ND_ENOMEM;
    if (t->n_steps == 0) { /* one window: the whole trace, on its busiest host thread */
        preset_step *w = &(*out)[0];
        nd_text_copy(w->name, ND_CLASSIFY_WINDOW_STEP, sizeof w->name);
        w->ts = t->span_lo;
        w->dur = t->span_hi - t->span_lo;
        w->window = true;
        for (size_t i = 0; i < t->n_tracks; i++)
            if (i == 0 || t->tracks[i].cpu_ops > (*out)[0].track_cpu_ops) {
                w->track_key = t->tracks[i].key;
                w->track_cpu_ops = t->tracks[i].cpu_ops;
            }
        *n = t->has_span && w->dur > 0 ? 1 : 0;
        return ND_OK;
    }
    for (size_t i = 0; i < t->n_steps; i++) {
        const trace_step *s = &t->steps[i];
        preset_step *p = &(*out)[i];
        nd_text_copy(p->name, s->name, sizeof p->name);
        p->ts = s->ts;
        p->dur = s->dur;
        p->track_key = t->tracks[s->track].key;
    }
    *n = t->n_steps;
    return ND_OK;
}

int nd_classify_trace_preset(trace_ctx *t, const preset_step *p, size_t n, nd_error *err)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t track = 0;
        int32_t index;
        int rc = track_of(t, p[i].track_key, &track, err);
        if (!rc && trace_step_add(t, p[i].name, p[i].ts, p[i].dur, track, &index))
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        if (!rc && p[i].window) rc = nd_classify_host_track_open(t->tracks[track].host, t, index, err);
        if (rc) return rc;
    }
    t->preset = true;
    return ND_OK;
}

int nd_classify_trace_ctx_init(trace_ctx *t, nd_classify_run *run, const char *path)
{
    memset(t, 0, sizeof *t);
    t->run = run;
    t->path = path;
    t->rank = -1;
    t->dev = nd_classify_device_sweep_alloc();
    t->links = nd_classify_links_alloc();
    return t->dev && t->links ? ND_OK : ND_ENOMEM;
}

void nd_classify_trace_ctx_free(trace_ctx *t)
{
    for (size_t i = 0; i < t->n_steps; i++) {
        free(t->steps[i].sites);
        free(t->steps[i].dev_groups);
        free(t->steps[i].shapes);
    }
    free(t->steps);
    free(t->by_time);
    for (size_t i = 0; i < t->n_tracks; i++) {
        nd_classify_host_track_free(t->tracks[i].host);
        nd_classify_reorder_free(&t->tracks[i].buf);
    }
    free(t->tracks);
    nd_classify_reorder_free(&t->dev_buf);
    nd_classify_reorder_free(&t->sum_buf);
    nd_classify_device_sweep_free(t->dev);
    nd_classify_links_free(t->links);
    nd_classify_shape_table_free(&t->shapes);
    nd_classify_group_table_free(&t->groups);
    for (size_t i = 0; i < t->n_cfg; i++) {
        free(t->cfg[i].name);
        free(t->cfg[i].desc);
        free(t->cfg[i].ranks);
    }
    free(t->cfg);
    memset(t, 0, sizeof *t);
}
