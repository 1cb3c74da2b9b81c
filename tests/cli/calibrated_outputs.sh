#!/bin/sh
# calibrated_outputs.sh ND-FIT ND-ESTIMATE ND-COMPARE ND-SEARCH SAMPLES — what -c carries from a
# fit's uncertainty: nd-estimate's and nd-compare's 95 % intervals (table and JSON/CSV), and
# nd-search's odds, byte-identical run to run and with 1 or 2 threads.
set -u
fit=$1 est=$2 cmp=$3 search=$4 samples=$5
run=$samples/runs/vtrain-gpt-h1024-l12.yaml round=$samples/rounds/vtrain-gpt-h1024-l12.csv
dir=$(mktemp -d)
ok=1
fail() { echo "FAIL: $*"; ok=0; }
"$fit" -y "$run" --real_csv "$round" --hold auto --write_ratios "$dir/r.json" > /dev/null 2>&1 || fail "nd-fit"
grep -q '"uncertainty"' "$dir/r.json" || fail "no uncertainty in the ratios file"
"$est" -y "$run" -c "$dir/r.json" --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" > "$dir/est" 2>&1 || fail "nd-estimate"
grep -q "95 % prediction interval of the step" "$dir/est" || fail "nd-estimate: no interval"
"$est" -y "$run" -c "$dir/r.json" --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" --json > "$dir/est.json" 2>&1
grep -q '"step_interval_ms"' "$dir/est.json" || fail "nd-estimate --json: no step_interval_ms"
"$cmp" -y "$run" --real_csv "$round" -c "$dir/r.json" -o "$dir/cmp" --no-plots > "$dir/cmp.out" 2>&1 || fail "nd-compare"
grep -q "95 % interval" "$dir/cmp.out" || fail "nd-compare: no interval"
head -1 "$dir/cmp/vtrain-gpt-h1024-l12_estimates.csv" | grep -q "score_lo,score_hi" || fail "estimates CSV"
for j in 1 2; do
  "$search" -y "$run" -d 8 -b 16 -c "$dir/r.json" -t 6 -j $j --no-progress -o "$dir/s$j" --no-plots \
    > "$dir/search$j" 2>/dev/null || fail "nd-search -j $j"
done
grep -q "P(fastest)" "$dir/search1" || fail "nd-search: no odds"
cmp -s "$dir/search1" "$dir/search2" || fail "nd-search output differs between -j 1 and -j 2"
cmp -s "$dir/s1/ranking.csv" "$dir/s2/ranking.csv" || fail "ranking.csv differs"
head -1 "$dir/s1/ranking.csv" | grep -q "headroom_mib,step_lo_ms,step_hi_ms,interval,p_fastest,tied_with_best" || fail "ranking columns"
grep -q '"choices"' "$dir/s1/summary.json" || fail "summary.json: no choices"
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
