#!/bin/sh
# classify_concurrent_append.sh ND-CLASSIFY TRACE — 12 runs of nd-classify append to one
# round file at once (a job array of one profiling round): every row must be there. Without
# the lock about half such trials lost a row (issue 17, item 3).
set -u
classify=$1 trace=$2
dir=$(mktemp -d)
i=0
pids=""
while [ $i -lt 12 ]; do
    "$classify" "$trace" --dims DP=2,MP=1 --csv "$dir/round.csv" >/dev/null 2>"$dir/err$i" &
    pids="$pids $!"
    i=$((i + 1))
done
status=0
for p in $pids; do wait "$p" || status=1; done
lines=$(grep -c '' "$dir/round.csv")
temps=$(ls -A "$dir" | grep -c '^\.')
cat "$dir"/err* 2>/dev/null
rm -rf "$dir"
[ "$status" -eq 0 ] || { echo "FAIL: a run exited non-zero"; exit 1; }
[ "$lines" -eq 13 ] || { echo "FAIL: $lines lines, expected a header and 12 rows"; exit 1; }
[ "$temps" -eq 0 ] || { echo "FAIL: temporaries left behind"; exit 1; }
echo ok
