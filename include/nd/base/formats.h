/*
 * formats.h — one home per file format: the name of every key and column nd
 * reads or writes, in one table per format, which every reader and writer
 * indexes instead of spelling the names again. Renaming a column is a change
 * here and nowhere else; a reader and its writer cannot drift apart.
 *
 *   format                       written by                      read by
 *   ratios JSON                  nd-fit (calib/calibrate/fit_out.c)        -c (costmodel/ratios.c)
 *   classified CSV (the round)   nd-classify (classify_output.c) nd-compare, nd-fit
 *                                                                (calib/calibrate/classified.c)
 *   estimates CSV                nd-compare (compare_out.c)      nd-plot parity, parts
 *   ranking CSV                  nd-search (search_out.c)        nd-plot ranking
 *   memory CSV                   nd-search -o, nd-estimate        nd-plot memory
 *                                --memory-csv (report.c)
 *   recompute potentials CSV     nd-search -rp                   nd-plot potentials
 *                                (search_potentials.c)
 *   kernels CSV                  nd-classify --kernels           the device fit, scripts
 *                                (classify_kernels_out.c)
 *   report JSON                  nd-estimate --json (report.c), nd-compare's
 *                                <stem>_report.json, nd-fit --report-json, nd-search's
 *                                summary.json; read by scripts
 *
 * Shared vocabularies come first: the parallel dimensions (one nd_dim table for
 * the classified CSV, the search, the CSVs and labels), the twelve parts of a
 * step, the ratio keys and ND's folding of the parts onto the measured columns.
 * Only names live here: what a number means is the concept's own header.
 * docs/calibration.md, docs/search.md and docs/plots.md describe each format.
 */
#ifndef ND_FORMATS_H
#define ND_FORMATS_H

#include <stddef.h>
#include <stdint.h>

/* ---- parallel dimensions ------------------------------------------------------ */

/* In ND's column order: the first ND_DIMS_SEARCHED are what nd-search varies (and the
 * ranking CSV's columns); ETP and ZERO are read from rounds and run files only. */
typedef enum {
    ND_DIM_DP = 0,
    ND_DIM_EP,
    ND_DIM_MP, /* ND's name for tensor parallel; TP is its synonym */
    ND_DIM_CP,
    ND_DIM_PP,
    ND_DIM_VPP,
    ND_DIM_MB,
    ND_DIM_MBS,
    ND_DIM_SP,
    ND_DIM_OP,
    ND_DIM_ETP,
    ND_DIM_ZERO,
    ND_DIMS
} nd_dim;

#define ND_DIMS_SEARCHED 10          /* DP .. OP */
#define ND_DIM_BIT(d)    (1u << (d)) /* a set of dimensions is a mask of these bits */

/* A dimension's name and synonym; its bit is ND_DIM_BIT(d), and the nd_strategy field it
 * names is read and set by nd_strategy_dim and nd_strategy_set_dim (strategy.h), beside
 * the struct, which nd_base does not see. */
typedef struct nd_dim_info {
    const char *name;    /* "MP": as ND writes it */
    const char *synonym; /* "TP" for MP; NULL for the others */
} nd_dim_info;

extern const nd_dim_info nd_dims[ND_DIMS];

/* The order a whole strategy is written in ("DP=8 MP=4 PP=2 ...", the report JSON's
 * "strategy" object, best.yaml's strategy:), Megatron's habit rather than ND's columns. */
extern const nd_dim nd_dim_strategy_order[ND_DIMS];

/* The keys of a strategy beyond its dimensions ("FIRST", "LAST", "recompute", "schedule"),
 * wherever a strategy is keys: --strategy, a run file's strategy:, best.yaml, the report
 * JSON's "strategy" object. */
typedef struct nd_strategy_keys_format {
    const char *first, *last, *recompute, *schedule;
} nd_strategy_keys_format;

extern const nd_strategy_keys_format nd_strategy_keys;

/* "DP", ..., "ZERO"; "?" out of range. */
const char *nd_dim_name(nd_dim d);

/* The dimension a name or synonym means, in any case ("tp" -> ND_DIM_MP), or -1. */
int nd_dim_from_name(const char *name);

/* d's name as `name` spells it: the synonym when name is d's synonym (any case), else
 * d's name. Messages quote what the user wrote: "strategy TP=3: ...". */
const char *nd_dim_spelling(nd_dim d, const char *name);

/* The names of the dimensions in mask, in ND's order, joined by single spaces into buf
 * ("DP EP MP CP PP VPP MB MBS SP OP"), for messages that list what is accepted. */
void nd_dim_names(unsigned mask, char *buf, size_t size);

