/*
 * classify.h — turn the profiler output of one run into one classified CSV row.
 *
 * A run is a set of inputs (torch.profiler Chrome traces, plain or gzip, torch_npu
 * trace_view.json, Ascend ASCEND_PROFILER_OUTPUT directories or step_trace_time.csv
 * files). Every profiled step of every rank becomes one sample (a rank-step) holding
 * the step time split into compute, the seven waits of ND's CSV, unclassified
 * communication and idle, all in milliseconds. The row written to the round file is
 * the mean (ND's number) or the median over the samples. docs/classify.md has the
 * rules; docs/reference/nd-calibration.md §3 is the behaviour reproduced.
 *
 * Ownership: an nd_classify_run owns its samples, sites and notes; free it with
 * nd_classify_run_free. Errors: ND_EINPUT (bad usage or bad input, exit 2) with a
 * one-line message naming the file and the line or byte offset; ND_EIO, ND_ENOMEM.
 */
#ifndef ND_CLASSIFY_H
#define ND_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "nd/base/error.h"
#include "nd/base/formats.h"

/* What one rank-step holds, in milliseconds. The first nine are ND's CSV columns in
 * ND's order (after the dimensions); IDLE, UNCLASSIFIED and OPTIMIZER are nd's added
 * columns: time = comp + the seven waits + unclassified + idle, and OPTIMIZER is the
 * optimizer-phase part of comp. The COMP_* split comp by phase (sums to comp). */
typedef enum {
    ND_CQ_TIME = 0,
    ND_CQ_COMP,
    ND_CQ_DP_WAIT,
    ND_CQ_MP_WAIT,
    ND_CQ_EP_WAIT,
    ND_CQ_CP_WAIT,
    ND_CQ_PP_WAIT,
    ND_CQ_OP_WAIT,
    ND_CQ_SP_WAIT,
    ND_CQ_IDLE,
    ND_CQ_UNCLASSIFIED,
    ND_CQ_OPTIMIZER,
    ND_CQ_COMP_FW,
    ND_CQ_COMP_BW,
    ND_CQ_COMP_REC,
    ND_CQ_COMP_OPT,
    ND_CQ_COMP_OTHER,
    ND_CQ_COMP_UNSPLIT,
    ND_CQ_COUNT
} nd_classify_quantity;

#define ND_CQ_ND_COLUMNS  9  /* TIME .. SP_WAIT: the columns ND itself reads */
#define ND_CQ_CSV_COLUMNS 12 /* ... plus IDLE, UNCLASSIFIED, OPTIMIZER */

/* "time", "comp", "dp_wait", ..., "comp_unsplit": the CSV and detail column names. */
const char *nd_classify_quantity_name(nd_classify_quantity q);

/* Which measurement a number comes from. */
typedef enum {
    ND_VIEW_AUTO = 0, /* request only: device when a trace has device kernels, else host */
    ND_VIEW_HOST,     /* host call stacks: blocking time on the CPU thread (ND's Chrome path) */
    ND_VIEW_DEVICE,   /* device kernels: communication not overlapped by compute kernels */
    ND_VIEW_ASCEND,   /* Ascend step_trace_time.csv, apportioned by communication.json */
    ND_VIEW_MIXED     /* summary only: samples disagree */
} nd_classify_view;

const char *nd_classify_view_name(nd_classify_view v); /* "auto", "host", ... */

typedef enum { ND_STAT_MEAN = 0, ND_STAT_MEDIAN = 1 } nd_classify_stat;

/* The --dims of a run, in the order given (the CSV header keeps it). */
#define ND_CLASSIFY_DIMS_MAX 10
typedef struct nd_classify_dims {
    int count;
    nd_dim dim[ND_CLASSIFY_DIMS_MAX]; /* TP is stored as MP */
    int64_t value[ND_CLASSIFY_DIMS_MAX];
} nd_classify_dims;

/* Parses "DP=8,MP=4,PP=2,MB=16": names DP EP MP CP PP VPP MB MBS OP (any case, TP
 * means MP), whole values >= 1, spaces trimmed, empty items skipped. SP is refused (ND
 * reads any non-empty SP text as true). ND_EUSAGE naming the bad item. */
