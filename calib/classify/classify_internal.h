/*
 * classify_internal.h — the pieces of nd-classify shared between its files
 * (not installed). One Chrome trace flows: classify_chrome.c (yajl streaming, one
 * compact record per event) -> classify_order.c (per-thread reorder window) ->
 * classify_host.c (ND's call-stack rules) and classify_device.c (kernel sweep) ->
 * classify_trace.c (rank-step samples). Ascend directories: classify_ascend.c.
 */
#ifndef ND_CLASSIFY_INTERNAL_H
#define ND_CLASSIFY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/classify/classify.h"

typedef int64_t nd_ns; /* timestamps and durations: exact integer nanoseconds */

/* ---- collectives and process groups ---------------------------------------- */

typedef enum {
    COLL_UNKNOWN = 0,
    COLL_ALL_REDUCE,
    COLL_ALL_GATHER,
    COLL_REDUCE_SCATTER,
    COLL_ALL_TO_ALL,
    COLL_BROADCAST,
    COLL_REDUCE,
    COLL_P2P,
    COLL_BARRIER,
    COLL_COUNT
} coll_kind;

/* "all-reduce", "all-gather", ... (ND's hyphenated label words). */
const char *nd_classify_coll_label(coll_kind k);
/* Reads the collective a name means: "allreduce", "_allgather_base", "AllReduce",
 * "reduce_scatter_tensor", "alltoallv", "SendRecv", "hcom_allGather__1@2" prefix part... */
coll_kind nd_classify_coll_from_text(const char *s, size_t len);

/* What is known of the process group of a communication. */
typedef struct comm_group {
    coll_kind kind;
    char *pg_name;         /* "0"; NULL if unknown */
    char *pg_desc;         /* "default_pg"; NULL if unknown */
    char *ranks;           /* "[0, 1]"; NULL if unknown */
    int64_t size;          /* 0 if unknown */
    int64_t start, stride; /* "Global rank start/stride"; stride 0 if unknown */
} comm_group;

/* Interned groups of one trace (few: groups x collective kinds). */
typedef struct group_table {
    comm_group *items;
    size_t n, cap;
} group_table;

/* Groups a trace may name (groups x collective kinds; real jobs have tens): the table
 * is searched linearly per communication event. */
#define GROUP_TABLE_MAX 1024

/* Index of g in t, adding a copy if new; -1 when out of memory, -2 when the table already
 * holds GROUP_TABLE_MAX groups. */
int nd_classify_group_table_intern(group_table *t, const comm_group *g);
void nd_classify_group_table_free(group_table *t);

/* distributedInfo.pg_config: ranks and size per process group name. */
typedef struct pg_config {
    char *name, *desc, *ranks;
    int64_t size;
} pg_config;

/* The wait column of a group under dims; label_out gets e.g. "all-reduce pg 0 (DP)".
 * how_out says how it was decided ("ranks", "name", "size", "collective type");
 * size_out (may be NULL) gets the group's size: its ranks, else the degree of the
 * dimension it was placed in, else 0. */
nd_classify_quantity nd_classify_group_map(const comm_group *g, const pg_config *cfg, size_t n_cfg,
                                           int64_t world_size, const nd_classify_dims *dims, char *label_out,
                                           size_t label_size, const char **how_out, int64_t *size_out);

/* The degrees distributedInfo states: each pg_config group whose description (or name)
 * names a dimension ("tp", "mesh_pp", "expert"...) gives that dimension its size; DP is
 * what the world size leaves. 1 when something was found, 0 when nothing, -1 when two
 * groups of one dimension disagree. */
int nd_classify_dims_from_groups(const pg_config *cfg, size_t n, int64_t world, nd_classify_dims *out);

/* ND's Ascend typing of a collective (docs/reference/nd-calibration.md §3.4), also the last resort for
 * groups nd cannot place. */
nd_classify_quantity nd_classify_coll_default_column(coll_kind k, const nd_classify_dims *dims,
                                                     bool is_p2p_section, const char **label_out);

/* ---- one trace event, compact ------------------------------------------------ */

