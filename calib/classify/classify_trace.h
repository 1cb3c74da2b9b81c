/* classify_trace.h — routing the events of one Chrome trace to its streams (internal). */
#ifndef ND_CLASSIFY_TRACE_H
#define ND_CLASSIFY_TRACE_H

#include "classify_steps.h"

struct host_stream {
    uint64_t key; /* hash of (pid, tid) */
    reorder_buf buf;
    host_track *host;
    unsigned long long cpu_ops; /* cpu_op events seen (the busiest thread hosts a window) */
};

/* The name of the one window of a trace without ProfilerStep events. */
#define ND_CLASSIFY_WINDOW_STEP "(whole trace)"

/* A step known from a first reading of the file: a second reading registers every step
 * before any event (so no launch or kernel comes before its step), or the one window of
 * a trace without steps. */
typedef struct preset_step {
    char name[48];
    nd_ns ts, dur;
    uint64_t track_key; /* the host thread it was recorded on */
    unsigned long long track_cpu_ops;
    bool window; /* the whole trace: opened on that thread at once */
} preset_step;

/* The steps of a read trace for a second reading (the whole trace as one window when it
 * has none: *n is 0 when it has no event either); *out is the caller's to free. */
int nd_classify_trace_presets(const trace_ctx *t, preset_step **out, size_t *n);
/* Registers them in a new context before its reading. */
int nd_classify_trace_preset(trace_ctx *t, const preset_step *p, size_t n, nd_error *err);

/* What the parser knows of an event beyond its record. */
typedef struct trace_extra {
    bool device;         /* a device kernel or copy */
    int summary;         /* an Overlap Analysis row: its summary_kind; -1 otherwise */
    uint64_t ext, corr;  /* External id; correlation (of a runtime launch) */
    int32_t link_group;  /* a host collective: the group its kernels run in; -1 */
    const op_dims *dims; /* the op's input shapes (record_shapes) */
} trace_extra;

int nd_classify_trace_ctx_init(trace_ctx *t, nd_classify_run *run, const char *path);
void nd_classify_trace_ctx_free(trace_ctx *t);
/* Routes one complete event; for a ProfilerStep (host), registers the step. */
int nd_classify_trace_event(trace_ctx *t, uint64_t key, trace_rec *r, const char *name, const trace_extra *x,
                            nd_error *err);
/* End of the file: releases every held record and closes the open steps. */
int nd_classify_trace_drain(trace_ctx *t, nd_error *err);

#endif
