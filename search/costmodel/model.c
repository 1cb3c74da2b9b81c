/*
 * model.c — validating a model description and counting its parameters.
 *
 * Counts follow the Hugging Face implementations of each family (which is how
 * the published totals are computed): Llama/Mistral/Qwen (RMSNorm, SwiGLU),
 * GPT-2/3 and Megatron GPT (LayerNorm with bias, biased linears, learned
 * positions), GPT-NeoX (biased, rotary), Mixtral/Qwen-MoE/DeepSeek (routed and
 * shared experts) and DeepSeek's MLA.
 */
#include "nd/costmodel/model.h"
#include "nd/base/array.h"

#include <stdio.h>
#include <string.h>

static int64_t norm_params(const nd_model *m, int64_t width)
{
    return m->norm == ND_NORM_LAYER ? 2 * width : width; /* LayerNorm has a bias */
}

static int64_t attention_params(const nd_model *m)
{
    int64_t h = m->hidden, a = m->heads;
    if (m->attention == ND_ATTN_MLA) {
        int64_t qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        int64_t q =
            m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank + m->q_lora_rank * a * qk : h * a * qk;
        int64_t kv = h * (m->kv_lora_rank + m->qk_rope_head_dim) + m->kv_lora_rank +
                     m->kv_lora_rank * a * (m->qk_nope_head_dim + m->v_head_dim);
        return q + kv + a * m->v_head_dim * h;
    }
    int64_t q = a * m->head_dim, kv = m->kv_heads * m->head_dim;
    int64_t p = h * (q + 2 * kv) + q * h;
    if (m->qkv_bias) p += q + 2 * kv;
    if (m->o_bias) p += h;
    if (m->qk_norm) p += 2 * m->head_dim;
    return p;
}

static int64_t mlp_params(const nd_model *m, int64_t width, bool bias)
{
    int64_t h = m->hidden;
    if (m->mlp == ND_MLP_GATED) return 3 * h * width + (bias ? 2 * width + h : 0);
    return 2 * h * width + (bias ? width + h : 0);
}

const char *nd_layer_kind_name(nd_layer_kind k)
{
    return k == ND_LAYER_MOE ? "moe" : k == ND_LAYER_DENSE ? "dense" : "?";
}

nd_layer_kind nd_model_layer_kind(const nd_model *m, int64_t i)
{
    if (m->experts == 0 || i < m->first_k_dense) return ND_LAYER_DENSE;
    if (m->moe_sparse_step > 1 && (i + 1) % m->moe_sparse_step) return ND_LAYER_DENSE;
    if (m->moe_layer_freq > 1 && i % m->moe_layer_freq) return ND_LAYER_DENSE;
    return ND_LAYER_MOE;
}

int64_t nd_model_count_kind(const nd_model *m, int64_t first, int64_t count, nd_layer_kind kind)
{
    if (m->experts == 0) return kind == ND_LAYER_DENSE ? count : 0;
    if (m->moe_layer_freq <= 1 && m->moe_sparse_step <= 1) {
        /* dense layers are exactly [0, first_k_dense) */
        int64_t lo = first, hi = first + count;
        int64_t dense_hi = m->first_k_dense < hi ? m->first_k_dense : hi;
        int64_t dense = dense_hi > lo ? dense_hi - lo : 0;
        return kind == ND_LAYER_DENSE ? dense : count - dense;
    }
    int64_t n = 0;
    for (int64_t i = first; i < first + count; i++) n += nd_model_layer_kind(m, i) == kind;
    return n;
}

void nd_model_count_params(const nd_model *m, nd_param_count *out)
{
    memset(out, 0, sizeof *out);
    int64_t h = m->hidden;
    out->attention = attention_params(m);
    out->norms = (m->post_norms ? 4 : 2) * norm_params(m, h);
    out->dense_mlp = mlp_params(m, m->ffn, m->mlp_bias);
    if (m->experts > 0) {
        out->moe_routed = m->experts * mlp_params(m, m->moe_ffn, m->mlp_bias);
        out->moe_shared = m->shared_experts * mlp_params(m, m->shared_ffn, m->mlp_bias) + h * m->experts +
                          (m->router_bias ? m->experts : 0) +
                          (m->shared_expert_gate && m->shared_experts ? h : 0);
    }
    out->layer[ND_LAYER_DENSE] = out->attention + out->norms + out->dense_mlp;
    out->layer[ND_LAYER_MOE] = out->attention + out->norms + out->moe_routed + out->moe_shared;
    out->embedding = m->vocab * h + m->max_positions * h;
    out->head = norm_params(m, h) + (m->tied_embeddings ? 0 : m->vocab * h);

    int64_t body = 0;
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        body += nd_model_count_kind(m, 0, m->layers, (nd_layer_kind)k) * out->layer[k];
    out->total = body + out->embedding + out->head;

    /* DeepSeek-V3's MTP module: two norms, a 2h -> h projection, one decoder layer of the
     * kind the next layer index would have, and a norm before the shared head. */
    out->mtp_module =
        2 * norm_params(m, h) + 2 * h * h + out->layer[nd_model_layer_kind(m, m->layers)] + norm_params(m, h);
    out->total_with_mtp = out->total + m->mtp_layers * out->mtp_module;

    int64_t active_mlp_moe = m->experts_per_token * mlp_params(m, m->moe_ffn, m->mlp_bias) + out->moe_shared;
    int64_t active = 0;
    for (int64_t i = 0; i < m->layers; i++)
        active += out->attention + out->norms +
                  (nd_model_layer_kind(m, i) == ND_LAYER_MOE ? active_mlp_moe : out->dense_mlp);
    out->active_per_token = active + out->embedding + out->head;
}

