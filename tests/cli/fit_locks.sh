#!/bin/sh
# fit_locks.sh BIN_DIR SAMPLES — issue 27, "Hangs": nd-fit's locks cannot deadlock and create
# nothing. One file named by --write_ratios and --write_device (the same spelling, "./", a
# symlink, a hard link) is refused up front (exit 2, "named twice") and no file appears; two
# fits with their ratios and device files swapped, in two directories, run at once in a loop
# and every pair finishes (before the fix each held one lock and waited for the other's);
# a fit writing new files leaves no 0-byte file when it is refused.
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
run="$samples/runs/vtrain-gpt-h1024-l12.yaml" round="$samples/rounds/vtrain-gpt-h1024-l12.csv"
fit() { timeout 60 "$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto "$@"; }

mkdir same
for pair in "X X" "X ./X" "X L" "X H"; do
  a=${pair% *} b=${pair#* }
  rm -f same/*
  [ "$b" = L ] && ln -s X same/L
  [ "$b" = H ] && { echo '{}' >same/X; ln same/X same/H; }
  before=$(ls same | LC_ALL=C sort | tr '\n' ' ')
  (cd same && fit --write_ratios "$a" --write_device "$b" >../out 2>../err)
  status=$?
  why=""
  [ "$status" -eq 2 ] || why="exit status $status, expected 2"
  grep -q "is named twice as an output of this run" err || why="$why; stderr: $(tail -n 1 err)"
  after=$(ls same | LC_ALL=C sort | tr '\n' ' ')
  [ "$before" = "$after" ] || why="$why; files before: $before, after: $after"
  result "--write_ratios $a --write_device $b refused up front" "$why"
done

# ABBA: d1/X and d2/Y, locked by two fits in opposite roles, several times over.
mkdir d1 d2
why=""
for i in 1 2 3 4 5 6; do
  fit --write_ratios d1/X --write_device d2/Y >/dev/null 2>a.err &
  a=$!
  fit --write_ratios d2/Y --write_device d1/X >/dev/null 2>b.err &
  b=$!
  wait $a
  sa=$?
  wait $b
  sb=$?
  # 124: timeout killed it (a deadlock); 0 or 2 (a file of the other kind has no history)
  [ "$sa" -ne 124 ] && [ "$sb" -ne 124 ] || { why="pair $i deadlocked (exit $sa, $sb)"; break; }
  [ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] || { why="pair $i: exit $sa, $sb: $(tail -n 1 a.err) $(tail -n 1 b.err)"; break; }
done
result "two fits with X and Y swapped never deadlock" "$why"

# A refused fit (the round does not identify every ratio without --hold) creates nothing and
# says it wrote nothing (it printed "Device written to" and "Run list written to").
mkdir fresh
"$bin/nd-fit" -y "$run" --real_csv "$round" --write_ratios fresh/r.json --write_device fresh/d.yaml \
  --suggest 2 --run-list fresh/next.csv >out 2>err
status=$?
why=""
[ "$status" -eq 2 ] || why="exit status $status, expected 2"
[ -z "$(ls -A fresh)" ] || why="$why; left: $(ls -lA fresh | tr '\n' ' ')"
grep -q "Device written to" out && why="$why; says 'Device written to' of a file it did not write"
grep -q "Run list written to" out && why="$why; says 'Run list written to' of a file it did not write"
result "a refused fit leaves no file, says no 'written'" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
