#!/bin/bash
# Values nd does not read (tests/cli_mega.cmake): a count from a command's output, and TP from
# a variable set to one. GPUS leaves the world size to -d; TP is needed, so it is an error.
GPUS=`python3 -c "import torch; print(torch.cuda.device_count())"`
TP=$(cat tp.txt)
torchrun --nproc_per_node $GPUS pretrain_gpt.py --num-layers 2 --hidden-size 64 \
    --num-attention-heads 2 --vocab-size 32000 --seq-length 4096 --tensor-model-parallel-size ${TP:-2}
