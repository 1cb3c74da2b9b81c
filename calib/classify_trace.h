/* classify_trace.h — the state of one Chrome trace being classified (internal). */
#ifndef ND_CLASSIFY_TRACE_H
#define ND_CLASSIFY_TRACE_H

#include "classify_internal.h"

typedef struct host_stream {
    uint64_t key; /* hash of (pid, tid) */
    reorder_buf buf;
    host_track *host;
} host_stream;

struct trace_ctx {
    nd_classify_run *run;
    const char *path;
    unsigned long long offset; /* byte the parser has reached (for messages) */
    trace_step *steps;         /* in arrival order; host tracks keep indices */
    int32_t *by_time;          /* step indices sorted by start */
    size_t n_steps, cap_steps;
    group_table groups;
    pg_config *cfg; /* distributedInfo.pg_config */
    size_t n_cfg, cap_cfg;
    int64_t world_size; /* 0 unknown */
    int rank;           /* distributedInfo.rank, -1 unknown */
    host_stream *tracks;
    size_t n_tracks, cap_tracks;
    reorder_buf dev_buf;
    device_sweep *dev;
    size_t held;      /* records held in all windows */
    bool has_kernels; /* device kernels seen */
    bool device_late; /* a step arrived after the device sweep passed its start */
};

int trace_ctx_init(trace_ctx *t, nd_classify_run *run, const char *path);
void trace_ctx_free(trace_ctx *t);
/* Routes one complete event; for a ProfilerStep (host), registers the step. */
int trace_event(trace_ctx *t, uint64_t key, bool device, trace_rec *r, const char *name,
                nd_error *err);
/* End of the file: releases every held record and closes the open steps. */
int trace_drain(trace_ctx *t, nd_error *err);
/* The samples of the trace's steps, into t->run. */
int trace_samples(trace_ctx *t, nd_error *err);
int trace_rank_from_name(const char *path);

#endif
