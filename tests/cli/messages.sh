#!/bin/sh
# messages.sh BIN_DIR SAMPLES — issue 17, case 14: a message keeps its reason however long the
# path; "cannot write" on a full disk says why; running out of memory reading JSON says so
# (cJSON's NULL is not "not valid JSON"). The disk and memory cases need root (a small
# tmpfs) and a build without sanitizers (ulimit -v): they are skipped, said so, otherwise.
set -u
bin=$1 samples=$2
work=$(mktemp -d)
mounted=""
trap '[ -z "$mounted" ] || umount "$mounted"; rm -rf "$work"' EXIT
passed=0 failed=0
result() { if [ -z "$2" ]; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAIL: $1: $2"; fi; }

# A 5,000-byte path: the message keeps its start and its reason within 1023 bytes.
long=$(awk 'BEGIN { for (i = 0; i < 25; i++) printf "%s%s", (i ? "/" : ""), sprintf("%0200d", 0) }')
"$bin/nd-estimate" -y "/tmp/$long/run.yaml" >"$work/out" 2>"$work/err"
why=""
grep -q "cannot open: File name too long$" "$work/err" || why="the reason is lost: $(tail -c 120 "$work/err")"
grep -q "^nd-estimate: /tmp/000" "$work/err" || why="$why; the path's start is lost"
[ "$(head -n 1 "$work/err" | wc -c)" -le 1040 ] || why="$why; longer than a message may be"
result "a 5,000-byte path keeps its reason" "$why"

# A full disk: the reason, and nothing left behind.
mkdir -p "$work/full"
if mount -t tmpfs -o size=200k tmpfs "$work/full" 2>/dev/null; then
  mounted=$work/full
  dd if=/dev/zero of="$work/full/fill" bs=1k count=190 2>/dev/null
  "$bin/nd-search" -y "$samples/runs/llama3-8b.yaml" -d 8 -b 64 --no-progress \
    --ranking_csv "$work/full/ranking.csv" >/dev/null 2>"$work/err"
  status=$?
  why=""
  [ "$status" -eq 1 ] || why="exit status $status, expected 1"
  tail -n 1 "$work/err" | grep -q "ranking.csv: cannot write: No space left on device" ||
    why="$why; $(tail -n 1 "$work/err")"
  [ "$(ls -A "$work/full")" = "fill" ] || why="$why; left: $(ls -A "$work/full")"
  result "a full disk says so" "$why"
else
  echo "skipped: a full disk (cannot mount a tmpfs: not root)"
fi

# Out of memory reading a 10 MB config.json (5,000,000 array items: ~300 MB as a cJSON tree).
awk 'BEGIN { printf "{\"model_type\": \"llama\", \"x\": [1"; for (i = 1; i < 5000000; i++) printf ",1"; print "]}" }' \
  >"$work/big.json"
if (ulimit -v 200000 && "$bin/nd-estimate" --version) >/dev/null 2>&1; then
  (ulimit -v 200000 && exec "$bin/nd-estimate" -y "$work/big.json" -A H100 --strategy DP=1) >/dev/null 2>"$work/err"
  status=$?
  why=""
  [ "$status" -eq 1 ] || why="exit status $status, expected 1"
  grep -q "big.json: out of memory reading the JSON" "$work/err" || why="$why; $(tail -n 1 "$work/err")"
  result "out of memory is not 'not valid JSON'" "$why"
else
  echo "skipped: out of memory (the binary does not start under ulimit -v: a sanitizer build)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
