/*
 * fw_megatron.c — Megatron-LM and MindSpeed-LLM arguments, as a launch script holds them
 * (GPT_ARGS="--num-layers 32 ..." ... torchrun ... pretrain_gpt.py $GPT_ARGS): the model,
 * training and strategy from the --flags, and the chosen strategy written back into a
 * copy of the script (resolved.sh, fw_megatron_write.c). The script is read as bash reads it
 * (fw_args.c), within a subset:
 * shell words (quotes, ${...}, $(...) inside them), variables (TP=8, $TP, ${TP:-8}, no cap on
 * their number), $((...)) arithmetic; comments and line continuations skipped. Write-back edits
 * whole shell words, never inside quotes or a default. The layers built (--noop-layers,
 * --moe-layer-freq) are read in fw_megatron_layers.c, CP's form in fw_megatron_cp.c.
 * docs/frameworks.md §Megatron-LM and MindSpeed-LLM arguments (`-f megatron`) lists what is
 * read and written.
 */
#include "fw_formats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_args.h"
#include "fw_megatron.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

typedef struct rd {
    fw_reader *r;
    args_doc *d;
} rd;

/* --flag's value, when given, as nd's key through set (fw_model or fw_train). */
static int flag_arg(rd *x, const char *flag, const char *key,
                    int (*set)(fw_reader *, const char *, const char *, int, const char *))
{
    int line;
    const char *v = fw_args_val(x->d, flag, &line);
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
    const arg *a = fw_args_get(x->d, flag);
    if (!a) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return fw_train(x->r, key, value, a->line, theirs);
}

