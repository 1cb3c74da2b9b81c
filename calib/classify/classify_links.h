/* classify_links.h — which host op launched a device kernel (internal).
 *
 * A kernel names the op that launched it in two ways: its "External id" is the
 * launching op's (kineto since 2023), and its "correlation" is that of the runtime call
 * (cudaLaunchKernel) on a host thread, whose time falls inside the op. Older traces
 * (HTA's sample) only have the second. So the host ops that matter to a kernel — the
 * collectives (c10d::*, nccl:*, record_param_comms) and the GEMM and attention ops with
 * shapes — are kept in bounded tables by External id and by thread and time; each
 * runtime launch is resolved to the ops around it as it is read; the device sweep asks
 * by correlation, then by External id. Everything is bounded (LINK_MAX entries per table,
 * the oldest forgotten first): memory does not grow with the trace. */
#ifndef ND_CLASSIFY_LINKS_H
#define ND_CLASSIFY_LINKS_H

#include "classify_internal.h"

/* Entries each table keeps (External ids, correlations, ops per host thread together). */
#define LINK_MAX (1u << 16)

/* What a host op tells about the kernels it launches. */
typedef struct link_info {
    int32_t group; /* a collective: its group in the trace's table (kind known); -1 */
    int32_t shape; /* a GEMM or attention op: its row in the trace's shape table; -1 */
    double flops;  /* FLOPs of that op; 0 unknown */
    double bytes;  /* a collective's payload; 0 unknown */
    uint64_t op;   /* which op (the store numbers them): its kernels count it once */
} link_info;

typedef struct link_store link_store;

link_store *nd_classify_links_alloc(void);
void nd_classify_links_free(link_store *l);

/* A host op on thread (a pid, tid key) over [ts, ts + dur) that launches kernels. */
int nd_classify_links_op(link_store *l, uint64_t thread, uint64_t ext_id, nd_ns ts, nd_ns dur,
                         const link_info *info);

/* A runtime launch on thread at ts with correlation corr: resolved now to the ops that
 * enclose it (innermost first: the group with a name or ranks, else the one with a
 * kind; the innermost shape); groups may be merged into groups (a kind from one op, the
 * ranks from another). -1 when out of memory. */
int nd_classify_links_launch(link_store *l, group_table *groups, uint64_t thread, nd_ns ts,
                             uint64_t corr);

/* What launched a kernel: by correlation, else External id. False when unknown. */
bool nd_classify_links_find(const link_store *l, uint64_t corr, uint64_t ext_id, link_info *out);

/* True when no op was recorded (a trace without collectives or shapes: nothing to link). */
bool nd_classify_links_empty(const link_store *l);

#endif
