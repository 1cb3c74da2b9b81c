/*
 * fw_megatron.c — Megatron-LM and MindSpeed-LLM arguments, as a launch script holds them
 * (GPT_ARGS="--num-layers 32 ..." ... torchrun ... pretrain_gpt.py $GPT_ARGS): the model,
 * training and strategy from the --flags, and the chosen strategy written back into a
 * copy of the script (resolved.sh). Shell variables set in the script (TP=8, $TP, ${TP})
 * are followed; comments and line continuations are skipped. docs/nd-compat.md lists the
 * arguments read.
 */
#include "fw_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

#define MAX_ARGS 1024
#define MAX_VARS 256

typedef struct arg {
    char name[64];     /* without the dashes, '_' as '-' */
    char value[512];   /* variables expanded; "" for a switch */
    size_t from, to;   /* the flag word's bytes */
    size_t vfrom, vto; /* the value word's bytes (equal when none) */
    int line;
    bool has_value;
    bool unresolved; /* its value uses a variable the script does not set */
} arg;

typedef struct args_doc {
    char *text;
    size_t len;
    arg items[MAX_ARGS];
    int count;
    char var_names[MAX_VARS][48];
    char var_values[MAX_VARS][256];
    int n_vars;
    const arg *needed_unresolved; /* the first value nd needed that uses a variable the script
                                     does not set (reported once reading ends) */
} args_doc;

/* Flags that take no value, where the word after them could be read as one. */
static const char *const switches[] = {
    "sequence-parallel",
    "use-distributed-optimizer",
    "swiglu",
    "bf16",
    "fp16",
    "untie-embeddings-and-output-weights",
    "disable-bias-linear",
    "add-qkv-bias",
    "use-flash-attn",
    "use-mcore-models",
    "use-legacy-models",
    "overlap-grad-reduce",
    "overlap-param-gather",
    "tp-comm-overlap",
    "moe-grouped-gemm",
    "multi-latent-attention",
    "group-query-attention",
    "qk-layernorm",
    "recompute-activations",
    "checkpoint-activations",
    "use-rotary-position-embeddings",
    "cross-entropy-loss-fusion",
    "use-torch-fsdp2",
    "use-megatron-fsdp",
    "deepspeed",
    "moe-router-enable-expert-bias",
    "use-fused-rmsnorm",
    "use-fused-swiglu",
    "use-fused-rotary-pos-emb",
    "no-gradient-accumulation-fusion",
    "distribute-checkpointed-activations",
    "use-cpu-initialization",
    "no-masked-softmax-fusion",
    "no-bias-gelu-fusion",
    "no-bias-dropout-fusion",
    "reuse-fp32-param",
    "use-distributed-optimizer",
};

static bool is_switch(const char *name)
{
    if (!strncmp(name, "no-", 3)) return true;
    for (size_t i = 0; i < ND_ARRAY_LEN(switches); i++)
        if (!strcmp(switches[i], name)) return true;
    return false;
}

typedef struct word {
    size_t from, to;
    int line;
} word;

/* The next word: whitespace, quotes and backslash continuations separate words (a
 * variable's quoted value holds flags of its own); '#' at a word's start comments out
 * the rest of the line. Returns false at the end. */
static bool next_word(const char *t, size_t len, size_t *p, int *line, word *w)
{
    for (;;) {
        while (*p < len && strchr(" \t\r\n\"'\\;|&()", t[*p])) *line += t[(*p)++] == '\n';
        if (*p >= len) return false;
        if (t[*p] != '#') break;
        while (*p < len && t[*p] != '\n') (*p)++;
    }
    w->from = *p;
    w->line = *line;
    while (*p < len && !strchr(" \t\r\n\"'\\;|&()", t[*p])) (*p)++;
    w->to = *p;
    return true;
}

static const char *var_value(const args_doc *d, const char *name, size_t n)
{
    for (int i = d->n_vars - 1; i >= 0; i--)
        if (strlen(d->var_names[i]) == n && !strncmp(d->var_names[i], name, n)) return d->var_values[i];
    return NULL;
}

/* A word's text with $NAME and ${NAME} replaced by the script's values; false when a
 * variable is not set there. */
