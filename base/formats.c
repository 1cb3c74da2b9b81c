/*
 * formats.c — the names of nd's file formats, each spelled once (formats.h).
 *
 * Tables are indexed by the enums of formats.h; the static assertions keep an
 * enum and its table the same length, so adding a part or a dimension without
 * its name fails to compile.
 */
#include "nd/base/formats.h"

#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/array.h"

/* ---- parallel dimensions ------------------------------------------------------ */

const nd_dim_info nd_dims[ND_DIMS] = {
    [ND_DIM_DP] = {"DP", NULL}, [ND_DIM_EP] = {"EP", NULL},   [ND_DIM_MP] = {"MP", "TP"},
    [ND_DIM_CP] = {"CP", NULL}, [ND_DIM_PP] = {"PP", NULL},   [ND_DIM_VPP] = {"VPP", NULL},
    [ND_DIM_MB] = {"MB", NULL}, [ND_DIM_MBS] = {"MBS", NULL}, [ND_DIM_SP] = {"SP", NULL},
    [ND_DIM_OP] = {"OP", NULL}, [ND_DIM_ETP] = {"ETP", NULL}, [ND_DIM_ZERO] = {"ZERO", NULL},
};

const nd_dim nd_dim_strategy_order[ND_DIMS] = {
    ND_DIM_DP, ND_DIM_MP,   ND_DIM_PP,  ND_DIM_CP, ND_DIM_EP,  ND_DIM_ETP,
    ND_DIM_OP, ND_DIM_ZERO, ND_DIM_VPP, ND_DIM_MB, ND_DIM_MBS, ND_DIM_SP,
};

const nd_strategy_keys_format nd_strategy_keys = {
    .first = "FIRST",
    .last = "LAST",
    .recompute = "recompute",
    .schedule = "schedule",
};

const char *nd_dim_name(nd_dim d)
{
    return (unsigned)d < ND_DIMS ? nd_dims[d].name : "?";
}

int nd_dim_from_name(const char *name)
{
    for (int d = 0; d < ND_DIMS; d++)
        if (nd_text_equal_nocase(name, nd_dims[d].name) ||
            (nd_dims[d].synonym && nd_text_equal_nocase(name, nd_dims[d].synonym)))
            return d;
    return -1;
}

const char *nd_dim_spelling(nd_dim d, const char *name)
{
    const char *syn = (unsigned)d < ND_DIMS ? nd_dims[d].synonym : NULL;
    return syn && nd_text_equal_nocase(name, syn) ? syn : nd_dim_name(d);
}

void nd_dim_names(unsigned mask, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < ND_DIMS && used < size; d++)
        if (mask & ND_DIM_BIT(d))
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "", nd_dims[d].name);
}

void nd_dim_label(const int64_t degree[ND_DIMS_SEARCHED], char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < ND_DIMS_SEARCHED && used < size; d++) {
        int64_t v = degree[d];
        if (d == ND_DIM_SP || v < 0 || (v == 1 && d != ND_DIM_DP)) continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s %lld", used ? " " : "", nd_dims[d].name,
                                 (long long)v);
    }
    if (degree[ND_DIM_SP] > 0 && used < size)
        snprintf(buf + used, size - used, "%s%s", used ? " " : "", nd_dims[ND_DIM_SP].name);
}

/* ---- parts, ratio keys, folds --------------------------------------------------- */

const char *const nd_part_names[ND_PARTS] = {
    "FW_COMPUTE", "BW_COMPUTE", "RECOMPUTE", "DP_COMM", "DP_REDUCE", "MP_COMM",
    "EP_COMM",    "CP_COMM",    "PP_COMM",   "BUBBLE",  "OPTIMIZER", "OVERHEAD",
};
static const char *const part_shorts[] = {"FW", "BW", "Rec", "DP",  "AR",  "MP",
                                          "EP", "CP", "P2P", "BBL", "OPT", "OVH"};
static const char *const ratio_names[] = {
    "COMPUTE", "DP_COMM", "DP_REDUCE", "MP_COMM",  "EP_COMM", "CP_COMM",
    "PP_COMM", "BUBBLE",  "OPTIMIZER", "OVERHEAD", "FORWARD",
};
static const char *const fixed_names[] = {"KERNEL_US", "MICROBATCH_MS", "STEP_MS"};
static const char *const memory_ratio_names[] = {"MEM_ACTIVATIONS", "MEM_TRANSIENT"};
static const char *const fold_names[] = {"comp",    "dp_wait", "mp_wait", "ep_wait",
                                         "cp_wait", "pp_wait", "idle",    "total"};

