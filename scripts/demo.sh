#!/bin/sh
# demo.sh BUILD_DIR — the whole nd workflow on the bundled samples, into demo-out/:
#   classify traces -> compare a round -> fit ratios -> compare corrected -> plan with -c,
# plus the real Megatron-LM round measured on V100s. Plots are PNG files beside their data.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
bin="$build/bin"
out=demo-out
rm -rf "$out"
mkdir -p "$out"
run() { echo; echo "\$ $*"; "$@"; }

echo "== 1. Price one strategy: Llama-3-8B on 64 H100 (samples/runs/llama3-8b.yaml)"
run "$bin/nd-estimate" -y samples/runs/llama3-8b.yaml
"$bin/nd-estimate" -y samples/runs/llama3-8b.yaml --json > "$out/estimate.json"

echo; echo "== 2. Classify profiler output into classified-CSV rows"
run "$bin/nd-classify" samples/traces/rank2.pt.trace.json --dims DP=2 --csv "$out/classified.csv"
run "$bin/nd-classify" samples/traces/ascend_worked --dims DP=8 --csv "$out/classified_ascend.csv"

echo; echo "== 3. Compare a profiling round with the raw estimates (plots in $out/compare-raw/)"
run "$bin/nd-compare" -y samples/runs/llama3-8b.yaml --real_csv samples/rounds/llama3-8b-h100.csv \
    -o "$out/compare-raw"

echo; echo "== 4. Fit per-part ratios (robust to the round's outlier), checked by leave-one-out"
run "$bin/nd-fit" -y samples/runs/llama3-8b.yaml --real_csv samples/rounds/llama3-8b-h100.csv \
    --robust --write_ratios "$out/ratios.json" --report-json "$out/fit_report.json"

echo; echo "== 5. Compare again with the fitted ratios (plots in $out/compare-corrected/)"
run "$bin/nd-compare" -y samples/runs/llama3-8b.yaml --real_csv samples/rounds/llama3-8b-h100.csv \
    -c "$out/ratios.json" -o "$out/compare-corrected"

echo; echo "== 6. Plan: search every strategy for 64 H100 with the fitted ratios, recompute chosen per"
echo "   layer, ranking, best.yaml, memory and recompute-potential plots in $out/search/"
run "$bin/nd-search" -y samples/runs/llama3-8b.yaml -d 64 -b 512 -c "$out/ratios.json" -ar -rp \
    -t 5 -j 2 -o "$out/search"
run "$bin/nd-estimate" -y "$out/search/best.yaml" -c "$out/ratios.json"

echo; echo "== 6b. A large MoE: DeepSeek-V3 on 4,096 Ascend A3 dies, global batch 8,192, per-layer recompute"
run "$bin/nd-search" -y samples/runs/deepseek-v3.yaml -ar -t 3 -j 2 -o "$out/search-deepseek"

echo; echo "== 7. A real round: Megatron-LM GPT on 1-32 V100s (only step times: total mode)"
run "$bin/nd-compare" -y samples/runs/dlperf-gpt-h1536-l16.yaml \
    --real_csv samples/rounds/dlperf-gpt-h1536-l16.csv -o "$out/dlperf"
run "$bin/nd-fit" -y samples/runs/dlperf-gpt-h1536-l16.yaml \
    --real_csv samples/rounds/dlperf-gpt-h1536-l16.csv --hold auto --write_ratios "$out/dlperf/ratios.json"

echo
echo "Done. Outputs in $out/:"
find "$out" -type f | sort | sed 's/^/  /'
