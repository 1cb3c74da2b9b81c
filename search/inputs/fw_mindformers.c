/*
 * fw_mindformers.c — MindFormers' yaml (ND's default -f): the model from
 * model.model_config (and moe_config), the strategy from parallel_config, parallel and
 * runner_config, recompute from recompute_config; and the chosen strategy written back
 * into a copy of the file (resolved.yaml). Keys as ND's MindFormers parser reads them
 * (docs/reference/nd-costmodel.md §1.3, docs/nd-compat.md).
 */
#include "fw_formats.h"
#include "fw_mindformers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/yaml_edit.h"
#include "nd/base/array.h"
#include "nd/inputs/checkpoint.h"
#include "nd/inputs/model_fields.h"

#define DTYPES "is not a dtype nd knows (bfloat16, float16 or float32)"
/* model.model_config keys and the Hugging Face key each sets. */
static const struct {
    const char *theirs, *hf;
} model_keys[] = {
    {"hidden_size", "hidden_size"},
    {"num_layers", "num_hidden_layers"},
    {"num_hidden_layers", "num_hidden_layers"},
    {"num_heads", "num_attention_heads"},
    {"num_attention_heads", "num_attention_heads"},
    {"n_kv_heads", "num_key_value_heads"},
    {"num_key_value_heads", "num_key_value_heads"},
    {"head_dim", "head_dim"},
    {"intermediate_size", "intermediate_size"},
    {"ffn_hidden_size", "intermediate_size"},
    {"vocab_size", "vocab_size"},
    {"kv_lora_rank", "kv_lora_rank"},
    {"q_lora_rank", "q_lora_rank"},
    {"qk_rope_head_dim", "qk_rope_head_dim"},
    {"qk_nope_head_dim", "qk_nope_head_dim"},
    {"v_head_dim", "v_head_dim"},
    {"qk_layernorm", "qk_norm"},
    {"use_qk_norm", "qk_norm"},
    {"tie_word_embeddings", "tie_word_embeddings"},
    {"mtp_depth", "mtp_depth"},
    {"num_nextn_predict_layers", "num_nextn_predict_layers"},
    {"n_routed_experts", "n_routed_experts"},
    {"num_experts", "num_experts"}, /* MindFormers mcore (Qwen3-MoE) */
    {"num_experts_per_tok", "num_experts_per_tok"},
    {"n_shared_experts", "n_shared_experts"},
    {"moe_intermediate_size", "moe_intermediate_size"},
    {"first_k_dense_replace", "first_k_dense_replace"},
    {"max_position_embeddings", "max_position_embeddings"},
    {"qkv_has_bias", "qkv_bias"},
    {"hidden_act", "hidden_act"},
};

/* moe_config keys (MindFormers' own MoE section). */
static const struct {
    const char *theirs, *hf;
} moe_keys[] = {
    {"num_experts_chosen", "num_experts_per_tok"},
    {"shared_expert_num", "n_shared_experts"},
    {"moe_intermediate_size", "moe_intermediate_size"},
    {"first_k_dense_replace", "first_k_dense_replace"},
};

/* A whole number at a dotted path; absent (or null) leaves *v and returns 0 with *has false. */
static int read_int(mf_doc *d, const char *dotted, int64_t lo, int64_t *v, bool *has)
{
    int line;
    const char *t = fw_yaml_text(&d->y, dotted, &line);
    if (has) *has = t != NULL;
    if (!t) return ND_OK;
    if (nd_parse_int64(t, lo, (int64_t)1 << 30, v))
        return nd_error_set(d->r->err, ND_EINPUT, "%s:%d: %s: '%s' is not a whole number >= %lld", d->r->path,
                            line, dotted, t, (long long)lo);
    return ND_OK;
}

/* MindFormers' mcore configs (use_legacy: False) take the model from the Hugging Face directory
 * pretrained_model_dir names, model_config overriding it: its config.json, found as the other
 * readers find a checkpoint (nd_checkpoint_find: as given, beside the yaml, the local Hugging
 * Face cache). *read is 1 when read; a directory nd cannot find is an error only when
 * model_config does not state the shape itself. */
static int read_pretrained(mf_doc *d, int *read)
{
    fw_reader *r = d->r;
    int line;
    const char *dir = fw_yaml_text(&d->y, "pretrained_model_dir", &line);
    *read = 0;
    if (!dir || !dir[0]) return ND_OK;
    char found[1024], path[1100];
    nd_error miss = {0};
    if (nd_checkpoint_find(dir, r->path, found, sizeof found, &miss)) {
        if (fw_yaml_text(&d->y, "model.model_config.hidden_size", NULL)) return ND_OK;
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: pretrained_model_dir: %s; model.model_config states no hidden_size "
                            "either, so the model's shape is unknown",
                            r->path, line, miss.message);
    }
    snprintf(path, sizeof path, "%s/config.json", found);
    char keep[sizeof r->run->model.name];
    nd_text_copy(keep, r->run->model.name, sizeof keep);
    int rc = nd_model_read_hf_file(&r->run->model, path, false, r->err);
    nd_text_copy(r->run->model.name, keep, sizeof r->run->model.name);
    if (rc) return nd_error_prefix(r->err, "%s:%d: pretrained_model_dir", r->path, line);
    *read = 1;
    return ND_OK;
}

