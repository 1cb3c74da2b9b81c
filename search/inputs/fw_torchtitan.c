/*
 * fw_torchtitan.c — torchtitan's job toml (-f torchtitan, and ND's -f hyperparallel,
 * which reads the same file): the strategy from [parallelism] (or the older [training]
 * and [experimental] keys), the batch and sequence from [training], recompute from
 * [activation_checkpoint]. The model is [model] name and flavor: from the config.json in
 * hf_assets_path when there is one, else from the flavor's arguments in the model's
 * __init__.py as ND takes it (-y MODULE.py:CONFIG.toml), else from nd's table of
 * torchtitan's Llama 3 flavors. The choice goes back into a copy (resolved.toml,
 * fw_torchtitan_write.c).
 */
#include "fw_formats.h"
#include "fw_torchtitan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/base/text.h"
#include "nd/base/toml.h"
#include "nd/base/array.h"

typedef struct tt {
    fw_reader *r;
    nd_toml *t;
    char toml[512], module[512];
} tt;

/* A key of torchtitan's job config, in its table or the one older torchtitan used. */
static const char *get(tt *x, const char *table, const char *old_table, const char *key, int *line)
{
    const char *v = nd_toml_get(x->t, table, key, line);
    if (!v && old_table) v = nd_toml_get(x->t, old_table, key, line);
    return v;
}

/* torchtitan's model arguments and the Hugging Face keys they set. */
static const struct {
    const char *arg, *hf;
} model_args[] = {
    {"dim", "hidden_size"},
    {"n_layers", "num_hidden_layers"},
    {"n_heads", "num_attention_heads"},
    {"n_kv_heads", "num_key_value_heads"},
    {"vocab_size", "vocab_size"},
    {"hidden_dim", "intermediate_size"},
    {"inter_dim", "intermediate_size"},
    {"moe_inter_dim", "moe_intermediate_size"},
    {"n_dense_layers", "first_k_dense_replace"},
    {"num_experts", "num_experts"},
    {"top_k", "num_experts_per_tok"},
    {"num_shared_experts", "n_shared_experts"},
    {"q_lora_rank", "q_lora_rank"},
    {"kv_lora_rank", "kv_lora_rank"},
    {"qk_nope_head_dim", "qk_nope_head_dim"},
    {"qk_rope_head_dim", "qk_rope_head_dim"},
    {"v_head_dim", "v_head_dim"},
    {"head_dim", "head_dim"},
    {"qk_norm", "qk_norm"},
    {"enable_weight_tying", "tie_word_embeddings"},
    {"n_routed_experts", "n_routed_experts"},
    {"n_activated_experts", "num_experts_per_tok"},
    {"n_shared_experts", "n_shared_experts"},
};

/* torchtitan's built-in flavors (torchtitan/models/{llama3,deepseek_v3,qwen3}/__init__.py) as
 * Hugging Face keys: the family, then "key=value" pairs. Llama 3's MLP widths follow from
 * ffn_dim_multiplier and multiple_of (8B: 1.3, 1024; 70B: 1.3, 4096; 405B: 1.2, 4096). */
