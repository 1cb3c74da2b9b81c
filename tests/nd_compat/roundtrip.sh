#!/bin/sh
# roundtrip.sh PLAN ORIGINAL RESOLVED KEYS [nd-estimate flags...] — the strategy nd-search
# wrote back into a framework's own file is the one it ranked first: nd-estimate reading
# RESOLVED prices the step PLAN/summary.json reports (to the 0.01 ms both print), and every
# line that differs between ORIGINAL and RESOLVED names one of the strategy's keys (the
# extended regex KEYS): the user's other keys and comments are kept.
set -u
plan=$1 orig=$2 resolved=$3 keys=$4
shift 4
best=$(sed -n 's/.*"best_step_ms": \([0-9.]*\).*/\1/p' "$plan/summary.json")
[ -n "$best" ] || { echo "FAIL: no best_step_ms in $plan/summary.json"; exit 1; }
want=$(printf '%.2f' "$best")
got=$(nd-estimate -y "$resolved" -v 1 "$@" | sed -n 's/^  step  *\([0-9.]*\) .*/\1/p')
[ "$got" = "$want" ] || { echo "FAIL: $resolved prices $got ms, the search ranked $want ms first"; exit 1; }
bad=$(diff "$orig" "$resolved" | grep '^[<>]' | grep -Ev -- "$keys")
[ -z "$bad" ] || { echo "FAIL: lines other than the strategy's changed:"; echo "$bad"; exit 1; }
echo "roundtrip ok: $want ms, $(diff "$orig" "$resolved" | grep -c '^[<>]') lines changed"