int nd_classify_dims_parse(const char *text, nd_classify_dims *dims, nd_error *err);

/* The value of a dimension, or 1 when --dims does not state it. */
int64_t nd_classify_dims_get(const nd_classify_dims *dims, nd_dim dim);

typedef struct nd_classify_options {
    nd_classify_dims dims;
    bool has_dims;
    bool dims_from_trace;  /* without dims: take them from a trace's distributedInfo */
    nd_classify_view view; /* ND_VIEW_AUTO, ND_VIEW_HOST or ND_VIEW_DEVICE (Chrome traces) */
    int skip_steps;        /* drop each rank's first N steps (warm-up) */
    nd_classify_stat stat; /* what the CSV and perf-parts rows hold */
    /* More communication kernels: POSIX extended regular expressions matched against a
     * device kernel's name (--comm-kernel, --comm-kernel-file), beside the families nd
     * knows. Borrowed: they outlive the run. */
    const char *const *comm_kernels;
    size_t n_comm_kernels;
} nd_classify_options;

/* Checks that re is a POSIX extended regular expression; ND_EUSAGE naming it otherwise. */
int nd_classify_pattern_check(const char *re, nd_error *err);

/* The patterns of a file, one a line (blank lines and lines starting with '#' skipped,
 * spaces around each trimmed), each checked; ND_EINPUT naming the file, line and pattern.
 * The caller frees each of *out and *out. */
int nd_classify_patterns_read(const char *path, char ***out, size_t *n, nd_error *err);

/* No dims (taken from the traces' distributedInfo when they state them), auto view,
 * skip 0, mean. */
void nd_classify_options_init(nd_classify_options *opts);

/* Kernel classes of the kernel view, by kernel name (docs/classify.md, "Kernel view"). */
typedef enum {
    ND_KC_GEMM = 0,
    ND_KC_GROUPED_GEMM,
    ND_KC_ATTN_FWD,
    ND_KC_ATTN_BWD,
    ND_KC_ELEMENTWISE, /* elementwise, normalisation, reductions, layout changes */
    ND_KC_MEMORY,      /* memcpy, memset */
    ND_KC_COMM,        /* collectives and point-to-point */
    ND_KC_OTHER,
    ND_KC_COUNT
} nd_classify_kernel_class;

/* "gemm", "grouped_gemm", "attention_fwd", "attention_bwd", "elementwise_norm",
 * "memcpy_memset", "communication", "other". */
const char *nd_classify_kernel_class_name(nd_classify_kernel_class c);

/* The collective types of the kernel view: "all-reduce", "all-gather", ... ("unknown"
 * first, as index 0). */
#define ND_CLASSIFY_COLLS 9
const char *nd_classify_coll_name(int coll);

/* One GEMM or attention shape: the op that launched the kernels and its sizes (0 where
 * the op has no such size). FLOPs count the full product (attention: every score of
 * S x Sk, causal or not). */
typedef struct nd_classify_shape {
    char *label;   /* owned: "aten::mm bf16 M=8192 N=4096 K=4096" */
    char op[48];   /* "aten::mm" */
    char dtype[8]; /* "bf16", "fp16", "fp32", ... or "" */
    nd_classify_kernel_class cls;
    int64_t batch, m, n, k, heads, seq_q, seq_kv, head_dim;
    double calls, ms, flops; /* kernels launched by the op, their time, the op's FLOPs */
} nd_classify_shape;

/* What the kernels of one rank-step did (device view), ms within the step's window. */
typedef struct nd_classify_kernels {
    double class_ms[ND_KC_COUNT];
    double coll_calls[ND_CLASSIFY_COLLS], coll_bytes[ND_CLASSIFY_COLLS];
    double coll_ms[ND_CLASSIFY_COLLS];         /* kernel time */
    double coll_exposed_ms[ND_CLASSIFY_COLLS]; /* no compute kernel running */
    double coll_bus_bytes[ND_CLASSIFY_COLLS];  /* bytes x the bus factor, group size known */
    double coll_bus_ms[ND_CLASSIFY_COLLS];     /* kernel time of those calls */
    nd_classify_shape *shapes;                 /* owned */
    size_t n_shapes;
} nd_classify_kernels;

