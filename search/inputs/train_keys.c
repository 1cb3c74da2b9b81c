/*
 * train_keys.c — the run file's train keys (and the --set flags that reach them): one table
 * of names, spellings, types and ranges, so that the file, the flags, the messages and the
 * list of known keys agree. docs/run-file.md §train.
 */
#include "train_keys.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/array.h"

typedef enum { K_BOOL, K_INT, K_WORD, K_CUSTOM } key_kind;

typedef struct train_key {
    const char *names[4]; /* the key, then its other spellings */
    key_kind kind;
    size_t offset;            /* of its nd_train field: bool, int64_t, or an enum (K_WORD) */
    int64_t min, max;         /* K_INT */
    const char *const *words; /* K_WORD: value i sets the enum to i */
    int word_count;
    const char *hint;                           /* what a good value is, for messages */
    int (*set)(nd_train *t, const char *value); /* K_CUSTOM */
} train_key;

static const char *const cp_words[] = {"ring", "a2a", "allgather", "hybrid"};

/* The index of v among words (case-insensitive, '_' and '-' alike), or -1. */
static int word_index(const char *v, const char *const *words, int count)
{
    for (int i = 0; i < count; i++) {
        const char *a = v, *b = words[i];
        while (*a && *b) {
            char x = *a == '_' ? '-' : (char)(*a >= 'A' && *a <= 'Z' ? *a + 32 : *a);
            char y = *b == '_' ? '-' : *b;
            if (x != y) break;
            a++;
            b++;
        }
        if (!*a && !*b) return i;
    }
    return -1;
}

static int bytes_of(const char *v, int *out)
{
    if (nd_text_equal_nocase(v, "fp32"))
        *out = 4;
    else if (nd_text_equal_nocase(v, "bf16") || nd_text_equal_nocase(v, "fp16"))
        *out = 2;
    else
        return -1;
    return 0;
}

static int set_precision(nd_train *t, const char *v)
{
    return nd_train_set_precision(t, v);
}
static int set_grad_precision(nd_train *t, const char *v)
{
    return bytes_of(v, &t->grad_bytes);
}
static int set_state_precision(nd_train *t, const char *v)
{
    return bytes_of(v, &t->state_bytes);
}
static int set_recompute(nd_train *t, const char *v)
{
    return nd_recompute_parse(v, &t->recompute);
}
static int set_schedule(nd_train *t, const char *v)
{
    return nd_schedule_parse(v, &t->schedule);
}

static int set_master(nd_train *t, const char *v)
{
    bool b;
    if (nd_parse_bool(v, &b)) return -1;
    t->master_bytes = b && t->param_bytes < 4 ? 4 : 0;
    return 0;
}

static int set_optimizer(nd_train *t, const char *v)
{
    if (nd_text_equal_nocase(v, "adamw") || nd_text_equal_nocase(v, "adam")) {
        t->optimizer = ND_OPTIMIZER_ADAMW;
        t->optimizer_states = 2;
    } else if (nd_text_equal_nocase(v, "sgd")) {
        t->optimizer = ND_OPTIMIZER_SGD;
        t->optimizer_states = 1;
    } else if (nd_text_equal_nocase(v, "muon")) {
        t->optimizer = ND_OPTIMIZER_MUON;
        t->optimizer_states = 1;
    } else
        return -1;
    return 0;
}

static int set_dropout(nd_train *t, const char *v)
{
    double d;
    if (nd_parse_double(v, &d) || d < 0 || d >= 1) return -1;
    t->dropout = d;
    return 0;
}

/* Megatron's dispatchers: alltoall (and allgather, priced alike), or the flex dispatcher's
 * DeepEP and HybridEP backends, which send a token once a node. */
static int set_dispatcher(nd_train *t, const char *v)
{
    static const char *const a2a[] = {"alltoall", "allgather"}, *const dedup[] = {"deepep", "hybridep",
                                                                                  "flex"};
    for (size_t i = 0; i < ND_ARRAY_LEN(a2a); i++)
        if (nd_text_equal_nocase(v, a2a[i])) {
            t->moe_dispatcher = ND_MOE_ALLTOALL;
            return 0;
        }
    for (size_t i = 0; i < ND_ARRAY_LEN(dedup); i++)
        if (nd_text_equal_nocase(v, dedup[i])) {
            t->moe_dispatcher = ND_MOE_DEEPEP;
            return 0;
        }
    return -1;
}

