/* classify_trace.h — routing the events of one Chrome trace to its streams (internal). */
#ifndef ND_CLASSIFY_TRACE_H
#define ND_CLASSIFY_TRACE_H

#include "classify_steps.h"

struct host_stream {
    uint64_t key; /* hash of (pid, tid) */
    reorder_buf buf;
    host_track *host;
};

int nd_classify_trace_ctx_init(trace_ctx *t, nd_classify_run *run, const char *path);
void nd_classify_trace_ctx_free(trace_ctx *t);
/* Routes one complete event; for a ProfilerStep (host), registers the step. */
int nd_classify_trace_event(trace_ctx *t, uint64_t key, bool device, trace_rec *r, const char *name,
                nd_error *err);
/* End of the file: releases every held record and closes the open steps. */
int nd_classify_trace_drain(trace_ctx *t, nd_error *err);

#endif