static bool expand(const args_doc *d, const char *s, size_t n, char *out, size_t size)
{
    size_t used = 0;
    bool ok = true;
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        if (s[i] != '$') {
            out[used++] = s[i];
            continue;
        }
        size_t start = i + 1, end;
        bool brace = start < n && s[start] == '{';
        if (brace) start++;
        for (end = start; end < n && (s[end] == '_' || (s[end] >= 'A' && s[end] <= 'Z') ||
                                      (s[end] >= 'a' && s[end] <= 'z') || (s[end] >= '0' && s[end] <= '9'));
             end++) {
        }
        const char *v = var_value(d, s + start, end - start);
        if (!v) ok = false;
        for (const char *q = v ? v : ""; *q && used + 1 < size; q++) out[used++] = *q;
        i = brace && end < n ? end : end - 1;
    }
    out[used] = '\0';
    return ok;
}

/* NAME=value (export NAME=value): a variable, its value up to the end of the quotes. */
static bool read_assignment(args_doc *d, word *w)
{
    const char *t = d->text;
    size_t i = w->from;
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) return false;
    while (i < w->to && t[i] != '=') i++;
    if (i >= w->to && !(i < d->len && t[i] == '=')) return false;
    if (t[i] != '=' || d->n_vars >= MAX_VARS) return false;
    size_t vfrom = i + 1, vto = w->to;
    if (vfrom < d->len && (t[vfrom] == '"' || t[vfrom] == '\'')) { /* a quoted value: its first word */
        char q = t[vfrom++];
        vto = vfrom;
        while (vto < d->len && t[vto] != q && t[vto] != ' ' && t[vto] != '\n') vto++;
    }
    int k = d->n_vars++;
    snprintf(d->var_names[k], sizeof d->var_names[k], "%.*s", (int)(i - w->from), t + w->from);
    expand(d, t + vfrom, vto - vfrom, d->var_values[k], sizeof d->var_values[k]);
    return true;
}

static int scan(args_doc *d, const char *path, nd_error *err)
{
    size_t p = 0;
    int line = 1;
    word w, v;
    bool pending = false;
    while (pending || next_word(d->text, d->len, &p, &line, &w)) {
        pending = false;
        const char *t = d->text + w.from;
        size_t n = w.to - w.from;
        if (n < 3 || strncmp(t, "--", 2)) {
            read_assignment(d, &w);
            continue;
        }
        if (d->count >= MAX_ARGS)
            return nd_error_set(err, ND_EINPUT, "%s: more than %d arguments", path, MAX_ARGS);
        arg *a = &d->items[d->count++];
        memset(a, 0, sizeof *a);
        const char *eq = memchr(t, '=', n);
        size_t name_len = (eq ? (size_t)(eq - t) : n) - 2;
        snprintf(a->name, sizeof a->name, "%.*s", (int)name_len, t + 2);
        for (char *c = a->name; *c; c++) *c = *c == '_' ? '-' : *c;
        a->from = w.from;
        a->to = w.to;
        a->line = w.line;
        a->vfrom = a->vto = w.to;
        if (eq) {
            a->vfrom = (size_t)(eq + 1 - d->text);
            a->has_value = true;
        } else if (!is_switch(a->name) && next_word(d->text, d->len, &p, &line, &v)) {
            if (d->text[v.from] == '-' && v.to - v.from > 1 && d->text[v.from + 1] == '-') {
                w = v;
                pending = true; /* the next flag */
            } else {
                a->vfrom = v.from;
                a->vto = v.to;
                a->has_value = true;
            }
        }
        if (a->has_value && !expand(d, d->text + a->vfrom, a->vto - a->vfrom, a->value, sizeof a->value))
            a->unresolved = true; /* an error only where nd needs the value */
    }
    return ND_OK;
}

static int load(args_doc *d, const char *path, nd_error *err)
{
    memset(d, 0, sizeof *d);
    int rc = nd_read_file(path, 4u << 20, &d->text, &d->len, err);
    if (!rc) rc = scan(d, path, err);
    return rc;
}

