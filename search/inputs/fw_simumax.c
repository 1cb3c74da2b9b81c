/*
 * fw_simumax.c — SimuMax's run files (MooreThreads/SimuMax): the strategy JSON (-y, its
 * StrategyConfig) and the model JSON beside it (--model-config, its ModelConfig), each field
 * given the meaning SimuMax's simumax/core/config.py gives it (read, not copied; docs/
 * frameworks.md §SimuMax). SimuMax prices Megatron-LM, so the run is Megatron's. The choice
 * goes back into a copy of the strategy JSON (resolved_strategy.json).
 */
#include "fw_formats.h"
#include "fw_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"
#include "nd/costmodel/model.h"
#include "nd/inputs/model_fields.h"

#define WHOLE_MAX (1 << 24)

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool on(const cJSON *o, const char *key, bool otherwise)
{
    const cJSON *v = item(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : otherwise;
}

/* A key that must be a JSON true or false when present. */
static int check_bool(fw_reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = item(o, key);
    if (!v || cJSON_IsBool(v) || cJSON_IsNull(v)) return ND_OK;
    return nd_error_set(r->err, ND_EINPUT, "%s: %s: not true or false", r->path, key);
}

/* A text key (NULL when absent or null; an error when not a string). */
static int text_of(fw_reader *r, const cJSON *o, const char *key, const char **out)
{
    const cJSON *v = item(o, key);
    *out = cJSON_IsString(v) ? v->valuestring : NULL;
    if (!v || cJSON_IsNull(v) || *out) return ND_OK;
    return nd_error_set(r->err, ND_EINPUT, "%s: %s: not a string", r->path, key);
}

/* ---- the model JSON ------------------------------------------------------------------------ */

/* ModelConfig keys and the Hugging Face key each sets. */
static const struct {
    const char *theirs, *hf;
} model_keys[] = {
    {"hidden_size", "hidden_size"},
    {"head_num", "num_attention_heads"},
    {"kv_head_num", "num_key_value_heads"},
    {"head_size", "head_dim"},
    {"intermediate_size", "intermediate_size"},
    {"layer_num", "num_hidden_layers"},
    {"vocab_size", "vocab_size"},
    {"topk", "num_experts_per_tok"},
    {"moe_ffn_hidden_size", "moe_intermediate_size"},
    {"dense_layers", "first_k_dense_replace"},
    {"q_lora_rank", "q_lora_rank"},
    {"kv_lora_rank", "kv_lora_rank"},
    {"qk_head_dim", "qk_nope_head_dim"},
    {"qk_pos_emb_head_dim", "qk_rope_head_dim"},
    {"v_head_dim", "v_head_dim"},
};

/* Keys ModelConfig has that nd reads otherwise or need not price. */
static const char *const model_known[] = {
    "model_type",
    "model_name",
    "use_swiglu",
    "expert_num",
    "attention_type",
    "orig_vocab_size",
    "moe_shared_expert_intermediate_size",
    "moe_pad_expert_input_to_capacity",
    "capacity",
    "group_linear_mode",
    "make_vocab_size_divisible_by",
    "padded_vocab_size",
};

static bool model_key_known(const char *key)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(model_keys); i++)
        if (!strcmp(key, model_keys[i].theirs)) return true;
    for (size_t i = 0; i < ND_ARRAY_LEN(model_known); i++)
        if (!strcmp(key, model_known[i])) return true;
    return false;
}

/* The family and the keys whose meaning depends on it: MLA is DeepSeek's; experts with a
 * shared one Qwen2-MoE's (its shared_expert_intermediate_size), without one Mixtral's (top-k
 * softmax routing, no shared expert); else Llama's. use_swiglu false: a plain GELU MLP. */
