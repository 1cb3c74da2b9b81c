#!/bin/sh
# run.sh BUILD_DIR SECONDS JOBS TARGET... — runs each fuzz target (BUILD_DIR/tests/fuzz_T
# or wherever CMake put it) for SECONDS, JOBS at a time, on a corpus kept in
# BUILD_DIR/fuzz-corpus/T (seeded from tests/fuzz/seeds.sh and the regressions), with
# crash inputs in BUILD_DIR/fuzz-artifacts/T/ and the log in BUILD_DIR/fuzz-logs/T.log.
# Prints one line per target with its exec count; exits 1 if any target failed.
set -u
build=$(cd "$1" && pwd) seconds=$2 jobs=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
seeds=$build/fuzz-seeds
sh "$here/seeds.sh" "$seeds" >/dev/null
mkdir -p "$build/fuzz-logs"

one() {
  t=$1
  exe=$(find "$build" -type f -name "fuzz_$t" -perm -u+x | head -n 1)
  [ -n "$exe" ] || { echo "fuzz_$t: not built" >"$build/fuzz-logs/$t.log"; return 1; }
  corpus=$build/fuzz-corpus/$t artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  dict=""
  [ -f "$here/dict/$t.dict" ] && dict="-dict=$here/dict/$t.dict"
  regress=""
  [ -d "$here/regressions/$t" ] && regress="$here/regressions/$t"
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb/-malloc_limit_mb: an
  # allocation sized by a number in the file shows up as an out-of-memory crash.
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=131072 -print_final_stats=1 -artifact_prefix="$artifacts/" $dict \
    "$corpus" "$seeds/$t" $regress </dev/null >"$build/fuzz-logs/$t.log" 2>&1
}

status=0
pids=""
running=0
for t in "$@"; do
  one "$t" &
  pids="$pids $!:$t"
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait
    running=0
  fi
done
wait
printf '%-16s %14s %10s %s\n' target execs exec/s result
for t in "$@"; do
  log=$build/fuzz-logs/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if grep -q -e '^==[0-9]*==ERROR' -e 'deadly signal' -e 'ERROR: libFuzzer' -e 'runtime error' \
       -e 'fuzz: bad refusal' "$log" || [ -z "$execs" ]; then
    result="FAILED: see $log and $build/fuzz-artifacts/$t/"
    status=1
  else
    result=ok
  fi
  printf '%-16s %14s %10s %s\n' "$t" "${execs:-?}" "${speed:-?}" "$result"
done
exit $status