static int set_imbalance(nd_train *t, const char *v)
{
    double f;
    if (nd_parse_double(v, &f) || !(f >= 1 && f <= 64)) return -1;
    t->moe_imbalance = f;
    return 0;
}

/* MindSpeed's and torchtitan-npu's virtual optimizer: "all", a size in GiB, or off. */
static int set_virtual_optimizer(nd_train *t, const char *v)
{
    if (!strcmp(v, "all")) {
        t->virtual_optimizer_gib = ND_VIRTUAL_OPTIMIZER_ALL;
        return 0;
    }
    if (!strcmp(v, "off") || !strcmp(v, "false")) {
        t->virtual_optimizer_gib = 0;
        return 0;
    }
    double gib;
    if (nd_parse_double(v, &gib) || !(gib >= 0 && gib <= ND_VIRTUAL_OPTIMIZER_ALL)) return -1;
    t->virtual_optimizer_gib = gib;
    return 0;
}

/* FP8 scaling by its names: TE's delayed scaling; a scale from the tensor's own amax each
 * pass (TE's current scaling, torchao's tensorwise and rowwise dynamic scaling); per-block
 * scales (DeepSeek-V3's 1x128 / 128x128 blockwise recipe, Blackwell's MXFP8 32-element blocks). */
static int set_fp8_recipe(nd_train *t, const char *v)
{
    static const struct {
        const char *word;
        nd_fp8_recipe recipe;
    } words[] = {{"delayed", ND_FP8_DELAYED}, {"current", ND_FP8_CURRENT}, {"tensorwise", ND_FP8_CURRENT},
                 {"rowwise", ND_FP8_CURRENT}, {"dynamic", ND_FP8_CURRENT}, {"blockwise", ND_FP8_BLOCKWISE},
                 {"mxfp8", ND_FP8_BLOCKWISE}};
    for (size_t i = 0; i < ND_ARRAY_LEN(words); i++)
        if (nd_text_equal_nocase(v, words[i].word)) {
            t->fp8_recipe = words[i].recipe;
            return 0;
        }
    return -1;
}

/* A switch whose unset value (-1) defers to the framework's profile. */
static int set_switch(int *field, const char *v)
{
    bool b;
    if (nd_parse_bool(v, &b)) return -1;
    *field = b;
    return 0;
}

/* The fused kernel by its name: the device's best (FA3, FA4), cuDNN's (Transformer Engine's fused
 * attention), FA2 and its kin (SDPA's flash backend), the 2023 Triton FlashAttention, the
 * framework's (auto), or none (unfused sets flash_attention false). A fused kernel's name turns
 * flash_attention on: the later of the two keys (or flags) decides. */
static int set_attention_kernel(nd_train *t, const char *v)
{
    static const struct {
        const char *name;
        nd_attention_kernel kernel;
    } names[] = {{"auto", ND_ATTENTION_AUTO},   {"fa3", ND_ATTENTION_BEST},     {"fa4", ND_ATTENTION_BEST},
                 {"cudnn", ND_ATTENTION_CUDNN}, {"te", ND_ATTENTION_CUDNN},     {"fa2", ND_ATTENTION_FA2},
                 {"sdpa", ND_ATTENTION_FA2},    {"triton", ND_ATTENTION_TRITON}};
    if (nd_text_equal_nocase(v, "unfused")) {
        t->flash_attention = false;
        t->attention_kernel = ND_ATTENTION_AUTO;
        return 0;
    }
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (nd_text_equal_nocase(v, names[i].name)) {
            t->attention_kernel = names[i].kernel;
            if (names[i].kernel != ND_ATTENTION_AUTO) t->flash_attention = true;
            return 0;
        }
    return -1;
}