/* The vocabulary: --vocab-size, else a default named in a note (the tokenizer holds it). */
static int read_vocab(rd *x)
{
    if (fw_args_val(x->d, "vocab-size", NULL) || fw_args_val(x->d, "padded-vocab-size", NULL)) {
        int rc = model_arg(x, "vocab-size", "vocab_size");
        return rc ? rc : model_arg(x, "padded-vocab-size", "vocab_size");
    }
    /* the tokenizer only picks the default, so one nd cannot read is no error */
    const arg *ta = fw_args_get(x->d, "tokenizer-type"), *ma = fw_args_get(x->d, "tokenizer-model");
    const char *model_flag = "--tokenizer-model";
    if (!ma || !ma->has_value || ma->unresolved) { /* MindSpeed's PretrainedFromHF directory */
        const arg *hf = fw_args_get(x->d, "tokenizer-name-or-path");
        if (hf) {
            ma = hf;
            model_flag = "--tokenizer-name-or-path";
        }
    }
    const char *tok = ta && ta->has_value && !ta->unresolved ? ta->value : NULL;
    const char *model = ma && ma->has_value && !ma->unresolved ? ma->value : NULL;
    char lower[256] = "";
    for (size_t i = 0; model && model[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)(model[i] >= 'A' && model[i] <= 'Z' ? model[i] - 'A' + 'a' : model[i]);
    const char *vocab = "32000";
    /* pretrain_gpt.py's args_defaults: GPT2BPETokenizer when the script names none
     * (--vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt) */
    if (!ta && fw_args_get(x->d, "merge-file")) tok = "GPT2BPETokenizer";
    if (tok && strstr(tok, "GPT2")) vocab = "50257";
    if (strstr(lower, "llama3") || strstr(lower, "llama-3") || strstr(lower, "llama_3")) vocab = "128256";
    if (strstr(lower, "qwen")) vocab = "151936";
    int rc = fw_default(x->r,
                        "no --vocab-size (the tokenizer holds it): a vocabulary of %s, for --tokenizer-type "
                        "%s %s %s",
                        vocab, tok ? tok : "-", model_flag, model ? model : "-");
    return rc ? rc : fw_model(x->r, "vocab_size", vocab, 0, "--vocab-size");
}

static int read_model(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    char *stem = nd_path_stem(r->path);
    nd_text_copy(r->run->model.name, stem ? stem : "megatron", sizeof r->run->model.name);
    free(stem);
    bool mla = fw_args_on(d, "multi-latent-attention") || fw_args_on(d, "multi-head-latent-attention");
    int rc = fw_model_family(r, mla ? "deepseek_v3" : "custom", 0);
    /* DeepSeek-V3's expert bias only where the script asks (--moe-router-enable-expert-bias) */
    r->run->model.router_bias = false;
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
        {"moe-intermediate-size", "moe_intermediate_size"}, /* MindSpeed's */
        {"first-k-dense-replace", "first_k_dense_replace"}, /* MindSpeed's */
        {"n-shared-experts", "n_shared_experts"},           /* MindSpeed's */
        {"qk-nope-head-dim", "qk_nope_head_dim"},           /* MindSpeed's */
        {"qk-rope-head-dim", "qk_rope_head_dim"},           /* MindSpeed's */
        {"moe-expert-capacity-factor", "capacity_factor"},
        {"q-lora-rank", "q_lora_rank"},
        {"kv-lora-rank", "kv_lora_rank"},
        {"qk-head-dim", "qk_nope_head_dim"},
        {"qk-pos-emb-head-dim", "qk_rope_head_dim"},
        {"v-head-dim", "v_head_dim"},
        {"mtp-num-layers", "mtp_num_layers"},
    };
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(keys); i++) {
        int line;
        const char *v = fw_args_val(d, keys[i].flag, &line);
        /* MindSpeed's --first-k-dense-replace -1 (with --moe-layer-freq -1): layer_idx >= -1 holds
         * for every layer, so no layer is dense */
        if (v && !strcmp(keys[i].flag, "first-k-dense-replace") && v[0] == '-')
            rc = fw_model(r, keys[i].hf, "0", line, "--first-k-dense-replace");
        else
            rc = model_arg(x, keys[i].flag, keys[i].hf);
    }
    if (!rc && fw_args_on(d, "group-query-attention"))
        rc = model_arg(x, "num-query-groups", "num_key_value_heads");
    nd_model *m = &r->run->model;
    if (!rc && (fw_args_val(d, "ffn-hidden-size", NULL) == NULL) && m->hidden) /* Megatron's default */
        m->ffn = fw_args_on(d, "swiglu") ? 4 * m->hidden * 2 / 3 / 64 * 64 : 4 * m->hidden;
    /* Megatron: the experts are --ffn-hidden-size wide unless --moe-ffn-hidden-size says */
    if (!rc && m->experts && !fw_args_val(d, "moe-ffn-hidden-size", NULL) &&
        !fw_args_val(d, "moe-intermediate-size", NULL))
        m->moe_ffn = m->ffn;
    if (!rc) rc = fw_megatron_noop_layers(x->r, x->d);
    if (!rc) rc = read_vocab(x);
    /* Megatron's defaults unless a flag says otherwise: LayerNorm, GELU, biases, tied
     * embeddings, learned absolute positions */
    int line;
    const char *norm = fw_args_val(d, "normalization", &line);
    if (!rc)
        rc = fw_model(r, "norm", norm && strstr(norm, "RMS") ? "rmsnorm" : "layernorm", line,
                      "--normalization");
    if (!rc) rc = fw_model(r, "hidden_act", fw_args_on(d, "swiglu") ? "swiglu" : "gelu", 0, "--swiglu");
    if (!rc)
        rc = fw_model(r, "tie_word_embeddings",
                      fw_args_on(d, "untie-embeddings-and-output-weights") ? "false" : "true", 0,
                      "--untie-embeddings-and-output-weights");
    bool bias = !fw_args_on(d, "disable-bias-linear");
    m->qkv_bias = bias || fw_args_on(d, "add-qkv-bias");
    m->o_bias = m->mlp_bias = bias;
    const char *pos = fw_args_val(d, "position-embedding-type", NULL);
    bool learned = pos ? !strcmp(pos, "learned_absolute") : !fw_args_on(d, "use-rotary-position-embeddings");
    if (!rc && learned) {
        const char *rows = fw_args_val(d, "max-position-embeddings", &line);
        if (!rows) rows = fw_args_val(d, "seq-length", &line);
        if (rows) rc = fw_model(r, "position_embeddings", rows, line, "--max-position-embeddings");
    }
    if (!rc && fw_args_on(d, "qk-layernorm")) rc = fw_model(r, "qk_norm", "true", 0, "--qk-layernorm");
    /* MindSpeed's windows: --sliding-window on every layer (Mistral), Gemma 2's
     * --interleave-sliding-window on every other one; and Gemma 2's --post-norm sandwich */
    const char *window = fw_args_val(d, "sliding-window", &line);
    if (!rc && window && !(rc = fw_model(r, "sliding_window", window, line, "--sliding-window")))
        m->sliding_layers = m->layers;
    window = fw_args_val(d, "interleave-sliding-window", &line);
    if (!rc && window && !(rc = fw_model(r, "sliding_window", window, line, "--interleave-sliding-window")))
        m->sliding_layers = (m->layers + 1) / 2;
    if (!rc && fw_args_on(d, "post-norm")) rc = fw_model(r, "post_norms", "true", 0, "--post-norm");
    if (!rc && fw_args_on(d, "moe-router-enable-expert-bias"))
        rc = fw_model(r, "router_bias", "true", 0, "--moe-router-enable-expert-bias");
    const char *shared = fw_args_val(d, "moe-shared-expert-intermediate-size", &line);
    if (!rc && shared) {
        rc = fw_model(r, "n_shared_experts", "1", line, "--moe-shared-expert-intermediate-size");
        if (!rc)
            rc = fw_model(r, "shared_expert_intermediate_size", shared, line,
                          "--moe-shared-expert-intermediate-size");
    }
    if (!rc) rc = fw_megatron_layer_freq(x->r, x->d);
    return rc;
}