/* ND's strategy label, "DP 8 MP 4 PP 2 SP": degree[d] for the searched dimensions
 * (< 0: not stated, left out), DP whenever stated, the others when not 1, SP last when
 * on. What nd-search prints, plots and nd-plot draw again from its CSVs. */
void nd_dim_label(const int64_t degree[ND_DIMS_SEARCHED], char *buf, size_t size);

/* ---- the twelve parts of a step and the ratio keys ---------------------------- */

/* The first ten are ND's, in ND's order; OPTIMIZER and OVERHEAD are nd's additions.
 * Their names are columns of the estimates and ranking CSVs and keys of the report
 * JSON's parts_ms. */
typedef enum {
    ND_PART_FW_COMPUTE = 0,
    ND_PART_BW_COMPUTE,
    ND_PART_RECOMPUTE,
    ND_PART_DP_COMM,
    ND_PART_DP_REDUCE,
    ND_PART_MP_COMM,
    ND_PART_EP_COMM,
    ND_PART_CP_COMM,
    ND_PART_PP_COMM,
    ND_PART_BUBBLE,
    ND_PART_OPTIMIZER,
    ND_PART_OVERHEAD,
    ND_PARTS
} nd_part;

#define ND_ND_PARTS 10 /* the parts ND itself has: FW_COMPUTE .. BUBBLE */

/* "FW_COMPUTE", ..., "OVERHEAD": the table, for plots that take an array of names. */
extern const char *const nd_part_names[ND_PARTS];
/* The same, "?" out of range. */
const char *nd_part_name(nd_part p);
/* ND's short names: "FW", "BW", "Rec", "DP", "AR", "MP", "EP", "CP", "P2P", "BBL"; "OPT", "OVH". */
const char *nd_part_short(nd_part p);

/* The keys of a ratios file. COMPUTE scales FW, BW and RECOMPUTE; FORWARD only
 * calibrates offload windows; the others scale the part of the same name. */
typedef enum {
    ND_RATIO_COMPUTE = 0,
    ND_RATIO_DP_COMM,
    ND_RATIO_DP_REDUCE,
    ND_RATIO_MP_COMM,
    ND_RATIO_EP_COMM,
    ND_RATIO_CP_COMM,
    ND_RATIO_PP_COMM,
    ND_RATIO_BUBBLE,
    ND_RATIO_OPTIMIZER,
    ND_RATIO_OVERHEAD,
    ND_RATIO_FORWARD,
    ND_RATIO_KEYS
} nd_ratio_key;

const char *nd_ratio_key_name(nd_ratio_key k);
/* The key with this name (case-sensitive), or -1. */
int nd_ratio_key_from_name(const char *name);

/* Fixed costs a calibration adds to OVERHEAD: what a step costs beyond the estimate per
 * kernel on the step's critical path (µs), per micro-batch slot (ms) and per step (ms).
 * Keys of the ratios file beside the ratio keys. */
typedef enum { ND_FIXED_KERNEL = 0, ND_FIXED_MICROBATCH, ND_FIXED_STEP, ND_FIXED_COSTS } nd_fixed_cost;

/* "KERNEL_US", "MICROBATCH_MS", "STEP_MS"; "?" out of range. */
const char *nd_fixed_cost_name(nd_fixed_cost f);
/* The fixed cost with this name (case-sensitive), or -1. */
int nd_fixed_cost_from_name(const char *name);

/* Memory ratios: MEM_ACTIVATIONS scales the activations kept for backward, MEM_TRANSIENT
 * the transient tensors, communication buffers and the caching allocator's share. */
typedef enum { ND_MEM_ACTIVATIONS = 0, ND_MEM_TRANSIENT, ND_MEM_RATIOS } nd_memory_ratio;

/* "MEM_ACTIVATIONS", "MEM_TRANSIENT"; "?" out of range. */
const char *nd_memory_ratio_name(nd_memory_ratio m);
/* The memory ratio with this name (case-sensitive), or -1. */
int nd_memory_ratio_from_name(const char *name);

/* ---- ND's folding of the parts onto the measured columns ----------------------- */

/* The measured columns and the estimated parts, folded onto one vocabulary
 * (docs/reference/nd-calibration.md §0.3, plus idle and the total):
 *   comp    comp                   FW_COMPUTE + BW_COMPUTE + RECOMPUTE + OPTIMIZER
 *   dp_wait dp_wait + op_wait      DP_COMM + DP_REDUCE
 *   mp_wait mp_wait + sp_wait      MP_COMM
 *   ep_wait, cp_wait               EP_COMM, CP_COMM
 *   pp_wait pp_wait                PP_COMM + BUBBLE
 *   idle    ND's IDLE              OVERHEAD
 *   total   time                   the step
 * The estimates CSV writes each measured fold as "measured_<fold>", so nd-plot folds
 * the estimated parts the same way from nd_fold_parts. */
