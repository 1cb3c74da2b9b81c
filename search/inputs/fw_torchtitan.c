/*
 * fw_torchtitan.c — torchtitan's job toml (-f torchtitan, and ND's -f hyperparallel,
 * which reads the same file): the strategy from [parallelism] (or the older [training]
 * and [experimental] keys), the batch and sequence from [training], recompute from
 * [activation_checkpoint]. The model is [model] name and flavor: from the config.json in
 * hf_assets_path when there is one, else from the flavor's arguments in the model's
 * __init__.py as ND takes it (-y MODULE.py:CONFIG.toml), else from nd's table of
 * torchtitan's Llama 3 flavors. The choice goes back into a copy (resolved.toml).
 */
#include "fw_formats.h"

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

/* Where quoted stands as a dict key (followed by ':'), not in a comment or a string. */
static char *dict_key(char *text, const char *quoted)
{
    for (char *at = strstr(text, quoted); at; at = strstr(at + 1, quoted)) {
        const char *q = at + strlen(quoted);
        while (*q == ' ' || *q == '\t') q++;
        if (*q == ':') return at;
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
        if (sscanf(p, "%63[a-z_0-9] = %63[^,)\n]", key, val) != 2) continue;
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

static int read_training(tt *x)
{
    fw_reader *r = x->r;
    int line, rc = ND_OK;
    const char *v;
    if ((v = get(x, "training", NULL, "seq_len", &line))) {
        char digits[32];
        size_t n = 0;
        for (; *v && n + 1 < sizeof digits; v++)
            if (*v != '_') digits[n++] = *v; /* TOML's 8_192 */
        digits[n] = '\0';
        rc = fw_train(r, "seq_len", digits, line, "[training] seq_len");
    } else {
        rc =
            fw_default(r, "no [training] seq_len: the sequence is %lld tokens (torchtitan's default is 2048)",
                       (long long)r->run->train.seq_len);
    }
    const char *prec = get(x, "training", NULL, "mixed_precision_param", &line);
    if (!rc)
        rc = fw_train(r, "precision", prec && fw_precision_of(prec) ? fw_precision_of(prec) : "bf16", line,
                      "[training] mixed_precision_param");
    if (!rc && (v = get(x, "training", NULL, "max_norm", &line))) {
        double clip = 0;
        nd_parse_double(v, &clip);
        rc = fw_train(r, "grad_clip", clip > 0 ? "true" : "false", line, "[training] max_norm");
    }
    if (!rc && (v = get(x, "activation_checkpoint", NULL, "mode", &line)))
        rc = fw_train(r, "recompute", !strcmp(v, "none") ? "off" : v, line, "[activation_checkpoint] mode");
    int64_t every;
    if (!rc && (v = get(x, "activation_checkpoint", NULL, "selective_ac_option", &line)) &&
        !nd_parse_int64(v, 1, 1 << 20, &every))
        rc = fw_train(r, "selective_every", v, line, "[activation_checkpoint] selective_ac_option");
    if (!rc && fw_true(get(x, "compile", NULL, "enable", &line)))
        rc = fw_train(r, "compile", "true", line, "[compile] enable");
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
    const char *conv = get(x, "model", NULL, "converters", &line);
    if (!rc && conv && strstr(conv, "float8")) rc = fw_train(r, "fp8", "true", line, "[model] converters");
    if (!rc) rc = fw_train(r, "framework", "torchtitan", 0, "");
    return rc;
}

static int64_t num(tt *x, const char *table, const char *old, const char *key, int64_t dflt, int *line)
{
    const char *v = get(x, table, old, key, line);
    int64_t n;
    return v && !nd_parse_int64(v, -1, (int64_t)1 << 30, &n) ? n : dflt;
}

static int read_strategy(tt *x)
{
    fw_reader *r = x->r;
    int line = 0, rc;
    const char *par = "parallelism";
    int64_t tp = num(x, par, "training", "tensor_parallel_degree", 1, &line);
    int64_t pp = num(x, par, "experimental", "pipeline_parallel_degree", 1, &line);
    int64_t cp = num(x, par, "experimental", "context_parallel_degree", 1, &line);
    int64_t ep = num(x, par, "experimental", "expert_parallel_degree", 1, &line);
    int64_t etp = num(x, par, NULL, "expert_tensor_parallel_degree", 0, &line);
    int64_t replicate = num(x, par, "training", "data_parallel_replicate_degree", 1, &line);
    int64_t shard = num(x, par, "training", "data_parallel_shard_degree", -1, &line);
    rc = fw_degree(r, "MP", tp > 0 ? tp : 1, line, "[parallelism] tensor_parallel_degree");
    /* torchtitan's tensor-parallel plan always shards the norms and the residual stream over
     * the sequence (SequenceParallel on the norms, Shard(1) between blocks): SP */
    if (!rc && tp > 1) rc = fw_degree(r, "SP", 1, line, "[parallelism] tensor_parallel_degree");
    if (!rc) rc = fw_degree(r, "PP", pp > 0 ? pp : 1, line, "[parallelism] pipeline_parallel_degree");
    if (!rc) rc = fw_degree(r, "CP", cp > 0 ? cp : 1, line, "[parallelism] context_parallel_degree");
    if (!rc) rc = fw_degree(r, "EP", ep > 0 ? ep : 1, line, "[parallelism] expert_parallel_degree");
    if (!rc && etp > 0) rc = fw_degree(r, "ETP", etp, line, "[parallelism] expert_tensor_parallel_degree");
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
        bool inter = strstr(sched, "Interleaved") || strstr(sched, "Looped") || strstr(sched, "ZBV") ||
                     strstr(sched, "DualPipe");
        rc = fw_train(r, "schedule",
                      strstr(sched, "GPipe")                                ? "gpipe"
                      : strstr(sched, "ZeroBubble") || strstr(sched, "ZBV") ? "zb-h1"
                      : inter                                               ? "interleaved"
                                                                            : "1f1b",
                      line, "[parallelism] pipeline_parallel_schedule");
        int64_t per = num(x, par, NULL, "pipeline_parallel_layers_per_stage", 0, &line);
        int64_t vpp = per > 0 && r->run->model.layers % (per * pp) == 0 ? r->run->model.layers / (per * pp)
                      : inter                                           ? 2
                                                                        : 1;
        if (!rc && vpp > 1) rc = fw_degree(r, "VPP", vpp, line, "[parallelism] pipeline_parallel_schedule");
    }
    /* micro-batches: with PP the local batch splits into micro-batches of
     * pipeline_parallel_microbatch_size; without, the local batch is one, and a larger
     * global batch accumulates */
    int64_t local = num(x, "training", NULL, "local_batch_size", 0, &line);
    if (!local) local = num(x, "training", NULL, "batch_size", 1, &line);
    int64_t gbs = num(x, "training", NULL, "global_batch_size", -1, &line);
    /* torchtitan before 2025 split the local batch into pipeline_parallel_microbatches (its
     * default: the PP degree); later into micro-batches of pipeline_parallel_microbatch_size */
    int64_t count_line = 0;
    int64_t count = num(x, par, "experimental", "pipeline_parallel_microbatches", 0, &line);
    if (count > 0) count_line = line;
    int64_t mbs = pp > 1 ? num(x, par, "experimental", "pipeline_parallel_microbatch_size", 1, &line) : local;
    if (pp > 1 && count > 0) {
        if (local % count)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%lld: [parallelism] pipeline_parallel_microbatches = %lld does "
                                "not divide the local batch of %lld",
                                r->path, (long long)count_line, (long long)count, (long long)local);
        mbs = local / count;
    }
    if (!rc) rc = fw_degree(r, "MBS", mbs > 0 ? mbs : 1, line, "[training] local_batch_size");
    if (!rc && pp > 1 && local % mbs == 0)
        rc = fw_degree(r, "MB", local / mbs, line, "[training] local_batch_size");
    if (!rc && gbs > 0) {
        char t[32];
        snprintf(t, sizeof t, "%lld", (long long)gbs);
        rc = fw_train(r, "global_batch", t, line, "[training] global_batch_size");
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

/* ---- writing back ---------------------------------------------------------------------- */

static int set_num(nd_toml *t, const char *table, const char *key, int64_t v, bool add, nd_error *err)
{
    if (!add && !nd_toml_get(t, table, key, NULL)) return ND_OK;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return nd_toml_set(t, table, key, text, err);
}

static int fw_torchtitan_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                               size_t size, nd_error *err)
{
    nd_toml *t;
    int rc = nd_toml_load(&t, run->source, err);
    if (rc) return rc;
    const nd_strategy *s = &c->s;
    const char *par = nd_toml_has_table(t, "parallelism") || !nd_toml_has_table(t, "experimental")
                          ? "parallelism"
                          : "experimental";
    int64_t shard = s->op > 1 && s->op % s->cp == 0 ? s->op / s->cp : 1;
    if (shard > s->dp) shard = s->dp;
    rc = set_num(t, par, "data_parallel_replicate_degree", s->dp / shard, true, err);
    if (!rc) rc = set_num(t, par, "data_parallel_shard_degree", shard, true, err);
    if (!rc) rc = set_num(t, par, "tensor_parallel_degree", s->tp, true, err);
    if (!rc) rc = set_num(t, par, "pipeline_parallel_degree", s->pp, true, err);
    if (!rc) rc = set_num(t, par, "context_parallel_degree", s->cp, true, err);
    if (!rc) rc = set_num(t, par, "expert_parallel_degree", s->ep, run->model.experts > 0, err);
    if (!rc && run->model.experts)
        rc = set_num(t, par, "expert_tensor_parallel_degree", s->etp ? s->etp : s->tp, false, err);
    if (!rc && (s->pp > 1 || nd_toml_get(t, par, "pipeline_parallel_schedule", NULL))) {
        const char *sched = s->schedule == ND_SCHEDULE_GPIPE   ? "\"GPipe\""
                            : s->schedule == ND_SCHEDULE_ZB_H1 ? "\"InterleavedZeroBubble\""
                            : s->vpp > 1                       ? "\"Interleaved1F1B\""
                                                               : "\"1F1B\"";
        rc = nd_toml_set(t, par, "pipeline_parallel_schedule", sched, err);
        if (!rc) rc = set_num(t, par, "pipeline_parallel_microbatch_size", s->mbs, true, err);
        if (!rc && s->vpp > 1)
            rc = set_num(t, par, "pipeline_parallel_layers_per_stage", run->model.layers / (s->pp * s->vpp),
                         true, err);
    }
    int64_t local = s->pp > 1 ? s->mb * s->mbs : s->mbs;
    if (!rc)
        rc = set_num(t, "training",
                     nd_toml_get(t, "training", "batch_size", NULL) ? "batch_size" : "local_batch_size",
                     local, true, err);
    if (!rc)
        rc = set_num(t, "training", "global_batch_size", c->global_batch, local * s->dp != c->global_batch,
                     err);
    nd_recompute m = fw_choice_mode(c);
    char mode[16];
    snprintf(mode, sizeof mode, "\"%s\"", m == ND_RECOMPUTE_OFF ? "none" : nd_recompute_name(m));
    if (!rc) rc = nd_toml_set(t, "activation_checkpoint", "mode", mode, err);
    char path[1024];
    if (!rc)
        rc = nd_toml_write(t, fw_output_path(dir, "resolved.toml", path, sizeof path, written, size), err);
    nd_toml_free(t);
    return rc;
}

static int read_torchtitan(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_torchtitan_read(r);
}

const fw_format fw_torchtitan_format = {ND_CONFIG_TORCHTITAN, read_torchtitan, fw_torchtitan_write};