static int model_family(fw_reader *r, const cJSON *m, int64_t experts)
{
    const char *attention = NULL, *name = NULL;
    int rc = text_of(r, m, "attention_type", &attention);
    if (!rc) rc = text_of(r, m, "model_name", &name);
    if (!rc) rc = check_bool(r, m, "use_swiglu");
    if (rc) return rc;
    if (attention && strcmp(attention, "mha") && strcmp(attention, "mla"))
        return nd_error_set(r->err, ND_EINPUT, "%s: attention_type: '%s' is not mha or mla", r->path,
                            attention);
    bool mla = attention && !strcmp(attention, "mla");
    int64_t shared = 0;
    if (fw_json_whole(r, item(m, "moe_shared_expert_intermediate_size"),
                      "moe_shared_expert_intermediate_size", 0, WHOLE_MAX, &shared) < 0)
        return ND_EINPUT;
    rc = fw_model_family(r,
                         mla           ? "deepseek_v3"
                         : experts > 1 ? (shared ? "qwen2_moe" : "mixtral")
                                       : "llama",
                         0);
    nd_text_copy(r->run->model.name, name ? name : "model", sizeof r->run->model.name);
    char buf[32];
    if (!rc && experts > 1) {
        snprintf(buf, sizeof buf, "%lld", (long long)experts);
        rc = fw_model(r, mla ? "n_routed_experts" : "num_experts", buf, 0, "expert_num");
    }
    if (!rc && mla)
        rc = fw_model(r, "num_nextn_predict_layers", "0", 0, "attention_type"); /* SimuMax: no MTP */
    if (!rc && shared && mla) {
        const cJSON *ffn = item(m, "moe_ffn_hidden_size");
        int64_t per = 0;
        if (fw_json_whole(r, ffn, "moe_ffn_hidden_size", 1, WHOLE_MAX, &per) == 0 && shared % per == 0) {
            snprintf(buf, sizeof buf, "%lld", (long long)(shared / per));
            rc = fw_model(r, "n_shared_experts", buf, 0, "moe_shared_expert_intermediate_size");
        } else {
            rc = nd_error_set(r->err, ND_EINPUT,
                              "%s: moe_shared_expert_intermediate_size: %lld is not a whole number of "
                              "moe_ffn_hidden_size experts",
                              r->path, (long long)shared);
        }
    } else if (!rc && shared) {
        snprintf(buf, sizeof buf, "%lld", (long long)shared);
        rc = fw_model(r, "shared_expert_intermediate_size", buf, 0, "moe_shared_expert_intermediate_size");
    }
    if (!rc && !on(m, "use_swiglu", true)) rc = fw_model(r, "hidden_act", "gelu", 0, "use_swiglu");
    return rc;
}

static int read_model(fw_reader *r, const char *path)
{
    cJSON *m;
    int rc = fw_json_load(path, &m, r->err);
    if (rc) return rc;
    fw_reader mr = *r;
    mr.path = path; /* messages name the model file */
    int64_t experts = 1;
    if (fw_json_whole(&mr, item(m, "expert_num"), "expert_num", 1, WHOLE_MAX, &experts) < 0) rc = ND_EINPUT;
    if (!rc) rc = model_family(&mr, m, experts);
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(model_keys); i++) {
        const cJSON *v = item(m, model_keys[i].theirs);
        int64_t k;
        int got = fw_json_whole(&mr, v, model_keys[i].theirs, 0, 1LL << 40, &k);
        if (got < 0) rc = ND_EINPUT;
        char buf[32];
        if (got == 0 && k > 0)
            rc = fw_model(&mr, model_keys[i].hf, fw_json_scalar(v, buf, sizeof buf), 0, model_keys[i].theirs);
    }
    /* Megatron pads the vocabulary to a multiple of 128 x TP (nd's Megatron default), as SimuMax
     * does unless told not to */
    if (!rc) rc = check_bool(&mr, m, "padded_vocab_size");
    if (!rc && !on(m, "padded_vocab_size", true))
        rc = fw_train(&mr, "vocab_divisible_by", "1", 0, "padded_vocab_size");
    const cJSON *key;
    cJSON_ArrayForEach(key, m) if (!rc && !model_key_known(key->string))
        fw_note(r->run, "%s: %s is not a SimuMax model key nd reads: ignored", path, key->string);
    cJSON_Delete(m);
    if (rc) return rc;
    /* checked here, so a field the model file lacks is named with that file, not the strategy's */
    nd_model_finish_type(&r->run->model);
    return nd_model_validate(&r->run->model, path, r->err);
}

/* ---- the strategy JSON --------------------------------------------------------------------- */