typedef enum {
    ND_FOLD_COMP = 0,
    ND_FOLD_DP,
    ND_FOLD_MP,
    ND_FOLD_EP,
    ND_FOLD_CP,
    ND_FOLD_PP,
    ND_FOLD_IDLE,
    ND_FOLD_TOTAL,
    ND_FOLDS
} nd_fold;

/* "comp", "dp_wait", ..., "idle", "total". */
const char *nd_fold_name(nd_fold f);
/* The parts fold f sums, a bit (1u << nd_part) each; every part for ND_FOLD_TOTAL. */
unsigned nd_fold_parts(nd_fold f);

/* ---- the ratios file (JSON; nd-fit writes, -c reads) --------------------------- */

#define ND_RATIOS_FORMAT 1 /* the `_nd.format` this nd writes and reads */

/* Besides one number per ratio key: ND's `_fitted_on` and nd's `_nd` stamp, whose object
 * nd-fit --report-json also writes as its "fit". */
typedef struct nd_ratios_format {
    const char *fitted_on, *fitted_csv, *fitted_strategies; /* _fitted_on: csv, strategies */
    const char *stamp;                                      /* _nd */
    const char *format, *cost_model, *units, *units_ms, *nd_version, *device, *model, *seq_len;
    const char *mode, *weights, *robust, *allow_fallback, *ridge_lambda, *rows;
    const char *ratios; /* per key: */
    const char *value, *status, *ratio_fitted_on, *ci95, *why, *source;
    const char *leave_one_out, *total, *in_sample; /* metrics: */
    const char *mape, *max_error, *spearman, *regret;
    /* the uncertainty -c carries to decisions: _nd.uncertainty.{time, memory} */
    const char *uncertainty, *time, *memory, *terms, *covariance, *residual_sd, *dof, *t95;
    const char *peak, *max_ci, *hold, *distinct;                           /* what the fit checked */
    const char *history, *drift, *previous;                                /* the nightly job's record */
    const char *shapes, *ridge_rows, *spread, *table, *delta, *se, *parts; /* _nd.shapes */
    const char *rounds, *key, *hash;                                       /* provenance, drift entries */
} nd_ratios_format;

extern const nd_ratios_format nd_ratios_json;

/* ---- the classified CSV (a profiling round) ----------------------------------- */

/* The measured columns, ms per step, after the dimensions and `time`. The first eight
 * are ND's, in ND's order; idle, unclassified and optimizer (ms of the optimizer step
 * inside comp) are nd's. */
typedef enum {
    ND_MEAS_COMP = 0,
    ND_MEAS_DP_WAIT,
    ND_MEAS_MP_WAIT,
    ND_MEAS_EP_WAIT,
    ND_MEAS_CP_WAIT,
    ND_MEAS_PP_WAIT,
    ND_MEAS_OP_WAIT,
    ND_MEAS_SP_WAIT,
    ND_MEAS_IDLE,
    ND_MEAS_UNCLASSIFIED,
    ND_MEAS_OPTIMIZER,
    ND_MEAS_COUNT
} nd_measured;

#define ND_MEAS_ND 8 /* comp .. sp_wait: the measured columns ND itself reads */

/* The dimensions (nd_dims, TP accepted for MP) come first, in any order. */
typedef struct nd_classified_format {
    const char *time;                    /* the profiled step */
    const char *measured[ND_MEAS_COUNT]; /* "comp", "dp_wait", ... */
    const char *recompute, *step_trainer, *devices, *gbs, *seq_len, *peak_mib;
    const char *accepted; /* every name above, for the message refusing another */
} nd_classified_format;

extern const nd_classified_format nd_classified_csv;

/* ---- the estimates CSV (nd-compare's <stem>_estimates.csv) --------------------- */

/* The round's dimension columns and recompute; time, memory_mb, score, the twelve part
 * names; raw_ms, measured_peak_mib, label; then measured_<fold> for every fold but the
 * total. */
typedef struct nd_estimates_format {
    const char *recompute, *time, *memory_mb, *score, *raw_ms, *measured_peak_mib, *label;
    const char *measured_prefix; /* "measured_" before a fold name */
    /* nd's, after the folds: the measured peak's relative error, and with -c the 95 %
     * prediction intervals of the step and of the peak */
    const char *memory_error, *score_lo, *score_hi, *memory_lo, *memory_hi;
} nd_estimates_format;