/* Megatron-core's --attention-backend (AttnBackend): fused is Transformer Engine's cuDNN kernel,
 * flash its FlashAttention (FlashAttention-3 on Hopper where installed: priced as the device's
 * best kernel, which a note says), unfused and local the unfused softmax path; auto (the
 * default) leaves Transformer Engine's choice, cuDNN's on Hopper and Blackwell. */
static int attention_backend(rd *x, const char *v, int line)
{
    fw_reader *r = x->r;
    static const struct {
        const char *backend, *kernel;
    } backends[] = {
        {"fused", "cudnn"}, {"flash", "fa3"}, {"unfused", "unfused"}, {"local", "unfused"}, {"auto", "auto"}};
    for (size_t i = 0; i < ND_ARRAY_LEN(backends); i++) {
        if (strcmp(v, backends[i].backend)) continue;
        if (!strcmp(v, "flash"))
            fw_note(r->run,
                    "%s:%d: --attention-backend flash: Transformer Engine's FlashAttention, priced as the "
                    "device's best kernel (FlashAttention-3 on Hopper; --set attention_kernel=fa2 where the "
                    "stack has FlashAttention-2 only)",
                    r->path, line);
        return fw_train(r, "attention_kernel", backends[i].kernel, line, "--attention-backend");
    }
    return nd_error_set(r->err, ND_EINPUT,
                        "%s:%d: --attention-backend: '%s' is not flash, fused, unfused, local or auto",
                        r->path, line, v);
}