/* Communication of one kind (a "site") in one rank-step. */
typedef struct nd_classify_site {
    nd_classify_quantity column; /* ND_CQ_DP_WAIT .. ND_CQ_SP_WAIT or ND_CQ_UNCLASSIFIED */
    char *label;                 /* owned: "fsdp grad reduce-scatter", "all-reduce pg 0 (DP)" */
    double ms;                   /* time charged to the column */
    double calls;                /* collective calls */
    double waits;                /* Work.wait() calls (host view) */
    double wait_ms;              /* device wait time (Ascend), apportioned */
    double bytes;                /* payload */
} nd_classify_site;

/* One profiled step of one rank. */
typedef struct nd_classify_sample {
    int rank;       /* from the trace (distributedInfo, file name, Device_id); -1 unknown */
    char *input;    /* owned: the file the step came from */
    char *step;     /* owned: "ProfilerStep#4", "step1" */
    int step_order; /* 0 for the rank's first step in time, 1 for the next... */
    double q[ND_CQ_COUNT];
    unsigned char view[ND_CQ_COUNT]; /* nd_classify_view each number comes from */
    nd_classify_site *sites;         /* owned */
    size_t n_sites;
    nd_classify_kernels *kernels; /* owned; NULL without the device view */
    /* Device view: the time a communication kernel ran, and the part of it beside a
     * compute kernel (HTA's comm/compute overlap is their ratio); 0 without. */
    double comm_ms, overlapped_ms;
} nd_classify_sample;

/* Statistics of one quantity over the kept rank-steps. */
typedef struct nd_classify_stats {
    double mean, median, min, max;
} nd_classify_stats;

typedef struct nd_classify_summary {
    size_t n_samples; /* rank-steps kept */
    size_t n_dropped; /* rank-steps dropped by skip_steps */
    size_t n_ranks;   /* distinct (input, rank) pairs kept */
    nd_classify_stats q[ND_CQ_COUNT];
    nd_classify_view view[ND_CQ_COUNT]; /* ND_VIEW_MIXED when samples disagree */
    int slowest_rank;                   /* highest mean step time */
    const char *slowest_input;          /* borrowed from the samples */
    double slowest_mean_ms;
    nd_classify_site *sites; /* owned: per (column, label), sum over kept samples */
    size_t n_sites;
    nd_classify_kernels kernels; /* means per rank-step over the kept samples that have it */
    size_t n_kernel_samples;     /* kept samples with a kernel view */
    /* HTA's comm/compute overlap, %: over the kept rank-steps whose communication kernels
     * ran (n_overlap_samples; the stats are meaningless when 0), and the ratio of the sums */
    nd_classify_stats overlap_pct;
    size_t n_overlap_samples;
    double overlap_pct_all;
} nd_classify_summary;

/* Messages for the user, each kept once however often it is made (indexed by a hash,
 * so many distinct ones stay cheap). */
typedef struct nd_classify_messages {
    char **items; /* owned */
    size_t n;
    uint32_t *slots; /* open addressing: index + 1, 0 empty */
    size_t n_slots;
} nd_classify_messages;

/* What identifies an input read: a duplicate is read once, or refused (docs/classify.md,
 * "Duplicate inputs"). */
typedef struct nd_classify_input_id {
    char *path;               /* owned */
    int rank;                 /* -1 unknown (or an Ascend file of many ranks) */
    uint64_t digest;          /* of the first MiB of its content (decompressed) */
    unsigned long long bytes; /* the content's length */
} nd_classify_input_id;

typedef struct nd_classify_run {
    nd_classify_options opts;
    nd_classify_sample *samples; /* every rank-step read, in input order */
    size_t n_samples, cap_samples;
    char dims_source[320]; /* where opts.dims came from: "--dims", "strategy.txt", ... */
    char **inputs;         /* owned: every input added, in order (for messages) */
    size_t n_inputs;
    nd_classify_input_id *ids; /* owned: the files read, for duplicates */
    size_t n_ids;
    nd_classify_messages warnings; /* what may make the row wrong: printed first */
    nd_classify_messages notes;    /* what the user should know (fallbacks, skipped items) */
    bool finished;
    nd_classify_summary summary; /* valid after nd_classify_run_finish */
} nd_classify_run;

