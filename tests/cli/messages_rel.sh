#!/bin/sh
# messages_rel.sh BIN_DIR SAMPLES BAD — issue 27, messages: a bad strategy.txt in a sweep is
# the file's fault: one line naming it, exit 2, no "Try --help" (which is for the command
# line); `--hold ""` (and ",") names no key and is refused (it was accepted, holding nothing).
set -u
bin=$1 samples=$2 bad=$3
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
"$bin/nd-classify" --sweep "$bad/classify/bad_strategy" >out 2>err
status=$?
why=""
[ "$status" -eq 2 ] || why="exit $status"
grep -q "strategy.txt:1: --dims: unknown dimension 'XP'" err || why="$why; $(head -n 1 err)"
grep -q "Try" err && why="$why; says: $(grep Try err)"
[ "$(grep -c '' err)" -eq 1 ] || why="$why; $(grep -c '' err) lines on stderr"
result "a bad strategy.txt: one line, no 'Try --help'" "$why"

run="$samples/runs/vtrain-gpt-h1024-l12.yaml" round="$samples/rounds/vtrain-gpt-h1024-l12.csv"
for hold in "" ","; do
  "$bin/nd-fit" -y "$run" --real_csv "$round" --hold "$hold" >out 2>err
  status=$?
  why=""
  [ "$status" -eq 2 ] || why="exit $status"
  grep -q -- "--hold '$hold' names no key" err || why="$why; $(tail -n 1 err)"
  result "--hold '$hold' refused" "$why"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