static int read_model(mf_doc *d)
{
    fw_reader *r = d->r;
    int line;
    const char *type = fw_yaml_text(&d->y, "model.model_config.type", &line);
    const char *name = fw_yaml_text(&d->y, "trainer.model_name", NULL);
    /* MindFormers' mcore configs (use_legacy: False) name the class by model_type */
    const char *mtype = type ? NULL : fw_yaml_text(&d->y, "model.model_config.model_type", &line);
    if (!type) type = mtype;
    if (!type) type = fw_yaml_text(&d->y, "model.arch.type", &line);
    nd_text_copy(r->run->model.name, name ? name : type ? type : "model", sizeof r->run->model.name);
    bool mla = fw_yaml_text(&d->y, "model.model_config.kv_lora_rank", NULL) != NULL ||
               fw_true(fw_yaml_text(&d->y, "model.model_config.multi_latent_attention", NULL));
    int pretrained = 0;
    int rc = read_pretrained(d, &pretrained);
    /* the Hugging Face config's model_type is the family; model_config's keys override it */
    if (!rc && !pretrained) rc = fw_model_family(r, mla ? "deepseek_v3" : type ? type : name, line);
    yaml_node_t *mc = fw_yaml_at(&d->y, "model.model_config");
    if (!rc && mc) rc = fw_check_spellings(r, &d->y, mc, "model.model_config");
    /* mcore's DeepseekV3Config (mindformers/models/deepseek3/configuration_deepseek_v3.py)
     * defaults every size to DeepSeek-V3's; a yaml states only what differs */
    static const struct {
        const char *theirs, *hf, *value;
    } ds3_defaults[] = {
        {"hidden_size", "hidden_size", "7168"},
        {"num_hidden_layers", "num_hidden_layers", "61"},
        {"num_attention_heads", "num_attention_heads", "128"},
        {"num_key_value_heads", "num_key_value_heads", "128"},
        {"intermediate_size", "intermediate_size", "18432"},
        {"moe_intermediate_size", "moe_intermediate_size", "2048"},
        {"vocab_size", "vocab_size", "129280"},
        {"kv_lora_rank", "kv_lora_rank", "512"},
        {"q_lora_rank", "q_lora_rank", "1536"},
        {"qk_rope_head_dim", "qk_rope_head_dim", "64"},
        {"qk_nope_head_dim", "qk_nope_head_dim", "128"},
        {"v_head_dim", "v_head_dim", "128"},
        {"n_routed_experts", "n_routed_experts", "256"},
        {"n_shared_experts", "n_shared_experts", "1"},
        {"num_experts_per_tok", "num_experts_per_tok", "8"},
        {"first_k_dense_replace", "first_k_dense_replace", "3"},
        {"num_nextn_predict_layers", "num_nextn_predict_layers", "1"},
    };
    if (!rc && mtype && !strcmp(mtype, "deepseek_v3")) {
        char taken[512] = "";
        size_t used = 0;
        for (size_t i = 0; !rc && i < ND_ARRAY_LEN(ds3_defaults); i++) {
            char path[128];
            snprintf(path, sizeof path, "model.model_config.%s", ds3_defaults[i].theirs);
            if (fw_yaml_text(&d->y, path, NULL)) continue;
            rc = fw_model(r, ds3_defaults[i].hf, ds3_defaults[i].value, 0, path);
            used += (size_t)snprintf(taken + used, used < sizeof taken ? sizeof taken - used : 0, "%s%s",
                                     used ? " " : "", ds3_defaults[i].value);
        }
        if (!rc && used)
            rc = fw_default(r,
                            "model_type deepseek_v3: the sizes not stated are MindFormers' DeepseekV3Config "
                            "defaults (DeepSeek-V3's; in the table's order: %.150s)",
                            taken);
    }
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(model_keys); i++) {
        char path[128];
        snprintf(path, sizeof path, "model.model_config.%s", model_keys[i].theirs);
        const char *v = fw_yaml_text(&d->y, path, &line);
        if (v) rc = fw_model(r, model_keys[i].hf, v, line, path);
    }
    int64_t experts = 0;
    bool has;
    if (!rc) rc = read_int(d, "moe_config.expert_num", 0, &experts, &has);
    if (!rc && experts > 1) {
        rc = fw_model(r, "num_experts", fw_yaml_text(&d->y, "moe_config.expert_num", &line), line,
                      "moe_config.expert_num");
        for (size_t i = 0; !rc && i < ND_ARRAY_LEN(moe_keys); i++) {
            char path[128];
            snprintf(path, sizeof path, "moe_config.%s", moe_keys[i].theirs);
            const char *v = fw_yaml_text(&d->y, path, &line);
            if (v) rc = fw_model(r, moe_keys[i].hf, v, line, path);
        }
        /* grouped GEMM is dropless (ND: gmm); otherwise tokens beyond the capacity drop */
        const char *cf = fw_yaml_text(&d->y, "moe_config.capacity_factor", &line);
        if (!rc && cf && !fw_true(fw_yaml_text(&d->y, "moe_config.use_gmm", NULL)))
            rc = fw_model(r, "capacity_factor", cf, line, "moe_config.capacity_factor");
        if (!r->run->model.moe_ffn && r->run->model.ffn) r->run->model.moe_ffn = r->run->model.ffn;
    }
    if (!rc && !r->run->model.ffn && r->run->model.hidden) {
        /* Llama's rule, as MindFormers and ND derive it: 2/3 of 4h, x ffn_dim_multiplier,
         * rounded up to multiple_of */
        int64_t multiple = 256, h = r->run->model.hidden;
        double fdm = 1.0;
        rc = read_int(d, "model.model_config.multiple_of", 1, &multiple, NULL);
        int at;
        const char *m = fw_yaml_text(&d->y, "model.model_config.ffn_dim_multiplier", &at);
        if (!rc && m && (nd_parse_double(m, &fdm) || !isfinite(fdm) || fdm <= 0 || fdm > 64))
            return nd_error_set(
                r->err, ND_EINPUT,
                "%s:%d: model.model_config.ffn_dim_multiplier: '%s' is not a factor in (0, 64]", r->path, at,
                m);
        if (rc) return rc;
        int64_t hff = (int64_t)(2 * 4 * h / 3);
        hff = (int64_t)(fdm * (double)hff);
        r->run->model.ffn = (hff + multiple - 1) / multiple * multiple;
        fw_note(r->run,
                "%s: model.model_config.intermediate_size not stated: %lld from hidden_size, multiple_of "
                "and ffn_dim_multiplier (Llama's rule)",
                r->path, (long long)r->run->model.ffn);
    }
    return rc;
}