/* The last occurrence of a flag (a later one wins, as argparse reads them). */
static const arg *find(const args_doc *d, const char *name)
{
    for (int i = d->count - 1; i >= 0; i--)
        if (!strcmp(d->items[i].name, name)) return &d->items[i];
    return NULL;
}

static const char *val(args_doc *d, const char *name, int *line)
{
    const arg *a = find(d, name);
    if (line) *line = a ? a->line : 0;
    if (a && a->unresolved) {
        if (!d->needed_unresolved) d->needed_unresolved = a;
        return NULL;
    }
    return a && a->has_value ? a->value : NULL;
}

static bool on(const args_doc *d, const char *name)
{
    return find(d, name) != NULL;
}

typedef struct rd {
    fw_reader *r;
    args_doc *d;
} rd;

/* --flag's value, when given, as nd's key through set (fw_model or fw_train). */
static int flag_arg(rd *x, const char *flag, const char *key,
                    int (*set)(fw_reader *, const char *, const char *, int, const char *))
{
    int line;
    const char *v = val(x->d, flag, &line);
    if (!v) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return set(x->r, key, v, line, theirs);
}

static int model_arg(rd *x, const char *flag, const char *hf)
{
    return flag_arg(x, flag, hf, fw_model);
}
static int train_arg(rd *x, const char *flag, const char *key)
{
    return flag_arg(x, flag, key, fw_train);
}

static int switch_arg(rd *x, const char *flag, const char *key, const char *value)
{
    const arg *a = find(x->d, flag);
    if (!a) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return fw_train(x->r, key, value, a->line, theirs);
}

/* The vocabulary: --vocab-size, else a default named in a note (the tokenizer holds it). */
static int read_vocab(rd *x)
{
    if (val(x->d, "vocab-size", NULL) || val(x->d, "padded-vocab-size", NULL)) {
        int rc = model_arg(x, "vocab-size", "vocab_size");
        return rc ? rc : model_arg(x, "padded-vocab-size", "vocab_size");
    }
    const char *tok = val(x->d, "tokenizer-type", NULL), *model = val(x->d, "tokenizer-model", NULL);
    const char *vocab = "32000";
    if (tok && strstr(tok, "GPT2")) vocab = "50257";
    if (model && (strstr(model, "llama3") || strstr(model, "Llama-3") || strstr(model, "llama-3")))
        vocab = "128256";
    if (model && (strstr(model, "qwen") || strstr(model, "Qwen"))) vocab = "151936";
    int rc = fw_default(x->r,
                        "no --vocab-size (the tokenizer holds it): a vocabulary of %s, for --tokenizer-type "
                        "%s --tokenizer-model %s",
                        vocab, tok ? tok : "-", model ? model : "-");
    return rc ? rc : fw_model(x->r, "vocab_size", vocab, 0, "--vocab-size");
}

