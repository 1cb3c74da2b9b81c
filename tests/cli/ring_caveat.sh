#!/bin/sh
# ring_caveat.sh BIN_DIR SAMPLES — torchtitan's own tables ran Llama 3.1 8B and 405B at 32k
# tokens a GPU with CP 1 to 8: nd prices the runs with CP 4 to 31 % short (17 to 31 % at CP 4
# and 8) where those without are within 12 %, and the cause is not located. Every uncalibrated
# estimate of torchtitan with CP says so (text, JSON); the same run without CP, and Megatron's
# CP (SimuMax's measured CP runs are within 5 %), do not. The figures are bench_fidelity's, so
# the test checks where the line appears, not its numbers.
set -u
bin=$1 samples=$(cd "$2" && pwd)
. "$(dirname "$0")/results.sh"
gt=$samples/devices/h100-96gb-grand-teton.yaml

titan() { # CP FILE
    cat >"$2" <<TOML
[model]
name = "llama3"
flavor = "8B"
[training]
local_batch_size = 1
seq_len = 65536
[parallelism]
data_parallel_shard_degree = -1
context_parallel_degree = $1
[activation_checkpoint]
mode = "full"
TOML
}
titan 2 "$work/cp2.toml"
titan 1 "$work/cp1.toml"
run() { f=$1; shift; "$bin/nd-estimate" -y "$f" -A H100-GT --device-file "$gt" -d 8 -M 97280MB "$@"; }
why=""
run "$work/cp2.toml" >"$work/cp2.txt" 2>&1
grep -q "^strategy: PyTorch's ring attention (torchtitan's context parallelism)" "$work/cp2.txt" ||
    why="no strategy line at CP 2"
run "$work/cp2.toml" --json >"$work/cp2.json" 2>/dev/null
grep -q '"strategy_caveat": "PyTorch.s ring attention' "$work/cp2.json" || why="$why; JSON has none"
result "torchtitan at CP 2 states the ring caveat, in text and JSON" "$why"

why=""
run "$work/cp1.toml" >"$work/cp1.txt" 2>&1
grep -q '^  step ' "$work/cp1.txt" || why="no estimate without CP"
grep -q "^strategy: PyTorch's ring" "$work/cp1.txt" && why="$why; a ring caveat without CP"
"$bin/nd-estimate" -y "$samples/runs/llama3-8b.yaml" --strategy "DP=4 CP=2 MB=128" >"$work/mega.txt" 2>&1
grep -q '^  step ' "$work/mega.txt" || why="$why; no Megatron CP estimate"
grep -q "^strategy: PyTorch's ring" "$work/mega.txt" && why="$why; a ring caveat for Megatron's CP"
result "no ring caveat without CP, nor for Megatron's CP" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