static const struct {
    const char *name, *flavor, *family, *keys;
} flavors[] = {
    {"llama3", "8B", "llama",
     "hidden_size=4096 num_hidden_layers=32 num_attention_heads=32 num_key_value_heads=8 "
     "intermediate_size=14336 vocab_size=128256"},
    {"llama3", "70B", "llama",
     "hidden_size=8192 num_hidden_layers=80 num_attention_heads=64 num_key_value_heads=8 "
     "intermediate_size=28672 vocab_size=128256"},
    {"llama3", "405B", "llama",
     "hidden_size=16384 num_hidden_layers=126 num_attention_heads=128 "
     "num_key_value_heads=8 intermediate_size=53248 vocab_size=128256"},
    {"deepseek_v3", "16B", "deepseek_v3",
     "hidden_size=2048 num_hidden_layers=27 first_k_dense_replace=1 "
     "num_attention_heads=16 n_routed_experts=64 n_shared_experts=2 num_experts_per_tok=6 q_lora_rank=0 "
     "kv_lora_rank=512 qk_nope_head_dim=128 qk_rope_head_dim=64 v_head_dim=128 intermediate_size=10944 "
     "moe_intermediate_size=1408 vocab_size=102400 num_nextn_predict_layers=0"},
    {"deepseek_v3", "236B", "deepseek_v3",
     "hidden_size=5120 num_hidden_layers=60 first_k_dense_replace=1 "
     "num_attention_heads=128 n_routed_experts=160 n_shared_experts=2 num_experts_per_tok=6 q_lora_rank=1536 "
     "kv_lora_rank=512 qk_nope_head_dim=128 qk_rope_head_dim=64 v_head_dim=128 intermediate_size=12288 "
     "moe_intermediate_size=1536 vocab_size=102400 num_nextn_predict_layers=0"},
    {"deepseek_v3", "671B", "deepseek_v3",
     "hidden_size=7168 num_hidden_layers=61 first_k_dense_replace=3 "
     "num_attention_heads=128 n_routed_experts=256 n_shared_experts=1 num_experts_per_tok=8 q_lora_rank=1536 "
     "kv_lora_rank=512 qk_nope_head_dim=128 qk_rope_head_dim=64 v_head_dim=128 intermediate_size=18432 "
     "moe_intermediate_size=2048 vocab_size=129280 num_nextn_predict_layers=0"},
    {"qwen3", "0.6B", "qwen3",
     "hidden_size=1024 num_hidden_layers=28 num_attention_heads=16 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=3072 vocab_size=151936 tie_word_embeddings=true"},
    {"qwen3", "1.7B", "qwen3",
     "hidden_size=2048 num_hidden_layers=28 num_attention_heads=16 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=6144 vocab_size=151936 tie_word_embeddings=true"},
    {"qwen3", "4B", "qwen3",
     "hidden_size=2560 num_hidden_layers=36 num_attention_heads=32 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=9728 vocab_size=151936 tie_word_embeddings=true"},
    {"qwen3", "8B", "qwen3",
     "hidden_size=4096 num_hidden_layers=36 num_attention_heads=32 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=12288 vocab_size=151936"},
    {"qwen3", "14B", "qwen3",
     "hidden_size=5120 num_hidden_layers=40 num_attention_heads=40 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=17408 vocab_size=151936"},
    {"qwen3", "32B", "qwen3",
     "hidden_size=5120 num_hidden_layers=64 num_attention_heads=64 num_key_value_heads=8 "
     "head_dim=128 intermediate_size=25600 vocab_size=151936"},
    {"qwen3", "30B-A3B", "qwen3_moe",
     "hidden_size=2048 num_hidden_layers=48 num_attention_heads=32 "
     "num_key_value_heads=4 head_dim=128 intermediate_size=6144 num_experts=128 num_experts_per_tok=8 "
     "moe_intermediate_size=768 vocab_size=151936"},
    {"qwen3", "235B-A22B", "qwen3_moe",
     "hidden_size=4096 num_hidden_layers=94 num_attention_heads=64 "
     "num_key_value_heads=4 head_dim=128 intermediate_size=12288 num_experts=128 num_experts_per_tok=8 "
     "moe_intermediate_size=1536 vocab_size=151936"},
};

static int set_hf(tt *x, const char *hf, const char *value, const char *theirs);

/* The flavors nd knows, for the message when a toml names another. */
static void known_flavors(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ND_ARRAY_LEN(flavors) && used + 40 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s %s", i ? ", " : "", flavors[i].name,
                                 flavors[i].flavor);
}

/* A built-in flavor's keys into the model: *found when name and flavor are known. */
static int builtin_flavor(tt *x, const char *name, const char *flavor, int line, bool *found)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(flavors); i++) {
        if (strcmp(flavors[i].name, name) || strcmp(flavors[i].flavor, flavor)) continue;
        *found = true;
        int rc = fw_model_family(x->r, flavors[i].family, line);
        char keys[600];
        snprintf(keys, sizeof keys, "%s", flavors[i].keys);
        for (char *save = NULL, *kv = strtok_r(keys, " ", &save); kv && !rc;
             kv = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(kv, '=');
            *eq = '\0';
            rc = set_hf(x, kv, eq + 1, "[model] flavor");
        }
        return rc;
    }
    return ND_OK;
}

/* Llama's MLP width: 2/3 of 4 x dim, x ffn_dim_multiplier, rounded up to multiple_of. */
static int64_t llama_ffn(int64_t dim, double fdm, int64_t multiple)
{
    int64_t h = 2 * 4 * dim / 3;
    h = (int64_t)(fdm * (double)h);
    return (h + multiple - 1) / multiple * multiple;
}

static int set_hf(tt *x, const char *hf, const char *value, const char *theirs)
{
    fw_reader sub = *x->r;
    sub.path = x->module[0] ? x->module : x->toml;
    return fw_model(&sub, hf, value, 0, theirs);
}

/* Past a Python string starting at p (its quote; '...', "...", and the triple-quoted forms). */
static const char *skip_py_string(const char *p)
{
    char q = *p;
    bool triple = p[1] == q && p[2] == q;
    for (p += triple ? 3 : 1; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (!triple && *p == '\n') return p; /* not closed on its line: Python refuses it */
        if (*p == q && (!triple || (p[1] == q && p[2] == q))) return p + (triple ? 3 : 1);
    }
    return p;
}

