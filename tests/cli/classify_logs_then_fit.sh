#!/bin/sh
# classify_logs_then_fit.sh ND-CLASSIFY ND-COMPARE ND-FIT RUN LOGS_DIR — a Megatron-LM log and a
# torchtitan log become round rows (time, peak_mib, degrees) that nd-compare and nd-fit read.
set -u
classify=$1 compare=$2 fit=$3 run=$4 logs=$5
dir=$(mktemp -d)
ok=1
"$classify" --log "$logs/megatron-lm-llama3-8b-tp2.log" "$logs/torchtitan-llama3-8b-fsdp8.log" \
    --log-config "$logs/torchtitan-llama3-8b.toml" --csv "$dir/round.csv" >/dev/null ||
    { echo "FAIL: classify the logs"; ok=0; }
[ "$(grep -c '' "$dir/round.csv")" -eq 3 ] || { echo "FAIL: round.csv should hold a header and 2 rows"; ok=0; }
"$compare" -y "$run" --real_csv "$dir/round.csv" -o "$dir/out" --no-plots >"$dir/cmp" 2>&1 ||
    { echo "FAIL: nd-compare: $(cat "$dir/cmp")"; ok=0; }
grep -q "measured 7266.1 ms" "$dir/cmp" || { echo "FAIL: nd-compare did not read the Megatron row"; ok=0; }
grep -q "measured 2213.46 ms" "$dir/cmp" || { echo "FAIL: nd-compare did not read the torchtitan row"; ok=0; }
grep -q "peak memory: measured 66342 MiB" "$dir/cmp" || { echo "FAIL: no measured peak"; ok=0; }
"$fit" -y "$run" --real_csv "$dir/round.csv" --hold auto --peak reserved \
    --write_ratios "$dir/ratios.json" >"$dir/fit" 2>&1 || { echo "FAIL: nd-fit: $(cat "$dir/fit")"; ok=0; }
[ -s "$dir/ratios.json" ] || { echo "FAIL: no ratios file"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