/* Whether a select_recompute list holds an operator's name (a regex) rather than counts. */
static bool names_operators(mf_doc *d, yaml_node_t *list)
{
    for (size_t i = 0; i < nd_yaml_size(list); i++) {
        yaml_node_t *item = nd_yaml_item(&d->y, list, i);
        const char *t = nd_yaml_text(item);
        int64_t v;
        if (item->type == YAML_SEQUENCE_NODE && names_operators(d, item)) return true;
        if (t && nd_parse_int64(t, -(1 << 24), 1 << 24, &v) && !fw_true(t) && strcmp(t, "False") &&
            strcmp(t, "false"))
            return true;
    }
    return false;
}

static bool any_layer(const int64_t *per_stage, int64_t stages)
{
    for (int64_t i = 0; i < stages && i < ND_RUN_MAX_STAGES; i++)
        if (per_stage[i] != 0) return true;
    return false;
}

/* One count merged into a stage's: the larger, -1 (every layer) above any. */
static int64_t larger_count(int64_t a, int64_t b)
{
    return a < 0 || b < 0 ? -1 : a > b ? a : b;
}

/* select_recompute as MindFormers' mapping {operator regex: counts}, the counts as a list's
 * (an int or true for every stage, a list per stage, or per chunk and stage): the first that
 * many layers of each stage recompute that operator. nd prices selective recompute as one set
 * of operators, so a stage's count is the largest of its operators' (the layers recomputing
 * any of them), a note saying so where the operators' counts differ. Returns the stages read
 * (0: none), as fw_mindformers_stage_list; out holds the counts. */