/* A new empty run with a copy of opts; NULL when out of memory. */
nd_classify_run *nd_classify_run_alloc(const nd_classify_options *opts);
void nd_classify_run_free(nd_classify_run *run);

/* Reads one input: a Chrome trace (.json, .json.gz, trace_view.json), a directory
 * holding step_trace_time.csv (in it, in its ASCEND_PROFILER_OUTPUT/, or in the
 * ASCEND_PROFILER_OUTPUT/ of a subdirectory), or a step_trace_time.csv. Traces are
 * streamed: memory does not grow with the size of the file (docs/classify.md,
 * "Memory"). Ascend inputs need dims (ND_EUSAGE). */
int nd_classify_run_add(nd_classify_run *run, const char *path, nd_error *err);

/* Drops the warm-up steps and computes the summary. ND_EINPUT when no step is left. */
int nd_classify_run_finish(nd_classify_run *run, nd_error *err);

/* The round-file header for dims: the dimension names, ND's nine columns and, unless
 * nd_columns, "idle,unclassified,optimizer". A new string the caller frees. */
char *nd_classify_csv_header(const nd_classify_dims *dims, bool nd_columns);

/* Appends the run's row to the round file at path, or creates it. An existing file
 * must have exactly this run's header (after dropping a UTF-8 BOM and CR), else
 * ND_EINPUT naming both. Written atomically: copy + row to a temporary file, rename. */
int nd_classify_csv_write(const nd_classify_run *run, const char *path, bool nd_columns, nd_error *err);

/* ND's --perf-parts file: the row in ND estimate columns (docs/reference/nd-calibration.md §3.5). */
int nd_classify_perf_parts_write(const nd_classify_run *run, const char *path, nd_error *err);

/* ND's --detail file: one row per rank-step with per-site columns (§3.6); warm-up
 * steps dropped by skip_steps are included and flagged in a "warmup" column. */
int nd_classify_detail_write(const nd_classify_run *run, const char *path, nd_error *err);

/* The text report: a summary (what was read, warnings, the row's parts in ms per step
 * and share); with verbose, ND's three blocks, communication by source, statistics, the
 * kernel view and the notes after it. */
void nd_classify_report_print(const nd_classify_run *run, FILE *out, bool verbose);

/* The kernel view as the --kernels CSV (nd_kernels_csv's columns): means per rank-step of
 * kernel time by class, each collective type and each GEMM or attention shape. ND_EINPUT
 * when no rank-step has a device view. Written atomically. */
int nd_classify_kernels_write(const nd_classify_run *run, const char *path, nd_error *err);

/* The same as one JSON document. */
void nd_classify_json_print(const nd_classify_run *run, FILE *out);

/* "DP=8 MP=2 PP=4" (the dims in order) into buf. */
void nd_classify_dims_text(const nd_classify_dims *dims, char *buf, size_t size);

/* ---- sweeps: a directory of runs ----------------------------------------------------- */

/* A sweep directory holds one subdirectory per run (per strategy); a run's inputs are the
 * Ascend output or the Chrome traces (.json, .json.gz) in it or one level down; its
 * degrees come from a strategy.txt in it (--dims syntax; its values over --dims), else
 * --dims, else its traces' distributedInfo. docs/classify.md, "Sweeps". */
typedef struct nd_classify_sweep {
    char **dirs;            /* owned: the run directories, in name order */
    nd_classify_run **runs; /* owned: one finished run each */
    size_t n;
} nd_classify_sweep;

/* Reads and finishes every run of dir with opts as each run's defaults. The first run
 * that fails fails the sweep (its message names it); nothing is kept. */
int nd_classify_sweep_load(const char *dir, const nd_classify_options *opts, nd_classify_sweep *s,
                           nd_error *err);
void nd_classify_sweep_free(nd_classify_sweep *s);

