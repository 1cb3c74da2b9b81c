#!/bin/sh
# compare_beside_input.sh ND-COMPARE RUN ROUND — without -o, nd-compare writes
# <stem>_estimates.csv and <stem>_report.json beside the round (as ND does), not into the
# directory it runs in, and draws no plot.
set -u
compare=$1 run=$2 round=$3
dir=$(mktemp -d)
ok=1
mkdir "$dir/rounds" "$dir/cwd"
cp "$round" "$dir/rounds/r.csv"
(cd "$dir/cwd" && "$compare" -y "$run" --real_csv ../rounds/r.csv >/dev/null 2>"$dir/err") ||
    { echo "FAIL: nd-compare exited $?: $(cat "$dir/err")"; ok=0; }
for f in r_estimates.csv r_report.json; do
    [ -s "$dir/rounds/$f" ] || { echo "FAIL: no $f beside the round"; ok=0; }
done
[ -z "$(ls -A "$dir/cwd")" ] || { echo "FAIL: wrote into the working directory: $(ls "$dir/cwd")"; ok=0; }
[ "$(ls "$dir/rounds" | grep -c '\.png$')" -eq 0 ] || { echo "FAIL: drew plots without -o"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