static int read_training(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    int rc = fw_train(r, "framework", fw_args_flavour(d), 0, "");
    const char *prec = fw_args_on(d, "bf16") ? "bf16" : fw_args_on(d, "fp16") ? "fp16" : "fp32";
    if (!rc) rc = fw_train(r, "precision", prec, 0, "--bf16");
    /* Megatron keeps and reduces the gradients in bf16 rather than an fp32 main_grad buffer */
    if (!rc) rc = switch_arg(x, "grad-reduce-in-bf16", "grad_precision", "bf16");
    /* MindSpeed's --swap-optimizer: optimizer states in host memory, swapped in for the step */
    if (!rc) rc = switch_arg(x, "swap-optimizer", "swap_optimizer", "true");
    /* MindSpeed's --virtual-optimizer all|GiB...: AdamW's moments in host memory mapped into
     * the NPU, the master weights kept (a list of one size per stage: its first, in a note) */
    if (!rc) rc = train_arg(x, "virtual-optimizer", "virtual_optimizer");
    if (!rc && fw_args_val(d, "seq-length", NULL))
        rc = train_arg(x, "seq-length", "seq_len");
    else if (!rc)
        rc = fw_default(r, "no --seq-length: the sequence is %lld tokens", (long long)r->run->train.seq_len);
    if (!rc) rc = train_arg(x, "global-batch-size", "global_batch");
    if (!rc) rc = train_arg(x, "hidden-dropout", "dropout");
    if (!rc && !fw_args_get(d, "hidden-dropout"))
        rc = fw_train(r, "dropout", "0.1", 0, "--hidden-dropout"); /* Megatron's */
    if (!rc) rc = train_arg(x, "make-vocab-size-divisible-by", "vocab_divisible_by");
    /* argparse store_true switches: absent is off, as Megatron-LM and MindSpeed-LLM run them */
    if (!rc)
        rc = fw_train(r, "overlap_grad_reduce", fw_args_on(d, "overlap-grad-reduce") ? "true" : "false", 0,
                      "--overlap-grad-reduce");
    if (!rc)
        rc = fw_train(r, "overlap_param_gather", fw_args_on(d, "overlap-param-gather") ? "true" : "false", 0,
                      "--overlap-param-gather");
    if (!rc)
        rc = fw_train(r, "tp_comm_overlap", fw_args_on(d, "tp-comm-overlap") ? "true" : "false", 0,
                      "--tp-comm-overlap");
    if (!rc) rc = switch_arg(x, "moe-grouped-gemm", "moe_grouped_gemm", "true");
    if (!rc) rc = switch_arg(x, "cross-entropy-loss-fusion", "fused_cross_entropy", "true");
    if (!rc) rc = switch_arg(x, "no-gradient-accumulation-fusion", "grad_accumulation_fusion", "false");
    if (!rc) rc = switch_arg(x, "no-check-for-nan-in-loss-and-grad", "check_for_nan_in_grad", "false");
    if (!rc) rc = switch_arg(x, "ddp-average-in-collective", "average_in_collective", "true");
    if (!rc) rc = switch_arg(x, "disable-parameter-transpose-cache", "fp8_weight_cache", "false");
    const char *v;
    int line;
    if (!rc && (v = fw_args_val(d, "attention-backend", &line))) rc = attention_backend(x, v, line);
    if (!rc && (v = fw_args_val(d, "fp8-format", &line)))
        rc = fw_train(r, "fp8", "true", line, "--fp8-format");
    if (!rc && (v = fw_args_val(d, "fp8-recipe", &line))) {
        rc = fw_train(r, "fp8_recipe",
                      !strcmp(v, "delayed")                            ? "delayed"
                      : !strcmp(v, "blockwise") || !strcmp(v, "mxfp8") ? "blockwise"
                                                                       : "current",
                      line, "--fp8-recipe");
        if (!strcmp(v, "mxfp8"))
            fw_note(
                r->run,
                "%s:%d: --fp8-recipe mxfp8 (scales per 32 elements, Blackwell's tensor cores) is priced as "
                "nd's blockwise FP8",
                r->path, line);
    }
    /* switches that change what a step costs but that nd does not price: named, not ignored */
    static const struct {
        const char *flag, *why;
    } unpriced[] = {
        {"fp8-param-gather", "the FP8 weights' all-gather and memory are not priced (nd gathers and keeps "
                             "16-bit weights)"},
        {"reuse-fp32-param", "MindSpeed keeps the 16-bit weights inside the fp32 copy's memory: not priced, "
                             "the 16-bit weights are counted beside it"},
        {"use-mc2", "MC2 (Ascend's matmul fused with its TP all-gather or reduce-scatter) is priced as the "
                    "GEMM and the collective one after the other, as without it (docs/benchmarks.md: on "
                    "MindSpeed-LLM's table Llama 3 8B with it ran 5 % faster than Llama 3.1 8B without)"},
    };
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(unpriced); i++)
        if (fw_args_on(d, unpriced[i].flag))
            fw_note(r->run, "%s:%d: --%s: %s", r->path, fw_args_get(d, unpriced[i].flag)->line,
                    unpriced[i].flag, unpriced[i].why);
    if (!rc) rc = fw_megatron_read_cp(r, d);
    if (!rc && (v = fw_args_val(d, "clip-grad", &line))) {
        double clip = 1;
        if (nd_parse_double(v, &clip) || !isfinite(clip) || clip < 0)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --clip-grad: '%s' is not a norm >= 0 (0: no clipping)", r->path, line,
                                v);
        rc = fw_train(r, "grad_clip", clip > 0 ? "true" : "false", line, "--clip-grad");
    }
    if (!rc && (v = fw_args_val(d, "optimizer", &line)))
        rc = fw_train(r, "optimizer", !strcmp(v, "sgd") ? "sgd" : "adamw", line, "--optimizer");
    /* recompute: --recompute-granularity full|selective, --recompute-activations (selective),
     * legacy --checkpoint-activations (full); block recomputes N layers a stage */
    const char *mode = "off";
    if ((v = fw_args_val(d, "recompute-granularity", &line)))
        mode = v;
    else if (fw_args_on(d, "recompute-activations"))
        mode = "selective";
    else if (fw_args_on(d, "checkpoint-activations"))
        mode = "full";
    const char *method = fw_args_val(d, "recompute-method", NULL),
               *num = fw_args_val(d, "recompute-num-layers", NULL);
    int64_t n = -1;
    bool block = !strcmp(mode, "full") && method && !strcmp(method, "block") && num &&
                 !nd_parse_int64(num, 0, 1 << 24, &n);
    /* block over 0 layers checkpoints none (TransformerBlock._checkpointed_forward): the
     * launch scripts that keep the flags and set the count to 0 train without recompute */
    if (block && n == 0) {
        fw_note(r->run,
                "%s:%d: --recompute-method block --recompute-num-layers 0 recomputes no layer: priced "
                "without recompute",
                r->path, line);
        mode = "off";
    }
    if (!rc) rc = fw_train(r, "recompute", mode, line, "--recompute-granularity");
    if (!rc && block && n > 0) {
        r->run->layout.has_recompute = true;
        for (int i = 0; i < ND_RUN_MAX_STAGES; i++) r->run->layout.recompute[i] = n;
    }
    return rc;
}

