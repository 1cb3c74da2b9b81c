/*
 * model_hf.c — reading a model from Hugging Face config.json keys.
 *
 * One table maps every accepted key (Hugging Face names, their per-family
 * aliases, and nd's own) to a model field, so config.json files and the
 * `model:` mapping of a run file are read by the same rules. Family defaults
 * (what the Transformers class assumes when a key is absent) are set from
 * model_type before the keys are applied.
 */
#include "nd/costmodel/model.h"
#include "nd/inputs/model_fields.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

typedef enum {
    F_INT,
    F_BOOL,
    F_DOUBLE,
    F_TEXT,
    F_ENUM_ACT,
    F_ENUM_NORM,
    F_ATTN_BIAS,
    F_LINEAR_BIAS,
    F_RMSNORM,
    F_DTYPE,
    F_IGNORE
} field_type;

typedef struct field {
    const char *key;
    field_type type;
    size_t offset; /* into nd_model */
} field;

#define INT(k, f)                                                                                            \
    {                                                                                                        \
        k, F_INT, offsetof(nd_model, f)                                                                      \
    }
#define BOOL(k, f)                                                                                           \
    {                                                                                                        \
        k, F_BOOL, offsetof(nd_model, f)                                                                     \
    }

static const field fields[] = {
    INT("hidden_size", hidden),
    INT("n_embd", hidden),
    INT("d_model", hidden),
    INT("num_hidden_layers", layers),
    INT("n_layer", layers),
    INT("num_layers", layers),
    INT("num_attention_heads", heads),
    INT("n_head", heads),
    INT("num_key_value_heads", kv_heads),
    INT("num_query_groups", kv_heads),
    INT("multi_query_group_num", kv_heads),
    INT("head_dim", head_dim),
    INT("kv_channels", head_dim),
    INT("sliding_window", sliding_window),
    INT("sliding_layers", sliding_layers),
    INT("intermediate_size", ffn),
    INT("n_inner", ffn),
    INT("ffn_hidden_size", ffn),
    INT("vocab_size", vocab),
    INT("padded_vocab_size", vocab),
    INT("max_position_embeddings", context_length),
    INT("n_positions", context_length),
    INT("seq_length", context_length),
    INT("position_embeddings", max_positions),
    INT("num_experts", experts),
    INT("num_local_experts", experts),
    INT("n_routed_experts", experts),
    INT("num_experts_per_tok", experts_per_token),
    INT("moe_router_topk", experts_per_token),
    INT("n_shared_experts", shared_experts),
    INT("num_shared_experts", shared_experts),
    INT("moe_intermediate_size", moe_ffn),
    INT("moe_ffn_hidden_size", moe_ffn),
    INT("shared_expert_intermediate_size", shared_ffn),
    INT("first_k_dense_replace", first_k_dense),
    INT("moe_layer_freq", moe_layer_freq),
    INT("decoder_sparse_step", moe_sparse_step),
    {"capacity_factor", F_DOUBLE, offsetof(nd_model, capacity_factor)},
    INT("n_group", router_groups),
    INT("moe_router_num_groups", router_groups),
    INT("topk_group", router_group_topk),
    INT("moe_router_group_topk", router_group_topk),
    INT("q_lora_rank", q_lora_rank),
    INT("kv_lora_rank", kv_lora_rank),
    INT("qk_nope_head_dim", qk_nope_head_dim),
    INT("qk_rope_head_dim", qk_rope_head_dim),
    INT("v_head_dim", v_head_dim),
    INT("num_nextn_predict_layers", mtp_layers),
    INT("mtp_num_hidden_layers", mtp_layers),
    INT("mtp_depth", mtp_layers),
    INT("mtp_num_layers", mtp_layers),
    BOOL("tie_word_embeddings", tied_embeddings),
    BOOL("tie_embeddings", tied_embeddings),
    {"attention_bias", F_ATTN_BIAS, 0},
    BOOL("qkv_bias", qkv_bias),
    BOOL("o_bias", o_bias),
    BOOL("mlp_bias", mlp_bias),
    BOOL("qk_norm", qk_norm),
    BOOL("use_qk_norm", qk_norm),
    BOOL("use_parallel_residual", parallel_residual),
    BOOL("post_norms", post_norms),
    BOOL("add_qkv_bias", qkv_bias),
    {"add_bias_linear", F_LINEAR_BIAS, 0},
    {"rmsnorm", F_RMSNORM, 0},
    BOOL("router_bias", router_bias),
    BOOL("shared_expert_gate", shared_expert_gate),
    {"name", F_TEXT, offsetof(nd_model, name)},
    {"hidden_act", F_ENUM_ACT, 0},
    {"activation_function", F_ENUM_ACT, 0},
    {"hidden_activation", F_ENUM_ACT, 0},
    {"mlp", F_ENUM_ACT, 0},
    {"norm", F_ENUM_NORM, 0},
    /* the checkpoint's dtype (torch_dtype; newer Transformers write dtype): checked, not
     * priced, as train.precision sets the training's */
    {"torch_dtype", F_DTYPE, 0},
    {"dtype", F_DTYPE, 0},
};

