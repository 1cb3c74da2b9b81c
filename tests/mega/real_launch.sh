#!/bin/sh
# real_launch.sh BIN SCRIPT OUT KEYS [nd flags...] — a real public launch script, end to end:
# nd-search ranks its strategies and writes resolved.sh; nd-estimate reading resolved.sh
# prices the step the search ranked first, and only lines naming the strategy's flags (the
# extended regex KEYS) differ; then resolved.sh runs under bash with its launcher stubbed
# (torchrun and python as shell functions that print their arguments, shell-quoted), and
# the arguments bash passed, read back by nd, are the strategy resolved.sh states.
set -u
bin=$1 script=$2 out=$3 keys=$4
shift 4
PATH=$bin:$PATH
export PATH
rm -rf "$out" && mkdir -p "$out/run/logs" || exit 1
nd-search -y "$script" -t 1 -o "$out/plan" --no-plots -v 1 "$@" >"$out/search.txt" 2>&1 ||
  { echo "FAIL: nd-search"; cat "$out/search.txt"; exit 1; }
resolved=$out/plan/resolved.sh
[ -f "$resolved" ] || { echo "FAIL: no resolved.sh"; exit 1; }
best=$(sed -n 's/.*"best_step_ms": \([0-9.]*\).*/\1/p' "$out/plan/summary.json")
want=$(printf '%.2f' "$best")
nd-estimate -y "$resolved" -v 1 "$@" >"$out/resolved.txt" 2>&1 || { echo "FAIL: resolved.sh"; cat "$out/resolved.txt"; exit 1; }
got=$(sed -n 's/^  step  *\([0-9.]*\) .*/\1/p' "$out/resolved.txt")
[ "$got" = "$want" ] || { echo "FAIL: resolved.sh prices $got ms, the search ranked $want ms first"; exit 1; }
bad=$(diff "$script" "$resolved" | grep '^[<>]' | grep -Ev -- "$keys")
[ -z "$bad" ] || { echo "FAIL: lines other than the strategy's changed:"; echo "$bad"; exit 1; }
# the launcher stubbed: what bash hands torchrun / python, one shell-quoted word a line
(cd "$out/run" && bash -c '
  torchrun() { printf "%q\n" "$@" >launched.sh; }
  python() { printf "%q\n" "$@" >launched.sh; }
  export -f torchrun python
  bash "$0" ckpt tokenizer data </dev/null >/dev/null 2>&1' "$(cd "$(dirname "$resolved")" && pwd)/resolved.sh")
[ -s "$out/run/launched.sh" ] || { echo "FAIL: the stubbed launcher was not called"; exit 1; }
nd-estimate -y "$out/run/launched.sh" -f megatron -v 1 "$@" >"$out/launched.txt" 2>&1 ||
  { echo "FAIL: the launched arguments"; cat "$out/launched.txt"; exit 1; }
a=$(grep '^strategy:' "$out/resolved.txt") b=$(grep '^strategy:' "$out/launched.txt")
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: resolved.sh states '$a', bash launched '$b'"; exit 1; }
launched=$(sed -n 's/^  step  *\([0-9.]*\) .*/\1/p' "$out/launched.txt")
[ "$launched" = "$want" ] || { echo "FAIL: the launched arguments price $launched ms, not $want"; exit 1; }
echo "launch ok: $want ms, $(diff "$script" "$resolved" | grep -c '^[<>]') lines changed; $a"