enum {
    F_BW = 1u << 0, /* phase bits (docs/reference/nd-calibration.md §3.2 step 4) */
    F_REC = 1u << 1,
    F_OPT = 1u << 2,
    F_FW = 1u << 3,
    F_PHASES = 0xfu,
    F_WAIT_ROOT = 1u << 4,    /* "<built-in method wait of " */
    F_C10D_PY = 1u << 5,      /* ends with "torch/distributed/distributed_c10d.py(<n>): <word>" */
    F_C10D_OP = 1u << 6,      /* starts with c10d::, _c10d_functional::, c10d_functional:: */
    F_RPC = 1u << 7,          /* record_param_comms (nd: a root in old traces) */
    F_COMM_ANNOT = 1u << 8,   /* "nccl:..." / "gloo:..." annotations (nd: a root) */
    F_STEP = 1u << 9,         /* "ProfilerStep#" */
    F_COMM_KERNEL = 1u << 10, /* a communication kernel by its name (a known family) */
    F_NCCL_FAMILY = 1u << 11, /* ncclKernel_*, ncclDevKernel_*: SendRecv runs all-to-all too */
    F_RULE_SHIFT = 12,        /* 4 bits: call-site rule matched first in this frame, 0 none */
    F_FSDP_SHIFT = 16,        /* 4 bits: FSDP kind matched first in this frame, 0 none */
    F_COLL_SHIFT = 20,        /* 4 bits: coll_kind a kernel or hcom name means */
    F_KCLASS_SHIFT = 24,      /* 4 bits: the kernel class a kernel name means */
    F_OPK_SHIFT = 28,         /* 4 bits: op_kind, a host op whose FLOPs nd counts */
};
#define F_RULE(f)   (((f) >> F_RULE_SHIFT) & 0xfu)
#define F_FSDP(f)   (((f) >> F_FSDP_SHIFT) & 0xfu)
#define F_COLL(f)   ((coll_kind)(((f) >> F_COLL_SHIFT) & 0xfu))
#define F_KCLASS(f) ((nd_classify_kernel_class)(((f) >> F_KCLASS_SHIFT) & 0xfu))
#define F_OPK(f)    ((op_kind)(((f) >> F_OPK_SHIFT) & 0xfu))

/* Host ops whose FLOPs follow from their input shapes (classify_shapes.c). BHSD: the
 * attention inputs are (batch, heads, seq, head_dim), as torch's SDPA; BSHD: (batch,
 * seq, heads, head_dim), as flash-attn and torch's _flash_attention_forward. */
typedef enum {
    OPK_NONE = 0,
    OPK_MM,         /* aten::mm (a[M,K], b[K,N]) */
    OPK_ADDMM,      /* aten::addmm (bias, a[M,K], b[K,N]) */
    OPK_BMM,        /* aten::bmm (a[B,M,K], b[B,K,N]) */
    OPK_BADDBMM,    /* aten::baddbmm (bias, a, b) */
    OPK_LINEAR,     /* aten::linear (x[...,K], w[N,K]) */
    OPK_MATMUL,     /* aten::matmul (a[...,M,K], b[...,K,N]) */
    OPK_GROUPED_MM, /* aten::_grouped_mm (a[M,K], b[G,K,N]) */
    OPK_ATTN_FWD_BHSD,
    OPK_ATTN_BWD_BHSD, /* inputs (grad_out, q, k, v, ...) */
    OPK_ATTN_FWD_BSHD,
    OPK_ATTN_BWD_BSHD,
    /* Ascend kernels (kernel_details.csv's Type, no host op): their sizes from the row's
     * input and output shapes (classify_shapes.c) */
    OPK_NPU_MATMUL, /* MatMul, MatMulV2, MatMulV3 */
    OPK_NPU_BMM,    /* BatchMatMul, BatchMatMulV2, ... */
    OPK_NPU_GMM,    /* GroupedMatmul (x[M,K], w[G,K,N]) */
    OPK_COUNT       /* at most 16: F_OPK keeps 4 bits */
} op_kind;

/* torch_npu's "Overlap Analysis" rows: the profiler's own split of the device time. */
typedef enum { SUM_COMPUTING = 0, SUM_COMMUNICATION, SUM_NOT_OVERLAPPED, SUM_FREE, SUM_KINDS } summary_kind;
/* The summary kind a row name means ("Computing", "Communication",
 * "Communication(Not Overlapped)", "Free"), or -1. */
int nd_classify_summary_kind(const char *name, size_t len);

/* The features of an event name (cached by the caller). */
uint32_t nd_classify_name_features(const char *name, size_t len);

typedef enum {
    CAT_OTHER = 0,
    CAT_CPU_OP,
    CAT_PYTHON,
    CAT_ANNOTATION, /* user_annotation */
    CAT_KERNEL,     /* a device kernel (CUDA "kernel", or an event of "Ascend Hardware") */
    CAT_MEMORY,     /* a device copy or set (gpu_memcpy, gpu_memset): not compute */
    CAT_RUNTIME,    /* cuda_runtime, cuda_driver: a launch, with its correlation */
    CAT_SUMMARY,    /* torch_npu's "Overlap Analysis" rows: the profiler's own split */
    CAT_SKIP        /* flows, async, instant: not used by either view */
} event_cat;