static int read_model(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    char *stem = nd_path_stem(r->path);
    nd_text_copy(r->run->model.name, stem ? stem : "megatron", sizeof r->run->model.name);
    free(stem);
    int rc = fw_model_family(r, on(d, "multi-latent-attention") ? "deepseek_v3" : "custom", 0);
    static const struct {
        const char *flag, *hf;
    } keys[] = {
        {"num-layers", "num_hidden_layers"},
        {"hidden-size", "hidden_size"},
        {"ffn-hidden-size", "intermediate_size"},
        {"num-attention-heads", "num_attention_heads"},
        {"kv-channels", "head_dim"},
        {"max-position-embeddings", "max_position_embeddings"},
        {"num-experts", "num_experts"},
        {"moe-router-topk", "num_experts_per_tok"},
        {"moe-ffn-hidden-size", "moe_intermediate_size"},
        {"moe-expert-capacity-factor", "capacity_factor"},
        {"q-lora-rank", "q_lora_rank"},
        {"kv-lora-rank", "kv_lora_rank"},
        {"qk-head-dim", "qk_nope_head_dim"},
        {"qk-pos-emb-head-dim", "qk_rope_head_dim"},
        {"v-head-dim", "v_head_dim"},
        {"mtp-num-layers", "mtp_num_layers"},
    };
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(keys); i++) rc = model_arg(x, keys[i].flag, keys[i].hf);
    if (!rc && on(d, "group-query-attention")) rc = model_arg(x, "num-query-groups", "num_key_value_heads");
    if (!rc && (val(d, "ffn-hidden-size", NULL) == NULL) && r->run->model.hidden)
        r->run->model.ffn = 4 * r->run->model.hidden; /* Megatron's default */
    if (!rc) rc = read_vocab(x);
    /* Megatron's defaults unless a flag says otherwise: LayerNorm, GELU, biases, tied
     * embeddings, learned absolute positions */
    int line;
    const char *norm = val(d, "normalization", &line);
    nd_model *m = &r->run->model;
    if (!rc)
        rc = fw_model(r, "norm", norm && strstr(norm, "RMS") ? "rmsnorm" : "layernorm", line,
                      "--normalization");
    if (!rc) rc = fw_model(r, "hidden_act", on(d, "swiglu") ? "swiglu" : "gelu", 0, "--swiglu");
    if (!rc)
        rc = fw_model(r, "tie_word_embeddings",
                      on(d, "untie-embeddings-and-output-weights") ? "false" : "true", 0,
                      "--untie-embeddings-and-output-weights");
    bool bias = !on(d, "disable-bias-linear");
    m->qkv_bias = bias || on(d, "add-qkv-bias");
    m->o_bias = m->mlp_bias = bias;
    const char *pos = val(d, "position-embedding-type", NULL);
    bool learned = pos ? !strcmp(pos, "learned_absolute") : !on(d, "use-rotary-position-embeddings");
    if (!rc && learned) {
        const char *rows = val(d, "max-position-embeddings", &line);
        if (!rows) rows = val(d, "seq-length", &line);
        if (rows) rc = fw_model(r, "position_embeddings", rows, line, "--max-position-embeddings");
    }
    if (!rc && on(d, "qk-layernorm")) rc = fw_model(r, "qk_norm", "true", 0, "--qk-layernorm");
    if (!rc && on(d, "moe-router-enable-expert-bias"))
        rc = fw_model(r, "router_bias", "true", 0, "--moe-router-enable-expert-bias");
    const char *shared = val(d, "moe-shared-expert-intermediate-size", &line);
    if (!rc && shared) {
        rc = fw_model(r, "n_shared_experts", "1", line, "--moe-shared-expert-intermediate-size");
        if (!rc)
            rc = fw_model(r, "shared_expert_intermediate_size", shared, line,
                          "--moe-shared-expert-intermediate-size");
    }
    const char *freq = val(d, "moe-layer-freq", &line);
    if (!rc && freq) { /* an int, or "([0]*3+[1]*58)": the first layers dense */
        const char *zeros = strstr(freq, "[0]*");
        char k[16];
        if (zeros) snprintf(k, sizeof k, "%d", atoi(zeros + 4));
        rc = zeros ? fw_model(r, "first_k_dense_replace", k, line, "--moe-layer-freq")
                   : fw_model(r, "moe_layer_freq", freq, line, "--moe-layer-freq");
    }
    return rc;
}

/* Which Megatron the arguments are for (train.framework). */
static const char *flavour(const args_doc *d)
{
    if (on(d, "deepspeed") || on(d, "deepspeed-config") || on(d, "deepspeed_config") || on(d, "zero-stage"))
        return "megatron-deepspeed";
    if (on(d, "use-legacy-models") || on(d, "checkpoint-activations") || on(d, "DDP-impl") ||
        on(d, "checkpoint-num-layers"))
        return "megatron-legacy";
    if (strstr(d->text, "mindspeed") || strstr(d->text, "MindSpeed") || on(d, "use-fused-rmsnorm") ||
        on(d, "use-fused-swiglu") || on(d, "use-fused-rotary-pos-emb"))
        return "mindspeed";
    return "megatron";
}

