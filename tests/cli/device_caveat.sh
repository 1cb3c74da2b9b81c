#!/bin/sh
# device_caveat.sh BIN_DIR SAMPLES — a device whose kernel rates were not measured in training
# (H100: isolated benchmarks; GB300: its sibling's, assumed) says so beside every uncalibrated
# estimate, in text, JSON and the search's assumptions; a device measured in training (B200)
# or a device file stating its own rates does not. The caveat's figures are bench_decisions'
# (docs/benchmarks.md), so the test checks where it appears, not its numbers.
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
run=$samples/runs/llama3-8b.yaml
strategy="DP=8 MP=1 PP=1 MB=4 OP=8"
est() { "$bin/nd-estimate" -y "$run" -d 8 -b 32 --seq 4096 --strategy "$strategy" "$@"; }

est -A H100 >"$work/h100.txt" 2>&1
why=""
grep -q '^device H100: its GEMM and attention rates are isolated benchmarks. at an assumed in-training share' "$work/h100.txt" ||
  why="no caveat line"
result "H100 estimate states its rates' caveat" "$why"

est -A H100 --json >"$work/h100.json" 2>/dev/null
why=""
grep -q '"device_rates_caveat": "its GEMM and attention rates are isolated benchmarks. at an assumed in-training share' "$work/h100.json" ||
  why="JSON has no device_rates_caveat text"
result "H100 --json carries the caveat" "$why"

est -A GB300 >"$work/gb300.txt" 2>&1
why=""
grep -q '^device GB300: its GEMM rates are assumed, its Blackwell sibling'\''s' "$work/gb300.txt" || why="no caveat line"
result "GB300 estimate says its rates are assumed" "$why"

est -A B200 >"$work/b200.txt" 2>&1
est -A B200 --json >"$work/b200.json" 2>/dev/null
why=""
grep -q '^device B200:' "$work/b200.txt" && why="a caveat for a device measured in training"
grep -q '"device_rates_caveat": null' "$work/b200.json" || why="$why; JSON caveat is not null"
result "B200 (measured in training) has none" "$why"

# a file that states its own GEMM rate clears it; one that changes only the host keeps it
printf 'devices:\n  MINE:\n    base: H100\n    gemm_efficiency: 0.6\n  HOSTY:\n    base: H100\n    host_dispatch_us: 8\n' \
  >"$work/dev.yaml"
est -A MINE --device-file "$work/dev.yaml" >"$work/mine.txt" 2>&1
est -A HOSTY --device-file "$work/dev.yaml" >"$work/hosty.txt" 2>&1
why=""
grep -q '^device MINE:' "$work/mine.txt" && why="the file's own GEMM rate kept the base's caveat"
grep -q '^device HOSTY: its GEMM and attention rates are isolated benchmarks. at an assumed in-training share' "$work/hosty.txt" ||
  why="$why; a host-only override dropped the caveat"
result "a device file's own rates clear the caveat, others keep it" "$why"

# with ratios (-c) the estimate is calibrated: no caveat
"$bin/nd-fit" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --real_csv "$samples/rounds/vtrain-gpt-h1024-l12.csv" \
  --hold auto --write_ratios "$work/ratios.json" >/dev/null 2>&1
est -A H100 -c "$work/ratios.json" >"$work/cal.txt" 2>&1
why=""
grep -Eq '^  step +[0-9.]+ +100.0 %' "$work/cal.txt" || why="the calibrated estimate did not price"
grep -q '^device H100:' "$work/cal.txt" && why="$why; a calibrated estimate repeats the caveat"
grep -q '^uncalibrated' "$work/cal.txt" && why="$why; calibrated estimate called uncalibrated (ratios not read?)"
result "a calibrated estimate drops it" "$why"

"$bin/nd-search" -y "$run" -A H100 -d 8 -b 32 --seq 4096 -o "$work/s" >"$work/search.txt" 2>&1
why=""
grep -Eq '^  device +H100: its GEMM and attention rates are isolated benchmarks. at an assumed in-training share' "$work/search.txt" || why="no device assumption"
result "nd-search lists the caveat among its assumptions" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
