#!/bin/sh
# compare_beside_input.sh ND-COMPARE RUN ROUND — issue 24: "never a write into an input's
# folder unless asked". Without -o, nd-compare writes nothing (neither beside the round, as ND
# did, nor into the directory it runs in), says so in a note, and still prints its table; with
# -o naming the round's own directory (asked), the files go there, one "wrote PATH" line each.
set -u
compare=$1 run=$2 round=$3
dir=$(mktemp -d)
ok=1
mkdir "$dir/rounds" "$dir/cwd"
cp "$round" "$dir/rounds/r.csv"
(cd "$dir/cwd" && "$compare" -y "$run" --real_csv ../rounds/r.csv >"$dir/out" 2>"$dir/err") ||
    { echo "FAIL: nd-compare exited $?: $(cat "$dir/err")"; ok=0; }
[ "$(ls "$dir/rounds")" = "r.csv" ] || { echo "FAIL: wrote beside the round: $(ls "$dir/rounds")"; ok=0; }
[ -z "$(ls -A "$dir/cwd")" ] || { echo "FAIL: wrote into the working directory: $(ls "$dir/cwd")"; ok=0; }
grep -q "note: no -o DIR: r_estimates.csv and r_report.json are not written" "$dir/err" ||
    { echo "FAIL: no note saying nothing was written: $(cat "$dir/err")"; ok=0; }
grep -q "^Accuracy per part" "$dir/out" || { echo "FAIL: no table"; ok=0; }
(cd "$dir/cwd" && "$compare" -y "$run" --real_csv ../rounds/r.csv -o ../rounds --no-plots >/dev/null 2>"$dir/err2") ||
    { echo "FAIL: nd-compare -o exited $?"; ok=0; }
for f in r_estimates.csv r_report.json; do
    [ -s "$dir/rounds/$f" ] || { echo "FAIL: -o ../rounds wrote no $f"; ok=0; }
    grep -qx "nd-compare: wrote ../rounds/$f" "$dir/err2" || { echo "FAIL: no 'wrote' line for $f"; ok=0; }
done
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