static int read_training(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    int rc = fw_train(r, "framework", flavour(d), 0, "");
    const char *prec = on(d, "bf16") ? "bf16" : on(d, "fp16") ? "fp16" : "fp32";
    if (!rc) rc = fw_train(r, "precision", prec, 0, "--bf16");
    if (!rc && val(d, "seq-length", NULL))
        rc = train_arg(x, "seq-length", "seq_len");
    else if (!rc)
        rc = fw_default(r, "no --seq-length: the sequence is %lld tokens", (long long)r->run->train.seq_len);
    if (!rc) rc = train_arg(x, "global-batch-size", "global_batch");
    if (!rc) rc = train_arg(x, "hidden-dropout", "dropout");
    if (!rc && !find(d, "hidden-dropout"))
        rc = fw_train(r, "dropout", "0.1", 0, "--hidden-dropout"); /* Megatron's */
    if (!rc) rc = train_arg(x, "make-vocab-size-divisible-by", "vocab_divisible_by");
    if (!rc) rc = switch_arg(x, "overlap-grad-reduce", "overlap_grad_reduce", "true");
    if (!rc) rc = switch_arg(x, "overlap-param-gather", "overlap_param_gather", "true");
    if (!rc) rc = switch_arg(x, "tp-comm-overlap", "tp_comm_overlap", "true");
    if (!rc) rc = switch_arg(x, "moe-grouped-gemm", "moe_grouped_gemm", "true");
    if (!rc) rc = switch_arg(x, "cross-entropy-loss-fusion", "fused_cross_entropy", "true");
    if (!rc) rc = switch_arg(x, "no-gradient-accumulation-fusion", "grad_accumulation_fusion", "false");
    const char *v;
    int line;
    if (!rc && (v = val(d, "fp8-format", &line))) rc = fw_train(r, "fp8", "true", line, "--fp8-format");
    if (!rc && (v = val(d, "fp8-recipe", &line)))
        rc = fw_train(r, "fp8_recipe",
                      !strcmp(v, "delayed")                            ? "delayed"
                      : !strcmp(v, "blockwise") || !strcmp(v, "mxfp8") ? "blockwise"
                                                                       : "current",
                      line, "--fp8-recipe");
    if (!rc && (v = val(d, "cp-comm-type", &line)))
        rc = fw_train(r, "cp_comm", strstr(v, "a2a") ? "a2a" : "ring", line, "--cp-comm-type");
    if (!rc && (v = val(d, "clip-grad", &line))) {
        double clip = 1;
        nd_parse_double(v, &clip);
        rc = fw_train(r, "grad_clip", clip > 0 ? "true" : "false", line, "--clip-grad");
    }
    if (!rc && (v = val(d, "optimizer", &line)))
        rc = fw_train(r, "optimizer", !strcmp(v, "sgd") ? "sgd" : "adamw", line, "--optimizer");
    /* recompute: --recompute-granularity full|selective, --recompute-activations (selective),
     * legacy --checkpoint-activations (full); block recomputes N layers a stage */
    const char *mode = "off";
    if ((v = val(d, "recompute-granularity", &line)))
        mode = v;
    else if (on(d, "recompute-activations"))
        mode = "selective";
    else if (on(d, "checkpoint-activations"))
        mode = "full";
    if (!rc) rc = fw_train(r, "recompute", mode, line, "--recompute-granularity");
    const char *method = val(d, "recompute-method", NULL), *num = val(d, "recompute-num-layers", NULL);
    int64_t n;
    if (!rc && !strcmp(mode, "full") && method && !strcmp(method, "block") && num &&
        !nd_parse_int64(num, 0, 1 << 24, &n)) {
        r->run->layout.has_recompute = true;
        for (int i = 0; i < ND_RUN_MAX_STAGES; i++) r->run->layout.recompute[i] = n;
    }
    return rc;
}

/* The world size of the script's launcher (torchrun --nproc_per_node x --nnodes), 0 if not there. */
static int64_t world_size(args_doc *d)
{
    const char *per = val(d, "nproc-per-node", NULL), *nodes = val(d, "nnodes", NULL);
    int64_t a = 0, b = 1;
    if (!per || nd_parse_int64(per, 1, 1 << 20, &a)) return 0;
    if (nodes && nd_parse_int64(nodes, 1, 1 << 20, &b)) return 0;
    return a * b;
}