/* Whether at stands in a comment or a string of its Python text. */
static bool in_comment_or_string(const char *text, const char *at)
{
    for (const char *p = text; *p && p < at;) {
        if (*p == '#') {
            while (*p && *p != '\n') p++;
            if (p > at) return true;
        } else if (*p == '"' || *p == '\'') {
            p = skip_py_string(p);
            if (p > at) return true;
        } else {
            p++;
        }
    }
    return false;
}

/* Where quoted stands as a dict key (followed by ':'), not in a comment or a string. */
static char *dict_key(char *text, const char *quoted)
{
    for (char *at = strstr(text, quoted); at; at = strstr(at + 1, quoted)) {
        const char *q = at + strlen(quoted);
        while (*q == ' ' || *q == '\t') q++;
        if (*q == ':' && !in_comment_or_string(text, at)) return at;
    }
    return NULL;
}

/* The flavor's arguments in the model's __init__.py: `"8B": TransformerModelArgs(dim=4096,
 * n_layers=32, ...)`, nested calls (moe_args=MoEArgs(...)) read flat. */
static int read_module(tt *x, const char *flavor, double *fdm, int64_t *multiple, bool *found)
{
    char *text;
    size_t len;
    int rc = nd_read_file(x->module, 4u << 20, &text, &len, x->r->err);
    if (rc) return rc;
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\"", flavor);
    char *at = dict_key(text, quoted);
    if (!at) {
        snprintf(quoted, sizeof quoted, "'%s'", flavor);
        at = dict_key(text, quoted);
    }
    *found = at != NULL;
    char *p = at ? strchr(at, '(') : NULL;
    int depth = 0, moe_depth = 0; /* inside moe=MoE.Config(...) (MoEArgs): hidden_dim is an expert's */
    int skip_depth = 0;           /* inside rope=RoPE.Config(...): its dim is the rotary one's */
    for (; p && *p && !rc; p++) {
        if (*p == '#') { /* a comment: `n_layers=32,  # the 70B has n_layers=80` is 32 */
            while (p[1] && p[1] != '\n') p++;
            continue;
        }
        if (*p == '"' || *p == '\'') { /* a string: no argument, no parenthesis */
            p = text + (skip_py_string(p) - text) - 1;
            continue;
        }
        if (*p == '(') {
            depth++;
            const char *b = p;
            while (b > text && (b[-1] == '.' || b[-1] == '_' || (b[-1] >= 'A' && b[-1] <= 'Z') ||
                                (b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= '0' && b[-1] <= '9')))
                b--;
            if (!moe_depth && (strncmp(b, "MoE", 3) == 0 || strncmp(b, "moe", 3) == 0)) moe_depth = depth;
            if (!skip_depth && (strncmp(b, "RoPE", 4) == 0 || strncmp(b, "Rope", 4) == 0)) skip_depth = depth;
        }
        if (*p == ')') {
            if (depth == moe_depth) moe_depth = 0;
            if (depth == skip_depth) skip_depth = 0;
            if (--depth == 0) break;
        }
        if (!((*p >= 'a' && *p <= 'z') || *p == '_') || (p[-1] >= 'a' && p[-1] <= 'z') || p[-1] == '_')
            continue;
        char key[64], val[64];
        if (sscanf(p, "%63[a-z_0-9] = %63[^,)\n#]", key, val) != 2) continue;
        for (char *e = val + strlen(val); e > val && (e[-1] == ' ' || e[-1] == '\r'); e--) e[-1] = '\0';
        if (!strcmp(val, "True")) strcpy(val, "true");
        if (!strcmp(val, "False")) strcpy(val, "false");
        if (!strcmp(key, "ffn_dim_multiplier"))
            nd_parse_double(val, fdm);
        else if (!strcmp(key, "multiple_of"))
            nd_parse_int64(val, 1, 1 << 24, multiple);
        if (moe_depth && !skip_depth && !strcmp(key, "hidden_dim"))
            rc = set_hf(x, "moe_intermediate_size", val, key);
        else
            for (size_t i = 0; !skip_depth && i < ND_ARRAY_LEN(model_args) && !rc; i++)
                if (!strcmp(model_args[i].arg, key)) rc = set_hf(x, model_args[i].hf, val, key);
        p += strlen(key);
    }
    free(text);
    return rc;
}

