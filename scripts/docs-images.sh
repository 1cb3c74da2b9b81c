#!/bin/sh
# docs-images.sh [BUILD_DIR] — copies the example images of docs/plots.md (each beside its
# .gp script and .dat data) from the demo's outputs, and the nd-classify ones from the real HTA traces in
# ../shared/traces when they are there. Run after scripts/demo.sh BUILD_DIR.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
demo=demo-out
images=docs/images
[ -d "$demo/search" ] || { echo "run scripts/demo.sh $build first" >&2; exit 2; }

# copy SRC_BASE NAME: SRC_BASE.png and .gp as images/NAME, the script's names changed to match.
copy() {
  src=$1 name=$2 stem=$(basename "$1")
  cp "$src.png" "$images/$name.png"
  cp "$src.dat" "$images/$name.dat"
  sed -e "s|$stem\\.png|$name.png|g" -e "s|$stem\\.dat|$name.dat|g" -e "s|$stem\\.gp|$name.gp|g" \
    "$src.gp" > "$images/$name.gp"
}
copy $demo/compare-corrected/llama3-8b-h100_parity parity
copy $demo/dlperf/dlperf-gpt-h1536-l16_parity parity_log_memory
copy $demo/compare-corrected/llama3-8b-h100_parts parts
copy $demo/dlperf/dlperf-gpt-h1536-l16_parts parts_step_only
copy $demo/search/ranking ranking
copy $demo/search-deepseek/memory memory
copy $demo/search/recompute_potentials recompute_potentials
copy $demo/fit/llama3-8b-h100_ratios fit_ratios
copy $demo/fit/llama3-8b-h100_loo fit_loo

hta=${ND_SHARED_TRACES:-../shared/traces}/pytorch_hta
if [ -f "$hta/trace_filter__sampled_rank-0.json.gz" ]; then
  tmp=$(mktemp -d)
  "$build/bin/nd-classify" "$hta/trace_filter__sampled_rank-0.json.gz" \
    "$hta/trace_filter__sampled_rank-1.json.gz" -o "$tmp" > /dev/null
  copy "$tmp/classify_ranks" classify_ranks
  copy "$tmp/classify_kernels" classify_kernels
  rm -rf "$tmp"
fi
ls "$images"

# A screenshot of one report (docs/report.md), when a headless Chromium is at hand.
chromium=$(command -v chromium || command -v chromium-headless-shell || true)
if [ -n "$chromium" ] && [ -f $demo/compare-corrected/report.html ]; then
  profile=$(mktemp -d)
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --hide-scrollbars --window-size=1100,2600 --screenshot="$PWD/$images/report.png" \
    "file://$PWD/$demo/compare-corrected/report.html" > /dev/null 2>&1
  rm -rf "$profile"
fi