/* StrategyConfig's keys nd reads or may leave: a key outside them is noted. */
static const char *const strategy_known[] = {
    "seq_len",
    "micro_batch_size",
    "micro_batch_num",
    "dtype",
    "fp8",
    "world_size",
    "tp_size",
    "pp_size",
    "ep_size",
    "etp_size",
    "moe_dispatcher_policy",
    "num_layers_in_first_pipeline_stage",
    "num_layers_in_last_pipeline_stage",
    "account_for_embedding_in_pipeline_split",
    "account_for_loss_in_pipeline_split",
    "grad_reduce_in_bf16",
    "cache_groupgemm_col_fp8_inputs",
    "offload_groupgemm_col_inputs",
    "attn_recompute",
    "mla_rms_recompute",
    "mlp_recompute",
    "mlp_rms_recompute",
    "enable_sequence_parallel",
    "interleaving_size",
    "zero_state",
    "pp_schedule",
    "attention_sparse_ratio",
    "enable_dropout",
    "use_fp32_accum_grad",
    "use_accm_weight",
    "enable_recompute",
    "recompute_granularity",
    "recompute_layer_num",
    "recompute_variance",
    "use_flash_sdp",
    "use_math_sdp",
    "use_fused_norm",
    "use_fused_swiglu",
    "use_fused_grad_accumulation",
    "tp_net",
    "pp_net",
    "dp_net",
    "ep_net",
    "etp_net",
    "edp_net",
    "dispatch_probs",
    "mem_factor",
    "no_sync",
    "skip_ckpt_micro_batch_num",
};

/* A whole-number key into *out; `need`: SimuMax has no default for it. */
static int whole_key(fw_reader *r, const cJSON *s, const char *key, int64_t min, bool need, int64_t *out)
{
    int got = fw_json_whole(r, item(s, key), key, min, WHOLE_MAX, out);
    if (got == 1 && need)
        return nd_error_set(r->err, ND_EINPUT, "%s: %s is not stated (SimuMax has no default for it)",
                            r->path, key);
    return got < 0 ? ND_EINPUT : ND_OK;
}

static int read_degrees(fw_reader *r, const cJSON *s)
{
    static const struct {
        const char *key, *dim;
        int64_t otherwise;
    } degrees[] = {
        {"tp_size", "MP", 1},
        {"pp_size", "PP", 1},
        {"ep_size", "EP", 1},
        {"etp_size", "ETP", 1},
        {"micro_batch_size", "MBS", 0},
        {"micro_batch_num", "MB", 0},
        {"interleaving_size", "VPP", 1},
    };
    int64_t v[ND_ARRAY_LEN(degrees)], world = 8;
    int rc = ND_OK;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        v[i] = degrees[i].otherwise;
        rc = whole_key(r, s, degrees[i].key, 1, degrees[i].otherwise == 0, &v[i]);
        if (!rc) rc = fw_degree(r, degrees[i].dim, v[i], 0, degrees[i].key);
    }
    if (!rc) rc = whole_key(r, s, "world_size", 1, false, &world); /* SimuMax: 8 unless stated */
    if (rc) return rc;
    int64_t model = v[0] * v[1];
    if (world % model)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s: world_size: %lld is not a multiple of tp_size x pp_size = %lld (SimuMax's "
                            "dp_size)",
                            r->path, (long long)world, (long long)model);
    r->run->devices = world;
    rc = fw_degree(r, "DP", world / model, 0, "world_size");
    static const struct {
        const char *key, *dim;
    } split[] = {{"num_layers_in_first_pipeline_stage", "FIRST"},
                 {"num_layers_in_last_pipeline_stage", "LAST"}};
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(split); i++) {
        int64_t n = 0;
        rc = whole_key(r, s, split[i].key, 0, false, &n);
        if (!rc && n) rc = fw_degree(r, split[i].dim, n, 0, split[i].key);
    }
    static const char *const accounted[] = {"account_for_embedding_in_pipeline_split",
                                            "account_for_loss_in_pipeline_split"};
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(accounted); i++) {
        rc = check_bool(r, s, accounted[i]);
        if (!rc && on(s, accounted[i], false)) rc = fw_train(r, accounted[i], "true", 0, accounted[i]);
    }
    /* ZeRO-1 is Megatron's distributed optimizer: the states shard over the DP ranks */
    int64_t zero = 1;
    if (!rc) rc = whole_key(r, s, "zero_state", 0, false, &zero);
    if (!rc && zero > 1)
        return nd_error_set(r->err, ND_EINPUT, "%s: zero_state: %lld is not 0 or 1 (SimuMax's own check)",
                            r->path, (long long)zero);
    if (!rc && zero == 1) {
        r->run->strategy.zero = 1;
        r->run->op_spans_dp = true;
    }
    if (!rc) rc = check_bool(r, s, "enable_sequence_parallel");
    if (!rc && v[0] > 1 && on(s, "enable_sequence_parallel", true))
        rc = fw_strategy(r, "SP", "1", 0, "enable_sequence_parallel");
    return rc;
}

