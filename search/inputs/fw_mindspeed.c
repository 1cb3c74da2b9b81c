/*
 * fw_mindspeed.c — ND's MindSpeed json: a MindSpeed-MM model config (modules, each named
 * by a model_id, with Megatron's argument names) and ND's `tmp` section of degrees
 * (pp, dp, tp, cp, ep, etp, vpp, mbs, seqlen), as ND's MindSpeed parser reads it
 * (docs/reference/nd-costmodel.md §1.3). A config of several modules (a vision encoder beside a
 * text decoder) is refused: nd prices decoder-only language models. The choice goes back
 * into a copy of the json (resolved.json).
 */
#include "fw_formats.h"
#include "fw_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

/* The modules (objects with a model_id), depth first; the root counts when it is one. */
static int modules(cJSON *node, cJSON **out, int n, int cap)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(node, "model_id");
    bool has_layers = cJSON_GetObjectItemCaseSensitive(node, "num_layers") != NULL;
    if (cJSON_IsString(id) && has_layers && n < cap) out[n++] = node;
    cJSON *child;
    cJSON_ArrayForEach(child, node) if (cJSON_IsObject(child)) n = modules(child, out, n, cap);
    return n;
}

static int read_module(fw_reader *r, const cJSON *mod)
{
    static const struct {
        const char *theirs, *hf;
    } keys[] = {
        {"num_layers", "num_hidden_layers"},
        {"hidden_size", "hidden_size"},
        {"ffn_hidden_size", "intermediate_size"},
        {"vocab_size", "vocab_size"},
        {"num_attention_heads", "num_attention_heads"},
        {"num_query_groups", "num_key_value_heads"},
        {"kv_channels", "head_dim"},
        {"kv_lora_rank", "kv_lora_rank"},
        {"k_lora_rank", "kv_lora_rank"},
        {"q_lora_rank", "q_lora_rank"},
        {"qk_rope_head_dim", "qk_rope_head_dim"},
        {"qk_nope_head_dim", "qk_nope_head_dim"},
        {"v_head_dim", "v_head_dim"},
        {"qk_layernorm", "qk_norm"},
        {"num_moe_experts", "num_experts"},
        {"moe_router_topk", "num_experts_per_tok"},
        {"n_shared_exp", "n_shared_experts"},
        {"moe_intermediate_size", "moe_intermediate_size"},
        {"first_k_dense_replace", "first_k_dense_replace"},
        {"mtp_num_layers", "mtp_num_layers"},
        {"max_position_embeddings", "max_position_embeddings"},
    };
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(mod, "model_id");
    nd_text_copy(r->run->model.name, id->valuestring, sizeof r->run->model.name);
    bool mla = cJSON_GetObjectItemCaseSensitive(mod, "kv_lora_rank") ||
               cJSON_GetObjectItemCaseSensitive(mod, "k_lora_rank");
    int rc = fw_model_family(r, mla ? "deepseek_v3" : id->valuestring, 0);
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(keys); i++) {
        char buf[64];
        const char *v =
            fw_json_scalar(cJSON_GetObjectItemCaseSensitive(mod, keys[i].theirs), buf, sizeof buf);
        if (v && strcmp(v, "0")) rc = fw_model(r, keys[i].hf, v, 0, keys[i].theirs);
    }
    char buf[64];
    const char *dtype =
        fw_json_scalar(cJSON_GetObjectItemCaseSensitive(mod, "params_dtype"), buf, sizeof buf);
    if (!rc && dtype && fw_precision_of(dtype))
        rc = fw_train(r, "precision", fw_precision_of(dtype), 0, "params_dtype");
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mod, "moe_grouped_gemm")))
        rc = fw_train(r, "moe_grouped_gemm", "true", 0, "moe_grouped_gemm");
    /* recompute_num_layers: the layers each stage recomputes fully (an int, or one per stage;
     * -1 = every layer) */
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(mod, "recompute_num_layers"), *item;
    nd_run_layout *L = &r->run->layout;
    int64_t k = 0;
    if (!rc && cJSON_IsArray(rec)) {
        int i = 0;
        cJSON_ArrayForEach(item, rec)
        {
            if (i >= ND_RUN_MAX_STAGES) break;
            if (fw_json_whole(r, item, "recompute_num_layers[]", -1, 1 << 24, &k) != 0)
                return rc ? rc
                          : nd_error_set(r->err, ND_EINPUT, "%s: recompute_num_layers[%d]: not a number",
                                         r->path, i);
            L->recompute[i++] = k;
        }
        L->has_recompute = i > 0;
    } else if (!rc && rec) {
        int got = fw_json_whole(r, rec, "recompute_num_layers", 0, 1 << 24, &k);
        if (got < 0) return got;
        if (got == 0 && k > 0) {
            L->has_recompute = true;
            for (int i = 0; i < ND_RUN_MAX_STAGES; i++) L->recompute[i] = k;
        }
    }
    if (!rc) rc = fw_train(r, "recompute", L->has_recompute ? "full" : "off", 0, "recompute_num_layers");
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(mod, "pipeline_num_layers");
    int i = 0;
    if (!rc && cJSON_IsArray(parts)) cJSON_ArrayForEach(item, parts)
        {
            if (i >= ND_RUN_MAX_STAGES) break;
            int got = fw_json_whole(r, item, "pipeline_num_layers[]", 0, 1 << 24, &k);
            if (got)
                return got < 0
                           ? got
                           : nd_error_set(r->err, ND_EINPUT, "%s: pipeline_num_layers[%d]: null", r->path, i);
            L->layers[i++] = k;
        }
    L->has_layers = i > 0;
    L->stages = i;
    return rc;
}

