#!/bin/bash
# A launcher whose world size is shell arithmetic (tests/cli_mega.cmake): bash gives
# --nproc_per_node 8 --nnodes 2 (010 is octal 8; SLURM_NNODES unset takes its default).
GPUS_PER_NODE=$((2*4))
NNODES=${SLURM_NNODES:-"2"}
WORLD_SIZE=$(($GPUS_PER_NODE*$NNODES))
NODES=$(( (WORLD_SIZE / 8) + 010 - 8 ))
TP=2

torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NODES pretrain_gpt.py \
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
    --seq-length 4096 --global-batch-size 256 --micro-batch-size 1 --bf16 --swiglu \
    --tensor-model-parallel-size ${TP} --vocab-size 32000
