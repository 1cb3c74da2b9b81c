#!/bin/sh
# mf_hybrid_cp.sh ESTIMATE SAMPLES — MindFormers' parallel_config.context_parallel_algo: hybrid_cp
# with ulysses_degree_in_cp. On Qwen3 32B at CP 2 a Ulysses part of 2 is Ulysses alone
# (ulysses_cp) and of 1 the ring alone (colossalai_cp, MindFormers' ring): each step equals the
# other's to the printed digit, and the two differ. Written back by SEARCH on 32 A2 (it picks CP 1),
# ulysses_degree_in_cp must divide context_parallel (1, not the old 2) and the file read back
# must price what the search printed.
set -eu
estimate=$1 samples=$2 search=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
step() {
    sed "s/^  use_seq_parallel: False.*/  use_seq_parallel: False\n  context_parallel: 2\n  context_parallel_algo: $1\n$2/" \
        "$samples/frameworks/real/pretrain_qwen3_32b_4k.yaml" >"$dir/c.yaml"
    "$estimate" -y "$dir/c.yaml" -A A2 -d 32 | grep '^ *step'
}
h2=$(step hybrid_cp "  ulysses_degree_in_cp: 2") u=$(step ulysses_cp "")
h1=$(step hybrid_cp "  ulysses_degree_in_cp: 1") r=$(step colossalai_cp "")
[ "$h2" = "$u" ] || { echo "hybrid 2 x 1 ($h2) is not Ulysses ($u)"; exit 1; }
[ "$h1" = "$r" ] || { echo "hybrid 1 x 2 ($h1) is not the ring ($r)"; exit 1; }
[ "$u" != "$r" ] || { echo "Ulysses and the ring price the same: the test shows nothing"; exit 1; }
# a Ulysses part CP 2 is not a multiple of is refused at its line, exit 2
if step hybrid_cp "  ulysses_degree_in_cp: 3" 2>"$dir/err"; then echo "ulysses_degree_in_cp 3 in CP 2 was priced"; exit 1; fi
grep -q 'c.yaml:[0-9]*: parallel_config.ulysses_degree_in_cp: 3 does not divide context_parallel 2' "$dir/err" ||
    { cat "$dir/err"; exit 1; }
step hybrid_cp "  ulysses_degree_in_cp: 2" >/dev/null
"$search" -y "$dir/c.yaml" -A A2 -d 32 -t 1 -o "$dir/w" --no-plots -q >"$dir/search.txt"
cp=$(sed -n 's/^  context_parallel: //p' "$dir/w/resolved.yaml")
u=$(sed -n 's/^  ulysses_degree_in_cp: //p' "$dir/w/resolved.yaml")
[ $((cp % u)) -eq 0 ] || { echo "written CP $cp is not a multiple of the Ulysses degree $u"; exit 1; }
searched=$(awk '$1 == "1" { print $(NF-3); exit }' "$dir/search.txt")
read_back=$("$estimate" -y "$dir/w/resolved.yaml" -A A2 -d 32 | awk '$1 == "step" { print $2 }')
[ "$searched" = "$read_back" ] || { echo "searched $searched ms, read back $read_back ms"; exit 1; }
echo ok