/* SimuMax's pp_schedule names (its configs/pp_scheduling/: 1f1b, gpipe, interleaved_1f1b, zb_h1,
 * zb_h2, zb_v; its first releases took only 1f1b and zb_h2) and nd's schedules. */
static const struct {
    const char *simumax;
    nd_schedule schedule;
} simumax_schedules[] = {{"1f1b", ND_SCHEDULE_1F1B},   {"interleaved_1f1b", ND_SCHEDULE_INTERLEAVED},
                         {"gpipe", ND_SCHEDULE_GPIPE}, {"zb_h1", ND_SCHEDULE_ZB_H1},
                         {"zb_h2", ND_SCHEDULE_ZB_H2}, {"zb_v", ND_SCHEDULE_ZB_V}};

static const char *simumax_schedule_name(nd_schedule schedule)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(simumax_schedules); i++)
        if (simumax_schedules[i].schedule == schedule) return simumax_schedules[i].simumax;
    return NULL;
}

static int read_schedule(fw_reader *r, const cJSON *s)
{
    const char *sched = NULL;
    int rc = text_of(r, s, "pp_schedule", &sched);
    if (rc) return rc;
    size_t i = 0;
    while (sched && i < ND_ARRAY_LEN(simumax_schedules) && strcmp(sched, simumax_schedules[i].simumax)) i++;
    if (sched && i == ND_ARRAY_LEN(simumax_schedules))
        return nd_error_set(r->err, ND_EINPUT,
                            "%s: pp_schedule: '%s' is not one of SimuMax's (1f1b, interleaved_1f1b, gpipe, "
                            "zb_h1, zb_h2, zb_v)",
                            r->path, sched);
    /* 1f1b with chunks is Megatron's interleaved schedule, as SimuMax runs it */
    if (sched && simumax_schedules[i].schedule != ND_SCHEDULE_1F1B)
        return fw_train(r, "schedule", nd_schedule_name(simumax_schedules[i].schedule), 0, "pp_schedule");
    return r->run->strategy.vpp > 1 ? fw_train(r, "schedule", "interleaved", 0, "interleaving_size") : ND_OK;
}

/* SimuMax recomputes the first recompute_layer_num layers of each stage (its layer index is the
 * stage's): whole with full_block; with attn_only the attention block; with selective_recompute
 * the parts its switches name. nd's selective is Megatron's core attention. */
static int read_recompute(fw_reader *r, const cJSON *s)
{
    const char *gran = NULL;
    int64_t n = 0;
    int rc = text_of(r, s, "recompute_granularity", &gran);
    if (!rc) rc = whole_key(r, s, "recompute_layer_num", 0, false, &n);
    static const char *const switches[] = {"enable_recompute", "attn_recompute", "mla_rms_recompute",
                                           "mlp_recompute", "mlp_rms_recompute"};
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(switches); i++) rc = check_bool(r, s, switches[i]);
    if (rc) return rc;
    /* SimuMax's config accepts mlp_only and sdp_only but its layers raise on them */
    if (gran && strcmp(gran, "full_block") && strcmp(gran, "attn_only") &&
        strcmp(gran, "selective_recompute"))
        return nd_error_set(r->err, ND_EINPUT,
                            "%s: recompute_granularity: '%s' is not full_block, attn_only or "
                            "selective_recompute (the ones SimuMax's layers price)",
                            r->path, gran);
    bool enabled = gran && n > 0 && on(s, "enable_recompute", true);
    bool mlp = on(s, "mlp_recompute", false) || on(s, "mlp_rms_recompute", false);
    bool parts = on(s, "attn_recompute", false) || on(s, "mla_rms_recompute", false) || mlp;
    bool full = enabled && !strcmp(gran, "full_block");
    bool selective = enabled && !full && (strcmp(gran, "selective_recompute") || parts);
    if (selective && (!strcmp(gran, "attn_only") || mlp))
        fw_note(r->run,
                "%s: recompute_granularity %s%s is priced as selective recompute of the core attention: nd "
                "has no mode for the %s",
                r->path, gran, mlp ? " with mlp_recompute" : "", mlp ? "MLP" : "projections around it");
    if (selective && n < r->run->model.layers / r->run->strategy.pp)
        fw_note(r->run,
                "%s: recompute_layer_num %lld of a stage's %lld layers: nd prices selective recompute on "
                "every layer",
                r->path, (long long)n, (long long)(r->run->model.layers / r->run->strategy.pp));
    rc = fw_train(r, "recompute",
                  full        ? "full"
                  : selective ? "selective"
                              : "off",
                  0, "recompute_granularity");
    if (!rc && full) {
        r->run->layout.has_recompute = true;
        for (int i = 0; i < ND_RUN_MAX_STAGES; i++) r->run->layout.recompute[i] = n;
    }
    return rc;
}

