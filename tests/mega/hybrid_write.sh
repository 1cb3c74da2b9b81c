#!/bin/sh
# hybrid_write.sh SEARCH EST SCRIPT OUTDIR SEQ DEVICE N FLAGS — a two-level CP written back by
# nd-search at SEQ tokens on N DEVICEs, FLAGS inserted after --disable-bias-linear in SCRIPT:
# MindSpeed's hybrid_cp_algo (--ulysses-degree-in-cp U must divide --context-parallel-size,
# as MindSpeed asserts; CP 1 keeps 1, not the old 2) or Megatron's a2a+p2p
# (--hierarchical-context-parallel-sizes U R with U x R the CP, as Megatron asserts; removed
# where the CP runs one level). The script read back must price what the search printed.
# Prints "CP=c U=u same" (U=- where the script states no two levels).
set -eu
search=$1 est=$2 script=$3 out=$4 seq=$5 device=$6 n=$7 flags=$8
sed "s|--disable-bias-linear|--disable-bias-linear $flags|;
     s|--seq-length [0-9]*|--seq-length $seq|; s|--max-position-embeddings [0-9]*|--max-position-embeddings $seq|" \
    "$script" >"$out/hybrid.sh"
"$search" -y "$out/hybrid.sh" -A "$device" -d "$n" -t 1 -o "$out/w" --no-plots -q >"$out/search.txt"
w="$out/w/resolved.sh"
cp=$(grep -o -- '--context-parallel-size [0-9]*' "$w" | cut -d' ' -f2)
u=-
if grep -q -- '--ulysses-degree-in-cp [0-9]' "$w"; then
    u=$(grep -o -- '--ulysses-degree-in-cp [0-9]*' "$w" | cut -d' ' -f2)
    [ $((cp % u)) -eq 0 ] || { echo "CP $cp is not a multiple of the Ulysses degree $u"; exit 1; }
elif grep -q -- '--hierarchical-context-parallel-sizes [0-9]' "$w"; then
    set -- $(grep -o -- '--hierarchical-context-parallel-sizes [0-9]* [0-9]*' "$w")
    u=$2
    [ $(($2 * $3)) -eq "$cp" ] || { echo "levels $2 x $3 are not CP $cp"; exit 1; }
fi
searched=$(awk '$1 == "1" { print $(NF-3); exit }' "$out/search.txt")
read_back=$("$est" -y "$w" -A "$device" -d "$n" 2>/dev/null | awk '$1 == "step" { print $2 }')
[ "$searched" = "$read_back" ] || { echo "searched $searched ms, read back $read_back ms"; exit 1; }
echo "CP=$cp U=$u same"
