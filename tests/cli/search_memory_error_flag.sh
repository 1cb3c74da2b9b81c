#!/bin/sh
# nd-search flags a winner whose headroom under the budget is within the calibration's own
# 95 % memory error. The DLPerf h1536 round measured peak_mib, so nd-fit writes memory
# ratios with a spread; the best strategy on 8 V100 (DP 8, optimizer sharded 8 ways, MBS 2)
# then needs about 6,290 MiB, with a 95 % half-width of about 560 MiB (nd-estimate -c prints
# both). Under a 6,600 MiB budget it fits by ~310 MiB, less than that error: flagged '!'.
# Under 16 GB nothing is flagged.
set -eu
fit=$1 search=$2 samples=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=$samples/runs/dlperf-gpt-h1536-l16.yaml
"$fit" -y "$run" --real_csv "$samples/rounds/dlperf-gpt-h1536-l16.csv" --hold auto \
    --write_ratios "$dir/ratios.json" >/dev/null
"$search" -y "$run" -d 8 -b 16 -c "$dir/ratios.json" -t 1 -M 6600MB --no-progress >"$dir/tight.txt"
grep -q "! 1 of these fit by less than the calibration's 95 % error" "$dir/tight.txt" || {
    echo "no flag under a tight budget:"; cat "$dir/tight.txt"; exit 1; }
grep -Eq '^ +1 .* [0-9]+! ' "$dir/tight.txt" || { echo "row 1 not marked:"; cat "$dir/tight.txt"; exit 1; }
"$search" -y "$run" -d 8 -b 16 -c "$dir/ratios.json" -t 2 --no-progress >"$dir/roomy.txt"
if grep -q "fit by less than" "$dir/roomy.txt"; then echo "flagged under 16 GB:"; cat "$dir/roomy.txt"; exit 1; fi
echo ok