static int read_training(fw_reader *r, const cJSON *s)
{
    int64_t seq = 0;
    int rc = whole_key(r, s, "seq_len", 1, true, &seq);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)seq);
    if (!rc) rc = fw_train(r, "seq_len", buf, 0, "seq_len");
    const char *dtype = NULL;
    if (!rc) rc = text_of(r, s, "dtype", &dtype);
    if (!rc && dtype && strcmp(dtype, "bf16") && strcmp(dtype, "fp16") && strcmp(dtype, "fp32"))
        return nd_error_set(r->err, ND_EINPUT, "%s: dtype: '%s' is not bf16, fp16 or fp32", r->path, dtype);
    if (!rc) rc = fw_train(r, "precision", dtype ? dtype : "bf16", 0, "dtype");
    static const char *const switches[] = {"fp8",           "grad_reduce_in_bf16", "use_fp32_accum_grad",
                                           "use_flash_sdp", "use_math_sdp",        "enable_dropout"};
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(switches); i++) rc = check_bool(r, s, switches[i]);
    if (!rc && on(s, "fp8", false)) rc = fw_train(r, "fp8", "true", 0, "fp8");
    /* gradients: fp32 main grads reduced in fp32, unless reduced in bf16 or accumulated in the dtype */
    const char *grad = on(s, "grad_reduce_in_bf16", false)  ? "bf16"
                       : on(s, "use_fp32_accum_grad", true) ? "fp32"
                                                            : (dtype ? dtype : "bf16");
    if (!rc) rc = fw_train(r, "grad_precision", grad, 0, "grad_reduce_in_bf16");
    bool flash = on(s, "use_flash_sdp", true) && !on(s, "use_math_sdp", false);
    if (!rc) rc = fw_train(r, "flash_attention", flash ? "true" : "false", 0, "use_flash_sdp");
    if (!rc && on(s, "enable_dropout", false))
        fw_note(r->run, "%s: enable_dropout is priced without dropout, as SimuMax prices it", r->path);
    const char *policy = NULL;
    if (!rc) rc = text_of(r, s, "moe_dispatcher_policy", &policy);
    if (!rc && policy && strcmp(policy, "all2all") && strcmp(policy, "all2all-seq"))
        return nd_error_set(r->err, ND_EINPUT,
                            "%s: moe_dispatcher_policy: '%s' is not all2all or all2all-seq", r->path, policy);
    if (!rc) rc = fw_train(r, "framework", "megatron", 0, "");
    const cJSON *key;
    cJSON_ArrayForEach(key, s)
    {
        bool known = false;
        for (size_t i = 0; i < ND_ARRAY_LEN(strategy_known); i++)
            known |= !strcmp(key->string, strategy_known[i]);
        if (!rc && !known)
            fw_note(r->run, "%s: %s is not a SimuMax strategy key nd reads: ignored", r->path, key->string);
    }
    return rc;
}

static int read_simumax(fw_reader *r, const nd_config_input *in)
{
    if (!in->model_config)
        return nd_error_set(
            r->err, ND_EUSAGE,
            "%s: a SimuMax strategy holds no model: give its model JSON with --model-config FILE", r->path);
    nd_text_copy(r->run->model_config, in->model_config, sizeof r->run->model_config);
    cJSON *s;
    int rc = fw_json_load(r->path, &s, r->err);
    if (rc) return rc;
    rc = read_model(r, in->model_config);
    if (rc) fw_json_locate(in->model_config, r->err);
    if (!rc) rc = read_training(r, s);
    if (!rc) rc = read_degrees(r, s);
    if (!rc) rc = read_schedule(r, s);
    if (!rc) rc = read_recompute(r, s);
    if (rc) fw_json_locate(r->path, r->err);
    if (!rc) {
        r->run->has_strategy = true;
        rc = fw_finish(r);                     /* the device count and batch: world_size, and DP x MB x MBS */
        r->run->search_full_recompute = false; /* ND's rule is for ND's formats: SimuMax prices its plan */
    }
    cJSON_Delete(s);
    return rc;
}

/* ---- writing the choice back --------------------------------------------------------------- */

