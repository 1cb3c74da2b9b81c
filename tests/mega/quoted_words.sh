#!/bin/bash
# Flags in quoted array elements, as Megatron-LM's examples/llama/train_llama3_8b_h100_fp8.sh
# writes them ("--vocab-size 128256"): ${ARGS[@]} unquoted splits each (tests/cli_mega.cmake).
GPUS_PER_NODE=8
NUM_NODES=1
TP_SIZE=1
MODEL_ARGS=(
    --num-layers 32
    --hidden-size 4096
    --ffn-hidden-size 14336
    --num-attention-heads 32
    --group-query-attention
    --num-query-groups 8
    --kv-channels 128
    --seq-length 8192
    --swiglu
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --normalization RMSNorm
    --position-embedding-type rope
)
TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 128
    --decoupled-lr 5.0e-4      # Specific to decoupled AdamW
    --bf16
    --grad-reduce-in-bf16
)
DTYPE_ARGS=()
if [[ "$DTYPE" == "fp8" ]]; then
    DTYPE_ARGS+=(
        "--fp8-format hybrid"
        "--fp8-amax-history-len 1024"
    )
fi
DATA_ARGS_LIST+=(
        "--tokenizer-type NullTokenizer"
        "--vocab-size 128256"
        "--split '99,1,0'"
)
MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP_SIZE
    # --pipeline-model-parallel-size $PP_SIZE # Not explicitly set
    --sequence-parallel  # Always enable
)
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NUM_NODES pretrain_gpt.py ${MODEL_ARGS[@]} ${TRAINING_ARGS[@]} ${DTYPE_ARGS[@]} ${DATA_ARGS_LIST[@]} ${MODEL_PARALLEL_ARGS[@]}