/* Flags nd would have read that stand in a variable nothing expands: named once a variable, so
 * that a block the launch command leaves out is seen to be left out. */
static void note_unpassed(fw_reader *r, const args_doc *d)
{
    for (int v = 0; v < d->n_vars; v++) {
        char names[256] = "";
        size_t used = 0;
        int line = 0;
        for (int i = 0; i < d->count && used + 72 < sizeof names; i++) {
            const arg *a = &d->items[i];
            if (a->owner != v || !fw_args_unpassed(d, a) || !fw_args_asked(d, a->name)) continue;
            used += (size_t)snprintf(names + used, sizeof names - used, "%s--%s", used ? ", " : "", a->name);
            if (!line) line = a->line;
        }
        if (used)
            fw_note(r->run,
                    "%s:%d: %s is set but never expanded, so its flags (%s) reach no command: not read",
                    r->path, line, d->vars[v].name, names);
    }
}

/* The layout text of per-virtual-stage decoder layer counts (Megatron-core's grammar), the
 * MTP layers beside the loss. */
static void layout_text(const int64_t *count, int64_t stages, int64_t mtp, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "E");
    for (int64_t v = 0; v < stages && used < size; v++) {
        if (v) used += (size_t)snprintf(buf + used, size - used, "|");
        if (count[v] && used < size)
            used += (size_t)snprintf(buf + used, size - used, "t*%lld", (long long)count[v]);
    }
    for (int64_t i = 0; i < mtp && used < size; i++) used += (size_t)snprintf(buf + used, size - used, "m");
    if (used < size) snprintf(buf + used, size - used, "L");
}

/* The layers per stage the script states, as nd's explicit layout (docs/run-file.md §train):
 * --pipeline-model-parallel-layout as given; MindSpeed's --num-layer-list (layers per PP
 * stage); MindSpeed's --noop-layers, which empty their places in Megatron's even split of
 * --num-layers over PP x VPP chunks. */