/* Degrees: ND's tmp section, else the module's own Megatron arguments. */
static int read_degrees(fw_reader *r, const cJSON *root, const cJSON *mod)
{
    static const struct {
        const char *tmp, *theirs, *dim;
    } degrees[] = {
        {"tp", "tensor_model_parallel_size", "MP"},
        {"pp", "pipeline_model_parallel_size", "PP"},
        {"cp", "context_parallel_size", "CP"},
        {"ep", "expert_model_parallel_size", "EP"},
        {"etp", "expert_tensor_parallel_size", "ETP"},
        {"vpp", NULL, "VPP"},
        {"mbs", "micro_batch_size", "MBS"},
        {"dp", NULL, "DP"},
    };
    const cJSON *tmp = cJSON_GetObjectItemCaseSensitive(root, "tmp");
    int rc = ND_OK;
    r->run->has_strategy = true;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(tmp, degrees[i].tmp);
        char where[64];
        snprintf(where, sizeof where, "tmp.%s", degrees[i].tmp);
        if (!v && degrees[i].theirs) {
            v = cJSON_GetObjectItemCaseSensitive(mod, degrees[i].theirs);
            snprintf(where, sizeof where, "%s", degrees[i].theirs);
        }
        int64_t k = 0;
        int got = fw_json_whole(r, v, where, 0, 1 << 24, &k);
        if (got < 0) return got;
        if (got == 0 && k >= 1) rc = fw_degree(r, degrees[i].dim, k, 0, where); /* 0: not set */
    }
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mod, "sequence_parallel")))
        rc = fw_strategy(r, "SP", "1", 0, "sequence_parallel");
    if (!rc && r->run->strategy.vpp > 1) rc = fw_train(r, "schedule", "interleaved", 0, "tmp.vpp");
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(tmp, "seqlen");
    if (!cJSON_IsNumber(seq)) seq = cJSON_GetObjectItemCaseSensitive(mod, "seq_length");
    char buf[64];
    if (!rc && cJSON_IsNumber(seq))
        rc = fw_train(r, "seq_len", fw_json_scalar(seq, buf, sizeof buf), 0, "tmp.seqlen");
    else if (!rc)
        rc = fw_default(r, "no tmp.seqlen: the sequence is %lld tokens", (long long)r->run->train.seq_len);
    /* ND: the optimizer shards over DP (MindSpeed's distributed optimizer); MB = PP */
    nd_strategy *s = &r->run->strategy;
    if (!rc && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(tmp, "dp"))) r->run->derive_dp = true;
    if (!rc) {
        s->mb = s->pp;
        r->run->derive_mb = true;
        r->run->op_spans_dp = true;
        s->zero = 1;
    }
    if (!rc) rc = fw_train(r, "framework", "mindspeed", 0, "");
    return rc;
}