static int read_strategy(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    static const struct {
        const char *flag, *dim;
    } degrees[] = {
        {"tensor-model-parallel-size", "MP"},
        {"pipeline-model-parallel-size", "PP"},
        {"context-parallel-size", "CP"},
        {"expert-model-parallel-size", "EP"},
        {"expert-tensor-parallel-size", "ETP"},
        {"micro-batch-size", "MBS"},
        {"num-virtual-stages-per-pipeline-rank", "VPP"},
        {"decoder-first-pipeline-num-layers", "FIRST"},
        {"decoder-last-pipeline-num-layers", "LAST"},
    };
    int rc = ND_OK, line;
    r->run->has_strategy = true;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        const char *v = val(d, degrees[i].flag, &line);
        char theirs[80];
        snprintf(theirs, sizeof theirs, "--%s", degrees[i].flag);
        if (v) rc = fw_strategy(r, degrees[i].dim, v, line, theirs);
    }
    nd_strategy *s = &r->run->strategy;
    const char *per_chunk = val(d, "num-layers-per-virtual-pipeline-stage", &line);
    int64_t k;
    if (!rc && per_chunk && !nd_parse_int64(per_chunk, 1, 1 << 20, &k) && s->pp > 0 &&
        r->run->model.layers % (s->pp * k) == 0)
        rc = fw_degree(r, "VPP", r->run->model.layers / (s->pp * k), line,
                       "--num-layers-per-virtual-pipeline-stage");
    if (!rc && s->vpp > 1) rc = fw_train(r, "schedule", "interleaved", 0, "");
    if (!rc && on(d, "sequence-parallel"))
        rc = fw_strategy(r, "SP", "1", find(d, "sequence-parallel")->line, "--sequence-parallel");
    /* the distributed optimizer shards over the DP x CP ranks; torch FSDP2 shards everything */
    bool fsdp = on(d, "use-torch-fsdp2") || on(d, "use-megatron-fsdp");
    if (!rc && (on(d, "use-distributed-optimizer") || fsdp)) {
        r->run->strategy.zero = fsdp ? 3 : 1;
        r->run->op_spans_dp = true; /* all of DP x CP, once DP is known */
        const char *inst = val(d, "num-distributed-optimizer-instances", NULL);
        if (inst && (nd_parse_int64(inst, 1, 1 << 20, &r->run->op_instances)))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s: --num-distributed-optimizer-instances: '%s' is not a whole "
                                "number",
                                r->path, inst);
    }
    int64_t world = world_size(d);
    if (!rc && world) {
        int64_t model = s->tp * s->pp * s->cp;
        if (world % model)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s: the launcher's %lld devices do not divide over TP x PP x CP "
                                "= %lld",
                                r->path, (long long)world, (long long)model);
        r->run->devices = world;
        s->dp = world / model;
    }
    return rc;
}

static int fw_megatron_read(fw_reader *r)
{
    args_doc *d = malloc(sizeof *d);
    if (!d) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    int rc = load(d, r->path, r->err);
    rd x = {r, d};
    if (!rc && !find(d, "num-layers"))
        rc = nd_error_set(r->err, ND_EINPUT, "%s: no --num-layers: not Megatron arguments", r->path);
    if (!rc) rc = read_model(&x);
    if (!rc) rc = read_training(&x);
    if (!rc) rc = read_strategy(&x);
    const arg *u = d->needed_unresolved;
    if (!rc && u)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --%s: '%.*s' uses a shell variable the script does not set", r->path,
                          u->line, u->name, (int)(u->vto - u->vfrom), d->text + u->vfrom);
    if (!rc) {
        /* without the launcher's world size, DP follows from -d (nd_session, run->derive_dp) */
        r->run->derive_dp = !world_size(d);
        r->run->derive_mb = true; /* Megatron: global batch / (DP x micro-batch size) */
        if (!r->run->derive_dp) rc = nd_config_derive(r->run, r->err);
        if (!rc) rc = fw_finish(r);
    }
    free(d->text);
    free(d);
    return rc;
}

/* ---- writing back ---------------------------------------------------------------------- */

typedef struct edit {
    size_t from, to;
    char with[160];
} edit;