enum {
    REC_OWN_GROUP = 1,  /* trace_rec.flags: a kernel's own args name its group */
    REC_KIND_ONLY = 2,  /* a host collective's group is its kind alone (it names none) */
    REC_HTA_COMM = 4,   /* a kernel HTA calls communication ("ncclKernel" in its name) */
    REC_HTA_MEMORY = 8, /* ... or memory ("Memcpy" or "Memset" in its name) */
};

typedef struct trace_rec {
    nd_ns ts, dur;
    int64_t bytes;      /* c10d op or kernel: payload bytes */
    uint64_t ext, corr; /* device: External id and correlation (0 none), to find the op */
    uint32_t feat;      /* nd_classify_name_features */
    int32_t group;      /* group_table index, or -1; for F_STEP: the step index */
    int32_t own_shape;  /* a kernel that states its own sizes (Ascend): shape table index + 1; 0 none */
    uint8_t cat;        /* event_cat */
    uint8_t flags;      /* REC_* */
} trace_rec;

/* ---- a trace being classified ------------------------------------------------ */

typedef struct host_step host_step; /* classify_host.c */

/* What the device did for one process group in a step: its exposed time (no compute
 * kernel running), its kernels' time, calls and payload. */
typedef struct step_group {
    double exposed_ns, kernel_ns, calls, bytes;
} step_group;

/* GEMM or attention kernels of one shape in a step. */
typedef struct step_shape {
    int32_t shape;    /* in the trace's shape table */
    uint64_t last_op; /* the op counted last: its other kernels add time, not calls */
    double calls, ns, flops;
} step_shape;

/* A ProfilerStep window and what each view measured in it. */
typedef struct trace_step {
    char name[48];
    nd_ns ts, dur;
    uint32_t track; /* host thread it was recorded on */
    bool host_done;
    /* host view */
    double phase_ns[5]; /* fw, bw, rec, opt, other */
    struct step_site *sites;
    size_t n_sites, cap_sites;
    /* device view: the kernels of the step (those it launched; without a known launch,
     * those starting in its window), wherever they run */
    bool has_device;
    double dev_comp_ns;         /* time a compute kernel ran (the sum of dev_phase_ns) */
    double dev_phase_ns[6];     /* ... by the phase of the launch: classify_links.h PHASE_* */
    double dev_comm_ns;         /* time a communication kernel ran */
    double dev_overlap_ns;      /* ... of it beside a compute kernel (HTA's overlap) */
    double tail_ns;             /* kernel time past the step's end */
    unsigned long tail_kernels; /* kernels ending after the step does */
    step_group *dev_groups;     /* per group index */
    size_t n_dev_groups;
    /* kernel view */
    double kclass_ns[ND_KC_COUNT];
    step_shape *shapes;
    size_t n_shapes, cap_shapes;
    /* the profiler's own split (torch_npu Overlap Analysis), ns inside the window */
    bool has_prof;
    double prof_ns[SUM_KINDS];
    nd_ns prof_lo, prof_hi; /* the span its rows cover */
} trace_step;

/* A host site before groups are resolved: an ND rule column and label, or a group. */
typedef struct step_site {
    int column;        /* nd_classify_quantity; -1 = decided by group at the end */
    const char *label; /* static ND label (column >= 0) */
    int32_t group;     /* group index (column -1), else -1 */
    double ns, calls, waits, bytes;
} step_site;

typedef struct trace_ctx trace_ctx;

/* Steps (classify_steps.c; classify_trace.c registers them): the step at index, NULL when
 * there is none. */
trace_step *nd_classify_trace_step_at(trace_ctx *t, int32_t index);
/* Step indices sorted by start time (for the device sweep). */
const int32_t *nd_classify_trace_steps_by_time(const trace_ctx *t, size_t *n);
/* The host site (column,label) or (group) of a step, created if new; NULL if no memory. */
step_site *nd_classify_trace_step_site(trace_step *s, int column, const char *label, int32_t group);
int nd_classify_trace_note(trace_ctx *t, const char *fmt, ...) ND_PRINTF(2, 3);

/* ---- host view (classify_host.c) ---------------------------------------------- */

typedef struct host_track host_track;
host_track *nd_classify_host_track_alloc(void);
void nd_classify_host_track_free(host_track *h);
/* Feeds one event of this thread, in (start, longer first) order. */
int nd_classify_host_track_feed(host_track *h, trace_ctx *t, uint32_t track, const trace_rec *r,
                                nd_error *err);