static int read_model(tt *x)
{
    fw_reader *r = x->r;
    int line;
    const char *name = get(x, "model", NULL, "name", &line), *flavor = get(x, "model", NULL, "flavor", NULL);
    const char *assets = get(x, "model", NULL, "hf_assets_path", NULL);
    if (!name || !flavor)
        return nd_error_set(r->err, ND_EINPUT, "%s: [model] needs name and flavor (torchtitan's model)",
                            x->toml);
    snprintf(r->run->model.name, sizeof r->run->model.name, "%s-%s", name, flavor);
    char cfg[1200];
    struct stat st;
    if (assets) {
        char *dir = fw_path_beside(x->toml, assets);
        snprintf(cfg, sizeof cfg, "%s/config.json", dir ? dir : assets);
        free(dir);
        if (!stat(cfg, &st)) { /* the checkpoint's own config.json */
            char keep[128];
            nd_text_copy(keep, r->run->model.name, sizeof keep);
            int rc = nd_model_read_hf_file(&r->run->model, cfg, false, r->err);
            nd_text_copy(r->run->model.name, keep, sizeof r->run->model.name);
            nd_text_copy(r->run->checkpoint, cfg, sizeof r->run->checkpoint);
            /* torchtitan's DeepSeek-V3 builds no multi-token-prediction module */
            if (!rc && r->run->model.mtp_layers > 0 && !strcmp(name, "deepseek_v3")) {
                fw_note(r->run,
                        "%s:%d: [model] deepseek_v3: torchtitan builds no MTP module, so the "
                        "checkpoint's %lld MTP layer(s) are not priced",
                        x->toml, line, (long long)r->run->model.mtp_layers);
                r->run->model.mtp_layers = 0;
            }
            return rc;
        }
    }
    int rc = fw_model_family(r, name, line);
    double fdm = 1.0;
    int64_t multiple = 256;
    bool found = false;
    if (!rc && x->module[0]) rc = read_module(x, flavor, &fdm, &multiple, &found);
    if (!rc && !found) rc = builtin_flavor(x, name, flavor, line, &found);
    if (!rc && !found) {
        char known[1024];
        known_flavors(known, sizeof known);
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:%d: [model] %s %s: nd reads the model from hf_assets_path's "
            "config.json, the flavor's arguments in the model's __init__.py (-y MODULE.py:%s), or "
            "knows torchtitan's %s",
            x->toml, line, name, flavor, x->toml, known);
    }
    if (!rc && !r->run->model.ffn && r->run->model.hidden)
        r->run->model.ffn = llama_ffn(r->run->model.hidden, fdm, multiple);
    if (!rc && !r->run->model.vocab) {
        rc = fw_default(r, "no vocabulary in the model's arguments: 128256 (Llama 3's)");
        r->run->model.vocab = 128256;
    }
    return rc;
}

/* nd's limit on a parallel degree (the strategy's, docs/limits.md) */
#define TT_DEGREE_MAX ((int64_t)1 << 20)

/* The table a key was read from: its table, or the older torchtitan's when only there. */
static const char *table_of(tt *x, const char *table, const char *old, const char *key)
{
    return !nd_toml_get(x->t, table, key, NULL) && old && nd_toml_get(x->t, old, key, NULL) ? old : table;
}

/* An integer key of torchtitan's config in [min, max] (or `also`, torchtitan's -1 for "the rest"):
 * anything else (8e0, 4.5, true, [8], "8", inf, 0, -5, 2000000000) is refused, naming the key. */
static int num(tt *x, const char *table, const char *old, const char *key, int64_t min, int64_t max,
               int64_t also, int64_t *out, int *line)
{
    const char *from = table_of(x, table, old, key);
    int64_t v = *out;
    int at = 0, rc = nd_toml_int(x->t, from, key, INT64_MIN, INT64_MAX, &v, &at, x->r->err);
    if (!rc && at && v != also && (v < min || v > max))
        rc = nd_error_set(x->r->err, ND_EINPUT, "%s:%d: key '%s.%s': %lld is out of range (%lld to %lld%s)",
                          x->toml, at, from, key, (long long)v, (long long)min, (long long)max,
                          also == -1 ? ", or -1" : "");
    if (!rc && at) {
        *out = v;
        *line = at;
    }
    return rc;
}

/* A degree: 1 to nd's limit, 1 when absent. */
static int degree(tt *x, const char *old, const char *key, int64_t *out, int *line)
{
    *out = 1;
    *line = 0;
    return num(x, "parallelism", old, key, 1, TT_DEGREE_MAX, 1, out, line);
}

/* A boolean key (TOML true/false; anything else refused); *on keeps its value when absent. */
static int boolean(tt *x, const char *table, const char *key, bool *on, int *line)
{
    const char *v = nd_toml_get(x->t, table, key, line);
    if (!v) return ND_OK;
    if (nd_toml_type_of(x->t, table, key) != ND_TOML_BOOL)
        return nd_error_set(x->r->err, ND_EINPUT, "%s:%d: key '%s.%s': %.40s is not true or false", x->toml,
                            *line, table, key, v);
    *on = !strcmp(v, "true");
    return ND_OK;
}

