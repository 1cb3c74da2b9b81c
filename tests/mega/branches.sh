#!/bin/bash
# if/elif/else as bash takes them (tests/cli_mega.cmake): MODEL=70B picks 80 layers of 8192;
# TP 4 is above 2, so --sequence-parallel; DTYPE, which the script does not set, reads as
# empty, so no FP8, and the test nested under that branch is never read.
MODEL=70B
TP=4
if [ "$MODEL" == "8B" ]; then
    NL=32
    HS=4096
elif [[ $MODEL == "70B" ]]; then
    NL=80
    HS=8192
else
    NL=126
    HS=16384
fi
EXTRA="--use-distributed-optimizer"
if [ $TP -gt 2 ]; then
    EXTRA="$EXTRA --sequence-parallel"
fi
if [ ! -z "$DTYPE" ]; then
    EXTRA="$EXTRA --fp8-format hybrid"
    if [ "$DTYPE" = "fp8" ]; then
        NL=1
    fi
fi
torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py \
    --num-layers $NL --hidden-size $HS --ffn-hidden-size 28672 --num-attention-heads 64 \
    --group-query-attention --num-query-groups 8 --swiglu --seq-length 4096 \
    --global-batch-size 128 --micro-batch-size 1 --bf16 --vocab-size 128256 \
    --untie-embeddings-and-output-weights --disable-bias-linear --normalization RMSNorm \
    --position-embedding-type rope \
    --tensor-model-parallel-size $TP --pipeline-model-parallel-size 2 $EXTRA