/* Opens step `index` on this thread at once (the window of a trace without steps). */
int nd_classify_host_track_open(host_track *h, trace_ctx *t, int32_t index, nd_error *err);
/* Closes the open step (end of the trace). */
int nd_classify_host_track_finish(host_track *h, trace_ctx *t, nd_error *err);

/* ---- device view (classify_device.c) ------------------------------------------ */

typedef struct device_sweep device_sweep;
device_sweep *nd_classify_device_sweep_alloc(void);
void nd_classify_device_sweep_free(device_sweep *d);
/* Feeds one kernel in start order (group >= 0 and is_comm for communication). */
int nd_classify_device_sweep_feed(device_sweep *d, trace_ctx *t, const trace_rec *r, nd_error *err);
int nd_classify_device_sweep_finish(device_sweep *d, trace_ctx *t, nd_error *err);
/* The time the sweep has reached (steps starting earlier arrive too late). */
nd_ns nd_classify_device_sweep_position(const device_sweep *d);

/* ---- reorder window (classify_order.c) ---------------------------------------- */

/* Events of one stream are held back in a bounded window and released in (ts asc,
 * dur desc) order, so traces written nearly in time order (torch, torch_npu, MTIA's
 * runtime events up to 73,116 events late) are processed exactly with bounded memory.
 * Records in order are appended to a sorted ring (O(1)); one that sorts before the
 * ring's last goes to a heap (O(log n)), so however far back it belongs it costs little. */
typedef struct reorder_buf {
    trace_rec *ring;
    size_t head, ring_len, cap;
    trace_rec *heap; /* a min-heap of the records that arrived out of order */
    size_t heap_len, heap_cap;
    size_t len;                      /* records held: ring_len + heap_len */
    nd_ns released_ts, released_dur; /* last record released */
    bool released_any;
} reorder_buf;

/* Records held per stream: 2^17 - 1, about 7 MiB (twice the first version's, for MTIA's
 * runtime events up to 73,116 events late); HELD_BUDGET in classify_trace.c bounds them
 * all together at 2^18 records, about 14 MiB. */
#define REORDER_WINDOW 131071

/* Inserts r; if the window is full, *out gets the oldest and 1 is returned, else 0.
 * -1 when out of memory. */
int nd_classify_reorder_push(reorder_buf *b, const trace_rec *r, trace_rec *out);
/* Pops the oldest held record into *out; 0 when empty. */
int nd_classify_reorder_pop(reorder_buf *b, trace_rec *out);
/* True if r sorts before the last released record (the window was too small). */
bool nd_classify_reorder_late(const reorder_buf *b, const trace_rec *r);
void nd_classify_reorder_free(reorder_buf *b);

/* ---- Chrome trace (classify_chrome.c, classify_trace.c) ------------------------ */

/* Streams a Chrome trace into the run's samples. */
int nd_classify_chrome_read(nd_classify_run *run, const char *path, nd_error *err);

/* ---- Ascend (classify_ascend.c) ----------------------------------------------- */

/* If path is (or holds) a step_trace_time.csv, sets *csv_out (caller frees) and
 * returns 1; 0 if not Ascend; negative on error. */
int nd_classify_ascend_find(const char *path, char **csv_out, nd_error *err);
int nd_classify_ascend_read(nd_classify_run *run, const char *csv_path, nd_error *err);

/* ---- the run's store (classify_collect.c) ------------------------------------------ */

/* Frees what a summary holds and clears it. */
void nd_classify_summary_free(nd_classify_summary *m);
/* Appends a sample (taking ownership of its strings and sites). */
int nd_classify_run_sample_add(nd_classify_run *run, nd_classify_sample *s, nd_error *err);
/* A note for the user, kept once however often it is made. */
int nd_classify_run_note(nd_classify_run *run, const char *fmt, ...) ND_PRINTF(2, 3);
/* A warning: something that may make the row wrong (a rank without data, a profiler
 * summary that disagrees); printed before the numbers. Kept once. */
int nd_classify_run_warn(nd_classify_run *run, const char *fmt, ...) ND_PRINTF(2, 3);
/* Records an input read (rank -1 when unknown): 0 when new; 1 when an earlier input had
 * the same content (the same trace given twice, or as .json and .json.gz: a warning names
 * both, and the caller adds no sample of it); ND_EINPUT when an earlier input of other
 * content had the same rank (it would count twice). */
int nd_classify_run_input_check(nd_classify_run *run, const char *path, int rank, uint64_t digest,
                                unsigned long long bytes, nd_error *err);
/* Fills idle and comp from the parts (time - comp - waits - unclassified). */
void nd_classify_sample_complete(nd_classify_sample *s);

#endif