static int64_t select_by_operator(mf_doc *d, yaml_node_t *map, int64_t out[ND_RUN_MAX_STAGES], int *rc)
{
    int64_t one[ND_RUN_MAX_STAGES], stages = 0;
    int key_line = nd_yaml_line(map); /* the select_recompute key's, for the note */
    yaml_node_t *parent = fw_yaml_at(&d->y, "recompute_config");
    for (size_t i = 0; parent && i < nd_yaml_size(parent); i++)
        if (nd_yaml_value_at(&d->y, parent, i) == map)
            key_line = nd_yaml_line(nd_yaml_key_at(&d->y, parent, i));
    char what[160];
    memset(out, 0, sizeof(int64_t) * ND_RUN_MAX_STAGES);
    *rc = ND_OK;
    for (int pass = 0; pass < 2; pass++) /* 0: the largest counts; 1: whether any operator's differ */
        for (size_t i = 0; i < nd_yaml_size(map); i++) {
            const char *op = nd_yaml_text(nd_yaml_key_at(&d->y, map, i));
            snprintf(what, sizeof what, "recompute_config.select_recompute['%.100s']", op ? op : "");
            int64_t n = fw_mindformers_stage_counts(d, nd_yaml_value_at(&d->y, map, i), what, one, rc);
            if (*rc) return 0;
            if (n == 0) memset(one, 0, sizeof one); /* false: this operator nowhere */
            for (int64_t st = 0; st < ND_RUN_MAX_STAGES; st++) {
                if (pass == 0) {
                    out[st] = larger_count(out[st], one[st]);
                } else if (st < stages && one[st] != out[st]) {
                    char counts[64] = "";
                    size_t used = 0;
                    for (int64_t k = 0; k < stages && used + 24 < sizeof counts; k++) {
                        char one_count[24] = "all";
                        if (out[k] >= 0) snprintf(one_count, sizeof one_count, "%lld", (long long)out[k]);
                        used += (size_t)snprintf(counts + used, sizeof counts - used, "%s%s", k ? "," : "",
                                                 one_count);
                    }
                    fw_note(
                        d->r->run,
                        "%s:%d: recompute_config.select_recompute: its operators' counts per stage differ: "
                        "nd prices its one selective set on each stage's largest (%s)",
                        d->r->path, key_line, counts);
                    return stages;
                }
            }
            if (pass == 0 && n > stages) stages = n;
        }
    return stages;
}

/* The recompute mode, and -mppb's per-stage counts, from recompute_config. */
static int read_recompute(mf_doc *d)
{
    fw_reader *r = d->r;
    nd_run_layout *L = &r->run->layout;
    int rc;
    int64_t full = fw_mindformers_stage_list(d, "recompute_config.recompute", L->recompute, &rc);
    if (rc) return rc;
    yaml_node_t *sel_node = fw_yaml_at(&d->y, "recompute_config.select_recompute");
    bool by_operator = sel_node && sel_node->type == YAML_MAPPING_NODE; /* {op regex: [counts]} */
    int64_t sel = by_operator
                      ? select_by_operator(d, sel_node, L->selective, &rc)
                      : fw_mindformers_stage_list(d, "recompute_config.select_recompute", L->selective, &rc);
    if (rc) return rc;
    /* a list is on when it names operators (regexes) or recomputes a layer somewhere: a list
     * of zeros per stage, as nd writes for a plan without selective layers, is off; so is a
     * mapping whose operators are recomputed on no layer */
    bool sel_on =
        sel > 0 && (L->selective[0] != 0 || (sel_node->type == YAML_SEQUENCE_NODE &&
                                             (names_operators(d, sel_node) || any_layer(L->selective, sel))));
    if (by_operator) sel_on = sel > 0 && any_layer(L->selective, sel);
    bool full_on = full > 0 && any_layer(L->recompute, full); /* [0, 0] per stage: off */
    L->has_recompute = full > 0 && full_on;
    L->has_selective = sel_on && sel > 0;
    int line = 0;
    fw_yaml_text(&d->y, "recompute_config.recompute", &line);
    const char *mode = full_on ? "full" : sel_on ? "selective" : "off";
    /* counts per stage are -mppb's plan; without it the mode is every layer's (a note says so
     * where the counts leave layers out: nd_layout_partial_note) */
    return fw_train(r, "recompute", mode, line, "recompute_config.recompute");
}

