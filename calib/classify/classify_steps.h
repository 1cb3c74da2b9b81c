/* classify_steps.h — the state of one Chrome trace being classified: its steps, their
 * sites, the groups, its notes. The router (classify_trace.c) fills it; the device and
 * host sweeps and the sampler read it (internal). */
#ifndef ND_CLASSIFY_STEPS_H
#define ND_CLASSIFY_STEPS_H

#include "classify_internal.h"
#include "classify_links.h"
#include "classify_shapes.h"

typedef struct host_stream host_stream; /* classify_trace.h */

/* HTA's temporal breakdown (breakdown_analysis.get_temporal_breakdown) of the kernels that
 * belong to a step, with HTA's kernel types: the span from the first kernel's start to the
 * last one's end; idle = span - the union of all kernels; compute = the union of the
 * compute kernels. Kernels come in start order, so each union is a running end. */
typedef struct hta_breakdown {
    bool any, any_comp;
    nd_ns lo, hi;            /* the span */
    nd_ns all_end, comp_end; /* the running ends of the two unions */
    double busy_ns, comp_ns;
} hta_breakdown;

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
    reorder_buf sum_buf;                  /* "Overlap Analysis" rows, held until their steps are known */
    size_t held;                          /* records held in all windows */
    bool has_kernels;                     /* device kernels seen */
    bool device_late;                     /* a step arrived after the device sweep passed its start */
    bool launch_late;                     /* a step arrived after a launch inside its window */
    bool preset;                          /* a second reading: every step was registered before the events */
    unsigned long long stepless_launches; /* launches no step held when read */
    nd_ns stepless_lo, stepless_hi;       /* ... their times */
    bool from_csv;                        /* kernel_details.csv: tasks without launches by nature */
    uint64_t digest;                      /* of the content's first MiB (duplicate inputs) */
    unsigned long long bytes;             /* the content's length */
    bool has_span;
    nd_ns span_lo, span_hi; /* the events' span */
    link_store *links;      /* host ops that launch kernels (classify_links.h) */
    shape_table shapes;     /* distinct GEMM and attention shapes */
    /* kernels of a collective that no link or own argument names (typed by name) */
    unsigned long long unlinked_comm, linked_comm;
    /* device kernels no step holds (launched outside every step), and those of them that
     * start after the last step's end (the trace ended before the device work did) */
    unsigned long long unassigned_kernels, late_kernels;
    double unassigned_ns, late_ns;
    unsigned long long by_window; /* kernels placed by their start (no launch known) */
    hta_breakdown hta;            /* HTA's temporal breakdown of the steps' kernels (a cross-check) */
};

/* The step whose window [ts, ts + dur) holds time `at` (the latest starting one when
 * windows overlap), or -1. */
int32_t nd_classify_trace_step_of(const trace_ctx *t, nd_ns at);

/* The samples of the trace's steps, into t->run (classify_samples.c). */
int nd_classify_trace_samples(trace_ctx *t, nd_error *err);
/* ND: the integer after "rank" in the file name (nd also skips one '-' or '_'); -1 if none. */
int nd_classify_trace_rank_from_name(const char *path);

#endif
