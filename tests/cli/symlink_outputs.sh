#!/bin/sh
# symlink_outputs.sh BIN_DIR SAMPLES TRACE — issue 27: an output named through a symlink is
# written through it. `nd-fit --write_ratios L` (L -> real/ratios.json, relative) and
# `nd-classify --csv L` (a round file through a link) replace the file the link names and
# leave the link a link (they replaced the link with a regular file); a dangling link gets
# its target created.
set -u
bin=$1 samples=$2 trace=$3
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
run="$samples/runs/vtrain-gpt-h1024-l12.yaml" round="$samples/rounds/vtrain-gpt-h1024-l12.csv"
mkdir real links
echo '{}' >real/ratios.json
ln -s ../real/ratios.json links/L
"$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto --write_ratios links/L >/dev/null 2>err
status=$?
why=""
[ "$status" -eq 0 ] || why="exit $status: $(tail -n 1 err)"
[ -L links/L ] || why="$why; links/L is no longer a symlink"
grep -q '"_nd"' real/ratios.json || why="$why; real/ratios.json was not replaced"
[ -z "$(ls -A real | grep '^\.')" ] || why="$why; temporaries left in real/"
result "--write_ratios through a symlink replaces its target, keeps the link" "$why"

ln -s ../real/new.json links/D
"$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto --write_ratios links/D >/dev/null 2>err
why=""
[ -L links/D ] || why="links/D is no longer a symlink"
grep -q '"_nd"' real/new.json 2>/dev/null || why="$why; real/new.json not written: $(tail -n 1 err)"
result "--write_ratios through a dangling symlink creates its target" "$why"

ln -s ../real/round.csv links/R
"$bin/nd-classify" "$trace" --dims DP=2,MP=1 --csv links/R >/dev/null 2>err
"$bin/nd-classify" "$trace" --dims DP=2,MP=1 --csv links/R >/dev/null 2>>err
why=""
[ -L links/R ] || why="links/R is no longer a symlink"
lines=$(grep -c '' real/round.csv 2>/dev/null)
[ "$lines" = 3 ] || why="$why; real/round.csv has ${lines:-no} lines, expected a header and 2 rows: $(tail -n 1 err)"
result "nd-classify --csv through a symlink appends to its target" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