/* Keys that describe what nd does not price (or prices the same either way). */
static const char *ignored_keys[] = {
    "rope_theta",
    "rope_scaling",
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "norm_eps",
    "partial_rotary_factor",
    "initializer_range",
    "transformers_version",
    "use_cache",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "architectures",
    "model_type",
    "attention_dropout",
    "hidden_dropout",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "summary_type",
    "summary_use_proj",
    "summary_activation",
    "summary_proj_to_labels",
    "summary_first_dropout",
    "scale_attn_weights",
    "use_sliding_window",
    "max_window_layers",
    "norm_topk_prob",
    "output_router_logits",
    "router_aux_loss_coef",
    "experts_per_token",
    "swiglu_limit",
    "initial_context_length",
    "router_jitter_noise",
    "routed_scaling_factor",
    "scoring_func",
    "topk_method",
    "aux_loss_alpha",
    "seq_aux",
    "ep_size",
    "quantization_config",
    "rotary_pct",
    "rotary_emb_base",
    "rotary_dim",
    "use_mla",
    "pretraining_tp",
    "classifier_dropout",
    "reorder_and_upcast_attn",
    "scale_attn_by_inverse_layer_idx",
    "task_specific_params",
    "n_ctx",
    "bias",
    "use_bias",
    "auto_map",
    "attn_implementation",
    "_name_or_path",
    "mlp_only_layers",
    "num_experts_per_token_count",
    "layer_types",
    "head_size",
    "multi_query_attention",
    "attn_logit_softcapping",
    "final_logit_softcapping",
    "query_pre_attn_scalar",
    "cache_implementation",
    "layernorm_epsilon",
    "model_max_length",
    "rope_ratio",
    "attn_output_multiplier",
    "embedding_multiplier_scale",
    "output_multiplier_scale",
    "max_attn_value",
    "scale_emb",
    "dim_model_base",
    "scale_depth",
};

static const field *find_field(const char *key)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(fields); i++)
        if (!strcmp(fields[i].key, key)) return &fields[i];
    return NULL;
}

bool nd_model_key_ignored(const char *key)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(ignored_keys); i++)
        if (!strcmp(ignored_keys[i], key)) return true;
    return false;
}

bool nd_model_key_known(const char *key)
{
    return find_field(key) != NULL || !strcmp(key, "model_type");
}

