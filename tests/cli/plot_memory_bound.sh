#!/bin/sh
# plot_memory_bound.sh BIN_DIR SAMPLES — issue 27, "Bounds": nd-plot holds a CSV in about 3x
# its size (docs/limits.md). A 60 MB estimates CSV (nd-compare's own rows for the Llama-3-8B
# round, repeated to 204,001 lines) is plotted; its peak resident memory must stay under 4x
# the file (it was 5.9x, 353 MB: a malloc per cell). Measured with GNU time's %M; without it
# the test says so and passes.
set -u
bin=$1 samples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  echo "ok (skipped: no GNU time to measure the peak memory)"; echo "1 passed, 0 failed"; exit 0
fi
"$bin/nd-compare" -y "$samples/runs/llama3-8b.yaml" --real_csv "$samples/rounds/llama3-8b-h100.csv" \
  -o cmp --no-plots >/dev/null 2>&1
est=cmp/llama3-8b-h100_estimates.csv
awk 'NR == 1 { print; next } { row[n++] = $0 } END { for (i = 0; i < 17000; i++) for (k = 0; k < n; k++) print row[k] }' \
  "$est" >big.csv
size=$(wc -c <big.csv)
/usr/bin/time -f %M -o rss "$bin/nd-plot" parity big.csv -o par --script-only >/dev/null 2>err
status=$?
kb=$(tail -n 1 rss)
why=""
[ "$status" -eq 0 ] || why="exit $status: $(tail -n 1 err)"
[ $((kb * 1024)) -lt $((4 * size)) ] || why="$why; peak $kb KB for a $size-byte file (over 4x)"
if [ -z "$why" ]; then echo "ok: $size bytes plotted in $kb KB"; echo "1 passed, 0 failed"
else echo "FAIL: $why"; echo "0 passed, 1 failed"; exit 1; fi