static int read_split(rd *x, int64_t total)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    nd_strategy *s = &r->run->strategy;
    nd_model *m = &r->run->model;
    int line;
    const char *given = fw_args_val(d, "pipeline-model-parallel-layout", &line);
    if (given) return fw_train(r, "pipeline_layout", given, line, "--pipeline-model-parallel-layout");
    const char *list = fw_args_val(d, "num-layer-list", &line), *noop = fw_args_val(d, "noop-layers", NULL);
    int64_t count[ND_MAX_VIRTUAL_STAGES], stages = 0, sum = 0;
    char text[4096];
    if (list) {
        if (s->vpp > 1 || noop)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layer-list with %s: nd does not represent the layers of "
                                "each chunk",
                                r->path, line, noop ? "--noop-layers" : "virtual pipeline stages");
        for (const char *p = list; *p && stages < ND_MAX_VIRTUAL_STAGES;) {
            char *end;
            long long n = strtoll(p, &end, 10);
            if (end == p || n < 0 || (*end && *end != ',')) {
                stages = -1;
                break;
            }
            count[stages++] = n;
            sum += n;
            p = *end ? end + 1 : end;
        }
        if (stages != s->pp || sum != m->layers)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layer-list %s: not PP=%lld counts that sum to the %lld layers",
                                r->path, line, list, (long long)s->pp, (long long)m->layers);
        layout_text(count, stages, m->mtp_layers, text, sizeof text);
        return fw_train(r, "pipeline_layout", text, line, "--num-layer-list");
    }
    if (!noop || total == m->layers) return ND_OK;
    stages = s->pp * s->vpp;
    if (stages > ND_MAX_VIRTUAL_STAGES || total % stages) {
        fw_note(r->run,
                "%s: --noop-layers %s: %lld layers priced, split as nd splits them (%lld layers do not "
                "split evenly over PP x VPP = %lld chunks, as Megatron splits them)",
                r->path, noop, (long long)m->layers, (long long)total, (long long)stages);
        return ND_OK;
    }
    if (stages == 1) return ND_OK;
    /* chunk b of Megatron's even split is nd's virtual stage b: v = chunk x PP + rank, and
     * along DualPipeV's V, rank r holding b = r and 2 PP - 1 - r (nd_stage_held_chunks) */
    for (int64_t b = 0; b < stages; b++) {
        count[b] = 0;
        for (int64_t i = b * (total / stages); i < (b + 1) * (total / stages); i++)
            count[b] += !fw_megatron_is_noop(noop, i);
    }
    layout_text(count, stages, m->mtp_layers, text, sizeof text);
    return fw_train(r, "pipeline_layout", text, 0, "--noop-layers");
}

/* A launcher count that reads as a number but is none (-8, 0, 2.5). torchrun also takes words
 * (--nproc-per-node gpu, auto) and elastic ranges (--nnodes 1:4), which are no error here. */
