#!/bin/sh
# plot_every_kind.sh BIN SRC — nd-plot draws again every plot an nd program draws (issue 24):
# each program writes its plot and the CSV behind it; nd-plot, given only the CSV, writes the
# same data (.dat byte for byte: the two are written by different code, the program's plot from
# its own numbers, nd-plot's from the CSV), under the program's own file name.
set -eu
bin=$1 src=$2
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
llama=$src/samples/runs/llama3-8b.yaml round=$src/samples/rounds/llama3-8b-h100.csv
fail=0
same() { # PROGRAM_DIR REDRAWN_DIR NAME
  if ! cmp -s "$1/$3.dat" "$2/$3.dat"; then echo "FAIL: $3.dat differs when nd-plot draws it again"; fail=1; fi
}
"$bin/nd-fit" -y "$llama" --real_csv "$round" --robust -o "$dir/fit" -q >/dev/null
"$bin/nd-plot" ratios "$dir/fit/llama3-8b-h100_ratios.csv" -o "$dir/again" -q --script-only
"$bin/nd-plot" loo "$dir/fit/llama3-8b-h100_loo.csv" -o "$dir/again" -q --script-only
same "$dir/fit" "$dir/again" llama3-8b-h100_ratios
same "$dir/fit" "$dir/again" llama3-8b-h100_loo
trace=$src/tests/data/classify/kernel_shapes.json
"$bin/nd-classify" "$trace" --dims DP=8 --detail "$dir/detail.csv" --kernels "$dir/kernels.csv" -o "$dir/cls" -q >/dev/null
"$bin/nd-plot" ranks "$dir/detail.csv" -o "$dir/again" -q --script-only
"$bin/nd-plot" kernels "$dir/kernels.csv" -o "$dir/again" -q --script-only
same "$dir/cls" "$dir/again" classify_ranks
same "$dir/cls" "$dir/again" classify_kernels
"$bin/nd-compare" -y "$llama" --real_csv "$round" -o "$dir/cmp" -q >/dev/null
"$bin/nd-plot" parity "$dir/cmp/llama3-8b-h100_estimates.csv" -o "$dir/again" -q --script-only
"$bin/nd-plot" parts "$dir/cmp/llama3-8b-h100_estimates.csv" -o "$dir/again" -q --script-only
same "$dir/cmp" "$dir/again" llama3-8b-h100_parity
same "$dir/cmp" "$dir/again" llama3-8b-h100_parts
"$bin/nd-search" -y "$llama" -d 64 -b 512 -ar -rp -t 5 -o "$dir/plan" -q --no-what-if >/dev/null
"$bin/nd-plot" ranking "$dir/plan/ranking.csv" -o "$dir/again" -q --script-only
"$bin/nd-plot" memory "$dir/plan/memory.csv" -o "$dir/again" -q --script-only
"$bin/nd-plot" potentials "$dir/plan/recompute_potentials.csv" -o "$dir/again" -q --script-only
same "$dir/plan" "$dir/again" memory
same "$dir/plan" "$dir/again" recompute_potentials
# the ranking: the same rows drawn (its labels name the CSV instead of the search in the title)
cmp -s "$dir/plan/ranking.dat" "$dir/again/ranking.dat" || { echo "FAIL: ranking.dat differs"; fail=1; }
# an unknown kind names every known one
msg=$("$bin/nd-plot" histogram "$dir/detail.csv" 2>&1 || true)
printf '%s\n' "$msg" | grep -q "known: parity, parts, ranking, memory, potentials, ratios, loo, ranks, kernels" ||
  { echo "FAIL: $msg"; fail=1; }
[ $fail = 0 ] && echo ok