/* One row per run appended to the round file in one locked, atomic append (columns
 * matched by name, their union written). ND_EUSAGE for a run without degrees. */
int nd_classify_sweep_csv_write(const nd_classify_sweep *s, const char *path, bool nd_columns, nd_error *err);

/* A table of the runs' rows, the warnings first; with verbose each run's full report. */
void nd_classify_sweep_report_print(const nd_classify_sweep *s, FILE *out, bool verbose);

/* The run's plots into dir (which must exist): classify_ranks (each rank's step, the mean of
 * its kept steps, split into ND's parts) and, when some rank-step has a device view,
 * classify_kernels (device time by kernel class). opt is the plot library's options. */
struct nd_plot_options;
int nd_classify_plots(const nd_classify_run *run, const char *dir, const struct nd_plot_options *opt,
                      nd_error *err);
/* ---- trainer logs: nd-classify --log ------------------------------------------------ */

/* What a trainer log is read with. */
typedef struct nd_classify_log_options {
    nd_classify_dims dims; /* --dims: over the degrees the log states */
    bool has_dims;
    const char *config;  /* torchtitan's job toml (--log-config), or NULL */
    int skip_steps;      /* step lines dropped as warm-up; -1: the first tenth, at least one */
    bool peak_allocated; /* peak_mib from the allocated peak, not the reserved one */
} nd_classify_log_options;

/* One trainer log: its steady step time and what it says of its strategy. Megatron-LM
 * (Megatron-DeepSpeed, MindSpeed), torchtitan, NeMo and MindFormers logs are read;
 * docs/classify.md, "Trainer logs". */
typedef struct nd_classify_log {
    char *path;                         /* owned */
    const char *format;                 /* "Megatron-LM", "torchtitan", "NeMo", "MindFormers" */
    size_t n_steps, n_warmup, n_steady; /* step lines read, dropped, kept */
    double time_ms, min_ms, max_ms;     /* median, min and max of the kept step lines */
    double peak_mib;                    /* 0 when the log prints none */
    const char *peak_kind;              /* "max reserved", "max allocated" */
    nd_classify_dims dims;              /* the degrees the log states, then --dims */
    bool has_dims;
    char dims_source[160];
    int64_t gbs, seq_len, zero; /* 0 unknown */
    const char *recompute;      /* "off", "selective", "full"; NULL unknown */
    int sp;                     /* sequence parallel: 1, 0, or -1 unknown */
    double local_tokens;        /* tokens one data-parallel rank takes per step (torchtitan) */
    int64_t non_dp;             /* MP x PP x CP */
    char notes[8][256];
    int n_notes;
    bool skip_row; /* a value beyond what a round holds: noted, no row appended (--csv) */
} nd_classify_log;

/* Reads a trainer log. ND_EINPUT when it holds no step time of a known format, when a
 * step time is not a time, when torchtitan's tokens per second cannot become a time (no
 * --log-config), when --skip-steps drops every step. */
int nd_classify_log_read(const char *path, const nd_classify_log_options *opts, nd_classify_log *out,
                         nd_error *err);
void nd_classify_log_free(nd_classify_log *log);

/* One round row per log: the degrees (SP and ZERO when known), recompute, time, peak_mib,
 * gbs, seq_len; appended in one locked append. ND_EUSAGE for a log without
 * degrees (no printed strategy and no --dims). */
int nd_classify_logs_csv_write(const nd_classify_log *logs, size_t n, const char *path, nd_error *err);

/* What was read from each log: its format, steps kept, median and spread, peak, degrees. */
void nd_classify_logs_report_print(const nd_classify_log *logs, size_t n, FILE *out);

/* nd-classify's one-page HTML report (--report): summary, inputs, ND's parts, the plots (the
 * SVG copies in plots, or none), communication by source, the run's warnings and notes and
 * what it printed (capture, or NULL). csv: the round file the row went to, or NULL. */
struct nd_plot_gallery;
struct nd_html_capture;
int nd_classify_report_html(const nd_classify_run *run, const char *path, const char *csv,
                            const struct nd_plot_gallery *plots, struct nd_html_capture *capture,
                            nd_error *err);

#endif
