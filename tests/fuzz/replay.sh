#!/bin/sh
# replay.sh FUZZ_TARGET NAME SEEDS_DIR — runs the target once on each input of
# tests/fuzz/regressions/NAME/ (every crash the fuzzers found, kept once fixed) and of
# SEEDS_DIR/NAME/ (tests/fuzz/seeds.sh). Fails on any crash, leak, hang or refusal
# that breaks nd's promise (fuzz_util.h).
set -u
exe=$1 name=$2 seeds=$3
here=$(cd "$(dirname "$0")" && pwd)
set --
for d in "$here/regressions/$name" "$seeds/$name"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
done
[ $# -gt 0 ] || { echo "no inputs for $name"; exit 0; }
"$exe" -timeout=20 -rss_limit_mb=2048 "$@" </dev/null >replay-"$name".log 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  tail -n 60 replay-"$name".log
  echo "FAIL: $name crashed on one of $# inputs (exit $rc)"
  exit 1
fi
echo "$name: $# inputs replayed, no crash"