static bool bad_count(const arg *a)
{
    if (!a || !a->has_value || a->unresolved) return false;
    const char *v = a->value;
    int64_t n;
    bool numeric = v[0] == '-' || v[0] == '+' || (v[0] >= '0' && v[0] <= '9');
    return numeric && !strchr(v, ':') && nd_parse_int64(v, 1, 1 << 20, &n);
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
    const char *v;
    r->run->has_strategy = true;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        v = fw_args_val(d, degrees[i].flag, &line);
        char theirs[80];
        snprintf(theirs, sizeof theirs, "--%s", degrees[i].flag);
        if (v) rc = fw_strategy(r, degrees[i].dim, v, line, theirs);
    }
    nd_strategy *s = &r->run->strategy;
    if (!rc && (v = fw_args_val(d, "virtual-pipeline-model-parallel-size", &line)))
        rc = fw_strategy(r, "VPP", v, line, "--virtual-pipeline-model-parallel-size");
    if (!rc &&
        (v = fw_args_val(d, "schedules-method", &line))) { /* MindSpeed's DualPipeV: two chunks a rank */
        if (strcmp(v, "dualpipev"))
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: --schedules-method: '%s' is not dualpipev",
                                r->path, line, v);
        rc = fw_train(r, "schedule", "dualpipev", line, "--schedules-method");
        if (!rc) rc = fw_degree(r, "VPP", 2, line, "--schedules-method");
    }
    /* Megatron counts --num-layers (with MindSpeed's no-op layers) in the VPP split */
    int64_t total = r->run->model.layers, k;
    const char *all = fw_args_val(d, "num-layers", NULL);
    if (all) nd_parse_int64(all, 1, 1 << 24, &total);
    const char *per_chunk = fw_args_val(d, "num-layers-per-virtual-pipeline-stage", &line);
    if (!rc && per_chunk) {
        if (nd_parse_int64(per_chunk, 1, 1 << 20, &k) || total % (s->pp * k))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layers-per-virtual-pipeline-stage %s: %lld layers do not split "
                                "into PP=%lld stages of chunks of that many",
                                r->path, line, per_chunk, (long long)total, (long long)s->pp);
        rc = fw_degree(r, "VPP", total / (s->pp * k), line, "--num-layers-per-virtual-pipeline-stage");
    }
    if (!rc && s->vpp > 1 && r->run->train.schedule != ND_SCHEDULE_DUALPIPE_V)
        rc = fw_train(r, "schedule", "interleaved", 0, "");
    if (!rc)
        rc = switch_arg(x, "account-for-embedding-in-pipeline-split",
                        "account_for_embedding_in_pipeline_split", "true");
    if (!rc)
        rc =
            switch_arg(x, "account-for-loss-in-pipeline-split", "account_for_loss_in_pipeline_split", "true");
    if (!rc) rc = read_split(x, total);
    /* MindSpeed's --moe-tp-extend-ep: the experts spread over the TP ranks too, unsharded */
    if (!rc && fw_args_on(d, "moe-tp-extend-ep") && r->run->model.experts && s->tp > 1) {
        line = fw_args_get(d, "moe-tp-extend-ep")->line;
        rc = fw_degree(r, "EP", s->ep * s->tp, line, "--moe-tp-extend-ep");
        if (!rc) rc = fw_degree(r, "ETP", 1, line, "--moe-tp-extend-ep");
    }
    if (!rc && fw_args_on(d, "sequence-parallel"))
        rc = fw_strategy(r, "SP", "1", fw_args_get(d, "sequence-parallel")->line, "--sequence-parallel");
    if (!rc && fw_args_on(d, "tp-2d")) /* MindSpeed's 2D TP: a tp-x x tp-y grid of the TP ranks */
        fw_note(r->run,
                "%s:%d: --tp-2d (MindSpeed's two-dimensional tensor parallelism) is priced as 1D TP of "
                "degree %lld: the 2D scheme's communication and shards are not modelled",
                r->path, fw_args_get(d, "tp-2d")->line, (long long)s->tp);
    /* the distributed optimizer shards over the DP x CP ranks; torch FSDP2 shards everything */
    bool fsdp = fw_args_on(d, "use-torch-fsdp2") || fw_args_on(d, "use-megatron-fsdp");
    if (!rc && (fw_args_on(d, "use-distributed-optimizer") || fsdp)) {
        r->run->strategy.zero = fsdp ? 3 : 1;
        r->run->op_spans_dp = true; /* all of DP x CP, once DP is known */
        const char *inst = fw_args_val(d, "num-distributed-optimizer-instances", NULL);
        if (inst && (nd_parse_int64(inst, 1, 1 << 20, &r->run->op_instances)))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s: --num-distributed-optimizer-instances: '%s' is not a whole "
                                "number",
                                r->path, inst);
    }
    /* the launcher's world size: the device count. Stated by the script and dividing TP x PP x
     * CP, it states DP, as the script runs (a search at another -d still searches); taken from an
     * environment default (${SLURM_NNODES:-"1"}) or not dividing, it is a count -d overrides and
     * DP follows from the count (nd_session), as it does without a launcher */
    int64_t world = fw_args_world_size(d);
    const arg *per = fw_args_get(d, "nproc-per-node"), *nodes = fw_args_get(d, "nnodes");
    /* a launcher count the script states but that is no count (NUM_NODES=-8) is an error, not
     * a world size left to -d */
    const arg *counts[] = {per, nodes};
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(counts); i++)
        if (bad_count(counts[i]))
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: --%s: '%s' is not a count of %s (1-1048576)",
                                r->path, counts[i]->line, counts[i]->name, counts[i]->value,
                                i ? "nodes" : "processes a node");
    bool guessed = (per && per->defaulted) || (nodes && nodes->defaulted);
    int64_t model = s->tp * s->pp * s->cp;
    r->run->derive_dp = !world || guessed || model <= 0 || world % model != 0;
    if (!rc && world) r->run->devices = world;
    if (!rc && !r->run->derive_dp) s->dp = world / model;
    return rc;
}