/* Whether a TOML array's text (as written) holds the string want. */
static bool array_has(const char *list, const char *want)
{
    for (const char *p = list; *p; p++) {
        if (*p == '#') { /* a comment inside a multi-line array */
            while (*p && *p != '\n') p++;
            if (!*p) break;
            continue;
        }
        if (*p != '"' && *p != '\'') continue;
        char q = *p;
        const char *start = ++p;
        while (*p && *p != q) p += *p == '\\' && q == '"' && p[1] ? 2 : 1;
        if ((size_t)(p - start) == strlen(want) && !strncmp(start, want, strlen(want))) return true;
        if (!*p) break;
    }
    return false;
}

/* The table a [parallelism] key stands in: [experimental] where an older file put it there. */
static const char *par_or_experimental(tt *x, const char *key)
{
    return nd_toml_get(x->t, "experimental", key, NULL) ? "experimental" : "parallelism";
}

/* How TP and CP exchange: async TP (the all-gather and reduce-scatter micro-pipelined with the
 * matmuls under torch.compile) and the K/V rotation of context parallelism, "allgather" (all
 * shards gathered behind the first block: torchtitan's default) or "alltoall" (a rotation a
 * step); [experimental] in torchtitan before 2025. Either way PyTorch's ring attention runs one
 * attention kernel a K/V block and merges the partial outputs (_templated_ring_attention), which
 * is nd's ring: only the exchange differs, hidden behind the blocks in both. */
static int read_collectives(tt *x)
{
    fw_reader *r = x->r;
    int line = 0;
    bool async_tp = false;
    int rc = boolean(x, par_or_experimental(x, "enable_async_tensor_parallel"),
                     "enable_async_tensor_parallel", &async_tp, &line);
    if (!rc && async_tp)
        rc = fw_train(r, "tp_comm_overlap", "true", line, "[parallelism] enable_async_tensor_parallel");
    const char *table = par_or_experimental(x, "context_parallel_rotate_method");
    const char *v = get(x, table, NULL, "context_parallel_rotate_method", &line);
    if (rc || !v) return rc;
    if (strcmp(v, "allgather") && strcmp(v, "alltoall"))
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:%d: key '%s.context_parallel_rotate_method': '%.40s' is not allgather or alltoall", x->toml,
            line, table, v);
    return fw_train(r, "cp_comm", "ring", line, "[parallelism] context_parallel_rotate_method");
}

/* torchtitan's low-precision linears: [model] converters (or the older [float8]
 * enable_float8_linear): torchao's Float8Linear scales dynamically (tensorwise by default,
 * rowwise by recipe_name), each cast reading its tensor for the amax first; MXFP8 ("mx",
 * "quantize.linear.mx") scales blocks of 32, priced as nd's blockwise recipe. A converter of
 * the MoE grouped GEMMs alone ("quantize.grouped_mm.*") is priced on every linear layer, as nd
 * converts all or none; and FP8 all-gathers of FSDP's weights are not priced. Notes say so. */
static int read_converters(tt *x)
{
    fw_reader *r = x->r;
    int line = 0, old_line = 0;
    const char *conv = get(x, "model", NULL, "converters", &line);
    const char *old = get(x, "float8", NULL, "enable_float8_linear", &old_line);
    bool mx = conv && (array_has(conv, "mx") || strstr(conv, ".mx"));
    bool f8 = (conv && strstr(conv, "float8")) || (old && !strcmp(old, "true"));
    if (!mx && !f8) return ND_OK;
    const char *where = conv ? "[model] converters" : "[float8] enable_float8_linear";
    int at = conv ? line : old_line;
    int rc = fw_train(r, "fp8", "true", at, where);
    if (!rc) rc = fw_train(r, "fp8_recipe", mx ? "blockwise" : "current", at, where);
    if (mx)
        fw_note(r->run, "%s:%d: %s: MXFP8 (scales per 32 elements) is priced as nd's blockwise FP8", r->path,
                at, where);
    if (conv && strstr(conv, "grouped_mm") && !strstr(conv, "quantize.linear"))
        fw_note(r->run,
                "%s:%d: %s converts the MoE grouped GEMMs alone: priced in FP8 on every linear layer (nd "
                "converts all or none)",
                r->path, at, where);
    const char *gather = get(x, "float8", "quantize.linear.float8", "enable_fsdp_float8_all_gather", &line);
    if (gather && !strcmp(gather, "true"))
        fw_note(r->run,
                "%s:%d: enable_fsdp_float8_all_gather: FSDP's weight all-gathers in FP8 are not priced (nd "
                "gathers 16-bit weights)",
                r->path, line);
    return rc;
}

