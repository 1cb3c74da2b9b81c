#!/bin/sh
# signals_remove_temporaries.sh BIN_DIR SAMPLES — issue 17, case 5: a run ended by SIGINT,
# SIGTERM, SIGHUP or SIGPIPE removes its temporary files, replaces none of its outputs, and
# still dies of the signal (exit status 128 + the signal's number).
#
# nd-compare is held in the middle of its run by a stand-in `gnuplot` on PATH that never
# reads its script: by then the estimates CSV and the report are staged (temporaries beside
# them) and the first plot's three temporaries are open. SIGPIPE comes from a reader that
# has gone away when nd-search flushes its table.
set -u
bin=$1 samples=$2
work=$(mktemp -d)
held=""
trap '[ -z "$held" ] || kill "$held" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0
mkdir -p "$work/models" "$work/w" "$work/fake"
cp "$samples/models/llama3-8b.json" "$work/models/"
cd "$work/w" || exit 1
cp "$samples/runs/llama3-8b.yaml" run.yaml
cp "$samples/rounds/llama3-8b-h100.csv" round.csv
cat >"$work/fake/gnuplot" <<EOF
#!/bin/sh
echo \$\$ >"$work/ready"
exec sleep 60
EOF
chmod +x "$work/fake/gnuplot"

snapshot() { (cd "$1" && ls -A | LC_ALL=C sort | while read -r f; do
  if [ -f "$f" ]; then cksum "$f"; else echo "$f/"; fi; done); }
result() { # NAME WHY
  if [ -z "$2" ]; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAIL: $1: $2"; fi
}

# An earlier run's outputs, which the interrupted runs must leave as they are.
"$bin/nd-compare" -y run.yaml --real_csv round.csv -o cmp --no-plots >/dev/null 2>&1
snapshot cmp >"$work/before"

for sig in INT:2 TERM:15 HUP:1; do
  number=${sig#*:} sig=${sig%:*}
  rm -f "$work/ready"
  # perl puts back the default disposition a non-interactive shell gives `&` jobs for INT.
  PATH="$work/fake:$PATH" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' \
    "$bin/nd-compare" -y run.yaml -A A100 --real_csv round.csv -o cmp >/dev/null 2>&1 &
  pid=$!
  i=0
  while [ ! -s "$work/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  held=$(cat "$work/ready" 2>/dev/null)
  why=""
  [ -n "$held" ] || why="nd-compare never started gnuplot"
  staged=$(ls -A cmp | grep -c '^\.')
  [ "$staged" -ge 3 ] || why="$why; only $staged temporaries while held"
  kill -s "$sig" "$pid"
  wait "$pid"
  status=$?
  kill "$held" 2>/dev/null
  held=""
  expected=$((128 + number))
  [ "$status" -eq "$expected" ] || why="$why; exit status $status, expected $expected"
  snapshot cmp >"$work/after"
  cmp -s "$work/before" "$work/after" ||
    why="$why; cmp/ changed: $(diff "$work/before" "$work/after" | tr '\n' ' ')"
  result "SIG$sig while plotting: temporaries removed, outputs kept" "$why"
done

"$bin/nd-search" -y run.yaml -d 8 -b 64 -t 1 --no-progress --no-plots -o plan >/dev/null 2>&1
snapshot plan >"$work/before"
# The reader closes the pipe at once; nd-search's table is flushed at its end, after the
# search, into a pipe with no reader.
{ "$bin/nd-search" -y run.yaml -d 64 -b 512 -t 1 --no-progress --no-plots -o plan 2>/dev/null
  echo $? >"$work/status"; } | exec 0<&-
status=$(cat "$work/status")
why=""
[ "$status" -eq 141 ] || why="exit status $status, expected 141 (SIGPIPE)"
snapshot plan >"$work/after"
cmp -s "$work/before" "$work/after" ||
  why="$why; plan/ changed: $(diff "$work/before" "$work/after" | tr '\n' ' ')"
result "SIGPIPE on stdout: temporaries removed, outputs kept" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