static int read_strategy(mf_doc *d)
{
    fw_reader *r = d->r;
    static const struct {
        const char *theirs, *dim;
    } degrees[] = {
        {"parallel_config.data_parallel", "DP"},     {"parallel_config.model_parallel", "MP"},
        {"parallel_config.pipeline_stage", "PP"},    {"parallel_config.context_parallel", "CP"},
        {"parallel_config.expert_parallel", "EP"},   {"parallel_config.micro_batch_num", "MB"},
        {"runner_config.batch_size", "MBS"},         {"model.model_config.pp_interleave_num", "VPP"},
        {"moe_config.expert_model_parallel", "ETP"},
    };
    int rc = ND_OK;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        int64_t v = 1;
        bool has;
        int line;
        fw_yaml_text(&d->y, degrees[i].theirs, &line);
        rc = read_int(d, degrees[i].theirs, 0, &v, &has);
        if (!rc && has && v >= 1) rc = fw_degree(r, degrees[i].dim, v, line, degrees[i].theirs);
    }
    int line;
    /* MindFormers folds EP over DP x MP (x CP) and never splits an expert over MP
     * (parallel_core/.../moe/ffn.py: layout inner_dp=EP, outer_dp=DP*MP*CP/EP, mp0=mp1=1;
     * research/deepseek3 likewise): ETP 1 unless moe_config states another */
    if (!rc && r->run->model.experts > 0 && !fw_yaml_at(&d->y, "moe_config.expert_model_parallel")) {
        const nd_strategy *st = &r->run->strategy;
        bool mcore = fw_yaml_text(&d->y, "model.model_config.model_type", NULL) &&
                     !fw_yaml_text(&d->y, "model.model_config.type", NULL);
        if (mcore || (st->ep > 1 && st->dp % st->ep))
            rc = fw_degree(r, "ETP", 1, 0, "parallel_config.expert_parallel");
    }
    /* MindFormers (mindformers/trainer/base_trainer.py): micro_batch_num counts only with a
     * pipeline; at pipeline_stage 1 it is reset to 1 and runner_config's
     * gradient_accumulation_steps accumulates instead (which a pipeline resets to 1) */
    int64_t mb = 1, gas = 1;
    bool has_mb, has_gas;
    if (!rc) rc = read_int(d, "parallel_config.micro_batch_num", 0, &mb, &has_mb);
    if (!rc) rc = read_int(d, "runner_config.gradient_accumulation_steps", 1, &gas, &has_gas);
    fw_yaml_text(&d->y, "runner_config.gradient_accumulation_steps", &line);
    if (!rc && r->run->strategy.pp == 1) {
        if (has_mb && mb > 1)
            fw_note(
                r->run,
                "%s: parallel_config.micro_batch_num %lld at pipeline_stage 1: MindFormers resets it to 1 "
                "(base_trainer.py); the step accumulates runner_config.gradient_accumulation_steps = %lld",
                r->path, (long long)mb, (long long)gas);
        rc = fw_degree(r, "MB", gas, line, "runner_config.gradient_accumulation_steps");
    } else if (!rc && has_gas && gas > 1) {
        fw_note(r->run,
                "%s:%d: runner_config.gradient_accumulation_steps %lld: MindFormers resets it to 1 with a "
                "pipeline (base_trainer.py); the micro-batches are micro_batch_num",
                r->path, line, (long long)gas);
    }
    /* micro_batch_interleave_num splits each micro-batch's batch_size x interleave samples into
     * interleaved slices (base_trainer.py: the batch per card and step multiplies by it) */
    int64_t mbi = 1, bs = 1;
    bool has_mbi, has_bs;
    if (!rc) rc = read_int(d, "micro_batch_interleave_num", 1, &mbi, &has_mbi);
    if (!rc) rc = read_int(d, "runner_config.batch_size", 1, &bs, &has_bs);
    if (!rc && has_mbi && mbi > 1) {
        fw_yaml_text(&d->y, "micro_batch_interleave_num", &line);
        fw_note(r->run,
                "%s:%d: micro_batch_interleave_num %lld: each micro-batch is runner_config.batch_size "
                "%lld x %lld = %lld sequences (base_trainer.py)",
                r->path, line, (long long)mbi, (long long)bs, (long long)mbi, (long long)(bs * mbi));
        rc = fw_degree(r, "MBS", bs * mbi, line, "micro_batch_interleave_num");
    }
    const char *sp = fw_yaml_text(&d->y, "parallel_config.use_seq_parallel", &line);
    if (!rc && sp)
        rc = fw_strategy(r, "SP", fw_true(sp) ? "1" : "0", line, "parallel_config.use_seq_parallel");
    if (!rc && fw_true(fw_yaml_text(&d->y, "parallel.enable_parallel_optimizer", &line))) {
        /* ND: the optimizer shards over optimizer_weight_shard_size ranks, else all the ranks
         * holding the same weights: DP x CP (context parallel replicates the weights too) */
        int64_t all = r->run->strategy.dp * r->run->strategy.cp, op = all;
        rc = read_int(d, "parallel.parallel_optimizer_config.optimizer_weight_shard_size", 1, &op, NULL);
        if (rc && nd_parse_int64(fw_yaml_text(&d->y,
                                              "parallel.parallel_optimizer_config."
                                              "optimizer_weight_shard_size",
                                              NULL),
                                 -1, -1, &op) == 0) {
            rc = ND_OK; /* -1: MindSpore's "all" */
            op = all;
        }
        if (op < 1 || op > all) op = all;
        bool grads = fw_true(
            fw_yaml_text(&d->y, "parallel.parallel_optimizer_config.gradient_accumulation_shard", NULL));
        if (!rc) rc = fw_degree(r, "OP", op, line, "parallel.enable_parallel_optimizer");
        if (!rc && op > 1)
            rc = fw_degree(r, "ZERO", grads ? 2 : 1, line, "parallel.enable_parallel_optimizer");
    }
    const char *algo = fw_yaml_text(&d->y, "parallel_config.context_parallel_algo", &line);
    if (!rc && algo && strstr(algo, "hybrid")) {
        /* MindFormers' hybrid_cp: all-to-alls within ulysses_degree_in_cp ranks, the ring across */
        int uline = line;
        const char *u = fw_yaml_text(&d->y, "parallel_config.ulysses_degree_in_cp", &uline);
        rc = fw_train(r, "cp_comm", u ? "hybrid" : "ring", line, "parallel_config.context_parallel_algo");
        if (!rc && u) rc = fw_train(r, "cp_ulysses_degree", u, uline, "parallel_config.ulysses_degree_in_cp");
        if (!rc && !u)
            fw_note(r->run,
                    "%s:%d: context_parallel_algo hybrid_cp without ulysses_degree_in_cp "
                    "(MindFormers' default 1): priced as the ring alone",
                    r->path, line);
        /* the Ulysses groups split the CP group: a part CP is not a multiple of has no layout */
        int64_t cp = 1, ud = r->run->train.cp_ulysses_degree;
        const char *cp_text = fw_yaml_text(&d->y, "parallel_config.context_parallel", NULL);
        if (!rc && u && cp_text && !nd_parse_int64(cp_text, 1, 1 << 20, &cp) && cp > 1 && cp % ud)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: parallel_config.ulysses_degree_in_cp: %lld does not divide "
                                "context_parallel %lld (the Ulysses groups split the CP group)",
                                r->path, uline, (long long)ud, (long long)cp);
    } else if (!rc && algo) {
        rc = fw_train(r, "cp_comm", strstr(algo, "ulysses") ? "a2a" : "ring", line,
                      "parallel_config.context_parallel_algo");
    }
    const char *sched = fw_yaml_text(&d->y, "parallel.pipeline_config.pipeline_scheduler", &line);
    if (!rc && sched) {
        const char *s = strstr(sched, "gpipe") ? "gpipe" : strstr(sched, "zero") ? "zb-h1" : "1f1b";
        if (strcmp(s, "gpipe") && strcmp(sched, "1f1b"))
            fw_note(r->run, "%s:%d: pipeline_scheduler '%s' priced as %s", r->path, line, sched, s);
        rc = fw_train(r, "schedule", s, line, "parallel.pipeline_config.pipeline_scheduler");
    }
    if (!rc && r->run->strategy.vpp > 1) rc = fw_train(r, "schedule", "interleaved", 0, "pp_interleave_num");
    return rc;
}

