#!/bin/sh
# terminal_escapes.sh BIN_DIR SAMPLES DATA — issue 27: names read from files reach the terminal
# escaped (\x1b, \n), never raw: a sweep run directory named with an ESC sequence and a
# newline, a trace whose process group is named and described with ESC sequences, and a
# checkpoint whose tensor is named so. Each run's stdout and stderr must hold no ESC byte
# (and, for the directory, the newline inside the name is shown as \n).
set -u
bin=$1 samples=$2 data=$3
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
esc=$(printf '\033')
raw_esc() { grep -c "$esc" "$@" | awk -F: '{ s += $NF } END { print s + 0 }'; }

mkdir sw
evil="run${esc}[31mRED
second"
cp -r "$data/sweep/a_dp2" "sw/$evil"
"$bin/nd-classify" --sweep sw -v >out 2>err
why=""
[ "$(raw_esc out err)" -eq 0 ] || why="$(raw_esc out err) raw ESC bytes in the output"
grep -q 'run\\x1b\[31mRED\\nsecond' out || why="$why; the name is not shown escaped: $(grep -a run out | head -n 2 | tr '\n' ' ')"
result "a sweep directory named with ESC and a newline" "$why"

sed 's/"Process Group Name": "1"/"Process Group Name": "\\u001b[2J1"/; s/"Process Group Description": "dp_group"/"Process Group Description": "\\u001b]0;owned\\u0007dp_group"/' \
  "$data/kernel_shapes.json" >pg.json
"$bin/nd-classify" pg.json -v >out 2>err
why=""
[ "$(raw_esc out err)" -eq 0 ] || why="$(raw_esc out err) raw ESC bytes in the output"
result "a trace's process group named with ESC sequences" "$why"

mkdir ck
cp "$samples/checkpoints/llama3.2-1b/config.json" ck/
header='{"evil\u001b[31mname": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, 32]}}'
n=${#header}
bytes=""
k=0
while [ $k -lt 8 ]; do
  bytes="$bytes\\$(printf '%03o' $((n % 256)))"
  n=$((n / 256))
  k=$((k + 1))
done
{ printf "$bytes"; printf '%s' "$header"; } >ck/model.safetensors
"$bin/nd-estimate" -y ck/config.json -V -A A3 >out 2>err
why=""
[ "$(raw_esc out err)" -eq 0 ] || why="$(raw_esc out err) raw ESC bytes in the output"
grep -q 'evil\\x1b\[31mname' out || why="$why; the tensor is not named escaped: $(grep -a evil out | head -n 1)"
result "a checkpoint tensor named with an ESC sequence" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
