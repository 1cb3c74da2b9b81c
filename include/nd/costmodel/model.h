/*
 * model.h — the architecture of the model being trained.
 *
 * One struct describes every family nd prices: dense decoders (Llama, Mistral,
 * Qwen), GPT-style decoders (LayerNorm, two-matrix GELU MLP, learned positions),
 * GQA/MQA, mixture of experts (routed + shared experts, top-k, first-k dense
 * layers, capacity factor), DeepSeek's MLA attention and MTP layers, tied
 * embeddings. It is filled from a Hugging Face config.json (nd_model_load_hf_json)
 * or from the `model:` mapping of a run file (run.h), and checked by
 * nd_model_validate. Counts are exact integers (int64_t).
 */
#ifndef ND_MODEL_H
#define ND_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/error.h"

typedef enum { ND_NORM_RMS = 0, ND_NORM_LAYER = 1 } nd_norm_kind;

/* gated = SwiGLU-style, three matrices (gate, up, down); plain = two matrices
 * (up, down) around GELU, as GPT-2/3, GPT-NeoX and Megatron GPT. */
typedef enum { ND_MLP_GATED = 0, ND_MLP_PLAIN = 1 } nd_mlp_kind;

/* mha covers MHA, GQA and MQA (kv_heads says which); mla is DeepSeek's latent attention. */
typedef enum { ND_ATTN_MHA = 0, ND_ATTN_MLA = 1 } nd_attention_kind;

typedef struct nd_model {
    char name[128];
    char type[32]; /* Hugging Face model_type, or "custom" */

    int64_t hidden;         /* h */
    int64_t layers;         /* decoder layers, not counting MTP layers */
    int64_t heads;          /* attention heads a */
    int64_t kv_heads;       /* KV heads (GQA groups); = heads for MHA */
    int64_t head_dim;       /* per-head width of Q and K (MHA/GQA); h / a unless stated */
    int64_t ffn;            /* dense MLP width (intermediate_size) */
    int64_t vocab;          /* vocabulary */
    int64_t max_positions;  /* learned position table rows (0 = rotary, no table) */
    int64_t context_length; /* longest sequence the model was built for (0 = not stated) */
    int64_t sliding_window; /* keys a sliding-window layer's query sees (0 = none) */
    int64_t sliding_layers; /* layers with that window (layer_types' sliding_attention) */

    nd_norm_kind norm;
    nd_mlp_kind mlp;
    nd_attention_kind attention;
    bool tied_embeddings;
    bool qkv_bias, o_bias, mlp_bias; /* linear biases (GPT-2/3, NeoX: all; Qwen2: qkv) */
    bool qk_norm;                    /* per-head RMSNorm on q and k (Qwen3) */
    bool parallel_residual;          /* GPT-NeoX: attention and MLP read the same input */
    bool post_norms;                 /* a second norm on the attention's and the MLP's output before
                                        the residual add (Gemma 2's sandwich, GLM-4-0414) */

    /* Mixture of experts: experts == 0 means dense. */
    int64_t experts;           /* routed experts per MoE layer */
    int64_t experts_per_token; /* top-k */
    int64_t shared_experts;    /* always-active experts */
    int64_t moe_ffn;           /* width of one routed expert */
    int64_t shared_ffn;        /* width of one shared expert (= moe_ffn unless stated) */
    int64_t first_k_dense;     /* leading layers with a dense MLP */
    int64_t moe_layer_freq;    /* DeepSeek: layer i >= first_k_dense is MoE when i % freq == 0 */
    int64_t moe_sparse_step;   /* Qwen-MoE: layer i is MoE when (i + 1) % step == 0 */
    double capacity_factor;    /* tokens per expert over the balanced share; 0 = dropless */
    int64_t router_groups;     /* experts in this many groups, a token's experts from at most
                                  router_group_topk of them (DeepSeek's n_group, topk_group;
                                  Megatron's --moe-router-num-groups, --moe-router-group-topk);
                                  0 = no group limit */
    int64_t router_group_topk;
    bool router_bias;        /* a per-expert score bias (DeepSeek-V3's correction bias) */
    bool shared_expert_gate; /* a sigmoid gate on the shared expert (Qwen2-MoE) */

    /* Multi-head latent attention (DeepSeek-V2/V3). */
    int64_t q_lora_rank; /* 0: queries projected directly from h */
    int64_t kv_lora_rank;
    int64_t qk_nope_head_dim;
    int64_t qk_rope_head_dim;
    int64_t v_head_dim;

    int64_t mtp_layers; /* multi-token-prediction modules after the last layer */
} nd_model;

/* Layer kinds, in the order they appear in the stack. */
typedef enum { ND_LAYER_DENSE = 0, ND_LAYER_MOE = 1, ND_LAYER_KINDS = 2 } nd_layer_kind;

/* Parameter counts, exact. */
typedef struct nd_param_count {
    int64_t attention;             /* one layer's attention block incl. its norm params */
    int64_t dense_mlp;             /* one dense layer's MLP */
    int64_t moe_routed;            /* one MoE layer's routed experts (all of them) */
    int64_t moe_shared;            /* one MoE layer's shared experts, router and gates */
    int64_t norms;                 /* one layer's two pre-norms */
    int64_t layer[ND_LAYER_KINDS]; /* whole layer of each kind */
    int64_t embedding;             /* token (+ position) embedding */
    int64_t head;                  /* output projection (0 when tied) + final norm */
    int64_t mtp_module;            /* one MTP module, sharing embedding and head */
    int64_t total;                 /* the model as published, without MTP */
    int64_t total_with_mtp;        /* with MTP modules (embedding and head shared) */
    int64_t active_per_token;      /* parameters one token passes through (MoE: top-k experts) */
} nd_param_count;

/* Fills defaults that follow from other fields (head_dim = h/a, kv_heads = heads,
 * shared_ffn = moe_ffn, moe_layer_freq = 1) and checks every field; the message
 * names `source` (a file) and the field. */
int nd_model_validate(nd_model *m, const char *source, nd_error *err);

/* Counts parameters. The model must be valid. */
void nd_model_count_params(const nd_model *m, nd_param_count *out);

/* "dense" or "moe": a layer kind as run files, best.yaml and the potentials CSV name it. */
const char *nd_layer_kind_name(nd_layer_kind k);

/* Parameter tensors of one decoder layer as Megatron lays them out (fused QKV, fused
 * gate and up): its norms' weights (and biases), its linears' weights (and biases). */
double nd_model_layer_tensors(const nd_model *m);

/* Kind of decoder layer i (0-based, i < layers). */
nd_layer_kind nd_model_layer_kind(const nd_model *m, int64_t i);

/* Number of layers of a kind among layers [first, first + count). */
int64_t nd_model_count_kind(const nd_model *m, int64_t first, int64_t count, nd_layer_kind kind);

/* Loads a Hugging Face config.json (model types llama, mistral, mixtral, qwen2,
 * qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt2, gpt_neox, and a
 * generic decoder). Unknown model_type is refused with the list. m owns no memory: nothing to
 * free, on success or failure. */
int nd_model_load_hf_json(nd_model *m, const char *path, nd_error *err);

/* Same, from an already parsed text (used by the run loader). */
int nd_model_parse_hf_json(nd_model *m, const char *text, size_t len, const char *path, nd_error *err);

#endif