/* The per-stage layers of model_config.offset, for -mppb: base = layers / PP, plus each
 * stage's offset (an int for every stage, a list per stage, or per chunk and stage). */
/* offset per chunk and stage ([[stage offsets of chunk 0], [chunk 1], ...], VPP > 1): each
 * chunk holds (layers [+ MTP]) / (PP x VPP) + its offset (MindFormers' mcore: the MTP layers
 * outside the count; research/deepseek3: inside, on the last chunk of the last stage). The
 * stages' layers are -mppb's; chunks that are not equal become the run's pipeline_layout,
 * which the cost model prices (as Megatron's --num-layer-list), so the file's own split runs. */
static int read_chunk_offsets(mf_doc *d, yaml_node_t *list)
{
    fw_reader *r = d->r;
    nd_run_layout *L = &r->run->layout;
    int64_t pp = r->run->strategy.pp, vpp = r->run->strategy.vpp, layers = r->run->model.layers;
    int64_t mtp = r->run->model.mtp_layers, n = (int64_t)nd_yaml_size(list);
    int64_t cnt[ND_RUN_MAX_STAGES][8];
    if (n != vpp || vpp > 8 || pp < 1 || pp > ND_RUN_MAX_STAGES)
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:%d: model.model_config.offset lists %lld chunks but pp_interleave_num is %lld", r->path,
            nd_yaml_line(list), (long long)n, (long long)vpp);
    for (int pass = 0; pass < 2; pass++) {
        int64_t count = pass ? layers + mtp : layers, base = count / (pp * vpp), sum = 0;
        for (int64_t v = 0; v < vpp; v++) {
            yaml_node_t *row = nd_yaml_item(&d->y, list, (size_t)v);
            if (row->type != YAML_SEQUENCE_NODE || (int64_t)nd_yaml_size(row) != pp)
                return nd_error_set(r->err, ND_EINPUT,
                                    "%s:%d: model.model_config.offset: each chunk lists one offset per "
                                    "stage (%lld)",
                                    r->path, nd_yaml_line(row), (long long)pp);
            for (int64_t st = 0; st < pp; st++) {
                int64_t o;
                const char *c = nd_yaml_text(nd_yaml_item(&d->y, row, (size_t)st));
                if (!c || nd_parse_int64(c, -(1 << 24), 1 << 24, &o))
                    return nd_error_set(r->err, ND_EINPUT,
                                        "%s:%d: model.model_config.offset: '%s' is not a "
                                        "whole number",
                                        r->path, nd_yaml_line(row), c ? c : "");
                sum += cnt[st][v] = base + o;
            }
        }
        if (sum != count || (pass && (mtp <= 0 || cnt[pp - 1][vpp - 1] <= mtp))) continue;
        if (pass) cnt[pp - 1][vpp - 1] -= mtp;
        char text[4096];
        size_t used = 0;
        for (int64_t st = 0; st < pp; st++) {
            L->layers[st] = 0;
            for (int64_t v = 0; v < vpp; v++) L->layers[st] += cnt[st][v];
        }
        L->stages = pp;
        L->has_layers = true;
        if (layers % (pp * vpp) == 0) return ND_OK; /* equal chunks: nd's own split */
        for (int64_t v = 0; v < vpp; v++)
            for (int64_t st = 0; st < pp; st++) {
                bool first = v == 0 && st == 0, last = v == vpp - 1 && st == pp - 1;
                used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "%s%s",
                                         first ? "" : "|", first ? "E" : "");
                for (int64_t k = 0; k < cnt[st][v] && used + 8 < sizeof text; k++) text[used++] = 't';
                if (last)
                    for (int64_t k = 0; k < mtp && used + 8 < sizeof text; k++) text[used++] = 'm';
                if (last && used + 2 < sizeof text) text[used++] = 'L';
                text[used < sizeof text ? used : sizeof text - 1] = '\0';
            }
        fw_note(r->run, "%s: model.model_config.offset: chunks of unequal layers, priced as the layout %s",
                r->path, text);
        return fw_train(r, "pipeline_layout", text, nd_yaml_line(list), "model.model_config.offset");
    }
    fw_note(
        r->run,
        "%s: model.model_config.offset puts other than the model's %lld layers (%lld with its MTP layers) "
        "on the %lld chunks: -mppb splits the layers as nd does without it",
        r->path, (long long)layers, (long long)(layers + mtp), (long long)(pp * vpp));
    return ND_OK;
}