/* torchtitan-npu's optimizers that keep AdamW's moments on the host ([optimizer] with its
 * custom_config_module): virtual_optimizer maps them into the NPU (torch_npu's swapped memory,
 * virtual_optimizer_size GiB of them, "all", 2 by default); swap_optimizer copies them in and
 * out around the step. Either way the master weights stay and the moments cross the host link
 * once each way a step, nd's virtual_optimizer. */
static int read_host_moments(tt *x)
{
    fw_reader *r = x->r;
    int line = 0, size_line = 0;
    const char *virt = get(x, "optimizer", NULL, "virtual_optimizer", &line);
    if (virt && !strcmp(virt, "true")) {
        const char *size = get(x, "optimizer", NULL, "virtual_optimizer_size", &size_line);
        if (!size) return fw_train(r, "virtual_optimizer", "2", line, "[optimizer] virtual_optimizer");
        return fw_train(r, "virtual_optimizer", size, size_line, "[optimizer] virtual_optimizer_size");
    }
    const char *swap = get(x, "optimizer", NULL, "swap_optimizer", &line);
    if (swap && !strcmp(swap, "true"))
        return fw_train(r, "virtual_optimizer", "all", line, "[optimizer] swap_optimizer");
    return ND_OK;
}

static int read_training(tt *x)
{
    fw_reader *r = x->r;
    int line, rc = ND_OK;
    const char *v;
    int64_t seq = 0;
    if ((rc = num(x, "training", NULL, "seq_len", 1, (int64_t)1 << 30, 1, &seq, &line))) return rc;
    if (seq) {
        char digits[32];
        snprintf(digits, sizeof digits, "%lld", (long long)seq); /* TOML's 8_192 */
        rc = fw_train(r, "seq_len", digits, line, "[training] seq_len");
    } else {
        rc =
            fw_default(r, "no [training] seq_len: the sequence is %lld tokens (torchtitan's default is 2048)",
                       (long long)r->run->train.seq_len);
    }
    const char *prec = get(x, "training", NULL, "mixed_precision_param", &line);
    if (!rc && prec && !fw_precision_of(prec))
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: key 'training.mixed_precision_param': '%.40s' is not a dtype nd reads "
                            "(bfloat16, float16, float32)",
                            x->toml, line, prec);
    if (!rc)
        rc = fw_train(r, "precision", prec ? fw_precision_of(prec) : "bf16", line,
                      "[training] mixed_precision_param");
    if (!rc && (v = get(x, "training", NULL, "max_norm", &line))) {
        nd_toml_type type = nd_toml_type_of(x->t, "training", "max_norm");
        double clip = 0;
        if ((type != ND_TOML_FLOAT && type != ND_TOML_INTEGER) || nd_parse_double(v, &clip))
            return nd_error_set(
                r->err, ND_EINPUT, "%s:%d: key 'training.max_norm': %s%.40s%s is not a TOML number", x->toml,
                line, type == ND_TOML_STRING ? "\"" : "", v, type == ND_TOML_STRING ? "\"" : "");
        rc = fw_train(r, "grad_clip", clip > 0 ? "true" : "false", line, "[training] max_norm");
    }
    if (!rc && (v = get(x, "activation_checkpoint", NULL, "mode", &line)))
        rc = fw_train(r, "recompute", !strcmp(v, "none") ? "off" : v, line, "[activation_checkpoint] mode");
    /* selective_ac_option: "op" (by operator), or an int N (a string in torchtitan's config) */
    int64_t every;
    if (!rc && (v = get(x, "activation_checkpoint", NULL, "selective_ac_option", &line)) && strcmp(v, "op")) {
        nd_toml_type type = nd_toml_type_of(x->t, "activation_checkpoint", "selective_ac_option");
        if ((type != ND_TOML_STRING && type != ND_TOML_INTEGER) || nd_parse_int64(v, 1, 1 << 20, &every))
            return nd_error_set(
                r->err, ND_EINPUT,
                "%s:%d: key 'activation_checkpoint.selective_ac_option': %.40s is neither \"op\" "
                "nor a whole number of layers in [1, 1048576]",
                x->toml, line, v);
        rc = fw_train(r, "selective_every", v, line, "[activation_checkpoint] selective_ac_option");
    }
    /* torch.compile: [compile] enable compiles the components listed (torchtitan's default
     * ["model", "loss"]); only "model" among them compiles the model nd prices. Older
     * torchtitan: [training] compile = true compiled the model. */
    bool on = false, compiled = false;
    const char *comp_table = nd_toml_get(x->t, "compile", "enable", NULL) ? "compile" : "training";
    const char *comp_key = comp_table[0] == 'c' ? "enable" : "compile";
    if (!rc) rc = boolean(x, comp_table, comp_key, &on, &line);
    if (!rc && on) {
        int cl;
        const char *list = get(x, "compile", NULL, "components", &cl);
        if (list && nd_toml_type_of(x->t, "compile", "components") != ND_TOML_ARRAY)
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: key 'compile.components': %s is not an array",
                                x->toml, cl, list);
        compiled = comp_table[0] == 't' || !list || array_has(list, "model");
        if (!compiled)
            fw_note(r->run, "%s:%d: [compile] components %s: the model is not compiled, priced eager",
                    x->toml, cl, list);
    }
    if (!rc && compiled) rc = fw_train(r, "compile", "true", line, "[compile] enable");
    if (!rc) rc = read_collectives(x);
    if (!rc && (v = get(x, "parallelism", NULL, "fsdp_reshard_after_forward", &line)) &&
        strcmp(v, "default")) {
        if (strcmp(v, "always") && strcmp(v, "never"))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: [parallelism] fsdp_reshard_after_forward: '%s' is not "
                                "default, always or never",
                                r->path, line, v);
        rc = fw_train(r, "reshard_after_forward", !strcmp(v, "always") ? "true" : "false", line,
                      "[parallelism] fsdp_reshard_after_forward");
    }
    if (!rc) rc = read_converters(x);
    if (!rc) rc = read_host_moments(x);
    if (!rc) rc = fw_train(r, "framework", "torchtitan", 0, "");
    return rc;
}

