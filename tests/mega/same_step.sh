#!/bin/sh
# same_step.sh EST SCRIPT OUTDIR A B ARGS... — inserts the flags A, then B, after
# --disable-bias-linear in the launch script SCRIPT, prices both with EST ARGS, and prints
# "same" when the two steps agree to the printed digit (else both steps).
set -eu
est=$1 script=$2 out=$3 a=$4 b=$5
shift 5
sed "s|--disable-bias-linear|--disable-bias-linear $a|" "$script" >"$out/same_a.sh"
sed "s|--disable-bias-linear|--disable-bias-linear $b|" "$script" >"$out/same_b.sh"
sa=$("$est" -y "$out/same_a.sh" "$@" | grep '^ *step')
sb=$("$est" -y "$out/same_b.sh" "$@" | grep '^ *step')
if [ "$sa" = "$sb" ]; then echo same; else echo "$sa / $sb"; fi
