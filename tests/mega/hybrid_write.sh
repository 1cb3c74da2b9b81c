#!/bin/sh
# hybrid_write.sh SEARCH EST SCRIPT OUTDIR SEQ — MindSpeed's hybrid_cp_algo (Ulysses 2) written
# back by nd-search at SEQ tokens on 16 A2: the script's --ulysses-degree-in-cp must divide its
# --context-parallel-size (MindSpeed asserts it; CP 1 keeps 1, not the old 2), and the script
# read back must price what the search printed. Prints "CP=c U=u same" when both hold.
set -eu
search=$1 est=$2 script=$3 out=$4 seq=$5
sed "s|--disable-bias-linear|--disable-bias-linear --context-parallel-size 2 --context-parallel-algo hybrid_cp_algo --ulysses-degree-in-cp 2|;
     s|--seq-length [0-9]*|--seq-length $seq|; s|--max-position-embeddings [0-9]*|--max-position-embeddings $seq|" \
    "$script" >"$out/hybrid.sh"
"$search" -y "$out/hybrid.sh" -A A2 -d 16 -t 1 -o "$out/w" --no-plots -q >"$out/search.txt"
cp=$(grep -o -- '--context-parallel-size [0-9]*' "$out/w/resolved.sh" | cut -d' ' -f2)
u=$(grep -o -- '--ulysses-degree-in-cp [0-9]*' "$out/w/resolved.sh" | cut -d' ' -f2)
[ $((cp % u)) -eq 0 ] || { echo "CP $cp is not a multiple of the Ulysses degree $u"; exit 1; }
searched=$(awk '$1 == "1" { print $(NF-3); exit }' "$out/search.txt")
read_back=$("$est" -y "$out/w/resolved.sh" -A A2 -d 16 2>/dev/null | awk '$1 == "step" { print $2 }')
[ "$searched" = "$read_back" ] || { echo "searched $searched ms, read back $read_back ms"; exit 1; }
echo "CP=$cp U=$u same"