extern const nd_estimates_format nd_estimates_csv;

/* ---- the ranking CSV (nd-search's ranking.csv, --ranking_csv) ------------------- */

/* rank, the searched dimensions, recompute (with a recompute dimension or -ar),
 * memory_mb, score, the twelve part names, step_ms, tokens_per_s. */
typedef struct nd_ranking_format {
    const char *rank, *recompute, *memory_mb, *score, *step_ms, *tokens_per_s;
    /* with -c and an uncertainty: the step's 95 % prediction interval; for the top
     * candidates the probability of being fastest and whether #1 is told apart from it */
    const char *step_lo_ms, *step_hi_ms, *p_fastest, *tied_with_best;
    /* the answer: the distinct choice a row belongs to, the rank of the row it is folded into
     * (blank when shown), its plan in words, offloaded layers, headroom under the budget, the
     * interval's kind ("fitted" or "uncalibrated") and its MFU */
    const char *layout, *folded_into, *plan, *offloaded_layers, *headroom_mib, *interval, *mfu;
} nd_ranking_format;

extern const nd_ranking_format nd_ranking_csv;

/* ---- the memory CSV (memory per pipeline stage) -------------------------------- */

#define ND_MEMORY_COMPONENTS  9 /* params .. context, held: what a stage's total adds up */
#define ND_MEMORY_RECLAIMABLE 1 /* of which the last ones the runtime gives back under pressure */

typedef struct nd_memory_format {
    const char *stage, *first_layer, *layers, *inflight;
    const char *component[ND_MEMORY_COMPONENTS]; /* "params_mib", ..., "context_mib", "held_mib"
                                                    (held: optional in files read, 0) */
    const char *title[ND_MEMORY_COMPONENTS];     /* each one's legend in the memory plots */
    const char *total_mib, *budget_mib;
} nd_memory_format;

extern const nd_memory_format nd_memory_csv;

/* ---- the run list (nd-fit --suggest --run-list) --------------------------------- */

/* The searched dimensions (nd_dims), then these. */
typedef struct nd_run_list_format {
    const char *recompute, *estimated_ms, *reason;
} nd_run_list_format;

extern const nd_run_list_format nd_run_list_csv;

/* ---- nd-fit's plot CSVs (nd-fit -o: <stem>_ratios.csv, <stem>_loo.csv) -------------- */

/* ratios: a row per ratio key, its value and 95 % interval (blank unless fitted), its status
 * (the status names of fit.h) and the note drawn beside it. loo: a row per strategy, its label,
 * then per panel (the step, then each ratio fitted on a column of its own) the panel's name
 * with each suffix: what was measured, the fit on every row, the prediction left out. */
typedef struct nd_fit_plot_format {
    const char *ratio, *value, *lo, *hi, *status, *note;
    const char *label, *measured, *fitted, *left_out; /* the last three are suffixes: "step:measured" */
} nd_fit_plot_format;

extern const nd_fit_plot_format nd_fit_plot_csv;

/* ---- the recompute potentials CSV (nd-search -rp) ------------------------------- */

/* TOP, step, the searched dimensions, then the rest in this order. layer_recompute
 * holds a JSON list of {stage, kind, <mode>: count..., offloaded} per stage and kind. */
typedef struct nd_potentials_format {
    const char *top, *step;
    const char *changed_layer, *full_layers, *memory_mb, *score, *recompute_mode;
    const char *recompute_layers, *layer_recompute, *stage_memory_mb, *stage_savings, *plan_scope;
    const char *cell_stage, *cell_kind, *cell_offloaded; /* keys inside layer_recompute */
    const char *scope_offload, *scope_per_layer;         /* plan_scope's values */
} nd_potentials_format;

extern const nd_potentials_format nd_potentials_csv;

/* ---- the kernels CSV (nd-classify --kernels) ------------------------------------ */

/* What the device's kernels did, per profiled step (means over the run's rank-steps):
 * one row per kernel class, per collective type and per GEMM or attention shape, told
 * apart by `section` (section_class, section_collective, section_shape). The columns, in
 * order: section, name, class, calls, kernel_ms, step_share, exposed_ms, overlapped_ms,
 * mib, algbw_gbps, busbw_gbps, op, dtype, batch, m, n, k, heads, seq_q, seq_kv, head_dim,
 * ms_per_call, gflop_per_call, tflops; blank where a row has no such number.
 * docs/classify.md, "--kernels", defines each. */
#define ND_KERNELS_COLUMNS 24
typedef struct nd_kernels_format {
    const char *column[ND_KERNELS_COLUMNS];
    const char *section_class, *section_collective, *section_shape;
} nd_kernels_format;