static int read_strategy(tt *x)
{
    fw_reader *r = x->r;
    int line = 0, tp_line, pp_line, cp_line, ep_line, etp_line = 0, rep_line, shard_line = 0, rc;
    const char *par = "parallelism";
    int64_t tp, pp, cp, ep, etp = 0, replicate, shard = -1;
    rc = degree(x, "training", "tensor_parallel_degree", &tp, &tp_line);
    if (!rc) rc = degree(x, "experimental", "pipeline_parallel_degree", &pp, &pp_line);
    if (!rc) rc = degree(x, "experimental", "context_parallel_degree", &cp, &cp_line);
    if (!rc) rc = degree(x, "experimental", "expert_parallel_degree", &ep, &ep_line);
    if (!rc) rc = num(x, par, NULL, "expert_tensor_parallel_degree", 1, TT_DEGREE_MAX, 1, &etp, &etp_line);
    if (!rc) rc = degree(x, "training", "data_parallel_replicate_degree", &replicate, &rep_line);
    if (!rc)
        rc = num(x, par, "training", "data_parallel_shard_degree", 1, TT_DEGREE_MAX, -1, &shard, &shard_line);
    if (rc) return rc;
    rc = fw_degree(r, "MP", tp, tp_line, "[parallelism] tensor_parallel_degree");
    /* torchtitan's tensor-parallel plan always shards the norms and the residual stream over
     * the sequence (SequenceParallel on the norms, Shard(1) between blocks): SP */
    if (!rc && tp > 1) rc = fw_degree(r, "SP", 1, tp_line, "[parallelism] tensor_parallel_degree");
    if (!rc) rc = fw_degree(r, "PP", pp, pp_line, "[parallelism] pipeline_parallel_degree");
    if (!rc) rc = fw_degree(r, "CP", cp, cp_line, "[parallelism] context_parallel_degree");
    if (!rc) rc = fw_degree(r, "EP", ep, ep_line, "[parallelism] expert_parallel_degree");
    if (!rc && etp > 0)
        rc = fw_degree(r, "ETP", etp, etp_line, "[parallelism] expert_tensor_parallel_degree");
    line = shard_line ? shard_line : rep_line;
    if (!rc && shard > 0 && replicate * shard > TT_DEGREE_MAX)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: data_parallel_replicate_degree x data_parallel_shard_degree = %lld is "
                            "beyond nd's limit of %lld",
                            r->path, line, (long long)(replicate * shard), (long long)TT_DEGREE_MAX);
    /* data_parallel_shard_degree -1: the ranks TP x PP x CP x replicate leave, from -d */
    nd_strategy *s = &r->run->strategy;
    if (!rc && shard > 0) {
        rc = fw_degree(r, "DP", replicate * shard, line, "[parallelism] data_parallel_shard_degree");
        r->run->devices = s->dp * s->tp * s->pp * s->cp;
    } else {
        r->run->derive_dp = true;
    }
    /* FSDP2 shards over dp_shard x CP; without a shard it is DDP */
    if (!rc && shard != 1) {
        r->run->op_spans_dp = shard < 0 && replicate == 1;
        if (shard > 1)
            rc = fw_degree(r, "OP", shard * s->cp, line, "[parallelism] data_parallel_shard_degree");
        s->zero = 3;
    }
    const char *sched = get(x, par, "experimental", "pipeline_parallel_schedule", &line);
    if (!rc && sched && pp > 1) {
        bool inter;
        rc = fw_train(r, "schedule", fw_torchtitan_schedule_of(sched, &inter), line,
                      "[parallelism] pipeline_parallel_schedule");
        int64_t per = 0;
        if (!rc)
            rc = num(x, par, NULL, "pipeline_parallel_layers_per_stage", 1, TT_DEGREE_MAX, 1, &per, &line);
        int64_t vpp = per > 0 && r->run->model.layers % (per * pp) == 0 ? r->run->model.layers / (per * pp)
                      : inter                                           ? 2
                                                                        : 1;
        if (!rc && vpp > 1) rc = fw_degree(r, "VPP", vpp, line, "[parallelism] pipeline_parallel_schedule");
    }
    /* micro-batches: with PP the local batch splits into micro-batches of
     * pipeline_parallel_microbatch_size; without, the local batch is one, and a larger
     * global batch accumulates */
    int64_t local = 0, gbs = -1, bmax = (int64_t)1 << 30;
    int local_line = 0, gbs_line = 0;
    if (!rc) rc = num(x, "training", NULL, "local_batch_size", 1, bmax, 1, &local, &local_line);
    if (!rc && !local) rc = num(x, "training", NULL, "batch_size", 1, bmax, 1, &local, &local_line);
    if (!local) local = 1;
    if (!rc) rc = num(x, "training", NULL, "global_batch_size", 1, bmax, -1, &gbs, &gbs_line);
    if (rc) return rc;
    /* torchtitan before 2025 split the local batch into pipeline_parallel_microbatches (its
     * default: the PP degree); later into micro-batches of pipeline_parallel_microbatch_size */
    int count_line = 0, mbs_line = local_line;
    int64_t count = 0, mbs = 1;
    rc = num(x, par, "experimental", "pipeline_parallel_microbatches", 1, bmax, 1, &count, &count_line);
    if (!rc && pp > 1)
        rc = num(x, par, "experimental", "pipeline_parallel_microbatch_size", 1, bmax, 1, &mbs, &mbs_line);
    if (rc) return rc;
    if (pp == 1) mbs = local;
    line = mbs_line;
    if (pp > 1 && count > 0) {
        if (local % count)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: [parallelism] pipeline_parallel_microbatches = %lld does "
                                "not divide the local batch of %lld",
                                r->path, count_line, (long long)count, (long long)local);
        mbs = local / count;
    }
    if (!rc) rc = fw_degree(r, "MBS", mbs, line, "[training] local_batch_size");
    if (!rc && pp > 1 && local % mbs == 0)
        rc = fw_degree(r, "MB", local / mbs, local_line, "[training] local_batch_size");
    if (!rc && gbs > 0) {
        char t[32];
        snprintf(t, sizeof t, "%lld", (long long)gbs);
        rc = fw_train(r, "global_batch", t, gbs_line, "[training] global_batch_size");
        r->run->derive_mb = true;
    } else if (!rc) {
        r->run->derive_mb = false;
        if (!r->run->derive_dp) r->run->train.global_batch = s->dp * local;
    }
    return rc;
}