typedef struct required_field {
    const char *name;
    int64_t value;
    bool needed;
} required_field;

/* Every needed field at once: those left at 0 (not stated) are listed together as missing, so
 * a file short of several fields is fixed in one go; a negative one is named with its value. */
static int need_fields(const char *source, const required_field *f, size_t n, nd_error *err)
{
    char missing[256] = "";
    size_t count = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!f[i].needed || f[i].value > 0) continue;
        if (f[i].value < 0)
            return nd_error_set(err, ND_EINPUT,
                                "%s: model field '%s' must be a positive whole number, not %lld", source,
                                f[i].name, (long long)f[i].value);
        if (used < sizeof missing)
            used +=
                (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", count ? ", " : "", f[i].name);
        count++;
    }
    if (!count) return ND_OK;
    return nd_error_set(err, ND_EINPUT,
                        "%s: model field%s %s %s missing or 0 (each must be a positive "
                        "whole number)",
                        source, count > 1 ? "s" : "", missing, count > 1 ? "are" : "is");
}

/* Sizes beyond this are typos, and would overflow the products the cost model forms. */
#define ND_MODEL_DIM_MAX ((int64_t)1 << 24)

/* Each field within ND_MODEL_DIM_MAX is not enough: layers x experts x hidden x width can
 * reach 2^96. nd_model_count_params forms int64 products, so a model is refused when a
 * bound of every one of them (in double) exceeds 2^52 parameters, 4.5e15: over a
 * thousand times the largest published model (DeepSeek-V3's bound is 6e13). Every term
 * of the count is at most the term here with W, the widest matrix side. */
#define ND_MODEL_PARAMS_MAX 4503599627370496.0

static double params_bound(const nd_model *m)
{
    double h = (double)m->hidden, a = (double)m->heads;
    const double sides[] = {h,
                            (double)m->ffn,
                            (double)m->moe_ffn,
                            (double)m->shared_ffn,
                            a * (double)m->head_dim,
                            (double)m->kv_heads * (double)m->head_dim,
                            (double)m->q_lora_rank,
                            (double)m->kv_lora_rank + (double)m->qk_rope_head_dim,
                            a * ((double)m->qk_nope_head_dim + (double)m->qk_rope_head_dim),
                            a * (double)m->v_head_dim};
    double w = 1;
    for (size_t i = 0; i < ND_ARRAY_LEN(sides); i++)
        if (sides[i] > w) w = sides[i];
    double experts = (double)m->experts + (double)m->shared_experts;
    double layer = w * w * (24 + 8 * experts);
    return ((double)m->layers + (double)m->mtp_layers + 1) * layer +
           ((double)m->vocab * 2 + (double)m->max_positions) * h;
}

