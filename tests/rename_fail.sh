#!/bin/sh
# rename_fail.sh SHIM — every output nd writes goes through a temporary file and a rename
# (include/nd/base/io.h). With rename() made to fail (the LD_PRELOAD shim rename_fail.c), each
# binary must exit 1 with a last line naming the file, leave the earlier file and every other
# earlier output of the run byte for byte, and leave no temporary file behind. Covers ratios and fit reports (nd-fit), round CSV
# appends, perf-parts and detail files (nd-classify), estimates and reports (nd-compare),
# memory CSVs (nd-estimate), ranking CSVs and best.yaml (nd-search) and plots (nd-compare -o, when
# gnuplot is installed).
# Environment: ND_ESTIMATE, ND_SEARCH, ND_COMPARE, ND_FIT, ND_CLASSIFY, ND_SOURCE_DIR.
set -u
shim=$1
src=${ND_SOURCE_DIR:?}
llama=$src/samples/runs/llama3-8b.yaml
round=$src/samples/rounds/llama3-8b-h100.csv
trace=$src/tests/data/classify/rank2.pt.trace.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# ASan wants its runtime first among the preloaded libraries; the shim goes first here.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
passed=0 failed=0

# The files of a directory with their checksums, temporaries included.
snapshot() { (cd "$1" && ls -A | LC_ALL=C sort | while read -r f; do
  if [ -f "$f" ]; then cksum "$f"; else echo "$f"; fi; done); }

# case NAME FILE -- COMMAND... : FILE exists beforehand (with a made-up old content unless
# it already exists); COMMAND runs with renames onto FILE failing. Every file of FILE's
# directory must be as it was before: a run's outputs are committed together, so the
# outputs renamed before FILE are put back and new ones removed.
case_() {
  name=$1 file=$2
  shift 3
  dir=$(dirname "$file") target=$(basename "$file")
  [ -f "$file" ] || printf 'old content of %s\n' "$target" >"$file"
  snapshot "$dir" >"$work/before"
  ND_RENAME_FAIL=$target LD_PRELOAD=$shim "$@" >"$work/out" 2>"$work/err"
  status=$?
  why=""
  [ "$status" -eq 1 ] || why="exit status $status, expected 1"
  # the last line (nd-search reports its statistics on stderr before it)
  tail -n 1 "$work/err" | grep -q "$target: cannot write: .*any earlier file is unchanged" ||
    why="$why; the last line of stderr does not name $target: $(tail -c 300 "$work/err")"
  [ "$(grep -c 'cannot write' "$work/err")" -eq 1 ] || why="$why; more than one error line"
  snapshot "$dir" >"$work/after"
  cmp -s "$work/before" "$work/after" ||
    why="$why; the directory changed: $(diff "$work/before" "$work/after" | tr '\n' ' ')"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
    echo "ok: $name"
  else
    failed=$((failed + 1))
    echo "FAIL: $name: $why"
  fi
}

d=$work/fit && mkdir -p "$d"
printf '{"COMPUTE": 1.25}\n' >"$d/ratios.json"
case_ "nd-fit --write_ratios" "$d/ratios.json" -- \
  "$ND_FIT" -y "$llama" --real_csv "$round" --robust --write_ratios "$d/ratios.json"
"$ND_FIT" -y "$llama" --real_csv "$round" --robust --write_ratios "$d/new.json" >/dev/null 2>&1
case_ "nd-fit --report-json (ratios kept)" "$d/report.json" -- \
  "$ND_FIT" -y "$llama" --real_csv "$round" --robust --write_ratios "$d/new.json" --report-json "$d/report.json"

d=$work/classify && mkdir -p "$d"
"$ND_CLASSIFY" "$trace" --dims DP=2,MP=1 --csv "$d/round.csv" >/dev/null 2>&1 ||
  { echo "FAIL: nd-classify could not write the first row"; failed=$((failed + 1)); }
case_ "nd-classify --csv (append)" "$d/round.csv" -- "$ND_CLASSIFY" "$trace" --dims DP=2,MP=1 --csv "$d/round.csv"
case_ "nd-classify --perf-parts" "$d/parts.csv" -- "$ND_CLASSIFY" "$trace" --dims DP=2 --perf-parts "$d/parts.csv"
case_ "nd-classify --detail" "$d/detail.csv" -- "$ND_CLASSIFY" "$trace" --dims DP=2 --detail "$d/detail.csv"

d=$work/compare && mkdir -p "$d"
stem=$(basename "$round" .csv)
"$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$d" --no-plots >/dev/null 2>&1
case_ "nd-compare estimates" "$d/${stem}_estimates.csv" -- \
  "$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$d" --no-plots
case_ "nd-compare report" "$d/${stem}_report.json" -- \
  "$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$d" --no-plots
if command -v gnuplot >/dev/null 2>&1; then
  d=$work/plots && mkdir -p "$d"
  "$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$d" >/dev/null 2>&1
  plot=$(ls "$d" | grep '\.png$' | head -n 1)
  if [ -n "$plot" ]; then
    case_ "nd-compare plot $plot" "$d/$plot" -- "$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$d"
  else
    echo "FAIL: nd-compare -o wrote no plot"; failed=$((failed + 1))
  fi
else
  echo "skipped: nd-compare plots (no gnuplot)"
fi

d=$work/estimate && mkdir -p "$d"
case_ "nd-estimate --memory-csv" "$d/memory.csv" -- "$ND_ESTIMATE" -y "$llama" --memory-csv "$d/memory.csv"
d=$work/search && mkdir -p "$d"
case_ "nd-search --ranking_csv" "$d/ranking.csv" -- \
  "$ND_SEARCH" -y "$llama" -d 8 -b 64 -t 1 --no-progress --ranking_csv "$d/ranking.csv"

d=$work/search-o && mkdir -p "$d"
case_ "nd-search -o best.yaml (first run)" "$d/best.yaml" -- \
  "$ND_SEARCH" -y "$llama" -d 8 -b 64 -t 1 --no-progress --no-plots -o "$d"
rm "$d/best.yaml"
"$ND_SEARCH" -y "$llama" -d 4 -b 32 -t 1 --no-progress --no-plots -o "$d" >/dev/null 2>&1
for f in ranking.csv summary.json best.yaml memory.csv; do
  case_ "nd-search -o $f (earlier run kept)" "$d/$f" -- \
    "$ND_SEARCH" -y "$llama" -d 8 -b 64 -t 1 --no-progress --no-plots -o "$d"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
