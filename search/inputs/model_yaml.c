/*
 * model_yaml.c — a model as the `model:` keys of a run file (Hugging Face names), as
 * best.yaml and -V's census spec write it; nd_run_load reads them back.
 */
#include "nd/inputs/model_fields.h"

#include "nd/base/yaml_doc.h"

void nd_model_write_yaml(FILE *fp, const nd_model *m, const char *in)
{
    nd_yaml_write_text(fp, in, "model_type", m->type);
    nd_yaml_write_text(fp, in, "name", m->name);
    nd_yaml_write_int(fp, in, "hidden_size", m->hidden);
    nd_yaml_write_int(fp, in, "num_hidden_layers", m->layers);
    nd_yaml_write_int(fp, in, "num_attention_heads", m->heads);
    nd_yaml_write_int(fp, in, "num_key_value_heads", m->kv_heads);
    if (m->attention == ND_ATTN_MHA) nd_yaml_write_int(fp, in, "head_dim", m->head_dim);
    nd_yaml_write_int(fp, in, "intermediate_size", m->ffn);
    nd_yaml_write_int(fp, in, "vocab_size", m->vocab);
    nd_yaml_write_int(fp, in, "position_embeddings", m->max_positions);
    nd_yaml_write_int(fp, in, "max_position_embeddings", m->context_length);
    if (m->sliding_layers > 0) {
        nd_yaml_write_int(fp, in, "sliding_window", m->sliding_window);
        nd_yaml_write_int(fp, in, "sliding_layers", m->sliding_layers);
    }
    nd_yaml_write_text(fp, in, "norm", m->norm == ND_NORM_LAYER ? "layernorm" : "rmsnorm");
    nd_yaml_write_text(fp, in, "hidden_act", m->mlp == ND_MLP_PLAIN ? "gelu" : "silu");
    nd_yaml_write_bool(fp, in, "tie_word_embeddings", m->tied_embeddings);
    nd_yaml_write_bool(fp, in, "qkv_bias", m->qkv_bias);
    nd_yaml_write_bool(fp, in, "o_bias", m->o_bias);
    nd_yaml_write_bool(fp, in, "mlp_bias", m->mlp_bias);
    nd_yaml_write_bool(fp, in, "qk_norm", m->qk_norm);
    nd_yaml_write_bool(fp, in, "use_parallel_residual", m->parallel_residual);
    nd_yaml_write_bool(fp, in, "post_norms", m->post_norms);
    nd_yaml_write_int(fp, in, "num_experts", m->experts);
    nd_yaml_write_int(fp, in, "num_experts_per_tok", m->experts_per_token);
    nd_yaml_write_int(fp, in, "n_shared_experts", m->shared_experts);
    nd_yaml_write_int(fp, in, "moe_intermediate_size", m->moe_ffn);
    nd_yaml_write_int(fp, in, "shared_expert_intermediate_size", m->shared_ffn);
    nd_yaml_write_int(fp, in, "first_k_dense_replace", m->first_k_dense);
    nd_yaml_write_int(fp, in, "moe_layer_freq", m->moe_layer_freq);
    nd_yaml_write_int(fp, in, "decoder_sparse_step", m->moe_sparse_step);
    nd_yaml_write_double(fp, in, "capacity_factor", m->capacity_factor);
    nd_yaml_write_bool(fp, in, "router_bias", m->router_bias);
    nd_yaml_write_bool(fp, in, "shared_expert_gate", m->shared_expert_gate);
    if (m->attention == ND_ATTN_MLA) {
        nd_yaml_write_int(fp, in, "q_lora_rank", m->q_lora_rank);
        nd_yaml_write_int(fp, in, "kv_lora_rank", m->kv_lora_rank);
        nd_yaml_write_int(fp, in, "qk_nope_head_dim", m->qk_nope_head_dim);
        nd_yaml_write_int(fp, in, "qk_rope_head_dim", m->qk_rope_head_dim);
        nd_yaml_write_int(fp, in, "v_head_dim", m->v_head_dim);
    }
    nd_yaml_write_int(fp, in, "num_nextn_predict_layers", m->mtp_layers);
}
