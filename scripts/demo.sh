#!/bin/sh
# demo.sh [BUILD_DIR [OUT_DIR]] — the whole nd workflow on the bundled samples, into OUT_DIR
# (default demo-out/):
#   price one strategy -> classify traces -> compare a round -> fit ratios -> compare
#   corrected -> plan with the ratios, plus a large MoE search and a real Megatron-LM round.
# Each command's full output goes to OUT_DIR/logs/; the terminal gets one line per step and
# a summary of where the plots and reports are.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-demo-out}
bin="$build/bin"
rm -rf "$out"
mkdir -p "$out/logs"
logs="$out/logs"
step=0

# run NAME WHAT COMMAND...: runs COMMAND with its output in logs/NAME.txt and says so on one
# line; on failure shows the log's end and stops.
run() {
  name=$1 what=$2
  shift 2
  step=$((step + 1))
  printf '%2d. %-58s' "$step" "$what"
  { echo "\$ $*"; echo; } > "$logs/$name.txt"
  if "$@" >> "$logs/$name.txt" 2>&1; then
    echo " $logs/$name.txt"
  else
    echo " FAILED"; tail -n 20 "$logs/$name.txt" >&2; exit 1
  fi
}

llama=samples/runs/llama3-8b.yaml
round=samples/rounds/llama3-8b-h100.csv
dlperf=samples/runs/dlperf-gpt-h1536-l16.yaml
dlperf_round=samples/rounds/dlperf-gpt-h1536-l16.csv

echo "nd demo: the workflow on the bundled samples, into $out/ (full outputs in $logs/)"
run estimate "price one strategy: Llama-3-8B on 64 H100" \
  "$bin/nd-estimate" -y $llama
"$bin/nd-estimate" -y $llama --json > "$out/estimate.json"
run classify "classify a torch.profiler trace into a round row" \
  "$bin/nd-classify" samples/traces/rank2.pt.trace.json --dims DP=2 --csv "$out/classified.csv" \
  -o "$out/classify" --report "$out/classify/report.html"
run classify-ascend "classify an Ascend profiler directory" \
  "$bin/nd-classify" samples/traces/ascend_worked --dims DP=8 --csv "$out/classified_ascend.csv"
run compare-raw "compare the sample round with the raw estimates" \
  "$bin/nd-compare" -y $llama --real_csv $round -o "$out/compare-raw" --report "$out/compare-raw/report.html"
run fit "fit per-part ratios (robust), leave-one-out checked" \
  "$bin/nd-fit" -y $llama --real_csv $round --robust --write_ratios "$out/ratios.json" \
  --report-json "$out/fit_report.json" -o "$out/fit" --report "$out/fit/report.html"
run compare-corrected "compare again with the fitted ratios" \
  "$bin/nd-compare" -y $llama --real_csv $round -c "$out/ratios.json" -o "$out/compare-corrected" \
  --report "$out/compare-corrected/report.html"
run search "search 64 H100 with the ratios, recompute per layer" \
  "$bin/nd-search" -y $llama -d 64 -b 512 -c "$out/ratios.json" -ar -rp -t 5 -j 2 -o "$out/search" \
  --report "$out/search/report.html"
run estimate-best "price the search's best.yaml again" \
  "$bin/nd-estimate" -y "$out/search/best.yaml" -c "$out/ratios.json"
run search-deepseek "search DeepSeek-V3 on 4,096 Ascend A3 dies" \
  "$bin/nd-search" -y samples/runs/deepseek-v3.yaml -ar -t 3 -j 2 -o "$out/search-deepseek" \
  --report "$out/search-deepseek/report.html"
run dlperf "compare a real Megatron-LM round (step times only)" \
  "$bin/nd-compare" -y $dlperf --real_csv $dlperf_round -o "$out/dlperf" --report "$out/dlperf/report.html"
run dlperf-fit "fit its ratios on the step times (total mode)" \
  "$bin/nd-fit" -y $dlperf --real_csv $dlperf_round --hold auto --write_ratios "$out/dlperf/ratios.json" \
  -o "$out/dlperf"

# A few numbers from the logs, from the lines the binaries printed.
accuracy() { # accuracy LABEL LOG: the step's row of nd-compare's accuracy table
  awk -v label="$1" '$1 == "total" && NF >= 7 {
    printf "  %-22s step MAPE %s, bias %s, worst %s over %s rows\n", label, $4, $5, $6, $7; exit }' "$logs/$2.txt"
}
best() { # best LABEL LOG: nd-search's table header and its first row
  awk -v label="$1" '/^ +TOP / { head = $0; next } head && /^ +1 / {
    printf "  %s\n  %s\n  %s\n", label, head, $0; exit }' "$logs/$2.txt"
}
echo
echo "Summary"
accuracy "raw estimates:" compare-raw
accuracy "after the fit:" compare-corrected
awk '$1 == "total" && $2 == "MAPE" { printf "  %-22s MAPE %s %%, worst %s %%\n", "leave-one-out:", $3, $6; exit }' "$logs/fit.txt"
accuracy "Megatron-LM round:" dlperf
best "best of 64 H100 (corrected by the fitted ratios):" search
best "best of 4,096 A3 dies for DeepSeek-V3:" search-deepseek
echo
echo "Reports (one page each, plots inline; open in a browser):"
find "$out" -name report.html | sort | sed 's/^/  /'
echo
echo "Plots (PNG, each beside its .gp script and .dat data):"
for d in classify compare-raw fit compare-corrected search search-deepseek dlperf; do
  [ -d "$out/$d" ] || continue
  printf '  %-20s %s\n' "$out/$d/" "$(cd "$out/$d" && ls *.png 2>/dev/null | tr '\n' ' ')"
done
