#!/bin/sh
# simumax.sh BIN_DIR SAMPLES — SimuMax's run files (-f simumax: the strategy JSON as -y, the model
# JSON as --model-config), read with SimuMax's meaning of each field (docs/frameworks.md):
# - the sample's strategy against its fields worked by hand: world_size 8 over tp 2 x pp 2 is
#   DP 2, 16 micro-batches of 1 are a global batch of 2 x 16 x 1 = 32, zero_state 1 shards the
#   optimizer over DP, sequence parallel over TP 2, full_block over the first 4 of a stage's 16
#   layers (priced so without -mppb: SimuMax prices its counts);
# - Llama 3 8B's model JSON gives Meta's published 8,030,261,248 parameters; DeepSeek-V3's gives
#   the 671 B of the report's main model (SimuMax prices no MTP module) and 37 B active;
# - a bad field is refused (exit 2) naming the file and the field (a model field the model JSON,
#   not the strategy); a strategy without a model says which flag gives it;
# - nd-search's choice goes back into resolved_strategy.json, which reads as the choice.
set -u
bin=$1 samples=$(cd "$2" && pwd)
. "$(dirname "$0")/results.sh"
sm=$samples/frameworks/simumax

"$bin/nd-estimate" -y "$sm/tp2-pp2-dp2.strategy.json" --model-config "$sm/llama3-8b.model.json" -A B200 \
  >"$work/8b.txt" 2>&1
why=""
grep -q "^strategy: DP=2 MP=2 PP=2 CP=1 EP=1 ETP=2 OP=2 ZERO=1 VPP=1 MB=16 MBS=1 SP=1 recompute=full" \
  "$work/8b.txt" || why="strategy line: $(grep '^strategy' "$work/8b.txt")"
grep -q "on 8 x B200, global batch 32 x 8192 tokens" "$work/8b.txt" || why="$why; devices, batch or sequence"
grep -q "^parameters: 8,030,261,248," "$work/8b.txt" || why="$why; parameters"
grep -q "framework: megatron" "$work/8b.txt" || why="$why; framework"
# full_block over the first 4 of each stage's 16 layers, as SimuMax prices it (no -mppb needed)
grep -q "full/selective/off layers: 4/0/12 4/0/12" "$work/8b.txt" || why="$why; recompute counts not priced"
result "SimuMax strategy and Llama 3 8B model read as worked by hand" "$why"

"$bin/nd-estimate" -y "$sm/ep8-pp8-dp64.strategy.json" --model-config "$sm/deepseek-v3.model.json" -A H800 \
  >"$work/ds.txt" 2>&1
why=""
grep -q "^parameters: 671,0[0-9,]*, active per token 37,[0-9,]*$" "$work/ds.txt" ||
  why="parameters: $(grep '^parameters' "$work/ds.txt")"
grep -q "^strategy: DP=64 MP=1 PP=8 CP=1 EP=8 ETP=1 OP=64 ZERO=1 VPP=1 MB=32 MBS=1 SP=0 recompute=selective" \
  "$work/ds.txt" || why="$why; strategy line: $(grep '^strategy' "$work/ds.txt")"
grep -q "FIRST=7 LAST=6" "$work/ds.txt" || why="$why; first and last stage layers"
result "DeepSeek-V3 in SimuMax's model JSON: 671 B without MTP, 37 B active, EP 8 x PP 8" "$why"

# bad inputs: one field each, exit 2 and a message naming the file and the field
bad() { # NAME FIELD-EDIT REGEX [model]
  name=$1 edit=$2 regex=$3
  sed "$edit" "$sm/tp2-pp2-dp2.strategy.json" >"$work/$name.json"
  model=$sm/llama3-8b.model.json
  if [ "${4:-}" = model ]; then
    cp "$sm/tp2-pp2-dp2.strategy.json" "$work/$name.json"
    sed "$edit" "$sm/llama3-8b.model.json" >"$work/$name.model.json"
    model=$work/$name.model.json
  fi
  "$bin/nd-estimate" -y "$work/$name.json" --model-config "$model" -A B200 >"$work/$name.out" 2>&1
  rc=$?
  why=""
  [ "$rc" -eq 2 ] || why="exit $rc, not 2"
  grep -Eq "$regex" "$work/$name.out" || why="$why; message: $(head -1 "$work/$name.out")"
  result "refused: $name" "$why"
}
# each refusal names the key's line (SimuMax's files as bundled: dtype on line 5, tp_size on 7;
# hidden_size on the model's line 4, use_swiglu on 11)
bad dtype 's/"bf16"/"bf17"/' "dtype.json:5: dtype: 'bf17' is not bf16, fp16 or fp32"
bad tp_text 's/"tp_size": 2/"tp_size": "x"/' "tp_text.json:7: tp_size: .* is not a whole number from 1 to"
bad width 's/"hidden_size": 4096/"hidden_size": 4294967296/' "width.model.json:4: hidden_size: " model
bad zero_state 's/"zero_state": 1/"zero_state": 3/' "zero_state: 3 is not 0 or 1"
bad world 's/"world_size": 8/"world_size": 6/' "world_size: 6 is not a multiple of tp_size x pp_size = 4"
bad granularity 's/"full_block"/"mlp_only"/' "recompute_granularity: 'mlp_only' is not full_block"
bad no_micro_batches '/micro_batch_num/d' "micro_batch_num is not stated"
bad fraction 's/"tp_size": 2/"tp_size": 1.5/' "tp_size: 1.5 is not a whole number"
bad sp_word 's/"enable_sequence_parallel": true/"enable_sequence_parallel": "yes"/' \
  "enable_sequence_parallel: not true or false"
bad attention 's/"use_swiglu": true/"use_swiglu": true, "attention_type": "gqa"/' \
  "model.json:11: attention_type: 'gqa' is not mha or mla" model