/* Sets key to v, in its place when the user's file has it, else at the end. */
static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (item(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

static void set_number(cJSON *o, const char *key, int64_t v)
{
    set_item(o, key, cJSON_CreateNumber((double)v));
}

static void set_bool(cJSON *o, const char *key, bool v)
{
    set_item(o, key, cJSON_CreateBool(v));
}

static void set_text(cJSON *o, const char *key, const char *v)
{
    set_item(o, key, cJSON_CreateString(v));
}

/* What SimuMax cannot state: context parallelism, DualPipe, an optimizer shard but none or over all of DP. */
static int expressible(const nd_run *run, const nd_strategy *s, nd_error *err)
{
    if (s->cp > 1)
        return nd_error_set(err, ND_EINPUT,
                            "%s: SimuMax has no context parallelism: CP %lld cannot be written", run->source,
                            (long long)s->cp);
    if (s->pp > 1 && !simumax_schedule_name(s->schedule))
        return nd_error_set(err, ND_EINPUT, "%s: SimuMax's pp_schedule has no %s: it cannot be written",
                            run->source, nd_schedule_name(s->schedule));
    if (s->op > 1 && s->op != s->dp)
        return nd_error_set(
            err, ND_EINPUT,
            "%s: SimuMax shards the optimizer over all of DP or not at all: OP %lld of DP %lld "
            "cannot be written",
            run->source, (long long)s->op, (long long)s->dp);
    return ND_OK;
}

static int write_simumax(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                         size_t size, nd_error *err)
{
    const nd_strategy *s = &c->s;
    int rc = expressible(run, s, err);
    cJSON *root = NULL;
    if (!rc) rc = fw_json_load(run->source, &root, err);
    if (rc) return rc;
    set_number(root, "world_size", s->dp * s->tp * s->pp);
    set_number(root, "tp_size", s->tp);
    set_number(root, "pp_size", s->pp);
    set_number(root, "ep_size", s->ep);
    set_number(root, "etp_size", s->etp ? s->etp : s->tp);
    set_number(root, "micro_batch_size", s->mbs);
    set_number(root, "micro_batch_num", s->mb);
    set_number(root, "interleaving_size", s->vpp);
    set_number(root, "zero_state", s->op > 1 ? 1 : 0);
    set_bool(root, "enable_sequence_parallel", s->sp);
    /* interleaved stays "1f1b" with its chunks, as SimuMax's first releases state it, unless the
     * file names it interleaved_1f1b */
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(root, "pp_schedule");
    bool named = cJSON_IsString(was) && !strcmp(was->valuestring, "interleaved_1f1b");
    const char *schedule = simumax_schedule_name(s->schedule);
    if (s->schedule == ND_SCHEDULE_INTERLEAVED && !named) schedule = "1f1b";
    set_text(root, "pp_schedule", s->pp > 1 && schedule ? schedule : "1f1b");
    if (s->first_stage_layers) set_number(root, "num_layers_in_first_pipeline_stage", s->first_stage_layers);
    if (s->last_stage_layers) set_number(root, "num_layers_in_last_pipeline_stage", s->last_stage_layers);
    nd_recompute mode = fw_choice_mode(c);
    set_bool(root, "enable_recompute", mode != ND_RECOMPUTE_OFF);
    if (mode == ND_RECOMPUTE_OFF) {
        set_number(root, "recompute_layer_num", 0);
    } else {
        set_text(root, "recompute_granularity",
                 mode == ND_RECOMPUTE_FULL ? "full_block" : "selective_recompute");
        /* a plan's first stage's full layers (SimuMax's count is per stage), else every layer */
        int64_t full = c->plan ? c->plan[0][0][2] + c->plan[0][1][2] : run->model.layers;
        set_number(root, "recompute_layer_num", c->plan && full ? full : run->model.layers);
        if (c->plan && full) set_text(root, "recompute_granularity", "full_block");
        if (mode != ND_RECOMPUTE_FULL) set_bool(root, "attn_recompute", true);
    }
    char *text = cJSON_Print(root), path[1024];
    cJSON_Delete(root);
    if (!text) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t len = strlen(text);
    text[len] = '\n'; /* over the NUL: the file ends with a newline */
    rc = nd_write_file_atomic(fw_output_path(dir, "resolved_strategy.json", path, sizeof path, written, size),
                              text, len + 1, err);
    free(text);
    return rc;
}

const fw_format fw_simumax_format = {ND_CONFIG_SIMUMAX, read_simumax, write_simumax};
