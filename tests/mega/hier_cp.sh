#!/bin/bash
# hier_cp.sh — a fuzz seed: unused_vars.sh with Megatron's two-level CP (--cp-comm-type a2a+p2p,
# --hierarchical-context-parallel-sizes over a line continuation), the list flag nd reads and rewrites whole.
# MindSpeed-style blocks the launch command leaves out (tests/cli_mega.cmake): RECOMPUTE_ARGS
# and SP_ARGS are defined but never expanded, so bash passes neither --recompute-* nor
# --sequence-parallel; GPT_ARGS extends itself ("$GPT_ARGS ...") and is passed.
NPUS_PER_NODE=8
NNODES=1
TP=4
PP=2
GPT_ARGS="
    --tensor-model-parallel-size ${TP} \
    --pipeline-model-parallel-size ${PP} \
    --num-layers 32 \
    --hidden-size 4096 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 32 \
    --group-query-attention \
    --num-query-groups 8 \
    --seq-length 8192 \
    --micro-batch-size 1 \
    --global-batch-size 64 \
    --vocab-size 128256 \
    --swiglu \
    --normalization RMSNorm \
    --position-embedding-type rope \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear --context-parallel-size 4 --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes 2 \
    2
"
GPT_ARGS="$GPT_ARGS --bf16"
RECOMPUTE_ARGS="
    --recompute-granularity full \
    --recompute-method block \
    --recompute-num-layers 16
"
SP_ARGS="
    --sequence-parallel
"
torchrun --nproc_per_node $NPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py $GPT_ARGS
