#!/bin/sh
# fit_device_names.sh BIN_DIR SAMPLES — issue 27: `nd-fit --write_device` writes only device
# files `--device-file` reads. Each case fits, then prices with the written file; before the
# fix each was written (exit 0) and then refused:
# - a round path holding '"' and '\q' (written unescaped inside a quoted YAML string);
# - base devices named `A100 #2`, `a: b`, `[A100]` (a user's device file may quote any
#   printable name; nd-fit wrote the name as a plain YAML key);
# - a 31-character CJK name (93 bytes): the default NAME-fit was cut by bytes inside a
#   character; now its first 27 characters, whole, and "-fit";
# - an earlier device file whose fit.history holds a key "}}\n..." (copied into a flow
#   mapping unquoted).
set -u
bin=$1 samples=$2
. "$(dirname "$0")/results.sh"
cd "$work" || exit 1
run="$samples/runs/vtrain-gpt-h1024-l12.yaml" round="$samples/rounds/vtrain-gpt-h1024-l12.csv"
# FILE NAME: nd-fit wrote FILE, and --device-file FILE -A NAME prices a strategy on it.
reads() {
  "$bin/nd-estimate" -y "$run" --device-file "$1" -A "$2" --strategy "DP=2 MP=2 PP=2 MB=4 MBS=1" \
    >est 2>&1 || echo "--device-file refuses it: $(tail -n 1 est)"
}

mkdir 'q"x\q'
cp "$round" 'q"x\q/round.csv'
"$bin/nd-fit" -y "$run" --real_csv 'q"x\q/round.csv' --hold auto --write_device a.yaml >out 2>&1
why=$(reads a.yaml A100-fit)
grep -q 'csv: "q\\"x\\\\q/round.csv"' a.yaml || why="$why; the path is not escaped: $(grep csv: a.yaml)"
result "a round path with '\"' and '\\q'" "$why"

cjk=日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日
{ echo 'devices:'
  for n in 'A100 #2' 'a: b' '[A100]' "$cjk"; do printf '  "%s":\n    base: A100\n' "$n"; done; } >cluster.yaml
for n in 'A100 #2' 'a: b' '[A100]' "$cjk"; do
  rm -f d.yaml
  "$bin/nd-fit" -y "$run" --real_csv "$round" --device-file cluster.yaml -A "$n" --hold auto \
    --write_device d.yaml >out 2>&1
  status=$?
  fitted="$n-fit"
  [ "$n" = "$cjk" ] && fitted=日本語日本語日本語日本語日本語日本語日本語日本語日本語-fit
  why=""
  [ "$status" -eq 0 ] || why="nd-fit exit $status: $(tail -n 1 out)"
  [ -z "$why" ] && why=$(reads d.yaml "$fitted")
  result "a base device named '$n' gives '$fitted'" "$why"
done

"$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto --write_device h.yaml >/dev/null 2>&1
# (a first fit has no history: one is added, as an earlier nd might have written it)
printf '  history:\n    - {rows: 1, parameters: {"x}}\\nevil: [": 1, host_sync_us: 2}}\n' >>h.yaml
"$bin/nd-fit" -y "$run" --real_csv "$round" --hold auto --write_device h.yaml >out 2>&1
why=$(reads h.yaml A100-fit)
grep -q 'evil' h.yaml && why="$why; the odd key was copied"
grep -q 'host_sync_us: 2}' h.yaml || why="$why; the well-named value of that entry is gone"
result "an earlier history key holding '}}\\n'" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
