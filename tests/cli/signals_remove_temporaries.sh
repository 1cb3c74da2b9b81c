#!/bin/sh
# signals_remove_temporaries.sh BIN_DIR SAMPLES — issue 17, case 5: a run ended by SIGINT,
# SIGTERM, SIGHUP or SIGPIPE removes its temporary files, replaces none of its outputs, and
# still dies of the signal (exit status 128 + the signal's number). Issue 27: nd-fit killed
# leaves no new or empty file; SIGXFSZ ends a run as a failed write (exit 1).
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

# Issue 27: nd-fit --write_device --write_ratios into a directory with no earlier files,
# held while plotting (both outputs staged) and killed: no file appears, not even an empty one
# (the locks once created both files empty). Killed at other points: all or nothing.
vrun="$samples/runs/vtrain-gpt-h1024-l12.yaml" vround="$samples/rounds/vtrain-gpt-h1024-l12.csv"
for sig in TERM:15 HUP:1; do
  number=${sig#*:} sig=${sig%:*}
  rm -rf fresh "$work/ready"
  mkdir fresh
  PATH="$work/fake:$PATH" "$bin/nd-fit" -y "$vrun" --real_csv "$vround" --hold auto -o fresh/plots \
    --write_ratios fresh/r.json --write_device fresh/d.yaml >/dev/null 2>&1 &
  pid=$!
  i=0
  while [ ! -s "$work/ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  held=$(cat "$work/ready" 2>/dev/null)
  why=""
  [ -n "$held" ] || why="nd-fit never started gnuplot"
  kill -s "$sig" "$pid"
  wait "$pid"
  status=$?
  kill "$held" 2>/dev/null
  held=""
  [ "$status" -eq $((128 + number)) ] || why="$why; exit status $status, expected $((128 + number))"
  left=$(find fresh -type f | LC_ALL=C sort | tr '\n' ' ')
  [ -z "$left" ] || why="$why; left: $left"
  result "nd-fit SIG$sig while plotting: no new or empty outputs, no temporaries" "$why"
done
why=""
for delay in 0.01 0.03 0.05 0.08 0.12 0.2; do
  for sig in TERM HUP; do
    rm -rf fresh
    mkdir fresh
    "$bin/nd-fit" -y "$vrun" --real_csv "$vround" --hold auto \
      --write_ratios fresh/r.json --write_device fresh/d.yaml >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    status=$?
    n=$(find fresh -type f | wc -l)
    empty=$(find fresh -type f -size 0 | wc -l)
    if [ "$status" -eq 0 ]; then
      [ "$n" -eq 2 ] && [ "$empty" -eq 0 ] || why="$why; SIG$sig after ${delay}s: exit 0 with $n files, $empty empty"
    else
      [ "$n" -eq 0 ] || why="$why; SIG$sig after ${delay}s: exit $status left $(find fresh -type f | tr '\n' ' ')"
    fi
  done
done
result "nd-fit killed at any point: both outputs whole, or none" "$why"

# SIGXFSZ (a file past `ulimit -f`): handled like a failed write, not a death by signal: exit
# 1, one line naming the file, its temporary removed, the earlier file as it was.
rm -rf fresh
mkdir fresh
"$bin/nd-fit" -y "$vrun" --real_csv "$vround" --hold auto --write_ratios fresh/r.json >/dev/null 2>&1
cksum fresh/r.json >"$work/before"
(ulimit -f 8 && exec "$bin/nd-fit" -y "$vrun" --real_csv "$vround" --hold auto --robust \
  --write_ratios fresh/r.json >/dev/null 2>"$work/err")
status=$?
why=""
[ "$status" -eq 1 ] || why="exit status $status, expected 1"
last=$(tail -n 1 "$work/err")
case $last in
  "nd-fit: fresh/r.json: cannot write: File too large (any earlier file is unchanged)") ;;
  *) why="$why; last line: $last" ;;
esac
cksum fresh/r.json | cmp -s "$work/before" - || why="$why; r.json changed"
[ "$(ls -A fresh)" = "r.json" ] || why="$why; left: $(ls -A fresh | tr '\n' ' ')"
result "SIGXFSZ (ulimit -f): exit 1, one line, temporary removed, earlier file kept" "$why"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
