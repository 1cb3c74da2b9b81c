#!/bin/sh
# expect.sh STATUS PATTERN COMMAND...  — runs COMMAND, requires its exit status to be STATUS
# and its stderr (or stdout when STATUS is 0) to match the extended regex PATTERN; for a
# failure it also requires stderr to be one line, so every bad input gets one clear line.
status=$1; pattern=$2; shift 2
out=$(mktemp) err=$(mktemp)
"$@" >"$out" 2>"$err"
got=$?
fail() { echo "FAIL: $*"; echo "--- stdout"; head -c 2000 "$out"; echo "--- stderr"; cat "$err"; rm -f "$out" "$err"; exit 1; }
[ "$got" -eq "$status" ] || fail "exit status $got, expected $status: $*"
if [ "$status" -eq 0 ]; then
  grep -Eq -- "$pattern" "$out" || fail "stdout does not match /$pattern/"
else
  grep -Eq -- "$pattern" "$err" || fail "stderr does not match /$pattern/"
  lines=$(grep -c '' "$err")
  [ "$lines" -le 2 ] || fail "stderr has $lines lines, expected one message (and a hint)"
fi
rm -f "$out" "$err"
exit 0