static int set_tp_overlap(nd_train *t, const char *v)
{
    return set_switch(&t->tp_comm_overlap, v);
}
static int set_expandable(nd_train *t, const char *v)
{
    return set_switch(&t->expandable_segments, v);
}
static int set_record_streams(nd_train *t, const char *v)
{
    return set_switch(&t->record_streams, v);
}
static int set_nan_check(nd_train *t, const char *v)
{
    return set_switch(&t->check_for_nan_in_grad, v);
}
static int set_probs_in_expert(nd_train *t, const char *v)
{
    return set_switch(&t->moe_probs_in_expert, v);
}
static int set_reshard(nd_train *t, const char *v)
{
    return set_switch(&t->reshard_after_forward, v);
}

static int set_optimizer_impl(nd_train *t, const char *v)
{
    for (int i = 0; nd_optimizer_impl_name((nd_optimizer_impl)i); i++)
        if (!strcmp(v, nd_optimizer_impl_name((nd_optimizer_impl)i))) {
            t->optimizer_impl = i;
            return 0;
        }
    return -1;
}

#define BOOL(name, field)                                                                                    \
    {                                                                                                        \
        {name}, K_BOOL, offsetof(nd_train, field), 0, 0, NULL, 0, "true or false", NULL                      \
    }
#define CUSTOM(name, fn, hint)                                                                               \
    {                                                                                                        \
        {name}, K_CUSTOM, 0, 0, 0, NULL, 0, hint, fn                                                         \
    }
#define WORDS(name, field, words, hint)                                                                      \
    {                                                                                                        \
        {name}, K_WORD, offsetof(nd_train, field), 0, 0, words, (int)(ND_ARRAY_LEN(words)), hint, NULL       \
    }