static int cmp_edit(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return (x->from < y->from) - (x->from > y->from); /* last first */
}

/* Whether only blanks stand between the start of the line and `at`; *line_start gets it. */
static bool starts_line(const args_doc *d, size_t at, size_t *line_start)
{
    size_t i = at;
    while (i > 0 && (d->text[i - 1] == ' ' || d->text[i - 1] == '\t')) i--;
    *line_start = i;
    return i == 0 || d->text[i - 1] == '\n';
}

/* A new flag beside `near` (a flag of the same kind, else the last one): on a line of its
 * own in a script that gives a flag a line (with the line's " \" continuation), else after it. */
static void insert_after(const args_doc *d, const arg *near, const char *flag, const char *value, edit *e)
{
    size_t at = near->vto > near->to ? near->vto : near->to, start;
    const char *sep = value ? " " : "";
    if (!starts_line(d, near->from, &start)) {
        e->from = e->to = at;
        snprintf(e->with, sizeof e->with, " --%s%s%s", flag, sep, value ? value : "");
        return;
    }
    size_t i = at;
    while (i < d->len && d->text[i] == ' ') i++;
    bool continued = i < d->len && d->text[i] == '\\';
    int indent = (int)(near->from - start);
    e->from = e->to = at;
    snprintf(e->with, sizeof e->with, "%s\n%.*s--%s%s%s", continued ? " \\" : "", indent, d->text + start,
             flag, sep, value ? value : "");
}

/* Sets --flag value; value NULL: a switch on; "": a switch off (removed, with its line when
 * it has one of its own). `near` names a flag to put a new one beside. */
static void plan_edit(const args_doc *d, edit *edits, int *n, const char *flag, const char *value,
                      bool present_only, const char *near)
{
    const arg *a = find(d, flag);
    if (a && value && value[0] && a->has_value) {
        edits[*n].from = a->vfrom;
        edits[*n].to = a->vto;
        snprintf(edits[*n].with, sizeof edits[0].with, "%s", value);
        (*n)++;
    } else if (a && value && !value[0]) {
        size_t start, end = a->vto > a->to ? a->vto : a->to;
        if (starts_line(d, a->from, &start)) {
            size_t i = end;
            while (i < d->len && (d->text[i] == ' ' || d->text[i] == '\\')) i++;
            if (i >= d->len || d->text[i] == '\n') {
                edits[*n].from = start;
                edits[*n].to = i < d->len ? i + 1 : i;
            } else {
                edits[*n].from = a->from;
                edits[*n].to = end;
            }
        } else {
            edits[*n].from = a->from > 0 && d->text[a->from - 1] == ' ' ? a->from - 1 : a->from;
            edits[*n].to = end;
        }
        edits[*n].with[0] = '\0';
        (*n)++;
    } else if (!a && !present_only && (!value || value[0]) && d->count > 0) {
        const arg *beside = near ? find(d, near) : NULL;
        insert_after(d, beside ? beside : &d->items[d->count - 1], flag, value, &edits[(*n)++]);
    }
}