#define PART(p) (1u << (p))
static const unsigned fold_parts[] = {
    [ND_FOLD_COMP] = PART(ND_PART_FW_COMPUTE) | PART(ND_PART_BW_COMPUTE) | PART(ND_PART_RECOMPUTE) |
                     PART(ND_PART_OPTIMIZER),
    [ND_FOLD_DP] = PART(ND_PART_DP_COMM) | PART(ND_PART_DP_REDUCE),
    [ND_FOLD_MP] = PART(ND_PART_MP_COMM),
    [ND_FOLD_EP] = PART(ND_PART_EP_COMM),
    [ND_FOLD_CP] = PART(ND_PART_CP_COMM),
    [ND_FOLD_PP] = PART(ND_PART_PP_COMM) | PART(ND_PART_BUBBLE),
    [ND_FOLD_IDLE] = PART(ND_PART_OVERHEAD),
    [ND_FOLD_TOTAL] = PART(ND_PARTS) - 1,
};

_Static_assert(ND_ARRAY_LEN(part_shorts) == ND_PARTS, "a short name per part");
_Static_assert(ND_ARRAY_LEN(ratio_names) == ND_RATIO_KEYS, "a name per ratio key");
_Static_assert(ND_ARRAY_LEN(fixed_names) == ND_FIXED_COSTS, "a name per fixed cost");
_Static_assert(ND_ARRAY_LEN(memory_ratio_names) == ND_MEM_RATIOS, "a name per memory ratio");
_Static_assert(ND_ARRAY_LEN(fold_names) == ND_FOLDS, "a name per fold");
_Static_assert(ND_ARRAY_LEN(fold_parts) == ND_FOLDS, "parts per fold");

const char *nd_part_name(nd_part p)
{
    return (unsigned)p < ND_PARTS ? nd_part_names[p] : "?";
}

const char *nd_part_short(nd_part p)
{
    return (unsigned)p < ND_PARTS ? part_shorts[p] : "?";
}

const char *nd_ratio_key_name(nd_ratio_key k)
{
    return (unsigned)k < ND_RATIO_KEYS ? ratio_names[k] : "?";
}

int nd_ratio_key_from_name(const char *name)
{
    for (int i = 0; i < ND_RATIO_KEYS; i++)
        if (!strcmp(ratio_names[i], name)) return i;
    return -1;
}

const char *nd_fixed_cost_name(nd_fixed_cost f)
{
    return (unsigned)f < ND_FIXED_COSTS ? fixed_names[f] : "?";
}

int nd_fixed_cost_from_name(const char *name)
{
    for (int i = 0; i < ND_FIXED_COSTS; i++)
        if (!strcmp(fixed_names[i], name)) return i;
    return -1;
}

const char *nd_memory_ratio_name(nd_memory_ratio m)
{
    return (unsigned)m < ND_MEM_RATIOS ? memory_ratio_names[m] : "?";
}

int nd_memory_ratio_from_name(const char *name)
{
    for (int i = 0; i < ND_MEM_RATIOS; i++)
        if (!strcmp(memory_ratio_names[i], name)) return i;
    return -1;
}

const char *nd_fold_name(nd_fold f)
{
    return (unsigned)f < ND_FOLDS ? fold_names[f] : "?";
}

unsigned nd_fold_parts(nd_fold f)
{
    return (unsigned)f < ND_FOLDS ? fold_parts[f] : 0;
}

/* ---- the formats ------------------------------------------------------------------ */

const nd_ratios_format nd_ratios_json = {
    .fitted_on = "_fitted_on",
    .fitted_csv = "csv",
    .fitted_strategies = "strategies",
    .stamp = "_nd",
    .format = "format",
    .cost_model = "cost_model",
    .units = "units",
    .units_ms = "ms",
    .nd_version = "nd_version",
    .device = "device",
    .model = "model",
    .seq_len = "seq_len",
    .mode = "mode",
    .weights = "weights",
    .robust = "robust",
    .allow_fallback = "allow_fallback",
    .ridge_lambda = "ridge_lambda",
    .rows = "rows",
    .ratios = "ratios",
    .value = "value",
    .status = "status",
    .ratio_fitted_on = "fitted_on",
    .ci95 = "ci95",
    .why = "why",
    .source = "source",
    .leave_one_out = "leave_one_out",
    .total = "total",
    .in_sample = "in_sample",
    .mape = "mape",
    .max_error = "max_error",
    .spearman = "spearman",
    .regret = "regret",
    .uncertainty = "uncertainty",
    .time = "time",
    .memory = "memory",
    .terms = "terms",
    .covariance = "covariance",
    .residual_sd = "residual_sd",
    .dof = "dof",
    .t95 = "t95",
    .peak = "peak",
    .max_ci = "max_ci",
    .hold = "hold",
    .distinct = "distinct_strategies",
    .history = "history",
    .drift = "drift",
    .previous = "previous",
    .shapes = "shapes",
    .ridge_rows = "ridge_rows",
    .spread = "spread",
    .table = "table",
    .delta = "delta",
    .se = "se",
    .parts = "parts",
    .rounds = "rounds",
    .key = "key",
    .hash = "fnv1a64",
};