# a size the model file lacks is named with that file, not the strategy beside it (found by fuzz_simumax)
bad no_width '/intermediate_size/d' "no_width.model.json: model field intermediate_size is missing or 0" model

"$bin/nd-estimate" -f simumax -y "$sm/tp2-pp2-dp2.strategy.json" -A B200 >"$work/nomodel.out" 2>&1
rc=$?
why=""
[ "$rc" -eq 2 ] || why="exit $rc, not 2"
grep -q "holds no model: give its model JSON with --model-config FILE" "$work/nomodel.out" || why="$why; message"
result "a strategy without --model-config names the flag" "$why"

# a companion file another format would ignore is refused, not ignored
"$bin/nd-estimate" -y "$samples/runs/llama3-8b.yaml" --model-config "$sm/llama3-8b.model.json" >"$work/mc.out" 2>&1
rc=$?
why=""
[ "$rc" -eq 2 ] || why="exit $rc, not 2"
grep -q "^nd-estimate: --model-config .*llama3-8b.model.json: read with SimuMax's strategy JSON only (-f simumax)" \
  "$work/mc.out" || why="$why; message: $(head -1 "$work/mc.out")"
"$bin/nd-estimate" -y "$sm/tp2-pp2-dp2.strategy.json" --model-config "$sm/llama3-8b.model.json" \
  --train-yaml "$samples/runs/llama3-8b.yaml" -A B200 >"$work/ty.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || why="$why; --train-yaml: exit $rc, not 2"
grep -q "^nd-estimate: --train-yaml .*: read with HyperParallel's model yaml only" "$work/ty.out" ||
  why="$why; --train-yaml message: $(head -1 "$work/ty.out")"
result "--model-config on an nd run and --train-yaml on a SimuMax run are refused" "$why"

# SimuMax's schedules (its configs/pp_scheduling/: 1f1b, interleaved_1f1b, gpipe, zb_h1, zb_h2, zb_v,
# each with its interleaving_size) read as nd's, and one it has not refused with its names
why=""
for pair in "interleaved_1f1b 2 interleaved" "gpipe 1 gpipe" "zb_h1 1 zb-h1" "zb_h2 1 zb-h2" "zb_v 2 zb-v"; do
  set -- $pair
  sed "s/\"interleaving_size\": 1,/\"pp_schedule\": \"$1\", \"interleaving_size\": $2,/" \
    "$sm/tp2-pp2-dp2.strategy.json" >"$work/sched_$1.json"
  "$bin/nd-estimate" -y "$work/sched_$1.json" --model-config "$sm/llama3-8b.model.json" -A B200 \
    >"$work/sched_$1.txt" 2>&1 || why="$why; $1: $(head -1 "$work/sched_$1.txt")"
  grep -q "^strategy: .* VPP=$2 .* schedule=$3" "$work/sched_$1.txt" ||
    why="$why; $1 read as: $(grep '^strategy' "$work/sched_$1.txt")"
done
sed 's/"zero_state": 1,/"zero_state": 1, "pp_schedule": "zbv2",/' "$sm/tp2-pp2-dp2.strategy.json" >"$work/sched_bad.json"
"$bin/nd-estimate" -y "$work/sched_bad.json" --model-config "$sm/llama3-8b.model.json" -A B200 \
  >"$work/sched_bad.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || why="$why; zbv2: exit $rc, not 2"
grep -q "pp_schedule: 'zbv2' is not one of SimuMax's (1f1b, interleaved_1f1b, gpipe, zb_h1, zb_h2, zb_v)" \
  "$work/sched_bad.txt" || why="$why; zbv2: $(head -1 "$work/sched_bad.txt")"
result "SimuMax's six pipeline schedules read as nd's; another refused naming them" "$why"

# write-back: the search's #1 into resolved_strategy.json, read again as the choice
"$bin/nd-search" -y "$sm/tp2-pp2-dp2.strategy.json" --model-config "$sm/llama3-8b.model.json" -A B200 -t 1 \
  -o "$work/plan" --no-plots >"$work/search.out" 2>&1
rc=$?
why=""
[ "$rc" -eq 0 ] || why="nd-search exit $rc: $(tail -1 "$work/search.out")"
# best.yaml's strategy section as nd-estimate's line, against what the written file reads as
best=$(sed -n '/^strategy:/,/^[a-z]/p' "$work/plan/best.yaml" 2>/dev/null |
  sed -n 's/^  \([A-Z]*\): \([0-9]*\)$/\1=\2/p' | tr '\n' ' ' | sed 's/ $//')
"$bin/nd-estimate" -y "$work/plan/resolved_strategy.json" --model-config "$sm/llama3-8b.model.json" -A B200 \
  >"$work/back.txt" 2>&1 || why="$why; the written strategy does not read"
back=$(grep -m1 '^strategy:' "$work/back.txt" | sed 's/^strategy: //; s/ recompute=.*//')
[ -n "$best" ] && [ "$back" = "$best" ] || why="$why; best.yaml says '$best', the written file reads '$back'"
grep -q '"mem_factor":' "$work/plan/resolved_strategy.json" 2>/dev/null || why="$why; the user's other keys lost"
result "nd-search writes its choice into a SimuMax strategy that reads back as it" "$why"

# -ar chooses the recompute itself: the file's counts do not stand in its way
"$bin/nd-search" -y "$sm/tp2-pp2-dp2.strategy.json" --model-config "$sm/llama3-8b.model.json" -A B200 -t 1 -ar \
  --no-what-if >"$work/ar.out" 2>&1
rc=$?
result "nd-search -ar over a SimuMax run" "$([ "$rc" -eq 0 ] || echo "exit $rc: $(tail -1 "$work/ar.out")")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