int nd_model_validate(nd_model *m, const char *source, nd_error *err)
{
    int rc;
    bool all_moe =
        m->experts > 0 && m->first_k_dense == 0 && m->moe_layer_freq <= 1 && m->moe_sparse_step <= 1;
    const required_field required[] = {
        {"hidden_size", m->hidden, true},
        {"num_hidden_layers", m->layers, true},
        {"num_attention_heads", m->heads, true},
        {"vocab_size", m->vocab, true},
        {"intermediate_size", m->ffn, !all_moe},
        {"num_experts_per_tok", m->experts_per_token, m->experts > 0},
        {"moe_intermediate_size", m->moe_ffn, m->experts > 0},
    };
    if ((rc = need_fields(source, required, ND_ARRAY_LEN(required), err))) return rc;
    if (m->kv_heads == 0) m->kv_heads = m->heads;
    if (m->attention == ND_ATTN_MHA && m->head_dim == 0) {
        if (m->hidden % m->heads)
            return nd_error_set(err, ND_EINPUT,
                                "%s: hidden_size %lld does not divide over %lld heads; state head_dim",
                                source, (long long)m->hidden, (long long)m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    const struct {
        const char *name;
        int64_t value;
    } dims[] = {
        {"hidden_size", m->hidden},
        {"num_hidden_layers", m->layers},
        {"num_attention_heads", m->heads},
        {"num_key_value_heads", m->kv_heads},
        {"head_dim", m->head_dim},
        {"intermediate_size", m->ffn},
        {"vocab_size", m->vocab},
        {"position_embeddings", m->max_positions},
        {"max_position_embeddings", m->context_length},
        {"sliding_window", m->sliding_window},
        {"sliding_layers", m->sliding_layers},
        {"num_experts", m->experts},
        {"num_experts_per_tok", m->experts_per_token},
        {"n_shared_experts", m->shared_experts},
        {"moe_intermediate_size", m->moe_ffn},
        {"first_k_dense_replace", m->first_k_dense},
        {"q_lora_rank", m->q_lora_rank},
        {"kv_lora_rank", m->kv_lora_rank},
        {"num_nextn_predict_layers", m->mtp_layers},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(dims); i++)
        if (dims[i].value < 0 || dims[i].value > ND_MODEL_DIM_MAX)
            return nd_error_set(err, ND_EINPUT, "%s: model field '%s' = %lld is out of range [0, %lld]",
                                source, dims[i].name, (long long)dims[i].value, (long long)ND_MODEL_DIM_MAX);
    if (m->sliding_layers > m->layers)
        return nd_error_set(err, ND_EINPUT, "%s: sliding_layers %lld exceeds num_hidden_layers %lld", source,
                            (long long)m->sliding_layers, (long long)m->layers);
    if (m->heads % m->kv_heads)
        return nd_error_set(err, ND_EINPUT,
                            "%s: num_key_value_heads %lld must divide num_attention_heads %lld", source,
                            (long long)m->kv_heads, (long long)m->heads);
    if (m->attention == ND_ATTN_MLA) {
        if (m->kv_lora_rank <= 0 || m->qk_nope_head_dim <= 0 || m->qk_rope_head_dim <= 0 ||
            m->v_head_dim <= 0)
            return nd_error_set(err, ND_EINPUT,
                                "%s: MLA attention needs kv_lora_rank, qk_nope_head_dim, "
                                "qk_rope_head_dim and v_head_dim",
                                source);
        m->kv_heads = m->heads; /* MLA expands the latent to every head */
        m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
    }
    if (m->experts > 0) {
        if (m->experts_per_token > m->experts)
            return nd_error_set(err, ND_EINPUT, "%s: num_experts_per_tok %lld exceeds num_experts %lld",
                                source, (long long)m->experts_per_token, (long long)m->experts);
        if (m->shared_ffn == 0) m->shared_ffn = m->moe_ffn;
        if (m->moe_layer_freq <= 0) m->moe_layer_freq = 1;
        if (m->first_k_dense > m->layers)
            return nd_error_set(err, ND_EINPUT, "%s: first_k_dense_replace %lld exceeds the %lld layers",
                                source, (long long)m->first_k_dense, (long long)m->layers);
        if (m->capacity_factor < 0 || m->capacity_factor > 64)
            return nd_error_set(err, ND_EINPUT, "%s: capacity_factor must be in [0, 64] (0 = dropless)",
                                source);
    } else if (m->shared_experts || m->first_k_dense || m->experts_per_token) {
        return nd_error_set(err, ND_EINPUT, "%s: expert fields given but num_experts is 0 (a dense model)",
                            source);
    }
    if (params_bound(m) > ND_MODEL_PARAMS_MAX)
        return nd_error_set(err, ND_EINPUT,
                            "%s: the model's sizes (hidden_size %lld, %lld layers, %lld experts, "
                            "...) make over 4.5e15 parameters; a typo?",
                            source, (long long)m->hidden, (long long)m->layers, (long long)m->experts);
    if (!m->name[0]) snprintf(m->name, sizeof m->name, "%s", "model");
    if (!m->type[0]) snprintf(m->type, sizeof m->type, "%s", "custom");
    return ND_OK;
}

double nd_model_layer_tensors(const nd_model *m)
{
    double norms = (m->norm == ND_NORM_LAYER ? 4 : 2) * (m->post_norms ? 2 : 1);
    double linears = (m->attention == ND_ATTN_MLA ? 5 : 2) + 2;
    double biases = (m->qkv_bias ? 1 : 0) + (m->o_bias ? 1 : 0) + (m->mlp_bias ? 2 : 0);
    return norms + linears + biases + (m->qk_norm ? 2 : 0);
}
