#!/bin/sh
# tt_torchtitan.sh SEARCH ESTIMATE SAMPLES DATA — torchtitan's config read and written back as
# torchtitan reads it (issue 27):
#  1. the older layout (degrees under [training] and [experimental]) is written back to the keys it
#     was read from, so resolved.toml reads back as best.yaml's strategy;
#  2. an inline [parallelism] table and top-level dotted keys are edited where they stand: no
#     [parallelism] header appears (tomllib refuses a table defined twice);
#  3. a Python comment in -y MODULE.py:CONFIG.toml is not an argument;
#  4. compile.components = ["loss"] compiles the loss only: the model is priced eager;
#  5. async TP ([parallelism] enable_async_tensor_parallel, [experimental] in older torchtitan)
#     overlaps TP's collectives: TP 8's MP_COMM falls; a value that is no boolean is refused;
#  6. context_parallel_rotate_method allgather or alltoall is PyTorch's ring attention either way
#     (one kernel a K/V block, the partial outputs merged): priced as nd's ring; another is refused;
#  7. FP8 as each torchtitan spells it: converters = ["float8"], the older [float8]
#     enable_float8_linear = true, and MXFP8 (converters = ["quantize.linear.mx"], priced
#     blockwise with a note) all price FP8, below the bf16 step; FSDP's FP8 all-gather is named
#     in a note as not priced.
search=$1 estimate=$2 samples=$3 data=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
strategy() { "$estimate" -y "$1" -A H100 ${2:+-d $2} | sed -n 's/^strategy: \(DP=[0-9]* MP=[0-9]* PP=[0-9]*\).*/\1/p'; }

# 1. best.yaml's DP 64 MP 1 (the search's choice for 64 devices) is what resolved.toml says
"$search" -y "$data/old_layout.toml" -A H100 -d 64 -b 512 -t 1 -l DP MP -o "$dir/old" --no-plots -v 0 ||
    fail "search of old_layout.toml"
best=$(sed -n 's/^  \(DP\|MP\|PP\): \([0-9]*\)$/\1=\2/p' "$dir/old/best.yaml" | tr '\n' ' ' | sed 's/ $//')
back=$(strategy "$dir/old/resolved.toml" 64)
[ -n "$best" ] && [ "$best" = "$back" ] || fail "old layout: best.yaml says '$best', resolved.toml reads '$back'"
grep -q '^\[parallelism\]' "$dir/old/resolved.toml" && fail "old layout: a [parallelism] table was added"
grep -q '^tensor_parallel_degree = 1$' "$dir/old/resolved.toml" || fail "old layout: [training] TP not rewritten"

# 2. inline table and dotted keys: read as MP 8 DP 4, written where they stand
for f in inline dotted; do
    [ "$(strategy "$data/$f.toml")" = "DP=4 MP=8 PP=1" ] || fail "$f.toml read as $(strategy "$data/$f.toml")"
    "$search" -y "$data/$f.toml" -A H100 -b 512 -t 1 -l MP PP -o "$dir/$f" --no-plots -v 0 || fail "search of $f"
    grep -q '^\[parallelism\]' "$dir/$f/resolved.toml" && fail "$f: a second [parallelism] was written"
    best=$(sed -n 's/^  \(DP\|MP\|PP\): \([0-9]*\)$/\1=\2/p' "$dir/$f/best.yaml" | tr '\n' ' ' | sed 's/ $//')
    [ "$best" = "$(strategy "$dir/$f/resolved.toml")" ] || fail "$f: resolved.toml does not read back as $best"
done
grep -q '^parallelism = {tensor_parallel_degree = ' "$dir/inline/resolved.toml" || fail "inline table not kept"
grep -q '^parallelism.tensor_parallel_degree = ' "$dir/dotted/resolved.toml" || fail "dotted key not kept"

# 3. the 8B flavor's n_layers=32, with a comment naming the 70B's 80 (8,030,261,248 parameters:
#    Llama 3 8B's published count, as tests/nd_compat/LINES torchtitan_module)
#    and a string holding '#' and an argument before it
sed 's/^        n_layers=32,$/        note="# n_layers=80", n_layers=32,  # the 70B has n_layers=80, "n_heads=64"/' \
    "$samples/frameworks/torchtitan_llama3/__init__.py" >"$dir/__init__.py"
grep -q 'the 70B has n_layers=80' "$dir/__init__.py" || fail "sed did not add the comment"
"$estimate" -y "$dir/__init__.py:$samples/frameworks/torchtitan_llama3_8b.toml" -A H100 -d 8 2>/dev/null |
    grep -q 'parameters: 8,030,261,248' || fail "a Python comment was read as an argument"

# 4. components ["loss"] prices the step of compile disabled; ["model", "loss"] a compiled one
base=$samples/frameworks/torchtitan_llama3_8b.toml
sed 's/^enable=false/enable=true/' "$base" >"$dir/model.toml"
sed 's/^enable=false/enable=true/; s/^components = .*/components = ["loss"]  # "model" not compiled/' \
    "$base" >"$dir/loss.toml"
