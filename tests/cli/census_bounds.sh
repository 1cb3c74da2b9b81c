#!/bin/sh
# census_bounds.sh BIN_DIR SAMPLES — issue 27, "Bounds", -V's census of a checkpoint:
# - an index naming one shard through 19 symlinks (and by itself) reads the shard once:
#   the census is the checkpoint's own (1 file, 146 tensors, 1,235,814,400 parameters, as
#   samples/checkpoints/llama3.2-1b alone gives), not 20 copies of it (memory grew with
#   the names: 2.8 GB for a 7 MB shard named 19 times);
# - tensors holding more than 2^53 parameters in all (1,300 of shape [1e12, 7]: 9.1e15) are
#   refused with one line (exit 2); 1.32M of [1e12, 7] overflowed the int64 sum before, and
#   printed -9,206,744,073,709,551,616 parameters.
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
ck="$samples/checkpoints/llama3.2-1b"
mkdir links
cp "$ck/config.json" "$ck/model.safetensors" links/
map=""
i=1
while [ $i -le 19 ]; do
  ln -s model.safetensors "links/shard$i.safetensors"
  map="$map\"w$i\": \"shard$i.safetensors\", "
  i=$((i + 1))
done
printf '{"metadata": {}, "weight_map": {%s"w0": "model.safetensors"}}\n' "$map" >links/model.safetensors.index.json
"$bin/nd-estimate" -y links/config.json -V -A A3 >out 2>err
why=""
grep -q "(1 file, 146 tensors): 1,235,814,400 parameters, nd's model 1,235,814,400" out ||
  why="$(head -n 1 out) $(tail -n 1 err)"
result "one shard named through 19 symlinks is read once" "$why"

# A safetensors file: 8 bytes of header length (little-endian), the JSON header.
mkdir huge
cp "$ck/config.json" huge/
header=$(awk 'BEGIN { printf "{"; for (i = 0; i < 1300; i++) printf "%s\"t%d\": {\"dtype\": \"BF16\", \"shape\": [1000000000000, 7], \"data_offsets\": [0, 0]}", i ? ", " : "", i; printf "}" }')
n=${#header}
bytes=""
k=0
while [ $k -lt 8 ]; do
  bytes="$bytes\\$(printf '%03o' $((n % 256)))"
  n=$((n / 256))
  k=$((k + 1))
done
{ printf "$bytes"; printf '%s' "$header"; } >huge/model.safetensors
"$bin/nd-estimate" -y huge/config.json -V -A A3 >out 2>err
status=$?
why=""
[ "$status" -eq 2 ] || why="exit $status: $(head -n 1 out)"
grep -q "hold more than 2^53 parameters in all" err || why="$why; $(tail -n 1 err)"
[ "$(grep -c '' err)" -eq 1 ] || why="$why; $(grep -c '' err) lines on stderr"
result "more than 2^53 parameters in all: refused in one line" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