static int fw_megatron_read(fw_reader *r)
{
    args_doc *d = malloc(sizeof *d);
    if (!d) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    int rc = fw_args_load(d, r->path, r->err);
    rd x = {r, d};
    if (!rc && !fw_args_get(d, "num-layers"))
        rc = nd_error_set(r->err, ND_EINPUT, "%s: no --num-layers: not Megatron arguments", r->path);
    if (!rc) rc = read_model(&x);
    if (!rc) rc = read_training(&x);
    if (!rc) rc = read_strategy(&x);
    if (!rc && r->run->strategy.cp > 1 && !strcmp(fw_args_flavour(d), "mindspeed") &&
        !fw_args_find(d, "context-parallel-algo") && !fw_args_find(d, "cp-comm-type"))
        fw_note(r->run,
                "%s: no --context-parallel-algo: CP priced as the ring (MindSpeed's megatron_cp_algo); "
                "MindSpeed-LLM's older arguments default to ulysses_cp_algo (all-to-all: --set cp_comm=a2a)",
                r->path);
    /* a test on a variable the script leaves to the environment chose the branch read */
    const empty_flag *ef = rc ? NULL : fw_args_empty_test(d);
    if (ef && r->strict)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --%s: an if test reads $%s, which the script does not set (--strict)",
                          r->path, ef->test_line, ef->name, ef->var);
    else if (ef)
        fw_note(r->run,
                "%s:%d: an if test reads $%s, which the script does not set, as empty: --%s is read as bash "
                "takes the branches in an empty environment",
                r->path, ef->test_line, ef->var, ef->name);
    note_unpassed(r, d);
    /* if/case blocks nd cannot evaluate: name each flag read from one (--strict refuses it) */
    for (int i = 0; !rc && i < d->count; i++) {
        const arg *a = &d->items[i];
        if (!a->in_branch || !a->looked_up || fw_args_find(d, a->name) != a) continue;
        if (r->strict)
            rc =
                nd_error_set(r->err, ND_EINPUT,
                             "%s:%d: --%s stands in an if/case branch whose test nd does not read (--strict)",
                             r->path, a->line, a->name);
        else
            fw_note(r->run,
                    "%s:%d: --%s stands in an if/case branch (or takes a variable set in one) whose test nd "
                    "does not read: read as if every branch ran, in order",
                    r->path, a->line, a->name);
    }
    const arg *u = d->needed_unresolved;
    if (!rc && u && u->too_long)
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: --%s: its value is longer than the %zu bytes nd reads",
                          r->path, u->line, u->name, sizeof u->value - 1);
    else if (!rc && u)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --%s: '%.*s' uses a shell value nd does not read (a variable the script "
                          "does not set, a command's output or the script's arguments)",
                          r->path, u->line, u->name, (int)(u->vto - u->vfrom), d->text + u->vfrom);
    if (!rc) {
        r->run->derive_mb = true; /* Megatron: global batch / (DP x micro-batch size) */
        if (!r->run->derive_dp) rc = nd_config_derive(r->run, r->err);
        if (!rc) rc = fw_finish(r);
    }
    fw_args_unload(d);
    return rc;
}

static int read_megatron(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_megatron_read(r);
}

const fw_format fw_megatron_format = {ND_CONFIG_MEGATRON, read_megatron, fw_megatron_write};
