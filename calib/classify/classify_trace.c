/* One Chrome trace: the steps it holds, the streams its events are routed to (one
 * per host thread, one for the device), and the rank-step samples it yields. */
#include "classify_trace.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/io.h"
#include "nd/text.h"

/* Records held in all reorder windows of a trace together: about 10 MiB. When more
 * are held, the fullest stream releases its oldest record early. */
#define HELD_BUDGET (1u << 18)
/* Host threads (pid, tid pairs) and ProfilerStep events in one trace: torch writes a
 * few threads and a few steps; the bounds keep the per-event searches (tracks) and the
 * step order (an insertion) from growing with a hostile file. */
#define MAX_TRACKS 4096
#define MAX_STEPS 65536

/* Registers a ProfilerStep window recorded on host thread `track`; *index_out gets its
 * index. The by_time order is kept by insertion. */
static int trace_step_add(trace_ctx *t, const char *name, nd_ns ts, nd_ns dur, uint32_t track,
                          int32_t *index_out)
{
    if (t->n_steps == t->cap_steps) {
        size_t cap = t->cap_steps ? t->cap_steps * 2 : 16;
        trace_step *s = realloc(t->steps, cap * sizeof *s);
        int32_t *o = s ? realloc(t->by_time, cap * sizeof *o) : NULL;
        if (s) t->steps = s;
        if (!s || !o) return ND_ENOMEM;
        t->by_time = o, t->cap_steps = cap;
    }
    trace_step *s = &t->steps[t->n_steps];
    memset(s, 0, sizeof *s);
    nd_text_copy(s->name, name, sizeof s->name);
    s->ts = ts, s->dur = dur, s->track = track;
    /* Keep by_time sorted; steps arrive nearly in order, so this is cheap. */
    size_t i = t->n_steps;
    while (i > 0 && t->steps[t->by_time[i - 1]].ts > ts) {
        t->by_time[i] = t->by_time[i - 1];
        i--;
    }
    t->by_time[i] = (int32_t)t->n_steps;
    *index_out = (int32_t)t->n_steps++;
    if (t->dev && ts < nd_classify_device_sweep_position(t->dev)) t->device_late = true;
    return ND_OK;
}

/* ---- streams ------------------------------------------------------------------- */

static int track_of(trace_ctx *t, uint64_t key, uint32_t *index, nd_error *err)
{
    for (size_t i = t->n_tracks; i-- > 0;) /* few threads; the busy one is usually last used */
        if (t->tracks[i].key == key) return *index = (uint32_t)i, ND_OK;
    if (t->n_tracks >= MAX_TRACKS)
        return nd_error_set(err, ND_EINPUT, "%s: byte %llu: events on more than %d threads (pid, tid)",
                            t->path, (unsigned long long)t->offset, MAX_TRACKS);
    if (t->n_tracks == t->cap_tracks) {
        size_t cap = t->cap_tracks ? t->cap_tracks * 2 : 8;
        host_stream *n = realloc(t->tracks, cap * sizeof *n);
        if (!n) return nd_error_set(err, ND_ENOMEM, "out of memory");
        t->tracks = n, t->cap_tracks = cap;
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

/* Releases the oldest record of the fullest stream (the memory budget is reached). */
static int release_one(trace_ctx *t, nd_error *err)
{
    reorder_buf *best = &t->dev_buf;
    size_t best_i = SIZE_MAX;
    for (size_t i = 0; i < t->n_tracks; i++)
        if (t->tracks[i].buf.len > best->len) best = &t->tracks[i].buf, best_i = i;
    trace_rec r;
    if (!nd_classify_reorder_pop(best, &r)) return ND_OK;
    t->held--;
    if (best_i == SIZE_MAX) return nd_classify_device_sweep_feed(t->dev, t, &r, err);
    return nd_classify_host_track_feed(t->tracks[best_i].host, t, (uint32_t)best_i, &r, err);
}

int nd_classify_trace_event(trace_ctx *t, uint64_t key, bool device, trace_rec *r, const char *name,
                nd_error *err)
{
    int rc;
    trace_rec out;
    if (device) {
        t->has_kernels = true;
        if (nd_classify_reorder_late(&t->dev_buf, r)) return late_error(t, "device", err);
        if ((rc = nd_classify_reorder_push(&t->dev_buf, r, &out)) < 0)
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        if (rc == 0)
            t->held++;
        else if ((rc = nd_classify_device_sweep_feed(t->dev, t, &out, err)))
            return rc;
    } else {
        uint32_t track = 0;
        if ((rc = track_of(t, key, &track, err))) return rc;
        if ((r->feat & F_STEP) && t->n_steps >= MAX_STEPS)
            return nd_error_set(err, ND_EINPUT, "%s: byte %llu: more than %d ProfilerStep events",
                                t->path, (unsigned long long)t->offset, MAX_STEPS);
        if ((r->feat & F_STEP) && (rc = trace_step_add(t, name, r->ts, r->dur, track, &r->group)))
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        host_stream *s = &t->tracks[track];
        if (nd_classify_reorder_late(&s->buf, r)) return late_error(t, "host thread", err);
        if ((rc = nd_classify_reorder_push(&s->buf, r, &out)) < 0)
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        if (rc == 0)
            t->held++;
        else if ((rc = nd_classify_host_track_feed(s->host, t, track, &out, err)))
            return rc;
    }
    while (t->held > HELD_BUDGET)
        if ((rc = release_one(t, err))) return rc;
    return ND_OK;
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
    while (nd_classify_reorder_pop(&t->dev_buf, &r))
        if ((rc = nd_classify_device_sweep_feed(t->dev, t, &r, err))) return rc;
    t->held = 0;
    return nd_classify_device_sweep_finish(t->dev, t, err);
}

int nd_classify_trace_ctx_init(trace_ctx *t, nd_classify_run *run, const char *path)
{
    memset(t, 0, sizeof *t);
    t->run = run;
    t->path = path;
    t->rank = -1;
    t->dev = nd_classify_device_sweep_alloc();
    return t->dev ? ND_OK : ND_ENOMEM;
}

void nd_classify_trace_ctx_free(trace_ctx *t)
{
    for (size_t i = 0; i < t->n_steps; i++)
        free(t->steps[i].sites), free(t->steps[i].dev_group_ns);
    free(t->steps);
    free(t->by_time);
    for (size_t i = 0; i < t->n_tracks; i++) {
        nd_classify_host_track_free(t->tracks[i].host);
        nd_classify_reorder_free(&t->tracks[i].buf);
    }
    free(t->tracks);
    nd_classify_reorder_free(&t->dev_buf);
    nd_classify_device_sweep_free(t->dev);
    nd_classify_group_table_free(&t->groups);
    for (size_t i = 0; i < t->n_cfg; i++)
        free(t->cfg[i].name), free(t->cfg[i].desc), free(t->cfg[i].ranks);
    free(t->cfg);
    memset(t, 0, sizeof *t);
}