const nd_classified_format nd_classified_csv = {
    .time = "time",
    .measured = {"comp", "dp_wait", "mp_wait", "ep_wait", "cp_wait", "pp_wait", "op_wait", "sp_wait", "idle",
                 "unclassified", "optimizer"},
    .recompute = "recompute",
    .step_trainer = "step_trainer",
    .devices = "devices",
    .gbs = "gbs",
    .seq_len = "seq_len",
    .peak_mib = "peak_mib",
    .accepted = "DP EP MP (or TP) CP PP VPP MB MBS SP OP ETP ZERO, time, comp, dp_wait mp_wait "
                "ep_wait cp_wait pp_wait op_wait sp_wait, idle, unclassified, optimizer, recompute, "
                "step_trainer, devices, gbs, seq_len, peak_mib",
};

const nd_estimates_format nd_estimates_csv = {
    .recompute = "recompute",
    .time = "time",
    .memory_mb = "memory_mb",
    .score = "score",
    .raw_ms = "raw_ms",
    .measured_peak_mib = "measured_peak_mib",
    .label = "label",
    .measured_prefix = "measured_",
    .memory_error = "memory_error",
    .score_lo = "score_lo",
    .score_hi = "score_hi",
    .memory_lo = "memory_lo",
    .memory_hi = "memory_hi",
};

const nd_run_list_format nd_run_list_csv = {
    .recompute = "recompute",
    .estimated_ms = "estimated_ms",
    .reason = "reason",
};

const nd_fit_plot_format nd_fit_plot_csv = {
    .ratio = "ratio",
    .value = "value",
    .lo = "lo",
    .hi = "hi",
    .status = "status",
    .note = "note",
    .label = "label",
    .measured = ":measured",
    .fitted = ":fitted",
    .left_out = ":left_out",
};

const nd_ranking_format nd_ranking_csv = {
    .rank = "rank",
    .recompute = "recompute",
    .memory_mb = "memory_mb",
    .score = "score",
    .step_ms = "step_ms",
    .tokens_per_s = "tokens_per_s",
    .step_lo_ms = "step_lo_ms",
    .step_hi_ms = "step_hi_ms",
    .p_fastest = "p_fastest",
    .tied_with_best = "tied_with_best",
    .layout = "layout",
    .folded_into = "folded_into",
    .plan = "plan",
    .offloaded_layers = "offloaded_layers",
    .headroom_mib = "headroom_mib",
    .interval = "interval",
    .mfu = "mfu",
};

const nd_kernels_format nd_kernels_csv = {
    .column = {"section",    "name",        "class",          "calls", "kernel_ms",
               "step_share", "exposed_ms",  "overlapped_ms",  "mib",   "algbw_gbps",
               "busbw_gbps", "op",          "dtype",          "batch", "m",
               "n",          "k",           "heads",          "seq_q", "seq_kv",
               "head_dim",   "ms_per_call", "gflop_per_call", "tflops"},
    .section_class = "class",
    .section_collective = "collective",
    .section_shape = "shape",
};

const nd_memory_format nd_memory_csv = {
    .stage = "stage",
    .first_layer = "first_layer",
    .layers = "layers",
    .inflight = "inflight",
    .component = {"params_mib", "grads_mib", "optimizer_mib", "activations_mib", "working_mib", "buffers_mib",
                  "allocator_mib", "context_mib", "held_mib"},
    .title = {"parameters", "gradients", "optimizer", "activations", "working", "buffers", "allocator cache",
              "runtime context", "held buffers (given back)"},
    .total_mib = "total_mib",
    .budget_mib = "budget_mib",
};

const nd_potentials_format nd_potentials_csv = {
    .top = "TOP",
    .step = "step",
    .changed_layer = "changed_layer",
    .full_layers = "full_layers",
    .memory_mb = "memory_mb",
    .score = "score",
    .recompute_mode = "recompute_mode",
    .recompute_layers = "recompute_layers",
    .layer_recompute = "layer_recompute",
    .stage_memory_mb = "stage_memory_mb",
    .stage_savings = "stage_savings",
    .plan_scope = "plan_scope",
    .cell_stage = "stage",
    .cell_kind = "kind",
    .cell_offloaded = "offloaded",
    .scope_offload = "offload",
    .scope_per_layer = "per_layer",
};

