#!/bin/sh
# nightly.sh ND-FIT ND-ESTIMATE SAMPLES — the nightly job's story (docs/calibration.md §The
# nightly job): rounds accumulate, each fit records its provenance (the rounds' files and a
# hash of their bytes) and the history of earlier fits, and a term that a new fit moves
# beyond its previous 95 % interval is reported as drift — in the ratios file and in the
# fitted device file, which --device-file still reads.
set -u
fit=$1 est=$2 samples=$3
run=$samples/runs/vtrain-gpt-h1024-l12.yaml src=$samples/rounds/vtrain-gpt-h1024-l12.csv
dir=$(mktemp -d)
ok=1
fail() { echo "FAIL: $*"; ok=0; }
head -121 "$src" > "$dir/round.csv"                            # night 1: 120 runs
"$fit" -y "$run" --real_csv "$dir/round.csv" --hold auto --write_ratios "$dir/r.json" > "$dir/n1" 2>&1 || fail "night 1"
grep -q '"fnv1a64"' "$dir/r.json" || fail "no provenance hash"
grep -q '"history"' "$dir/r.json" && fail "a first fit has no history"
tail -n +122 "$src" >> "$dir/round.csv"                        # night 2: the other 60 appended
"$fit" -y "$run" --real_csv "$dir/round.csv" --hold auto --write_ratios "$dir/r.json" > "$dir/n2" 2>&1 || fail "night 2"
grep -Eq "^(No drift|Drift since the fit in)" "$dir/n2" || fail "night 2 says nothing of drift"
grep -q '"rows": 120' "$dir/r.json" || fail "night 2's history lacks night 1's 120 rows"
# night 3: the cluster got slower, every step 25 % longer: COMPUTE leaves its interval.
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { $6 = $6 * 1.25; print }' "$dir/round.csv" > "$dir/slow.csv"
"$fit" -y "$run" --real_csv "$dir/slow.csv" --hold auto --write_ratios "$dir/r.json" > "$dir/n3" 2>&1 || fail "night 3"
grep -q "^Drift since the fit in $dir/r.json" "$dir/n3" || fail "no drift reported: $(grep -i drift "$dir/n3")"
grep -q "^  COMPUTE " "$dir/n3" || fail "COMPUTE's drift not listed"
grep -q '"key": "COMPUTE"' "$dir/r.json" || fail "_nd.drift lacks COMPUTE"
# The device: fitted on night 2's round, then on night 3's.
"$fit" -y "$run" --real_csv "$dir/round.csv" --write_device "$dir/d.yaml" > "$dir/d1" 2>&1 || fail "device 1"
"$fit" -y "$run" --real_csv "$dir/slow.csv" --write_device "$dir/d.yaml" > "$dir/d2" 2>&1 || fail "device 2"
grep -q "^Drift since the fit in $dir/d.yaml" "$dir/d2" || fail "no device drift: $(tail -3 "$dir/d2")"
grep -q "^  history:" "$dir/d.yaml" || fail "no fit.history"
"$est" -y "$run" --device-file "$dir/d.yaml" -A A100-fit --strategy "DP=8 MB=2 MBS=1" > /dev/null 2>&1 ||
  fail "--device-file cannot read the device with its history"
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
