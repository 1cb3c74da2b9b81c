#!/bin/sh
# round_trip.sh BIN_DIR SOURCE_DIR — issue 17, case 5: every file nd writes is read back by
# the binary that consumes it, and at the limits too; where a number travels it comes back
# the same to the last bit (the files hold the shortest text that reads back exactly).
#
#   best.yaml          nd-search -o      -> nd-estimate -y (the same step ms and peak MiB)
#   ranking.csv        nd-search -o      -> nd-plot ranking
#   memory.csv         nd-search -o, nd-estimate --memory-csv -> nd-plot memory
#   recompute_potentials.csv  nd-search -rp -> nd-plot potentials
#   round rows         nd-classify --csv -> nd-compare, nd-fit --real_csv
#   ratios             nd-fit --write_ratios -> nd-estimate, nd-search, nd-compare -c
#   estimates CSV      nd-compare        -> nd-plot parity, parts
#   device file        nd-fit --write_device -> --device-file
# Limits: a 200,000-layer model planned with -ar -ao (some 120,000 layers differ from the
# main mode: best.yaml's per-layer map is left out, its plan counts are at the model's
# size), a budget of 1 PiB (the largest memory size accepted).
set -u
bin=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
result() { if [ -z "$2" ]; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAIL: $1: $2"; fi; }
llama=$src/samples/runs/llama3-8b.yaml
round=$src/samples/rounds/llama3-8b-h100.csv

# A number from nd-estimate --json ("step_ms": 5373.11..., the first one) and from the
# ranking CSV's first row, column NAME.
json_number() { sed -n "s/^  \"$1\": \\([-0-9.e+]*\\),*\$/\\1/p" "$2" | head -n 1; }
csv_number() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 { print $c }' "$2"; }

# check NAME -- COMMAND: exit 0 is required.
check() {
  name=$1
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  status=$?
  if [ "$status" -eq 0 ]; then result "$name" ""; else result "$name" "exit $status: $(tail -n 1 "$work/err")"; fi
}

# best.yaml priced again gives the search's step and peak, bit for bit.
same_as_ranking() { # NAME DIR
  "$bin/nd-estimate" -y "$2/best.yaml" --json >"$work/est.json" 2>"$work/err" ||
    { result "$1" "nd-estimate refused best.yaml: $(tail -n 1 "$work/err")"; return; }
  want=$(csv_number step_ms "$2/ranking.csv") got=$(json_number step_ms "$work/est.json")
  want_mem=$(csv_number memory_mb "$2/ranking.csv") got_mem=$(json_number peak_mib "$work/est.json")
  if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$want_mem" = "$got_mem" ]; then result "$1" ""
  else result "$1" "search $want ms / $want_mem MiB, best.yaml $got ms / $got_mem MiB"; fi
}

"$bin/nd-search" -y "$llama" -d 8 -b 64 -t 3 --no-progress -ar -rp -o "$work/plan" >/dev/null 2>&1 ||
  result "nd-search -o" "failed"
same_as_ranking "best.yaml -> nd-estimate (the same ms and MiB)" "$work/plan"
check "ranking.csv -> nd-plot ranking" -- "$bin/nd-plot" ranking "$work/plan/ranking.csv" --script-only -o "$work/r"
check "memory.csv -> nd-plot memory" -- "$bin/nd-plot" memory "$work/plan/memory.csv" --script-only -o "$work/m"
check "recompute_potentials.csv -> nd-plot potentials" -- \
  "$bin/nd-plot" potentials "$work/plan/recompute_potentials.csv" --script-only -o "$work/p"

# At the limits: 200,000 layers (more than best.yaml lists one per line), a 1 PiB budget.
cat >"$work/deep.yaml" <<EOF
model:
  model_type: llama
  hidden_size: 128
  num_hidden_layers: 200000
  num_attention_heads: 2
  num_key_value_heads: 2
  intermediate_size: 256
  vocab_size: 1000
train:
  seq_len: 2048
  global_batch: 64
cluster:
  device: H100
  devices: 8
EOF
"$bin/nd-search" -y "$work/deep.yaml" -M 1200GB -l PP MB -ar -ao -t 1 --no-progress -o "$work/deep" >/dev/null 2>&1 ||
  result "nd-search -ar -ao on 200,000 layers" "failed"
same_as_ranking "best.yaml of 200,000 layers -> nd-estimate" "$work/deep"
size=$(wc -c <"$work/deep/best.yaml")
grep -q "layers differ from mode .*too many to list" "$work/deep/best.yaml" ||
  result "best.yaml of 200,000 layers" "the per-layer map was not left out"
[ "$size" -lt 16777216 ] && result "best.yaml of 200,000 layers under the 16 MiB nd reads ($size bytes)" "" ||
  result "best.yaml of 200,000 layers" "$size bytes"
"$bin/nd-estimate" -y "$llama" -M 1024TB --memory-csv "$work/pib.csv" >/dev/null 2>&1 ||
  result "nd-estimate -M 1024TB" "refused the largest budget"
check "memory.csv at a 1 PiB budget -> nd-plot memory" -- "$bin/nd-plot" memory "$work/pib.csv" --script-only -o "$work/pib"

# Round rows, ratios, estimates.
trace=$src/tests/data/classify/rank2.pt.trace.json
check "nd-classify --csv" -- "$bin/nd-classify" "$trace" --dims DP=8,MP=4,PP=2,MB=64 --csv "$work/rows.csv"
check "nd-classify rows -> nd-compare" -- "$bin/nd-compare" -y "$llama" --real_csv "$work/rows.csv" -o "$work/cmp1" --no-plots
check "nd-fit --write_ratios" -- "$bin/nd-fit" -y "$llama" --real_csv "$round" --robust --write_ratios "$work/ratios.json"
check "ratios -> nd-estimate -c" -- "$bin/nd-estimate" -y "$llama" -c "$work/ratios.json"
check "ratios -> nd-search -c" -- "$bin/nd-search" -y "$llama" -d 8 -b 64 -t 1 --no-progress -c "$work/ratios.json"
check "ratios -> nd-compare -c" -- "$bin/nd-compare" -y "$llama" --real_csv "$round" -c "$work/ratios.json" -o "$work/cmp" --no-plots
stem=$(basename "$round" .csv)
check "estimates CSV -> nd-plot parity" -- "$bin/nd-plot" parity "$work/cmp/${stem}_estimates.csv" --script-only -o "$work/par"
check "estimates CSV -> nd-plot parts" -- "$bin/nd-plot" parts "$work/cmp/${stem}_estimates.csv" --script-only -o "$work/prt"
if "$bin/nd-fit" --help 2>&1 | grep -q -- --write_device; then
  if "$bin/nd-fit" -y "$llama" --real_csv "$round" --write_device "$work/fitted.yaml" >"$work/out" 2>"$work/err"; then
    name=$(sed -n 's/^  \([^ :]*\):$/\1/p' "$work/fitted.yaml" | head -n 1)
    check "fitted device -> nd-estimate --device-file" -- \
      "$bin/nd-estimate" -y "$llama" --device-file "$work/fitted.yaml" -A "$name"
  else
    echo "skipped: nd-fit --write_device on this round: $(tail -n 1 "$work/err")"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