const nd_report_format nd_report_json = {
    .nd_version = "nd_version",
    .cost_model = "cost_model",
    .model = "model",
    .device = "device",
    .devices = "devices",
    .seq_len = "seq_len",
    .global_batch = "global_batch",
    .device_rates_caveat = "device_rates_caveat",
    .strategy_caveat = "strategy_caveat",
    .strategy = "strategy",
    .recompute = "recompute",

    .step_ms = "step_ms",
    .raw_step_ms = "raw_step_ms",
    .parts_ms = "parts_ms",
    .raw_parts_ms = "raw_parts_ms",
    .corrected = "corrected",
    .peak_mib = "peak_mib",
    .peak_allocated_mib = "peak_allocated_mib",
    .peak_reserved_mib = "peak_reserved_mib",
    .peak_firm_mib = "peak_firm_mib",
    .held = "held",
    .peak_stage = "peak_stage",
    .budget_mib = "budget_mib",
    .fits = "fits",
    .params_total = "params_total",
    .params_with_mtp = "params_with_mtp",
    .params_active_per_token = "params_active_per_token",
    .straggler_stage = "straggler_stage",
    .tokens_per_s_per_device = "tokens_per_s_per_device",
    .mfu = "mfu",
    .model_flops_per_step = "model_flops_per_step",
    .stages = "stages",
    .stage = "stage",
    .first_layer = "first_layer",
    .layers = "layers",
    .inflight_microbatches = "inflight_microbatches",
    .memory_mib = "memory_mib",
    .params = "params",
    .grads = "grads",
    .optimizer = "optimizer",
    .activations = "activations",
    .working = "working",
    .buffers = "buffers",
    .allocator = "allocator",
    .context = "context",
    .allocated = "allocated",
    .reserved = "reserved",
    .total = "total",
    .microbatch_ms = "microbatch_ms",
    .forward = "forward",
    .backward = "backward",
    .mp_comm = "mp_comm",
    .ep_comm = "ep_comm",
    .cp_comm = "cp_comm",
    .overhead = "overhead",
    .dp_comm = "dp_comm",
    .dp_reduce = "dp_reduce",

    .csv = "csv",
    .rows = "rows",
    .label = "label",
    .line = "line",
    .measured_ms = "measured_ms",
    .estimated_ms = "estimated_ms",
    .rank_ms = "rank_ms",
    .step_trainer_ms = "step_trainer_ms",
    .measured_peak_mib = "measured_peak_mib",
    .estimated_peak_mib = "estimated_peak_mib",
    .metrics = "metrics",
    .pearson = "pearson",
    .spearman = "spearman",
    .mape = "mape",
    .bias = "bias",
    .max_error = "max_error",
    .ranked_per_sequence_and_device = "ranked_per_sequence_and_device",
    .memory = "memory",
    .top_k = "top_k",
    .regret = "regret",
    .pick = "pick",
    .fastest = "fastest",
    .trainer_steps = "trainer_steps",
    .fits_but_measured_over_budget = "fits_but_measured_over_budget",

    .fit = "fit",
    .corrected_ms = "corrected_ms",
    .left_out_ms = "left_out_ms",
    .left_out_error = "left_out_error",

    .enumerated = "enumerated",
    .refused = "refused",
    .priced = "priced",
    .dropped_for_memory = "dropped_for_memory",
    .dropped_by_bound = "dropped_by_bound",
    .fitting = "fitting",
    .min_peak_mib = "min_peak_mib",
    .best = "best",
    .best_step_ms = "best_step_ms",
    .step_interval_ms = "step_interval_ms",
    .peak_interval_mib = "peak_interval_mib",
    .odds = "odds",
    .draws = "draws",
    .rank = "rank",
    .p_fastest = "p_fastest",
    .p_faster_than_best = "p_faster_than_best",
    .tied_with_best = "tied_with_best",
    .memory_error = "memory_error",
    .choices = "choices",
    .layouts = "layouts",
    .plan = "plan",
    .variants = "variants",
    .op_range = "op_range",
    .interval = "interval",
    .headroom_mib = "headroom_mib",
    .assumptions = "assumptions",
    .what = "what",
    .text = "text",
    .fold_step_share = "fold_step_share",
    .margin_mib = "margin_mib",
    .device_budget_mib = "device_budget_mib",
    .layer_costs = "layer_costs",
    .kind = "kind",
    .count = "count",
    .forward_ms = "forward_ms",
    .backward_ms = "backward_ms",
    .recompute_ms = "recompute_ms",
    .gemm_ms = "gemm_ms",
    .attention_ms = "attention_ms",
    .memory_bound_ms = "memory_bound_ms",
    .tp_ms = "tp_ms",
    .ep_ms = "ep_ms",
    .cp_ms = "cp_ms",
    .kernels = "kernels",
    .host_ops = "host_ops",
    .host_ms = "host_ms",
    .device_ms = "device_ms",
};
