#!/bin/sh
# fit_keeps_ratios.sh ND-FIT RUN ROUND — a fit that must fail (the round cannot support it)
# exits 2 and leaves an existing ratios file exactly as it was.
set -u
fit=$1 run=$2 round=$3
dir=$(mktemp -d)
printf '{"COMPUTE": 1.25}\n' > "$dir/ratios.json"
cp "$dir/ratios.json" "$dir/before.json"
"$fit" -y "$run" --real_csv "$round" --mode total --write_ratios "$dir/ratios.json" 2>"$dir/err"
status=$?
ok=1
[ "$status" -eq 2 ] || { echo "FAIL: exit status $status, expected 2"; ok=0; }
cmp -s "$dir/ratios.json" "$dir/before.json" || { echo "FAIL: the ratios file changed"; ok=0; }
[ -z "$(ls -A "$dir" | grep -v -e '^ratios.json$' -e '^before.json$' -e '^err$')" ] ||
  { echo "FAIL: temporary files left behind: $(ls -A "$dir")"; ok=0; }
grep -q "cannot fit\|does not identify" "$dir/err" || { echo "FAIL: message: $(cat "$dir/err")"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ]
