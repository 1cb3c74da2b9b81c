#!/bin/sh
# shared_flags.sh BIN SRC — issue 24: the flags every program shares (docs/cli.md, "One command
# line") behave identically in all six: each flag goes through each program, on a job that runs
# (absolute paths, from an empty working directory), and the outcome is what the table of
# docs/cli.md says: -h and --version print and exit 0; -v N is a level (-v 3 runs, -v 9 is
# refused with one message); -q leaves stderr empty; -o DIR puts every output in DIR (and none in
# the working directory) with one "wrote PATH" line per file; -V, -M and -c run where the program
# uses them and are refused, exit 2 with "does not apply", where it does not; an unknown flag is
# refused alike.
set -u
bin=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
llama=$src/samples/runs/llama3-8b.yaml round=$src/samples/rounds/llama3-8b-h100.csv
ratios=$src/samples/ratios/llama3-8b-h100.json
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The job each program runs, as words after its name.
job() {
  case $1 in
  nd-estimate) echo "-y $llama" ;;
  nd-search) echo "-y $llama -d 8 -b 64 -t 1 --no-what-if" ;;
  nd-compare | nd-fit) echo "-y $llama --real_csv $round" ;;
  nd-classify) echo "$src/samples/traces/rank2.pt.trace.json --dims DP=2" ;;
  nd-plot) echo "memory $src/tests/data/nd-plot/memory.csv --script-only" ;;
  esac
}
# Whether the program uses -V, -M, -c (docs/cli.md's table).
uses() { # PROGRAM FLAG
  case "$1 $2" in
  "nd-classify -V" | "nd-classify -M" | "nd-classify -c" | "nd-plot -V" | "nd-plot -c" | "nd-fit -c") return 1 ;;
  *) return 0 ;;
  esac
}
# run NAME PROGRAM WORDS...: in a fresh empty directory; status, out and err kept under NAME.
run() {
  name=$1 prog=$2
  shift 2
  mkdir -p "$dir/$name/cwd"
  (cd "$dir/$name/cwd" && "$bin/$prog" "$@" >"$dir/$name/out" 2>"$dir/$name/err")
  echo $? >"$dir/$name/status"
}
status() { cat "$dir/$1/status"; }

for p in nd-estimate nd-search nd-compare nd-fit nd-classify nd-plot; do
  # shellcheck disable=SC2046 # the job's words split on purpose
  set -- $(job $p)
  for h in -h --help; do
    run "$p$h" $p $h
    [ "$(status "$p$h")" = 0 ] || bad "$p $h exits $(status "$p$h")"
    grep -q "^usage: $p" "$dir/$p$h/out" || bad "$p $h: no usage line"
    grep -q "^Every nd program reads these alike" "$dir/$p$h/out" || bad "$p $h: no shared flags"
  done
  run "$p-version" $p --version
  [ "$(status "$p-version")" = 0 ] && grep -Eqx "$p [0-9]+\.[0-9]+\.[0-9]+" "$dir/$p-version/out" ||
    bad "$p --version: $(cat "$dir/$p-version/out")"
  run "$p-v3" $p "$@" -v 3
  [ "$(status "$p-v3")" = 0 ] || bad "$p -v 3 exits $(status "$p-v3"): $(tail -n 1 "$dir/$p-v3/err")"
  run "$p-v9" $p "$@" -v 9
  [ "$(status "$p-v9")" = 2 ] && grep -q "^$p: -v: '9' is not a level from 0 to 6$" "$dir/$p-v9/err" ||
    bad "$p -v 9: $(status "$p-v9") $(head -n 1 "$dir/$p-v9/err")"
  run "$p-v0" $p "$@" -v 0
  [ "$(status "$p-v0")" = 0 ] && [ ! -s "$dir/$p-v0/out" ] && [ ! -s "$dir/$p-v0/err" ] ||
    bad "$p -v 0 prints: $(head -c 200 "$dir/$p-v0/out" "$dir/$p-v0/err")"
  run "$p-q" $p "$@" -q
  [ "$(status "$p-q")" = 0 ] && [ ! -s "$dir/$p-q/err" ] || bad "$p -q: stderr $(head -n 2 "$dir/$p-q/err")"
  out=$dir/$p-o/into
  run "$p-o" $p "$@" -o "$out"
  if [ "$(status "$p-o")" != 0 ]; then
    bad "$p -o exits $(status "$p-o"): $(tail -n 1 "$dir/$p-o/err")"
  else
    [ -z "$(ls -A "$dir/$p-o/cwd")" ] || bad "$p -o wrote into the working directory: $(ls "$dir/$p-o/cwd")"
    files=$(ls "$out" | wc -l) wrote=$(grep -c "^$p: wrote $out/" "$dir/$p-o/err")
    [ "$files" -ge 1 ] && [ "$files" = "$wrote" ] || bad "$p -o: $files files in DIR, $wrote 'wrote' lines"
  fi
  for f in -V -M -c; do
    case $f in -M) arg=80GB ;; -c) arg=$ratios ;; *) arg= ;; esac
    # shellcheck disable=SC2086 # -V takes no value
    run "$p$f" $p "$@" $f $arg
    if uses $p $f; then
      [ "$(status "$p$f")" = 0 ] || bad "$p $f exits $(status "$p$f"): $(tail -n 1 "$dir/$p$f/err")"
    else
      [ "$(status "$p$f")" = 2 ] && grep -q "^$p: $f does not apply: " "$dir/$p$f/err" ||
        bad "$p $f: $(status "$p$f") $(head -n 1 "$dir/$p$f/err")"
    fi
  done
  run "$p-unknown" $p "$@" --frobnicate
  [ "$(status "$p-unknown")" = 2 ] && grep -q "^$p: unknown option '--frobnicate'" "$dir/$p-unknown/err" &&
    grep -qx "Try '$p --help'." "$dir/$p-unknown/err" || bad "$p --frobnicate: $(head -n 2 "$dir/$p-unknown/err")"
done
[ $fail = 0 ] && echo ok