static int fw_megatron_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                             size_t size, nd_error *err)
{
    args_doc *d = malloc(sizeof *d);
    if (!d) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = load(d, run->source, err);
    if (rc) {
        free(d);
        return rc;
    }
    const nd_strategy *s = &c->s;
    edit edits[32];
    int n = 0;
    char v[32];
#define NUM(flag, x, only, near)                                                                             \
    snprintf(v, sizeof v, "%lld", (long long)(x)), plan_edit(d, edits, &n, flag, v, only, near)
    const char *par = "tensor-model-parallel-size", *rec = "recompute-granularity", *mb = "micro-batch-size";
    NUM("tensor-model-parallel-size", s->tp, false, "pipeline-model-parallel-size");
    NUM("pipeline-model-parallel-size", s->pp, false, par);
    NUM("context-parallel-size", s->cp, s->cp == 1, par);
    NUM("expert-model-parallel-size", s->ep, s->ep == 1, par);
    NUM("expert-tensor-parallel-size", s->etp ? s->etp : s->tp, run->model.experts == 0, par);
    NUM("micro-batch-size", s->mbs, false, "global-batch-size");
    NUM("global-batch-size", c->global_batch, false, mb);
    if (find(d, "num-layers-per-virtual-pipeline-stage") ||
        (s->vpp > 1 && !find(d, "num-virtual-stages-per-pipeline-rank")))
        NUM("num-layers-per-virtual-pipeline-stage", run->model.layers / (s->pp * s->vpp), false, par);
    else
        NUM("num-virtual-stages-per-pipeline-rank", s->vpp, s->vpp == 1, par);
    NUM("decoder-first-pipeline-num-layers", s->first_stage_layers, !s->first_stage_layers, par);
    NUM("decoder-last-pipeline-num-layers", s->last_stage_layers, !s->last_stage_layers, par);
    plan_edit(d, edits, &n, "sequence-parallel", s->sp ? NULL : "", false, par);
    if (s->op > 1 && s->zero < 3) plan_edit(d, edits, &n, "use-distributed-optimizer", NULL, false, par);
    if (s->op <= 1) plan_edit(d, edits, &n, "use-distributed-optimizer", "", false, par);
    /* the distributed optimizer shards over DP x CP / instances ranks */
    int64_t instances = s->op > 1 && (s->dp * s->cp) % s->op == 0 ? s->dp * s->cp / s->op : 1;
    NUM("num-distributed-optimizer-instances", instances, instances == 1, "use-distributed-optimizer");
    /* the launcher's nodes, when the chosen strategy needs another device count (-d) */
    int64_t devices = s->dp * s->tp * s->pp * s->cp, per = 0;
    const char *per_text = val(d, "nproc-per-node", NULL);
    if (per_text && find(d, "nnodes") && !nd_parse_int64(per_text, 1, 1 << 20, &per) && devices % per == 0 &&
        world_size(d) != devices)
        NUM("nnodes", devices / per, true, NULL);
    nd_recompute m = fw_choice_mode(c);
    if (m == ND_RECOMPUTE_OFF) {
        plan_edit(d, edits, &n, rec, "", false, NULL);
        plan_edit(d, edits, &n, "recompute-activations", "", false, NULL);
    } else {
        plan_edit(d, edits, &n, rec, nd_recompute_name(m), false, mb);
    }
    if (m == ND_RECOMPUTE_FULL) {
        int64_t full = c->plan ? c->plan[0][0][2] + c->plan[0][1][2] : 0;
        plan_edit(d, edits, &n, "recompute-method", c->plan ? "block" : "uniform", false, rec);
        NUM("recompute-num-layers", c->plan ? full : 1, false, rec);
    } else {
        plan_edit(d, edits, &n, "recompute-method", "", false, NULL);
        plan_edit(d, edits, &n, "recompute-num-layers", "", false, NULL);
    }
#undef NUM
    qsort(edits, (size_t)n, sizeof *edits, cmp_edit);
    size_t extra = 0;
    for (int i = 0; i < n; i++) extra += strlen(edits[i].with);
    char *out = malloc(d->len + extra + 1);
    if (!out) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t len = d->len;
    if (out) memcpy(out, d->text, d->len + 1);
    for (int i = 0; out && i < n; i++) { /* from the end, so earlier offsets hold */
        size_t add = strlen(edits[i].with);
        memmove(out + edits[i].from + add, out + edits[i].to, len - edits[i].to + 1);
        memcpy(out + edits[i].from, edits[i].with, add);
        len = len - (edits[i].to - edits[i].from) + add;
    }
    const char *ext = strrchr(run->source, '.'), *slash = strrchr(run->source, '/');
    char name[64], path[1024];
    snprintf(name, sizeof name, "resolved%s",
             ext && (!slash || ext > slash) && strlen(ext) < 16 ? ext : ".sh");
    if (!rc)
        rc = nd_write_file_atomic(fw_output_path(dir, name, path, sizeof path, written, size), out, len, err);
    free(out);
    free(d->text);
    free(d);
    return rc;
}

static int read_megatron(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_megatron_read(r);
}

const fw_format fw_megatron_format = {ND_CONFIG_MEGATRON, read_megatron, fw_megatron_write};
