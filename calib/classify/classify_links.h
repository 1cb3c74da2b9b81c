/* classify_links.h — which host op launched a device kernel, and in which step and phase
 * (internal).
 *
 * A kernel names the op that launched it in two ways: its "External id" is the
 * launching op's (kineto since 2023), and its "correlation" is that of the runtime call
 * (cudaLaunchKernel) on a host thread, whose time falls inside the op. Older traces
 * (HTA's sample) only have the second. So the host ops that matter to a kernel — the
 * collectives (c10d::*, nccl:*, record_param_comms), the GEMM and attention ops with
 * shapes, and the frames that set a phase (nn.Module, autograd, Optimizer.step, the
 * checkpoint) — are kept per host thread in time order, each with its enclosing op; each
 * runtime launch is resolved to the ops around it as it is read, and to the step its time
 * falls in (HTA's rule: a kernel belongs to the iteration that launched it). The device
 * sweep asks by correlation, then by External id.
 *
 * Memory is bounded whatever the trace: LINK_MAX ops (the oldest forgotten first) and
 * LINK_MAX launches' links; the steps and phases of launches are kept as runs of
 * consecutive correlation ids (CUPTI numbers launches in time order, so a step's
 * launches form a few runs), at most LAUNCH_RUNS_MAX of them. */
#ifndef ND_CLASSIFY_LINKS_H
#define ND_CLASSIFY_LINKS_H

#include "classify_internal.h"

/* Entries each table keeps (External ids, correlations, ops per host thread together). */
#define LINK_MAX (1u << 16)
/* Runs of correlation ids with one step and phase (24 bytes each: 6 MiB when full). */
#define LAUNCH_RUNS_MAX (1u << 18)

/* The phase bucket of a launch: the host view's five (fw, bw, rec, opt, other), then
 * PHASE_UNKNOWN when the ops around the launch are not known (forgotten, or no launch). */
enum { PHASE_FW = 0, PHASE_BW, PHASE_REC, PHASE_OPT, PHASE_OTHER, PHASE_UNKNOWN, PHASE_BUCKETS };

/* The bucket of a set of phase bits (F_BW | F_REC | F_OPT | F_FW), as the host view. */
int nd_classify_phase_bucket(uint32_t phases);

/* What a host op tells about the kernels it launches. */
typedef struct link_info {
    int32_t group;  /* a collective: its group in the trace's table (kind known); -1 */
    int32_t shape;  /* a GEMM or attention op: its row in the trace's shape table; -1 */
    double flops;   /* FLOPs of that op; 0 unknown */
    double bytes;   /* a collective's payload; 0 unknown */
    uint64_t op;    /* which op (the store numbers them): its kernels count it once */
    uint8_t phases; /* the op's own phase bits (F_PHASES) */
    bool in_comm;   /* a collective op (c10d::*, record_param_comms, nccl:*, gloo:*) */
} link_info;

/* The step and phase of a launch. */
typedef struct launch_place {
    int32_t step;  /* the trace's step index whose window holds the launch; -1 none */
    uint8_t phase; /* PHASE_* */
} launch_place;

typedef struct link_store link_store;

link_store *nd_classify_links_alloc(void);
void nd_classify_links_free(link_store *l);

/* A host op on thread (a pid, tid key) over [ts, ts + dur) that launches kernels or sets a
 * phase. Ops of a thread are kept in time order: one that starts before the thread's last
 * kept op (written out of order) is kept by External id only. -1 when out of memory. */
int nd_classify_links_op(link_store *l, uint64_t thread, uint64_t ext_id, nd_ns ts, nd_ns dur,
                         const link_info *info);

/* A runtime launch on thread at ts with correlation corr, in step (-1 none): resolved now
 * to the ops that enclose it (innermost first: the group with a name or ranks, else the
 * one with a kind; the innermost shape; the phase of them all); groups may be merged into
 * groups (a kind from one op, the ranks from another). -1 when out of memory. */
int nd_classify_links_launch(link_store *l, group_table *groups, uint64_t thread, nd_ns ts, uint64_t corr,
                             int32_t step);

/* What launched a kernel: by correlation, else External id. False when unknown. */
bool nd_classify_links_find(const link_store *l, uint64_t corr, uint64_t ext_id, link_info *out);

/* The step and phase of the launch with correlation corr; false when no launch of that id
 * (or of its neighbours) was read. */
bool nd_classify_links_place(const link_store *l, uint64_t corr, launch_place *out);

/* Launches whose ops had been forgotten (the bounded table): their phase is unknown. */
unsigned long long nd_classify_links_forgotten(const link_store *l);

#endif
