#!/bin/sh
# fit_suggest.sh ND-FIT SAMPLES — nd-fit --suggest on the vTrain GPT-h1024-L12 round cut to its
# MP 1 rows, where MP_COMM is never exercised: the first design pick is a tensor-parallel
# strategy that narrows MP_COMM; no suggestion is a strategy the round already ran; the run
# list is the same bytes twice; a refused round names strategies to profile.
set -u
fit=$1 samples=$2
run=$samples/runs/vtrain-gpt-h1024-l12.yaml
dir=$(mktemp -d)
ok=1
fail() { echo "FAIL: $*"; ok=0; }
awk -F, 'NR == 1 || $2 == 1' "$samples/rounds/vtrain-gpt-h1024-l12.csv" > "$dir/mp1.csv"
for i in 1 2; do
  "$fit" -y "$run" --real_csv "$dir/mp1.csv" --hold auto --suggest 3 -d 8 -b 16 --run-list "$dir/next$i.csv" \
    > "$dir/out$i" 2>&1 || fail "nd-fit: $(tail -2 "$dir/out$i")"
done
cmp -s "$dir/next1.csv" "$dir/next2.csv" || fail "the run list differs between two runs"
head -1 "$dir/next1.csv" | grep -q "^DP,EP,MP,CP,PP,VPP,MB,MBS,SP,OP,recompute,estimated_ms,reason$" || fail "header"
pick=$(grep "D-optimal" "$dir/next1.csv" | head -1)
echo "$pick" | grep -q "narrows MP_COMM" || fail "first design pick: $pick"
mp=$(echo "$pick" | cut -d, -f3)
[ "$mp" -gt 1 ] || fail "first design pick has MP $mp"
# None of them is a strategy of the round (DP, MP, PP, MB, MBS compared).
tail -n +2 "$dir/next1.csv" | while IFS=, read -r dp ep mp cp pp vpp mb mbs rest; do
  if grep -q "^$dp,$mp,$pp,$mb,$mbs," "$dir/mp1.csv"; then echo "FAIL: suggests a profiled DP $dp MP $mp PP $pp MB $mb MBS $mbs"; fi
done | grep -q FAIL && fail "a profiled strategy was suggested"
"$fit" -y "$samples/runs/dlperf-gpt-h2304-l24.yaml" --real_csv "$samples/rounds/dlperf-gpt-h2304-l24.csv" \
  > /dev/null 2> "$dir/err"
grep -q "to separate them profile e.g. DP" "$dir/err" || fail "refusal: $(cat "$dir/err")"
# Issue 24: the sample round varies DP, MP, PP and VPP (its columns), never CP or EP. nd-search
# with the fitted ratios over every dimension names #1; when #1 uses a dimension the round never
# varied, nd-fit --suggest's first row is that #1, naming the dimension; when it does not, no row
# says so. The two programs find #1 through their own searches (search_cmd.c, fit_suggest.c).
"$fit" -y "$samples/runs/llama3-8b.yaml" --real_csv "$samples/rounds/llama3-8b-h100.csv" --robust \
  --write_ratios "$dir/cp_ratios.json" --suggest 4 -d 64 -b 512 --run-list "$dir/cp.csv" >/dev/null 2>&1 ||
  fail "--suggest on 64 H100"
search=$(dirname "$fit")/nd-search
"$search" -y "$samples/runs/llama3-8b.yaml" -d 64 -b 512 -c "$dir/cp_ratios.json" -t 1 -q --no-what-if \
  --ranking_csv "$dir/rank.csv" >/dev/null 2>&1 || fail "nd-search -c"
best=$(sed -n 2p "$dir/rank.csv")
cp=$(echo "$best" | cut -d, -f5) ep=$(echo "$best" | cut -d, -f3)
first=$(sed -n 2p "$dir/cp.csv")
if [ "$cp" -gt 1 ] || [ "$ep" -gt 1 ]; then
  echo "$first" | grep -q "which this round never varied" || fail "#1 has CP $cp EP $ep; first suggestion: $first"
  [ "$(echo "$first" | cut -d, -f4)" = "$cp" ] || fail "first suggestion's CP is not #1's ($cp): $first"
elif grep -q "never varied" "$dir/cp.csv"; then
  fail "#1 uses only dimensions the round varied, yet: $(grep 'never varied' "$dir/cp.csv")"
fi
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
