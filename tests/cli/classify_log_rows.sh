#!/bin/sh
# classify_log_rows.sh BIN_DIR SAMPLES — issue 27: `nd-classify --log --csv` writes only rows
# nd-compare reads. Each case edits a sample log (samples/logs) so one value is beyond the
# round reader's limits (calib/calibrate/classified.c: a step in (0, 1e9] ms, a peak in
# (0, 2^30] MiB; at most 2^30 devices): the log is noted, its row not appended, and the
# round nd-compare reads is unchanged. Lines dropped without a word before (an out-of-range
# seq_length, an unknown recompute_granularity, tps 0) now get a note; tps 1e20 and a toml
# seq_len of 2e9 get messages in the log's and the toml's own terms.
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
mega="$samples/logs/megatron-lm-llama3-8b-tp2.log"
titan="$samples/logs/torchtitan-llama3-8b-fsdp8.log" toml="$samples/logs/torchtitan-llama3-8b.toml"
classify() { "$bin/nd-classify" --log "$@"; }

# A good round first: the good log's row.
classify "$mega" --csv round.csv >/dev/null 2>&1
cksum round.csv >before
# CASE LOG EDIT NOTE [ARGS]: the edited log appended with the good one; the round gains
# only the good row (one line), the note names the reason, nd-compare reads the round.
bad_row() {
  case=$1 log=$2 edit=$3 want=$4
  shift 4
  sed "$edit" "$log" >bad.log
  cp round.csv r.csv
  classify bad.log "$mega" "$@" --csv r.csv >out 2>err
  status=$?
  why=""
  [ "$status" -eq 0 ] || why="exit $status: $(tail -n 1 err)"
  [ "$(grep -c '' r.csv)" -eq "$(($(grep -c '' round.csv) + 1))" ] || why="$why; $(grep -c '' r.csv) lines"
  grep -q "$want" out || why="$why; no note '$want': $(grep '!' out | tr '\n' ' ')"
  "$bin/nd-compare" -y "$samples/runs/llama3-8b.yaml" --real_csv r.csv --no-plots -o cmp >/dev/null 2>err2 ||
    why="$why; nd-compare refuses the round: $(tail -n 1 err2)"
  # alone, nothing to append: exit 2, the round unchanged
  cp round.csv r1.csv
  classify bad.log "$@" --csv r1.csv >/dev/null 2>err
  [ $? -eq 2 ] || why="$why; alone: not refused"
  cmp -s round.csv r1.csv || why="$why; alone: the round changed"
  result "$case" "$why"
}
bad_row "peak inf (1e307 GiB)" "$titan" 's/memory: 58.31GiB/memory: 1e307GiB/' "the peak inf MiB is beyond" \
  --log-config "$toml"
bad_row "peak 1e300 (cut by a 64-byte cell into another number)" "$mega" \
  's/max reserved: 66342.0/max reserved: 1e300/' "the peak 1e+300 MiB"
bad_row "MP x PP = 2^40 devices" "$mega" \
  's/tensor_model_parallel_size \.* 2/tensor_model_parallel_size ...... 1048576/; s/pipeline_model_parallel_size \.* 1/pipeline_model_parallel_size ...... 1048576/' \
  "devices, beyond 2^30"

# Lines nd leaves out are said. CASE LOG EDIT NOTE [ARGS]
note() {
  case=$1 log=$2 edit=$3 want=$4
  shift 4
  sed "$edit" "$log" >n.log
  classify n.log "$@" >out 2>err
  why=""
  grep -q "$want" out || why="no note '$want': $(grep '!' out | tr '\n' ' ') $(tail -n 1 err)"
  result "$case" "$why"
}
note "seq_length 4e9 noted" "$mega" 's/seq_length \.* 8192/seq_length ...... 4000000000/' \
  "seq_length = 4000000000 is not a whole number"
note "an unknown recompute_granularity noted" "$mega" \
  's/recompute_granularity \.* selective/recompute_granularity ...... sometimes/' \
  "recompute_granularity = sometimes is not a recompute mode"
note "tps 0 lines noted" "$titan" 's/tps: 1,024/tps: 0/' "1 step line with tps 0" --log-config "$toml"

sed 's/tps: 7,402/tps: 1e20/' "$titan" >t.log
classify t.log --log-config "$toml" >out 2>err
why=""
grep -q "tps 1e+20 with 16384 tokens a step per rank makes a step of 1.6384e-13 ms" err ||
  why="$(tail -n 1 err)"
result "tps 1e20: said in tokens per second" "$why"

sed 's/^seq_len = 8192/seq_len = 2000000000/' "$toml" >t.toml
classify "$titan" --log-config t.toml >out 2>err
why=""
grep -q "which t.toml does not give: t.toml: training.seq_len = 2000000000 is not a whole number" err ||
  why="$(tail -n 1 err)"
grep -q "give the job's toml" err && why="$why; asks for the toml it was given"
result "seq_len 2e9 in the toml: names the toml's key" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
