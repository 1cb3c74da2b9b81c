/* classify_trace.h — routing the events of one Chrome trace to its streams (internal). */
#ifndef ND_CLASSIFY_TRACE_H
#define ND_CLASSIFY_TRACE_H

#include "classify_steps.h"

struct host_stream {
    uint64_t key; /* hash of (pid, tid) */
    reorder_buf buf;
    host_track *host;
};

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
int nd_classify_trace_event(trace_ctx *t, uint64_t key, trace_rec *r, const char *name,
                            const trace_extra *x, nd_error *err);
/* End of the file: releases every held record and closes the open steps. */
int nd_classify_trace_drain(trace_ctx *t, nd_error *err);

#endif
