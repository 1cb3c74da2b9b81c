#!/bin/sh
# tiny_moe.sh DIR [EXPERTS_IN_CHECKPOINT] — a 3-layer Qwen3-MoE checkpoint in DIR: config.json
# (hidden 64, 4 heads of 16, 2 KV heads, 4 experts of width 32, top 2, vocab 256) and
# model.safetensors with the tensors Transformers names, headers only (safetensors.sh). The
# checkpoint's experts per layer default to the config's 4; another count makes -V's census
# disagree with the config.
set -eu
dir=$1
experts=${2:-4}
mkdir -p "$dir"
cat > "$dir/config.json" <<'JSON'
{
  "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 64,
  "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
  "intermediate_size": 128, "moe_intermediate_size": 32, "num_experts": 4,
  "num_experts_per_tok": 2, "decoder_sparse_step": 1, "mlp_only_layers": [],
  "vocab_size": 256, "max_position_embeddings": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "rms_norm_eps": 1e-06
}
JSON
off=0
entry() { # name, shape, elements
  printf ',"%s":{"dtype":"BF16","shape":[%s],"data_offsets":[%d,%d]}' "$1" "$2" $off $((off + 2 * $3))
  off=$((off + 2 * $3))
}
{
  printf '{"__metadata__":{"format":"pt"}'
  entry lm_head.weight 256,64 16384
  entry model.embed_tokens.weight 256,64 16384
  for l in 0 1 2; do
    p=model.layers.$l
    entry $p.input_layernorm.weight 64 64
    e=0
    while [ $e -lt "$experts" ]; do
      entry $p.mlp.experts.$e.down_proj.weight 64,32 2048
      entry $p.mlp.experts.$e.gate_proj.weight 32,64 2048
      entry $p.mlp.experts.$e.up_proj.weight 32,64 2048
      e=$((e + 1))
    done
    entry $p.mlp.gate.weight "$experts,64" $((experts * 64))
    entry $p.post_attention_layernorm.weight 64 64
    entry $p.self_attn.k_norm.weight 16 16
    entry $p.self_attn.k_proj.weight 32,64 2048
    entry $p.self_attn.o_proj.weight 64,64 4096
    entry $p.self_attn.q_norm.weight 16 16
    entry $p.self_attn.q_proj.weight 64,64 4096
    entry $p.self_attn.v_proj.weight 32,64 2048
  done
  entry model.norm.weight 64 64
  printf '}'
} > "$dir/header.json"
sh "$(dirname "$0")/safetensors.sh" "$dir/header.json" > "$dir/model.safetensors"
rm "$dir/header.json"