static int read_offsets(mf_doc *d)
{
    nd_run_layout *L = &d->r->run->layout;
    int64_t pp = d->r->run->strategy.pp, layers = d->r->run->model.layers;
    int rc;
    yaml_node_t *on = fw_yaml_at(&d->y, "model.model_config.offset");
    if (on && on->type == YAML_SEQUENCE_NODE && nd_yaml_size(on) > 0 &&
        nd_yaml_item(&d->y, on, 0)->type == YAML_SEQUENCE_NODE && d->r->run->strategy.vpp > 1)
        return read_chunk_offsets(d, on);
    int64_t off[ND_RUN_MAX_STAGES];
    int64_t n = fw_mindformers_stage_list(d, "model.model_config.offset", off, &rc);
    if (rc || pp < 1 || pp > ND_RUN_MAX_STAGES) return rc;
    L->stages = pp;
    if (n == 0 || (n == 1 && off[0] == 0)) return ND_OK;
    if (n != pp && n != 1)
        return nd_error_set(d->r->err, ND_EINPUT,
                            "%s: model.model_config.offset lists %lld stages but "
                            "pipeline_stage is %lld",
                            d->r->path, (long long)n, (long long)pp);
    int64_t sum = 0, mtp = d->r->run->model.mtp_layers;
    for (int64_t i = 0; i < pp; i++) sum += L->layers[i] = layers / pp + off[n == 1 ? 0 : i];
    if (sum != layers && mtp > 0) {
        /* MindFormers' DeepSeek models split num_layers + mtp_depth layers over the stages
         * (LayerSetting(num_layers + mtp_depth, offset, ...)), the MTP layers last */
        sum = 0;
        for (int64_t i = 0; i < pp; i++) sum += L->layers[i] = (layers + mtp) / pp + off[n == 1 ? 0 : i];
        if (sum == layers + mtp && L->layers[pp - 1] > mtp) {
            L->layers[pp - 1] -= mtp;
            sum = layers;
        }
    }
    if (sum != layers) { /* only -mppb reads the offsets: a note, not an error */
        fw_note(d->r->run,
                "%s: model.model_config.offset puts %lld layers on the stages, the model has %lld "
                "(%lld with its MTP layers): -mppb splits the layers as nd does without it",
                d->r->path, (long long)sum, (long long)layers, (long long)(layers + mtp));
        return ND_OK;
    }
    L->has_layers = true;
    return ND_OK;
}

