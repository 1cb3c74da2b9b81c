#!/bin/sh
# fit_device_roundtrip.sh ND-FIT ND-ESTIMATE SAMPLES — nd-fit --write_device writes a device
# file that --device-file reads: the fitted device prices a strategy under its own name, and
# its fields are the ones the fit reported.
set -u
fit=$1 est=$2 samples=$3
dir=$(mktemp -d)
ok=1
"$fit" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --real_csv "$samples/rounds/vtrain-gpt-h1024-l12.csv" \
    --write_device "$dir/fitted.yaml" --device-name A100-test > "$dir/out" 2>&1 ||
  { echo "FAIL: nd-fit: $(cat "$dir/out")"; ok=0; }
grep -q "^Device A100-test fitted from A100 on 180 measured steps" "$dir/out" || { echo "FAIL: report"; ok=0; }
grep -q "^    base: A100$" "$dir/fitted.yaml" || { echo "FAIL: no base"; ok=0; }
"$est" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --device-file "$dir/fitted.yaml" -A A100-test \
    --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" > "$dir/est" 2>&1 || { echo "FAIL: nd-estimate: $(cat "$dir/est")"; ok=0; }
grep -q "on 8 x A100-test" "$dir/est" || { echo "FAIL: estimate: $(head -2 "$dir/est")"; ok=0; }
# host_dispatch_us, which every round exercises, is written with the value the report shows.
reported=$(awk '$1 == "host_dispatch_us" { print $3 }' "$dir/out")
written=$(awk '$1 == "host_dispatch_us:" { printf "%.5g\n", $2; exit }' "$dir/fitted.yaml")
[ -n "$reported" ] && [ "$reported" = "$written" ] || { echo "FAIL: reported $reported, written $written"; ok=0; }
# A device of the user's own file (not built in): the fitted file holds every figure and reads
# on its own, without the user's file (it once wrote "base: MINE", which nothing else defines).
printf 'devices:\n  MINE:\n    base: A100\n    host_dispatch_us: 9.5\n    intra_gbps: 280\n' > "$dir/cluster.yaml"
"$fit" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --real_csv "$samples/rounds/vtrain-gpt-h1024-l12.csv" \
    --device-file "$dir/cluster.yaml" -A MINE --write_device "$dir/mine-fit.yaml" > "$dir/out2" 2>&1 ||
  { echo "FAIL: nd-fit on MINE: $(tail -n 1 "$dir/out2")"; ok=0; }
grep -q "^    base: MINE" "$dir/mine-fit.yaml" && { echo "FAIL: names MINE as its base"; ok=0; }
grep -q "^    intra_gbps: 280$" "$dir/mine-fit.yaml" || { echo "FAIL: MINE's own intra_gbps not written"; ok=0; }
"$est" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --device-file "$dir/mine-fit.yaml" -A MINE-fit \
    --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" > "$dir/est2" 2>&1 ||
  { echo "FAIL: the fitted MINE alone: $(tail -n 1 "$dir/est2")"; ok=0; }
# A device with a list of measured tables: the fitted file attaches every one of them again
# (it once named only the first, so the fitted device lost the collectives).
printf 'devices:\n  MEAS:\n    base: A100\n    kernel_tables: [%s, %s]\n' \
  "$samples/devices/gemm/a100.csv" "$samples/devices/collectives/a100-allreduce.csv" > "$dir/meas.yaml"
"$fit" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --real_csv "$samples/rounds/vtrain-gpt-h1024-l12.csv" \
    --device-file "$dir/meas.yaml" -A MEAS --write_device "$dir/meas-fit.yaml" > "$dir/out3" 2>&1 ||
  { echo "FAIL: nd-fit on MEAS: $(tail -n 1 "$dir/out3")"; ok=0; }
grep -q '^    kernel_tables: \[".*/gemm/a100.csv", ".*/collectives/a100-allreduce.csv"\]$' "$dir/meas-fit.yaml" ||
  { echo "FAIL: tables not both attached: $(grep kernel_tables "$dir/meas-fit.yaml")"; ok=0; }
"$est" -y "$samples/runs/vtrain-gpt-h1024-l12.yaml" --device-file "$dir/meas-fit.yaml" -A MEAS-fit \
    --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" > "$dir/est3" 2>&1 ||
  { echo "FAIL: the fitted MEAS alone: $(tail -n 1 "$dir/est3")"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ] && echo ok