step() { "$estimate" -y "$1" -A H100 -d 8 2>/dev/null | sed -n 's/^  step *\([0-9.]*\) .*/\1/p'; }
eager=$(step "$base") model=$(step "$dir/model.toml") loss=$(step "$dir/loss.toml")
[ -n "$eager" ] && [ "$loss" = "$eager" ] || fail "components [\"loss\"]: step $loss ms, eager $eager ms"
[ "$model" != "$eager" ] || fail "components [\"model\", \"loss\"]: not priced compiled ($model ms)"
"$estimate" -y "$dir/loss.toml" -A H100 -d 8 2>&1 >/dev/null | grep -q 'the model is not compiled, priced eager' ||
    fail "no note for components [\"loss\"]"
# 5. async TP: the same TP 8 job, its TP collectives exposed, then behind the matmuls
sed 's/^tensor_parallel_degree = 1$/tensor_parallel_degree = 8/' "$base" >"$dir/tp8.toml"
sed '/^\[parallelism\]$/a enable_async_tensor_parallel = true' "$dir/tp8.toml" >"$dir/async.toml"
sed '/^\[parallelism\]$/i [experimental]\nenable_async_tensor_parallel = true\n' "$dir/tp8.toml" >"$dir/old_async.toml"
sed '/^\[parallelism\]$/a enable_async_tensor_parallel = 1' "$dir/tp8.toml" >"$dir/bad_async.toml"
mp() { "$estimate" -y "$1" -A H100 -d 8 2>/dev/null | sed -n 's/^  MP_COMM *\([0-9.]*\) .*/\1/p'; }
plain=$(mp "$dir/tp8.toml") async=$(mp "$dir/async.toml") old=$(mp "$dir/old_async.toml")
[ -n "$plain" ] && [ -n "$async" ] && awk -v a="$async" -v p="$plain" 'BEGIN { exit !(a < p) }' ||
    fail "async TP: MP_COMM $async ms, not below the plain $plain ms"
[ "$old" = "$async" ] || fail "[experimental] enable_async_tensor_parallel: MP_COMM $old ms, not $async"
"$estimate" -y "$dir/bad_async.toml" -A H100 -d 8 >/dev/null 2>"$dir/err" && fail "a non-boolean async TP accepted"
grep -q "bad_async.toml:[0-9]*: key 'parallelism.enable_async_tensor_parallel': 1 is not true or false" "$dir/err" ||
    fail "async TP refusal: $(cat "$dir/err")"
# 6. CP 2: the rotation as stated prices as the file without it; a method torchtitan lacks is refused
sed 's/^context_parallel_degree = 1$/context_parallel_degree = 2/' "$base" >"$dir/cp2.toml"
for m in allgather alltoall ring; do
    sed "/^\[parallelism\]\$/a context_parallel_rotate_method = \"$m\"" "$dir/cp2.toml" >"$dir/cp2_$m.toml"
done
none=$(step "$dir/cp2.toml")
[ -n "$none" ] && [ "$(step "$dir/cp2_allgather.toml")" = "$none" ] && [ "$(step "$dir/cp2_alltoall.toml")" = "$none" ] ||
    fail "CP rotation: steps $(step "$dir/cp2_allgather.toml") and $(step "$dir/cp2_alltoall.toml"), not $none ms"
"$estimate" -y "$dir/cp2_ring.toml" -A H100 -d 8 >/dev/null 2>"$dir/err" && fail "rotate method 'ring' accepted"
grep -q "cp2_ring.toml:[0-9]*: key 'parallelism.context_parallel_rotate_method': 'ring' is not allgather or alltoall" \
    "$dir/err" || fail "rotate method refusal: $(cat "$dir/err")"
# 7. the same 8B job in bf16, then FP8 spelt three ways
conv() { sed "/^\[model\]\$/a converters = [\"$1\"]" "$base" >"$2"; }
conv float8 "$dir/f8.toml"
conv quantize.linear.mx "$dir/mx.toml"
printf '\n[float8]\nenable_float8_linear = true\nenable_fsdp_float8_all_gather = true\n' | cat "$base" - >"$dir/old_f8.toml"
bf16=$(step "$base") f8=$(step "$dir/f8.toml") oldf8=$(step "$dir/old_f8.toml") mx=$(step "$dir/mx.toml")
awk -v b="$bf16" -v f="$f8" 'BEGIN { exit !(f < b) }' || fail "converters float8: step $f8 ms, bf16 $bf16 ms"
[ "$oldf8" = "$f8" ] || fail "[float8] enable_float8_linear: step $oldf8 ms, not converters' $f8 ms"
awk -v b="$bf16" -v m="$mx" 'BEGIN { exit !(m < b) }' || fail "MXFP8: step $mx ms, bf16 $bf16 ms"
"$estimate" -y "$dir/mx.toml" -A H100 -d 8 2>&1 >/dev/null | grep -q "MXFP8 (scales per 32 elements) is priced as nd's blockwise FP8" ||
    fail "no note for MXFP8"
"$estimate" -y "$dir/old_f8.toml" -A H100 -d 8 2>&1 >/dev/null | grep -q "enable_fsdp_float8_all_gather: FSDP's weight all-gathers in FP8 are not priced" ||
    fail "no note for the FP8 all-gather"
echo "torchtitan ok"
