#!/bin/sh
# classify_then_compare.sh ND-CLASSIFY ND-COMPARE RUN TRACES_DIR — rows nd-classify writes from
# real traces load in nd-compare (the round file is the classified CSV nd-compare reads).
set -u
classify=$1 compare=$2 run=$3 traces=$4
dir=$(mktemp -d)
ok=1
"$classify" "$traces/pytorch_hta/nccl_parser_config__nccl_data.json.gz" \
    --dims DP=2,MP=1,PP=1,MB=1,OP=1 --csv "$dir/round.csv" >/dev/null || { echo "FAIL: classify DDP"; ok=0; }
"$classify" "$traces/pytorch_hta/trace_filter__sampled_rank-0.json.gz" \
    "$traces/pytorch_hta/trace_filter__sampled_rank-1.json.gz" \
    --dims DP=4,MP=1,PP=1,MB=2,OP=1 --csv "$dir/round.csv" >/dev/null || { echo "FAIL: classify sampled pair"; ok=0; }
[ "$(grep -c '' "$dir/round.csv")" -eq 3 ] || { echo "FAIL: round.csv should hold a header and 2 rows"; ok=0; }
"$compare" -y "$run" -A H100 --real_csv "$dir/round.csv" -o "$dir/out" --no-plots > "$dir/stdout" 2>"$dir/err" ||
    { echo "FAIL: nd-compare exited $?: $(cat "$dir/err")"; ok=0; }
grep -q "Comparison of 2 strategies" "$dir/stdout" || { echo "FAIL: nd-compare did not compare 2 rows"; ok=0; }
[ -f "$dir/out/round_estimates.csv" ] || { echo "FAIL: no estimates CSV"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ]