/* Indices of nd_kernels_csv.column. */
enum {
    ND_KCOL_SECTION = 0,
    ND_KCOL_NAME,
    ND_KCOL_CLASS,
    ND_KCOL_CALLS,
    ND_KCOL_KERNEL_MS,
    ND_KCOL_STEP_SHARE,
    ND_KCOL_EXPOSED_MS,
    ND_KCOL_OVERLAPPED_MS,
    ND_KCOL_MIB,
    ND_KCOL_ALGBW_GBPS,
    ND_KCOL_BUSBW_GBPS,
    ND_KCOL_OP,
    ND_KCOL_DTYPE,
    ND_KCOL_BATCH,
    ND_KCOL_M,
    ND_KCOL_N,
    ND_KCOL_K,
    ND_KCOL_HEADS,
    ND_KCOL_SEQ_Q,
    ND_KCOL_SEQ_KV,
    ND_KCOL_HEAD_DIM,
    ND_KCOL_MS_PER_CALL,
    ND_KCOL_GFLOP_PER_CALL,
    ND_KCOL_TFLOPS
};

extern const nd_kernels_format nd_kernels_csv;

/* ---- the report JSON documents ------------------------------------------------- */

/* The keys of nd's JSON reports: nd-estimate --json, nd-compare's <stem>_report.json,
 * nd-fit --report-json (whose "fit" is the ratios file's _nd) and nd-search's
 * summary.json. A strategy object is keyed by nd_dims' names (nd_dim_strategy_order),
 * then nd_strategy_keys; parts_ms by the part names; measured_ms,
 * estimated_ms and metrics by the fold names. */
typedef struct nd_report_format {
    /* the run, the model, the strategy (its keys: nd_dims and nd_strategy_keys) */
    const char *nd_version, *cost_model, *model, *device, *devices, *seq_len, *global_batch;
    const char *device_rates_caveat, *strategy_caveat, *strategy, *recompute;
    /* an estimate (nd-estimate --json; parts of the others) */
    const char *step_ms, *raw_step_ms, *parts_ms, *raw_parts_ms, *corrected, *peak_mib;
    const char *peak_allocated_mib, *peak_reserved_mib, *peak_firm_mib, *held;
    const char *peak_stage, *budget_mib, *fits, *params_total, *params_with_mtp;
    const char *params_active_per_token, *straggler_stage, *tokens_per_s_per_device, *mfu;
    const char *model_flops_per_step, *stages, *stage, *first_layer, *layers;
    const char *inflight_microbatches, *memory_mib, *params, *grads, *optimizer, *activations;
    const char *working, *buffers, *allocator, *context, *allocated, *reserved, *total, *microbatch_ms,
        *forward, *backward;
    const char *mp_comm, *ep_comm, *cp_comm, *overhead, *dp_comm, *dp_reduce;
    /* a comparison (<stem>_report.json) */
    const char *csv, *rows, *label, *line, *measured_ms, *estimated_ms, *rank_ms;
    const char *step_trainer_ms, *measured_peak_mib, *estimated_peak_mib, *metrics, *pearson;
    const char *spearman, *mape, *bias, *max_error, *ranked_per_sequence_and_device, *memory;
    const char *top_k, *regret, *pick, *fastest, *trainer_steps, *fits_but_measured_over_budget;
    /* a fit (nd-fit --report-json) */
    const char *fit, *corrected_ms, *left_out_ms, *left_out_error;
    /* a search (summary.json) */
    const char *enumerated, *refused, *priced, *dropped_for_memory, *dropped_by_bound;
    const char *fitting, *min_peak_mib, *best, *best_step_ms;
    /* what a calibration's uncertainty says (-c) */
    const char *step_interval_ms, *peak_interval_mib, *odds, *draws, *rank, *p_fastest;
    const char *p_faster_than_best, *tied_with_best, *memory_error;
    /* the search's answer (summary.json): distinct choices and what they assume */
    const char *choices, *layouts, *plan, *variants, *op_range, *interval, *headroom_mib, *assumptions, *what,
        *text, *fold_step_share, *margin_mib, *device_budget_mib;
    /* one micro-batch of each layer kind (nd-estimate --json's layer_costs) */
    const char *layer_costs, *kind, *count, *forward_ms, *backward_ms, *recompute_ms, *gemm_ms, *attention_ms;
    const char *memory_bound_ms, *tp_ms, *ep_ms, *cp_ms, *kernels, *host_ops, *host_ms, *device_ms;
} nd_report_format;

extern const nd_report_format nd_report_json;

#endif
