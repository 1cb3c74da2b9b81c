#!/bin/bash
# Every flag on one command line, beside quoted values and a ${VAR:-"..."} default
# (tests/cli_mega.cmake): flags nd adds go after whole shell words, never inside them.
CKPT=/tmp/ckpt
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --seq-length 4096 --global-batch-size 256 --micro-batch-size 1 --bf16 --swiglu --vocab-size 32000 --tensor-model-parallel-size 8 --tensorboard-dir "${CKPT}/tb board" --wandb-exp-name ${WANDB_NAME:-"my run"}