int nd_model_set_field(nd_model *m, const char *key, const char *value, const char *where, nd_error *err)
{
    const field *f = find_field(key);
    if (!f) {
        const char *names[ND_ARRAY_LEN(fields)];
        for (size_t i = 0; i < ND_ARRAY_LEN(fields); i++) names[i] = fields[i].key;
        const char *near = nd_text_nearest(key, names, ND_ARRAY_LEN(fields));
        if (near)
            return nd_error_set(err, ND_EINPUT,
                                "%s: unknown model key '%s' (did you mean '%s'? "
                                "docs/run-file.md lists them)",
                                where, key, near);
        return nd_error_set(err, ND_EINPUT, "%s: unknown model key '%s' (docs/run-file.md lists them)", where,
                            key);
    }
    char *base = (char *)m;
    switch (f->type) {
    case F_INT: {
        int64_t v;
        if (value == NULL)
            v = 0; /* JSON null: the feature is absent */
        else if (nd_parse_int64(value, 0, ND_MODEL_FIELD_MAX, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not a whole number in [0, %lld]",
                                where, key, value, (long long)ND_MODEL_FIELD_MAX);
        memcpy(base + f->offset, &v, sizeof v);
        return ND_OK;
    }
    case F_DOUBLE: {
        double v = 0;
        if (value && nd_parse_double(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not a number", where, key,
                                value);
        memcpy(base + f->offset, &v, sizeof v);
        return ND_OK;
    }
    case F_BOOL: {
        bool v = false;
        if (value && nd_parse_bool(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not true or false", where, key,
                                value);
        memcpy(base + f->offset, &v, sizeof v);
        return ND_OK;
    }
    case F_TEXT: {
        /* names are printed and written back into best.yaml: no line breaks or escapes */
        long chars = value ? nd_text_name_chars(value) : 0;
        if (chars < 0 || (value && strlen(value) >= sizeof m->name))
            return nd_error_set(err, ND_EINPUT,
                                "%s: model key '%s': '%s' is not a name of printable "
                                "UTF-8 under %zu bytes",
                                where, key, value, sizeof m->name);
        nd_text_copy(base + f->offset, value ? value : "", sizeof m->name);
        return ND_OK;
    }
    case F_ENUM_ACT: {
        static const char *plain[] = {"gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh",
                                      "relu", "relu2",    "plain",     "quick_gelu"};
        static const char *gated[] = {"silu", "swiglu", "swish", "gated", "geglu"};
        for (size_t i = 0; value && i < ND_ARRAY_LEN(plain); i++)
            if (nd_text_equal_nocase(value, plain[i])) {
                m->mlp = ND_MLP_PLAIN;
                return ND_OK;
            }
        for (size_t i = 0; value && i < ND_ARRAY_LEN(gated); i++)
            if (nd_text_equal_nocase(value, gated[i])) {
                m->mlp = ND_MLP_GATED;
                return ND_OK;
            }
        return nd_error_set(err, ND_EINPUT,
                            "%s: model key '%s': '%s' is not an activation nd knows "
                            "(silu/swiglu: gated three-matrix MLP; gelu/relu: plain two-matrix MLP)",
                            where, key, value ? value : "null");
    }
    case F_ENUM_NORM:
        if (value && nd_text_equal_nocase(value, "layernorm"))
            m->norm = ND_NORM_LAYER;
        else if (value && nd_text_equal_nocase(value, "rmsnorm"))
            m->norm = ND_NORM_RMS;
        else
            return nd_error_set(err, ND_EINPUT, "%s: model key 'norm': '%s' is not rmsnorm or layernorm",
                                where, value ? value : "null");
        return ND_OK;
    case F_ATTN_BIAS: {
        /* Transformers' attention_bias biases q, k, v and o alike (Llama, Qwen3, Mistral). */
        bool v = false;
        if (value && nd_parse_bool(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not true or false", where, key,
                                value);
        m->qkv_bias = m->o_bias = v;
        return ND_OK;
    }
    case F_LINEAR_BIAS: {
        /* ChatGLM's add_bias_linear: the output projection's and the MLP's biases */
        bool v = false;
        if (value && nd_parse_bool(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not true or false", where, key,
                                value);
        m->o_bias = m->mlp_bias = v;
        return ND_OK;
    }
    case F_RMSNORM: {
        /* ChatGLM's rmsnorm: true RMSNorm, false LayerNorm */
        bool v = true;
        if (value && nd_parse_bool(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s': '%s' is not true or false", where, key,
                                value);
        m->norm = v ? ND_NORM_RMS : ND_NORM_LAYER;
        return ND_OK;
    }
    case F_DTYPE: {
        /* Transformers writes str(torch.dtype) without "torch."; "auto" (and null) leave the
         * dtype to the loader. The short names are the ones nd reads elsewhere (bf16, fp16).
         * Another word was skipped: a typo (float17) then priced silently. */
        static const char *const dtypes[] = {"float32",       "float16",     "bfloat16", "float64",
                                             "float8_e4m3fn", "float8_e5m2", "bf16",     "fp16",
                                             "fp32",          "half",        "float",    "auto"};
        const char *name = value && !strncmp(value, "torch.", 6) ? value + 6 : value;
        for (size_t i = 0; name && i < ND_ARRAY_LEN(dtypes); i++)
            if (nd_text_equal_nocase(name, dtypes[i])) return ND_OK;
        if (!value) return ND_OK;
        return nd_error_set(err, ND_EINPUT,
                            "%s: model key '%s': '%s' is not a dtype nd knows (float32, float16, bfloat16, "
                            "float64, float8_e4m3fn, float8_e5m2, bf16, fp16, fp32, half, float or auto)",
                            where, key, value);
    }
    case F_IGNORE: return ND_OK;
    }
    return ND_OK;
}

static const char *known_types[] = {"llama",    "mistral",   "mixtral",     "qwen2",       "qwen2_moe",
                                    "qwen3",    "qwen3_moe", "deepseek_v2", "deepseek_v3", "gpt2",
                                    "gpt_neox", "nemotron",  "gpt_oss",     "gemma",       "gemma2",
                                    "glm",      "glm4",      "chatglm",     "baichuan",    "internlm2",
                                    "phi3",     "minicpm",   "grok-1",      "gpt",         "custom"};
#define KNOWN_TYPES_TEXT                                                                                     \
    "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt2, "          \
    "gpt_neox, nemotron, gpt_oss, gemma, gemma2, glm, glm4, chatglm, baichuan, internlm2, phi3, "            \
    "minicpm, grok-1, gpt, custom"

int nd_model_set_type(nd_model *m, const char *type, const char *where, nd_error *err)
{
    bool known = false;
    for (size_t i = 0; i < ND_ARRAY_LEN(known_types); i++) known |= !strcmp(type, known_types[i]);
    if (!known)
        return nd_error_set(err, ND_EINPUT, "%s: model_type '%s' is not one nd prices (" KNOWN_TYPES_TEXT ")",
                            where, type);
    /* Defaults of each Transformers config class when a key is absent. */
    char name[sizeof m->name];
    memcpy(name, m->name, sizeof name);
    memset(m, 0, sizeof *m);
    memcpy(m->name, name, sizeof name);
    nd_text_copy(m->type, type, sizeof m->type);
    m->norm = ND_NORM_RMS;
    m->mlp = ND_MLP_GATED;
    m->moe_layer_freq = 1;
    if (!strcmp(type, "gpt2") || !strcmp(type, "gpt")) {
        /* GPT-2/3 and Megatron GPT: LayerNorm, 4h GELU MLP, biases, learned positions, tied. */
        m->norm = ND_NORM_LAYER;
        m->mlp = ND_MLP_PLAIN;
        m->tied_embeddings = true;
        m->qkv_bias = m->o_bias = m->mlp_bias = true;
    } else if (!strcmp(type, "gpt_neox")) {
        m->norm = ND_NORM_LAYER;
        m->mlp = ND_MLP_PLAIN;
        m->parallel_residual = true;
        m->qkv_bias = m->o_bias = m->mlp_bias = true;
    } else if (!strcmp(type, "nemotron")) {
        /* Nemotron-3/4: LayerNorm (1p), a squared-ReLU two-matrix MLP, no linear biases. */
        m->norm = ND_NORM_LAYER;
        m->mlp = ND_MLP_PLAIN;
    } else if (!strcmp(type, "gpt_oss")) {
        /* gpt-oss: biased attention, experts and router (its experts as wide as intermediate_size). */
        m->qkv_bias = m->o_bias = m->mlp_bias = m->router_bias = true;
    } else if (!strncmp(type, "qwen2", 5)) {
        m->qkv_bias = true;
        if (!strcmp(type, "qwen2_moe")) {
            m->shared_experts = 1;
            m->shared_expert_gate = true;
        }
    } else if (!strncmp(type, "qwen3", 5)) {
        m->qk_norm = true;
    } else if (!strncmp(type, "deepseek", 8)) {
        m->attention = ND_ATTN_MLA;
        m->router_bias = !strcmp(type, "deepseek_v3");
    } else if (!strncmp(type, "gemma", 5)) {
        /* Gemma: GeGLU (gated, whatever hidden_activation names), tied embeddings, 256-wide heads;
         * Gemma 2 also norms each block's output (post_attention_layernorm,
         * post_feedforward_layernorm) */
        m->tied_embeddings = true;
        m->head_dim = 256;
        m->post_norms = !strcmp(type, "gemma2");
    } else if (!strncmp(type, "glm", 3)) {
        /* GLM-4 (Transformers' GlmConfig): biases on q, k and v alone; Glm4Config (GLM-4-0414)
         * norms each block's output too */
        m->qkv_bias = true;
        m->post_norms = !strcmp(type, "glm4");
    } else if (!strcmp(type, "grok-1")) {
        /* Grok-1 (xai-org's JAX code, hpcai-tech's port): experts intermediate_size wide, a norm
         * before and after attention and the experts, the embedding shared with the output */
        m->post_norms = true;
        m->tied_embeddings = true;
    } else if (!strcmp(type, "chatglm")) {
        /* THUDM's ChatGLM2/3 and GLM-4 remote code: RMSNorm, SwiGLU, QKV biases (add_qkv_bias),
         * a separate output layer */
        m->qkv_bias = true;
    }
    return ND_OK;
}

void nd_model_finish_type(nd_model *m)
{
    /* GPT-2/3 learn a position table as long as their context; the others are rotary. */
    bool learned = !strcmp(m->type, "gpt2") || !strcmp(m->type, "gpt");
    if (learned && m->max_positions == 0) m->max_positions = m->context_length ? m->context_length : 1024;
    if (learned && m->ffn == 0) m->ffn = 4 * m->hidden; /* GPT-2's n_inner: null = 4h */
    /* Mixtral's, gpt-oss's and MiniCPM-MoE's experts are intermediate_size wide; they have no dense
     * MLP. */
    if ((!strcmp(m->type, "mixtral") || !strcmp(m->type, "gpt_oss") || !strcmp(m->type, "minicpm") ||
         !strcmp(m->type, "grok-1")) &&
        m->moe_ffn == 0)
        m->moe_ffn = m->ffn;
    /* GLM's output projection has no bias, whatever attention_bias says (GlmAttention) */
    if (!strncmp(m->type, "glm", 3)) m->o_bias = false;
    /* Gemma's MLP is gated whatever its activation (gelu_pytorch_tanh: GeGLU) */
    if (!strncmp(m->type, "gemma", 5)) m->mlp = ND_MLP_GATED;
    /* Without layer_types: Mistral's and Mixtral's attention applies sliding_window on every
     * layer (Transformers' MistralAttention), Gemma 2's on the even ones (layer_idx % 2 == 0) */
    if (m->sliding_window > 0 && m->sliding_layers == 0) {
        if (!strcmp(m->type, "mistral") || !strcmp(m->type, "mixtral")) m->sliding_layers = m->layers;
        if (!strcmp(m->type, "gemma2")) m->sliding_layers = (m->layers + 1) / 2;
    }
}

/* Text of a JSON scalar for nd_model_set_field; NULL for null. */
static int json_scalar_text(const cJSON *item, char *buf, size_t size, const char **out)
{
    if (cJSON_IsNull(item)) {
        *out = NULL;
        return 0;
    }
    if (cJSON_IsBool(item)) {
        *out = cJSON_IsTrue(item) ? "true" : "false";
        return 0;
    }
    if (cJSON_IsString(item)) {
        *out = item->valuestring;
        return 0;
    }
    if (cJSON_IsNumber(item)) {
        double v = item->valuedouble;
        if (v == floor(v) && fabs(v) < 1e15)
            snprintf(buf, size, "%.0f", v);
        else
            snprintf(buf, size, "%.17g", v);
        *out = buf;
        return 0;
    }
    return -1;
}

/* How many entries of config.json's layer_types name `kind` (linear_attention, sliding_attention). */
static int64_t layer_types_naming(const cJSON *config, const char *kind)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(config, "layer_types"), *t;
    int64_t n = 0;
    if (cJSON_IsArray(types))
        cJSON_ArrayForEach(t, types) n += cJSON_IsString(t) && strstr(t->valuestring, kind) != NULL;
    return n;
}

/* What nd would otherwise drop silently: a vision tower beside the language model (it
 * would run on the same pipeline and take its memory and time), and linear-attention
 * layers (Qwen3-Next's gated DeltaNet), which keep no score matrix but a recurrent
 * state nd does not price. Sliding-window layers are priced as full attention (an upper
 * bound, docs/run-file.md). */
static int refuse_unpriced(const cJSON *root, const cJSON *config, const char *path, nd_error *err)
{
    static const char *const towers[] = {"vision_config", "audio_config", "visual", "vision_tower"};
    for (size_t i = 0; i < ND_ARRAY_LEN(towers); i++) {
        const cJSON *tower = cJSON_GetObjectItemCaseSensitive(root, towers[i]);
        if (!cJSON_IsObject(tower)) continue;
        const cJSON *depth = cJSON_GetObjectItemCaseSensitive(tower, "depth");
        if (!cJSON_IsNumber(depth)) depth = cJSON_GetObjectItemCaseSensitive(tower, "num_hidden_layers");
        char layers[48] = "";
        if (cJSON_IsNumber(depth)) snprintf(layers, sizeof layers, ", %.0f layers", depth->valuedouble);
        return nd_error_set(err, ND_EINPUT,
                            "%s: '%s' describes a tower beside the language model%s, which "
                            "nd does not price: give -y the language model's own config (its text_config) "
                            "to price that part alone",
                            path, towers[i], layers);
    }
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(config, "layer_types");
    int64_t linear = layer_types_naming(config, "linear");
    if (linear)
        return nd_error_set(err, ND_EINPUT,
                            "%s: 'layer_types' makes %d of %d layers linear attention, "
                            "which nd does not price (it prices softmax attention only)",
                            path, (int)linear, cJSON_GetArraySize(types));
    return ND_OK;
}

/* layer_types' sliding-window layers (gpt-oss, Gemma) are priced at their window. Without the
 * list (Mistral's sliding_window, Qwen2's) every layer is priced as full attention, an upper
 * bound (docs/run-file.md). */
static void count_sliding_layers(const cJSON *config, nd_model *m)
{
    int64_t sliding = layer_types_naming(config, "sliding");
    if (sliding > 0) m->sliding_layers = sliding;
}

/* Reads config.json keys into m; with validate false, derived defaults are left for the
 * caller to fill (after its overrides) with nd_model_finish_type and nd_model_validate. */
static int nd_model_read_hf_json(nd_model *m, const char *text, size_t len, const char *path, bool validate,
                                 nd_error *err)
{
    cJSON *root = NULL;
    int rc = nd_json_parse(text, len, path, &root, err);
    if (rc) return rc;
    const cJSON *config = root;
    const cJSON *text_config = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(text_config)) config = text_config; /* composite (multimodal) configs */
    if (!cJSON_IsObject(config)) {
        rc = nd_error_set(err, ND_EINPUT, "%s: a config.json must be a JSON object", path);
        goto done;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(config, "model_type");
    if (!cJSON_IsString(type)) type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!cJSON_IsString(type)) {
        rc = nd_error_set(err, ND_EINPUT, "%s: field 'model_type' is missing (say llama, gpt2, ...)", path);
        goto done;
    }
    if ((rc = nd_model_set_type(m, type->valuestring, path, err))) goto done;
    const cJSON *item;
    cJSON_ArrayForEach(item, config)
    {
        const char *key = item->string;
        if (!find_field(key)) continue; /* config.json holds much nd does not price */
        char buf[64];
        const char *value;
        if (json_scalar_text(item, buf, sizeof buf, &value)) {
            rc =
                nd_error_set(err, ND_EINPUT, "%s: field '%s' must be a number, string or boolean", path, key);
            goto done;
        }
        if ((rc = nd_model_set_field(m, key, value, path, err))) goto done;
    }
    if ((rc = refuse_unpriced(root, config, path, err))) goto done;
    count_sliding_layers(config, m);
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(config, "mlp_only_layers");
    if (cJSON_IsArray(only) && cJSON_GetArraySize(only) > 0) {
        rc = nd_error_set(err, ND_EINPUT,
                          "%s: field 'mlp_only_layers' lists dense layers among MoE ones; nd "
                          "prices dense layers only as the first first_k_dense_replace",
                          path);
        goto done;
    }
    if (!m->name[0]) { /* the file's name; a checkpoint's config.json, its directory's */
        const char *base = strrchr(path, '/');
        nd_text_copy(m->name, base ? base + 1 : path, sizeof m->name);
        if (base && base > path && !strcmp(base + 1, "config.json")) {
            const char *dir = base;
            while (dir > path && dir[-1] != '/') dir--;
            if (base - dir > 0 && !(base - dir == 1 && *dir == '.'))
                snprintf(m->name, sizeof m->name, "%.*s", (int)(base - dir), dir);
        }
    }
    if (validate) {
        nd_model_finish_type(m);
        rc = nd_model_validate(m, path, err);
    }
done:
    cJSON_Delete(root);
    return rc;
}

int nd_model_parse_hf_json(nd_model *m, const char *text, size_t len, const char *path, nd_error *err)
{
    return nd_model_read_hf_json(m, text, len, path, true, err);
}

int nd_model_load_hf_json(nd_model *m, const char *path, nd_error *err)
{
    return nd_model_read_hf_file(m, path, true, err);
}

int nd_model_read_hf_file(nd_model *m, const char *path, bool validate, nd_error *err)
{
    char *text;
    size_t len;
    int rc = nd_read_file(path, 16u << 20, &text, &len, err);
    if (rc) return rc;
    memset(m, 0, sizeof *m);
    rc = nd_model_read_hf_json(m, text, len, path, validate, err);
    free(text);
    return rc;
}