static int read_training(mf_doc *d)
{
    fw_reader *r = d->r;
    int line, rc = ND_OK;
    const char *v;
    /* mcore configs state it on the dataset (BlendedMegatronDatasetDataLoader's GPTDataset) */
    static const char *const seq_keys[] = {"model.model_config.seq_length",
                                           "train_dataset.data_loader.config.seq_length"};
    const char *seq_key = NULL;
    for (size_t i = 0; !seq_key && i < ND_ARRAY_LEN(seq_keys); i++)
        if ((v = fw_yaml_text(&d->y, seq_keys[i], &line))) seq_key = seq_keys[i];
    if (seq_key)
        rc = fw_train(r, "seq_len", v, line, seq_key);
    else
        rc = fw_default(r, "model.model_config.seq_length not stated: the sequence is %lld tokens",
                        (long long)r->run->train.seq_len);
    const char *compute = fw_yaml_text(&d->y, "model.model_config.compute_dtype", &line);
    int params_line = 0;
    const char *params_key = "model.model_config.param_init_type";
    const char *params = fw_yaml_text(&d->y, params_key, &params_line);
    if (!params) params = fw_yaml_text(&d->y, params_key = "model.model_config.params_dtype", &params_line);
    /* a dtype nd does not know was ignored: priced as bf16 */
    if (!rc && compute && !fw_precision_of(compute))
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: model.model_config.compute_dtype: '%s' " DTYPES, r->path,
                          line, compute);
    if (!rc && params && !fw_precision_of(params))
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: %s: '%s' " DTYPES, r->path, params_line, params_key,
                          params);
    if (!rc && compute && fw_precision_of(compute))
        rc = fw_train(r, "precision", fw_precision_of(compute), line, "model.model_config.compute_dtype");
    /* fp32 parameters under a 16-bit compute: nd's fp32 master copy beside 16-bit weights */
    if (!rc && params && fw_precision_of(params) && !strcmp(fw_precision_of(params), "fp32"))
        rc = fw_train(r, "master_weights", "true", 0, "model.model_config.param_init_type");
    /* 16-bit parameters are the only copy: MindFormers' AdamW keeps fp32 moments beside them
     * (clone_state), no fp32 master */
    else if (!rc && params && fw_precision_of(params)) {
        rc = fw_train(r, "master_weights", "false", 0, "model.model_config.param_init_type");
        /* and MindSpore's gradients take the parameters' type: its training cells accumulate
         * them in clones of the weights (mindformers/wrapper: accu_grads = weights.clone) */
        if (!rc && !strcmp(params_key, "model.model_config.param_init_type"))
            rc = fw_train(r, "grad_precision", fw_precision_of(params), 0, params_key);
    }
    /* optimizer.swap: the AdamW states live on the host (clone_state's device='CPU') */
    if (!rc && fw_true(fw_yaml_text(&d->y, "optimizer.swap", &line)))
        rc = fw_train(r, "swap_optimizer", "true", line, "optimizer.swap");
    if (!rc && (v = fw_yaml_text(&d->y, "model.model_config.use_flash_attention", &line)))
        rc = fw_train(r, "flash_attention", fw_true(v) ? "true" : "false", line,
                      "model.model_config.use_flash_attention");
    /* fine_grain_interleave: N > 1 slices each layer so that one slice's TP communication runs
     * beside another's compute (MindFormers' LLaMA fine-grained interleaving) */
    int64_t slices = 1;
    if (!rc && (v = fw_yaml_text(&d->y, "model.model_config.fine_grain_interleave", &line))) {
        if (nd_parse_int64(v, 1, 1 << 10, &slices))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: model.model_config.fine_grain_interleave: '%s' is not a count of "
                                "slices (1-1024)",
                                r->path, line, v);
        if (slices > 1)
            rc = fw_train(r, "tp_comm_overlap", "true", line, "model.model_config.fine_grain_interleave");
    }
    if (!rc && (v = fw_yaml_text(&d->y, "runner_wrapper.use_clip_grad", &line)))
        rc = fw_train(r, "grad_clip", fw_true(v) ? "true" : "false", line, "runner_wrapper.use_clip_grad");
    if (!rc && (v = fw_yaml_text(&d->y, "optimizer.type", &line))) {
        char low[64];
        size_t n = 0;
        for (; v[n] && n + 1 < sizeof low; n++)
            low[n] = (char)(v[n] >= 'A' && v[n] <= 'Z' ? v[n] + 32 : v[n]);
        low[n] = '\0';
        rc = fw_train(r, "optimizer",
                      strstr(low, "muon")  ? "muon"
                      : strstr(low, "sgd") ? "sgd"
                                           : "adamw",
                      line, "optimizer.type");
    }
    if (!rc && (v = fw_yaml_text(&d->y, "context.max_device_memory", &line)) &&
        nd_run_set(r->run, "memory_budget", v, r->err)) {
        rc = nd_error_prefix(r->err, "%s:%d: context.max_device_memory", r->path, line);
        r->err->code = ND_EINPUT;
    }
    if (!rc) rc = fw_train(r, "framework", "mindspeed", 0, "");
    return rc;
}

static int fw_mindformers_read(fw_reader *r)
{
    mf_doc d;
    memset(&d, 0, sizeof d);
    d.r = r;
    int rc = nd_yaml_load(&d.y, r->path, r->err);
    if (rc) return rc;
    if (!(rc = read_model(&d)) && !(rc = read_training(&d)) && !(rc = read_strategy(&d)) &&
        !(rc = read_recompute(&d)))
        rc = fw_finish(r);
    if (!rc) rc = read_offsets(&d);
    nd_yaml_free(&d.y);
    return rc;
}

static int read_mindformers(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_mindformers_read(r);
}

const fw_format fw_mindformers_format = {ND_CONFIG_MINDFORMERS, read_mindformers, fw_mindformers_write};