static int fw_mindspeed_json_read(fw_reader *r)
{
    cJSON *root;
    int rc = fw_json_load(r->path, &root, r->err);
    if (rc) return rc;
    cJSON *mods[16];
    int n = modules(root, mods, 0, 16);
    if (n == 0) {
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s: no module with a model_id and num_layers (MindSpeed's model config)", r->path);
    } else if (n > 1) {
        char names[256] = "";
        for (int i = 0; i < n; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                     cJSON_GetObjectItemCaseSensitive(mods[i], "model_id")->valuestring);
        }
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s: %d modules (%s) share the pipeline: a multimodal model nd does not "
                          "price; give the language model's module alone",
                          r->path, n, names);
    } else {
        rc = read_module(r, mods[0]);
        if (!rc) rc = read_degrees(r, root, mods[0]);
        if (!rc && !r->run->derive_dp) rc = nd_config_derive(r->run, r->err);
        if (!rc) rc = fw_finish(r);
    }
    cJSON_Delete(root);
    return rc;
}

static int fw_mindspeed_json_write(const nd_run *run, const nd_config_choice *c, const char *dir,
                                   char *written, size_t size, nd_error *err)
{
    cJSON *root;
    int rc = fw_json_load(run->source, &root, err);
    if (rc) return rc;
    cJSON *tmp = cJSON_GetObjectItemCaseSensitive(root, "tmp");
    if (!tmp) cJSON_AddItemToObject(root, "tmp", tmp = cJSON_CreateObject());
    const nd_strategy *s = &c->s;
    const struct {
        const char *key;
        int64_t v;
    } degrees[] = {
        {"dp", s->dp},   {"tp", s->tp},   {"pp", s->pp},
        {"cp", s->cp},   {"ep", s->ep},   {"etp", s->etp ? s->etp : s->tp},
        {"vpp", s->vpp}, {"mbs", s->mbs},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(degrees); i++) {
        cJSON *v = cJSON_CreateNumber((double)degrees[i].v);
        if (cJSON_GetObjectItemCaseSensitive(tmp, degrees[i].key))
            cJSON_ReplaceItemInObjectCaseSensitive(tmp, degrees[i].key, v);
        else
            cJSON_AddItemToObject(tmp, degrees[i].key, v);
    }
    cJSON *mods[1];
    if (modules(root, mods, 0, 1) == 1) { /* the module's own arguments, where it states them */
        const struct {
            const char *key;
            int64_t v;
        } own[] = {
            {"tensor_model_parallel_size", s->tp},
            {"pipeline_model_parallel_size", s->pp},
            {"expert_model_parallel_size", s->ep},
        };
        for (size_t i = 0; i < ND_ARRAY_LEN(own); i++)
            if (cJSON_GetObjectItemCaseSensitive(mods[0], own[i].key))
                cJSON_ReplaceItemInObjectCaseSensitive(mods[0], own[i].key,
                                                       cJSON_CreateNumber((double)own[i].v));
        if (cJSON_GetObjectItemCaseSensitive(mods[0], "sequence_parallel"))
            cJSON_ReplaceItemInObjectCaseSensitive(mods[0], "sequence_parallel", cJSON_CreateBool(s->sp));
    }
    char *text = cJSON_Print(root), path[1024];
    cJSON_Delete(root);
    if (!text) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t len = strlen(text);
    text[len] = '\n'; /* over the NUL: the file ends with a newline */
    rc = nd_write_file_atomic(fw_output_path(dir, "resolved.json", path, sizeof path, written, size), text,
                              len + 1, err);
    free(text);
    return rc;
}

static int read_mindspeed_json(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    int rc = fw_mindspeed_json_read(r);
    if (rc) fw_json_locate(r->path, r->err);
    return rc;
}

const fw_format fw_mindspeed_json_format = {ND_CONFIG_MINDSPEED_JSON, read_mindspeed_json,
                                            fw_mindspeed_json_write};
