#!/bin/sh
# outputs_commit_together.sh BIN_DIR SAMPLES — issue 17, cases 1, 2 and 4: an output never
# replaces an input (by any name: the same path, a hard link, a symlink), and is refused before
# the work (nothing on stdout); a run that fails replaces none of its outputs; long output paths and names are written where they were
# asked for. Each case checks the exit status, the message and the files byte for byte.
set -u
bin=$1 samples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
mkdir -p "$work/models" "$work/w"
cp "$samples/models/llama3-8b.json" "$work/models/"
cd "$work/w" || exit 1
cp "$samples/runs/llama3-8b.yaml" run.yaml # its config_json is ../models/llama3-8b.json
cp "$samples/rounds/llama3-8b-h100.csv" round.csv
fit="$bin/nd-fit -y run.yaml --real_csv round.csv --robust"

# The files of a directory with their checksums (temporaries included).
snapshot() { (cd "$1" && ls -A | LC_ALL=C sort | while read -r f; do
  if [ -f "$f" ]; then cksum "$f"; else echo "$f/"; fi; done); }

# check NAME STATUS REGEX DIR -- COMMAND...: COMMAND exits STATUS with its last stderr line
# matching REGEX, and leaves DIR (every file in it) as it was.
check() {
  name=$1 status=$2 regex=$3 dir=$4
  shift 5
  snapshot "$dir" >"$work/before"
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  why=""
  [ "$got" -eq "$status" ] || why="exit status $got, expected $status"
  [ -z "$regex" ] || tail -n 1 "$work/err" | grep -Eq -- "$regex" ||
    why="$why; stderr: $(tail -c 300 "$work/err")"
  # a refused input or output is refused before the work: nothing on stdout
  [ "$status" -ne 2 ] || [ ! -s "$work/out" ] || why="$why; stdout before the refusal: $(head -c 200 "$work/out")"
  snapshot "$dir" >"$work/after"
  cmp -s "$work/before" "$work/after" ||
    why="$why; $dir changed: $(diff "$work/before" "$work/after" | tr '\n' ' ')"
  if [ -z "$why" ]; then passed=$((passed + 1)); echo "ok: $name"
  else failed=$((failed + 1)); echo "FAIL: $name: $why"; fi
}
input='is also an input of this run; an output must not replace it'

# ---- 1: an output never replaces an input ----
check "nd-fit --write_ratios onto its round" 2 "round.csv: $input" . -- \
  $fit --write_ratios round.csv
ln round.csv hard.csv && ln -s round.csv soft.csv
check "nd-fit --write_ratios onto a hard link of its round" 2 "hard.csv: $input" . -- \
  $fit --write_ratios hard.csv
check "nd-fit --write_ratios onto a symlink to its round" 2 "soft.csv: $input" . -- \
  $fit --write_ratios soft.csv
check "nd-fit --write_ratios X --report-json X" 2 "X: is named twice as an output of this run" . -- \
  $fit --write_ratios X --report-json X
check "nd-fit --write_ratios X --report-json ./X" 2 "\./X: is named twice as an output of this run \(also as X\)" . -- \
  $fit --write_ratios X --report-json ./X
check "nd-fit --write_ratios onto the model's config.json" 2 "llama3-8b.json: $input" ../models -- \
  $fit --write_ratios ../models/llama3-8b.json
check "nd-estimate --memory-csv onto its run file" 2 "run.yaml: $input" . -- \
  "$bin/nd-estimate" -y run.yaml --memory-csv run.yaml
check "nd-search --ranking_csv onto its run file" 2 "run.yaml: $input" . -- \
  "$bin/nd-search" -y run.yaml -d 8 -b 64 --no-progress --ranking_csv run.yaml
"$bin/nd-compare" -y run.yaml --real_csv round.csv -o cmp --no-plots >/dev/null 2>&1
cp cmp/round_estimates.csv est.dat
check "nd-plot parity est.dat --name est (est.dat is the input)" 2 "est.dat: $input" . -- \
  "$bin/nd-plot" parity est.dat -o . --name est --script-only