static const train_key keys[] = {
    {{"seq_len", "seq_length", "seq", "max_seq_len"},
     K_INT,
     offsetof(nd_train, seq_len),
     1,
     1 << 24,
     NULL,
     0,
     "a whole number of tokens in [1, 16777216]",
     NULL},
    {{"global_batch", "global_batch_size", "gbs"},
     K_INT,
     offsetof(nd_train, global_batch),
     1,
     (int64_t)1 << 30,
     NULL,
     0,
     "a whole number of sequences in [1, 1073741824]",
     NULL},
    CUSTOM("precision", set_precision, "bf16, fp16 or fp32"),
    CUSTOM("grad_precision", set_grad_precision, "fp32, bf16 or fp16"),
    CUSTOM("master_weights", set_master, "true or false"),
    CUSTOM("optimizer", set_optimizer, "adamw, adam, sgd or muon"),
    CUSTOM("optimizer_impl", set_optimizer_impl, "fused, foreach or per_tensor"),
    CUSTOM("optimizer_state_precision", set_state_precision, "fp32, bf16 or fp16"),
    BOOL("grad_clip", grad_clip),
    CUSTOM("recompute", set_recompute, "off, selective or full"),
    CUSTOM("schedule", set_schedule, "1f1b, interleaved, zb-h1, zb-h2, zb-v, gpipe, dualpipe or dualpipev"),
    BOOL("flash_attention", flash_attention),
    CUSTOM("attention_kernel", set_attention_kernel,
           "auto, fa3, fa4, cudnn, te, fa2, sdpa, triton or unfused"),
    CUSTOM("dropout", set_dropout, "a probability in [0, 1)"),
    BOOL("overlap_grad_reduce", overlap_grad_reduce),
    BOOL("overlap_param_gather", overlap_param_gather),
    CUSTOM("tp_comm_overlap", set_tp_overlap, "true or false"),
    BOOL("ep_comm_overlap", ep_comm_overlap),
    BOOL("overlap_p2p_comm", overlap_p2p_comm),
    CUSTOM("moe_dispatcher", set_dispatcher, "alltoall or deepep (hybridep, flex)"),
    BOOL("moe_dispatch_fp8", moe_dispatch_fp8),
    CUSTOM("moe_imbalance", set_imbalance, "a factor in [1, 64]"),
    BOOL("account_for_embedding_in_pipeline_split", account_embedding),
    BOOL("account_for_loss_in_pipeline_split", account_loss),
    BOOL("swap_optimizer", swap_optimizer),
    CUSTOM("virtual_optimizer", set_virtual_optimizer,
           "all, off, or GiB of moments a device keeps on the host"),
    BOOL("grad_accumulation_fusion", grad_accumulation_fusion),
    CUSTOM("check_for_nan_in_grad", set_nan_check, "true or false"),
    BOOL("average_in_collective", average_in_collective),
    BOOL("fp8_weight_cache", fp8_weight_cache),
    BOOL("fp8", fp8),
    CUSTOM("fp8_recipe", set_fp8_recipe,
           "delayed, current (tensorwise, rowwise, dynamic) or blockwise (mxfp8)"),
    WORDS("framework", framework, nd_framework_names,
          "megatron, megatron-legacy, megatron-deepspeed, torchtitan, fsdp, deepspeed or mindspeed"),
    BOOL("tf32", tf32),
    WORDS("cp_comm", cp_comm, cp_words, "ring, a2a, allgather or hybrid"),
    {{"cp_ulysses_degree", "ulysses_degree_in_cp"},
     K_INT,
     offsetof(nd_train, cp_ulysses_degree),
     1,
     65536,
     NULL,
     0,
     "a whole number of ranks in [1, 65536]",
     NULL},
    BOOL("cuda_graphs", cuda_graphs),
    BOOL("moe_grouped_gemm", moe_grouped_gemm),
    BOOL("fused_cross_entropy", fused_cross_entropy),
    {{"vocab_divisible_by"},
     K_INT,
     offsetof(nd_train, vocab_divisible_by),
     1,
     65536,
     NULL,
     0,
     "a whole number in [1, 65536]",
     NULL},
    CUSTOM("expandable_segments", set_expandable, "true or false"),
    CUSTOM("record_streams", set_record_streams, "true or false"),
    CUSTOM("moe_probs_in_expert", set_probs_in_expert, "true or false"),
    CUSTOM("reshard_after_forward", set_reshard, "true or false"),
    BOOL("fp32_grad_copy", fp32_grad_copy),
    BOOL("compile", compile),
    {{"selective_every"},
     K_INT,
     offsetof(nd_train, selective_every),
     1,
     65536,
     NULL,
     0,
     "a whole number of layers in [1, 65536]",
     NULL},
};
#define N_KEYS (ND_ARRAY_LEN(keys))
_Static_assert(N_KEYS <= ND_TRAIN_FIELDS, "ND_TRAIN_FIELDS must count every train key");

int nd_train_key_index(const char *key)
{
    for (size_t k = 0; k < N_KEYS; k++)
        for (size_t i = 0; i < 4 && keys[k].names[i]; i++)
            if (!strcmp(key, keys[k].names[i])) return (int)k;
    return -1;
}

int nd_train_set_key(nd_train *t, const char *key, const char *value, const char **hint)
{
    int k = nd_train_key_index(key);
    if (k < 0) return -2;
    const train_key *d = &keys[k];
    char *field = (char *)t + d->offset;
    *hint = d->hint;
    switch (d->kind) {
    case K_BOOL: return nd_parse_bool(value, (bool *)field) ? -1 : 0;
    case K_INT: return nd_parse_int64(value, d->min, d->max, (int64_t *)field) ? -1 : 0;
    case K_WORD: {
        int w = word_index(value, d->words, d->word_count);
        if (w < 0) return -1;
        memcpy(field, &w, sizeof w); /* the enums are int-sized */
        return 0;
    }
    case K_CUSTOM: return d->set(t, value) ? -1 : 0;
    }
    return -1;
}

const char *nd_train_keys_text(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < N_KEYS && used < size; k++) {
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", keys[k].names[0]);
        /* selective_modules is a list, read by the run loader itself */
        if (!strcmp(keys[k].names[0], "optimizer_state_precision") && used < size)
            used += (size_t)snprintf(buf + used, size - used, ", selective_modules");
    }
    return buf;
}
