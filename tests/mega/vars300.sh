#!/bin/sh
# vars300.sh SCRIPT OUT — SCRIPT with 300 variable assignments before it, then TP=8 used by
# --tensor-model-parallel-size $TP (issue 27: bash has no cap on a script's variables).
{ i=1; while [ $i -le 300 ]; do echo "V$i=$i"; i=$((i + 1)); done
  echo "TP=8"
  sed 's/--tensor-model-parallel-size 4/--tensor-model-parallel-size $TP/' "$1"; } >"$2"
