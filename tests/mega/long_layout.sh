#!/bin/sh
# long_layout.sh OUT N — a launch script whose --pipeline-model-parallel-layout spells out N
# layers over two stages ('E' t*N/2 '|' t*N/2 'L', N + 3 bytes), for the value-length bound.
n=$2 half=$(($2 / 2))
{ printf "torchrun --nproc_per_node 8 x.py --num-layers %s --hidden-size 64 --num-attention-heads 2" "$n"
  printf " --vocab-size 32000 --seq-length 4096 --pipeline-model-parallel-size 2"
  printf " --pipeline-model-parallel-layout 'E"
  head -c "$half" /dev/zero | tr '\0' t; printf '|'; head -c $((n - half)) /dev/zero | tr '\0' t
  printf "L'\n"; } >"$1"