static int fw_torchtitan_read(fw_reader *r)
{
    tt x;
    memset(&x, 0, sizeof x);
    x.r = r;
    /* ND's -y MODULE.py:CONFIG.toml */
    const char *colon = strrchr(r->path, ':');
    if (colon && strstr(colon, ".toml")) {
        snprintf(x.module, sizeof x.module, "%.*s", (int)(colon - r->path), r->path);
        snprintf(x.toml, sizeof x.toml, "%s", colon + 1);
    } else if (colon && strstr(r->path, ".toml:")) {
        snprintf(x.toml, sizeof x.toml, "%.*s", (int)(colon - r->path), r->path);
        snprintf(x.module, sizeof x.module, "%s", colon + 1);
    } else {
        snprintf(x.toml, sizeof x.toml, "%s", r->path);
    }
    struct stat st;
    if (x.module[0] && stat(x.module, &st)) x.module[0] = '\0'; /* a Python module path: nd's table */
    nd_text_copy(r->run->source, x.toml, sizeof r->run->source);
    nd_text_copy(r->run->module_py, x.module, sizeof r->run->module_py); /* for reading resolved.toml back */
    fw_reader sub = *r;
    sub.path = x.toml;
    x.r = &sub;
    int rc = nd_toml_load(&x.t, x.toml, r->err);
    if (!rc) rc = read_model(&x);
    if (!rc) rc = read_training(&x);
    if (!rc) rc = read_strategy(&x);
    if (!rc) rc = fw_finish(&sub);
    nd_toml_free(x.t);
    return rc;
}

static int read_torchtitan(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_torchtitan_read(r);
}

const fw_format fw_torchtitan_format = {ND_CONFIG_TORCHTITAN, read_torchtitan, fw_torchtitan_write};