cp "$samples/../tests/data/classify/rank2.pt.trace.json" t.json
check "nd-classify t.json --detail t.json" 2 "t.json: $input" . -- \
  "$bin/nd-classify" t.json --dims DP=2 --detail t.json
rm -f hard.csv soft.csv est.dat t.json

# ---- 2: a run that fails replaces none of its outputs ----
mkdir fit && $fit --write_ratios fit/ratios.json >/dev/null 2>&1
check "nd-fit --report-json into a missing directory keeps ratios.json" 1 \
  "missing/report.json: cannot write: No such file or directory" fit -- \
  $fit --write_ratios fit/ratios.json --report-json fit/missing/report.json
"$bin/nd-search" -y run.yaml -d 8 -b 64 --no-progress -o plan >/dev/null 2>&1
check "nd-search -o DIR --format gif keeps DIR" 2 "unknown plot format 'gif'" plan -- \
  "$bin/nd-search" -y run.yaml -d 4 -b 32 --no-progress -o plan --format gif
check "nd-search -y DIR/best.yaml -o DIR (its own answer read back)" 2 "-o plan/best.yaml: $input" plan -- \
  "$bin/nd-search" -y plan/best.yaml -d 8 -b 64 --no-progress -o plan
mkdir est && "$bin/nd-estimate" -y run.yaml -o est >/dev/null 2>&1
check "nd-estimate -o DIR --memory-csv DIR/memory.csv" 2 "est/memory.csv: is named twice as an output of this run" est -- \
  "$bin/nd-estimate" -y run.yaml -o est --memory-csv est/memory.csv
rm plan/best.yaml && mkdir plan/best.yaml
check "nd-search -o DIR with best.yaml a directory keeps DIR" 2 "best.yaml: is a directory" plan -- \
  "$bin/nd-search" -y run.yaml -d 4 -b 32 --no-progress -o plan
rmdir plan/best.yaml
if command -v gnuplot >/dev/null 2>&1; then
  "$bin/nd-compare" -y run.yaml --real_csv round.csv -o cmp >/dev/null 2>&1
  check "nd-compare without gnuplot on PATH keeps estimates, report and plots" 1 \
    "gnuplot not found on PATH" cmp -- \
    env PATH=/nonexistent "$bin/nd-compare" -y run.yaml -A A100 --real_csv round.csv -o cmp
else
  echo "skipped: nd-compare plots (no gnuplot)"
fi

# ---- 4: long output paths land where they were asked for ----
long=$(printf '%0250d' 0 | tr 0 d)      # a legal 250-byte name
deep=$long/$long/$long/$long/$long      # a 1,254-byte directory path
mkdir -p "$deep"
check "nd-search -o a 1,254-byte directory" 0 "" ../models -- \
  "$bin/nd-search" -y run.yaml -d 8 -b 64 -t 1 --no-progress --no-plots -o "$deep"
# (debug.csv and debug_mem.csv: ND's debug files, written at the default verbosity, -v 2)
for f in ranking.csv summary.json best.yaml memory.csv debug.csv debug_mem.csv; do
  [ -s "$deep/$f" ] || { failed=$((failed + 1)); echo "FAIL: $deep/$f missing"; }
done
[ "$(ls -A "$deep" | wc -l)" -eq 6 ] || { failed=$((failed + 1)); echo "FAIL: -o wrote $(ls -A "$deep")"; }
check "nd-search --ranking_csv a 250-byte file name" 0 "" ../models -- \
  "$bin/nd-search" -y run.yaml -d 8 -b 64 -t 1 --no-progress --ranking_csv "$deep/$long"
[ -s "$deep/$long" ] || { failed=$((failed + 1)); echo "FAIL: the 250-byte ranking CSV is missing"; }
if command -v gnuplot >/dev/null 2>&1; then
  cp round.csv "$deep/r.csv"
  check "nd-compare plots in a 1,254-byte directory" 0 "" ../models -- \
    "$bin/nd-compare" -y run.yaml --real_csv "$deep/r.csv" -o "$deep"
  [ -s "$deep/r_parity.png" ] || { failed=$((failed + 1)); echo "FAIL: r_parity.png missing"; }
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
