#!/bin/sh
# search_same_output.sh ND-SEARCH RUN — nd-search writes byte-identical files and stdout with
# -j 1 and -j 2 (the ranking is a total order, not thread order).
set -u
search=$1 run=$2
dir=$(mktemp -d)
for j in 1 2; do
  "$search" -y "$run" -d 64 -b 256 -ar -j $j -t 5 --no-progress --ranking_csv "$dir/rank$j.csv" \
      -o "$dir/out$j" -rp > "$dir/stdout$j" 2>/dev/null || { echo "FAIL: nd-search -j $j exited $?"; exit 1; }
done
ok=1
cmp -s "$dir/rank1.csv" "$dir/rank2.csv" || { echo "FAIL: ranking CSV differs"; ok=0; }
cmp -s "$dir/stdout1" "$dir/stdout2" || { echo "FAIL: stdout differs"; ok=0; }
for f in ranking.csv best.yaml summary.json ranking.gp ranking.dat memory.gp memory.dat \
         recompute_potentials.csv recompute_potentials.gp; do
  cmp -s "$dir/out1/$f" "$dir/out2/$f" || { echo "FAIL: $f differs or is missing"; ok=0; }
done
[ "$(wc -l < "$dir/rank1.csv")" -gt 10 ] || { echo "FAIL: too few ranked strategies"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ]
