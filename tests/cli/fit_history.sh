#!/bin/sh
# fit_history.sh BIN_DIR SAMPLES — issue 27: the history a refit carries is real numbers and
# bounded. A device refitted keeps the first fit as `fit.history`: its rows (180, the steps
# the first fit reports) and each parameter's value as the first file's `fit.parameters`
# wrote it (it was `{rows: null, parameters: {all 0}}`). A ratios file whose `_nd.history`
# holds 300 entries of 32 rounds with 1,000-byte names (9.7 MB) refits into a file `-c`
# reads (under 4 MiB; it grew to 5.2 MB and was refused), keeping the last 50 entries.
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
run="$samples/runs/vtrain-gpt-h1024-l12.yaml" round="$samples/rounds/vtrain-gpt-h1024-l12.csv"
fit() { "$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto "$@"; }

fit --write_device d.yaml >/dev/null 2>&1
first=$(awk '/^  parameters:/ { p = 1; next } p && /^    host_dispatch_us:/ { sub(/.*value: /, ""); sub(/,.*/, ""); print; exit }' d.yaml)
fit --write_device d.yaml >out 2>&1
entry=$(awk '/^  history:/ { getline; print; exit }' d.yaml)
why=""
[ -n "$first" ] || why="no host_dispatch_us in the first file's fit.parameters"
case $entry in
  *"{rows: 180, parameters: {"*"host_dispatch_us: $first"[,}]*) ;;
  *) why="$why; history entry: $entry (expected rows 180, host_dispatch_us $first)" ;;
esac
"$bin/nd-estimate" -y "$run" --device-file d.yaml -A A100-fit --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" \
  >/dev/null 2>err || why="$why; --device-file refuses it: $(tail -n 1 err)"
result "fit.history: the earlier fit's rows and values, as numbers" "$why"

fit --write_ratios r.json >/dev/null 2>&1
name=$(awk 'BEGIN { while (n++ < 1000) printf "r"; print "" }')
awk -v name="$name" '
  /^  "_nd": \{$/ && !done {
    print; printf "    \"history\": ["
    for (e = 0; e < 300; e++) {
      printf "%s{\"rows\": %d, \"rounds\": [", e ? ", " : "", e
      for (r = 0; r < 32; r++) printf "%s{\"csv\": \"%s\", \"rows\": 1}", r ? ", " : "", name
      printf "], \"ratios\": {\"COMPUTE\": %d}}", e
    }
    print "],"; done = 1; next
  }
  { print }' r.json >big.json
mv big.json r.json
big=$(wc -c <r.json)
fit --write_ratios r.json >/dev/null 2>err
status=$?
size=$(wc -c <r.json)
why=""
[ "$big" -gt 9000000 ] || why="the crafted file is only $big bytes"
[ "$status" -eq 0 ] || why="$why; refit exit $status: $(tail -n 1 err)"
[ "$size" -lt 4194304 ] || why="$why; the refit is $size bytes"
"$bin/nd-estimate" -y "$run" -c r.json --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" >/dev/null 2>err || why="$why; -c refuses it: $(tail -n 1 err)"
# The last 50 entries: the crafted 250..299 (49 of them) and the first fit, none older.
grep -Eq '"COMPUTE": 251([^0-9]|$)' r.json || why="$why; entry 251 is gone"
grep -Eq '"COMPUTE": 250([^0-9]|$)' r.json && why="$why; entry 250 is still there (more than 50 kept)"
result "a huge _nd.history refits into a file -c reads, the last 50 kept" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
