#!/bin/sh
# published_answers.sh BIN SRC — issue 24's "done when": on every published configuration of
# samples/published/ (the searches bench_decisions runs, asked the same question) and on the
# demo's searches, nd-search -t 5 answers with five distinct layouts (no two differ only in OP;
# all there are where fewer than five fit, as the terminal's "(N in all" says),
# each with its interval, its plan and its headroom, in the terminal, the ranking CSV, the
# ranking plot's data and the HTML report. The numbers are checked against each other: the
# interval holds the step, the headroom is the budget less the peak (summary.json's budget), the
# plot and the report show the CSV's rows.
set -u
bin=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

check() { # NAME ARGS...: one search and its four views
  name=$1
  shift
  out=$dir/$name
  if ! "$bin/nd-search" "$@" -t 5 -q --no-what-if -o "$out" --report "$out/report.html" >"$dir/$name.txt" 2>&1; then
    bad "$name: nd-search failed: $(tail -n 1 "$dir/$name.txt")"
    return
  fi
  # the distinct choices that fit: five are asked for, fewer where fewer fit
  all=$(sed -n 's/^Top [0-9]* of .*(\([0-9]*\) in all.*/\1/p' "$dir/$name.txt" | head -n 1)
  want=5
  [ -n "$all" ] && [ "$all" -lt 5 ] && want=$all
  awk -F, -v name="$name" -v want="$want" -v json="$out/summary.json" '
    BEGIN { while ((getline line < json) > 0) if (line ~ /"budget_mib":/) { sub(/.*: */, "", line); sub(/,.*/, "", line); budget = line + 0 } }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["folded_into"] == "" && shown < want {
      shown++
      key = $c["DP"] " " $c["EP"] " " $c["MP"] " " $c["CP"] " " $c["PP"] " " $c["VPP"] " " $c["MB"] " " $c["MBS"] " " $c["SP"] " " $c["plan"]
      if (key in seen) { printf "FAIL: %s: #%d and #%d differ only in OP (%s)\n", name, seen[key], shown, key; bad = 1 }
      seen[key] = shown
      if (!($c["step_lo_ms"] + 0 <= $c["step_ms"] + 0 && $c["step_ms"] + 0 < $c["step_hi_ms"] + 0)) {
        printf "FAIL: %s: #%d step %s outside its interval %s-%s\n", name, shown, $c["step_ms"], $c["step_lo_ms"], $c["step_hi_ms"]; bad = 1 }
      if ($c["plan"] == "") { printf "FAIL: %s: #%d has no plan\n", name, shown; bad = 1 }
      h = budget - $c["memory_mb"]; d = h - $c["headroom_mib"]
      if (d * d > 1e-6 || h < 0) { printf "FAIL: %s: #%d headroom %s, budget - peak %s\n", name, shown, $c["headroom_mib"], h; bad = 1 }
      if (shown > 1 && $c["tied_with_best"] == "") { printf "FAIL: %s: #%d not judged against #1\n", name, shown; bad = 1 }
    }
    END { if (shown != want) { printf "FAIL: %s: %d distinct choices, not %d\n", name, shown, want; bad = 1 } exit bad }
  ' "$out/ranking.csv" || fail=1
  # the terminal: five rows of the choices' table, each with its interval, then the assumptions
  rows=$(awk '/^Top [1-5] of/ { on = 1; next } on && /^ +[1-5] +[0-9]/ { n++ } /^$/ { on = 0 } END { print n + 0 }' "$dir/$name.txt")
  [ "$rows" = "$want" ] || bad "$name: the terminal table has $rows rows"
  grep -q "^What this answer assumes:" "$dir/$name.txt" || bad "$name: no assumptions in the terminal"
  # the plot: the same five steps, each with its interval (the quoted label, which holds spaces,
  # taken off first: step, low and high are then the first three fields)
  sed '/^#/d; s/^"[^"]*" *//' "$out/ranking.dat" |
    awk -v name="$name" -v want="$want" '{ n++; if (!($2 + 0 <= $1 + 0 && $1 + 0 <= $3 + 0 && $2 + 0 < $3 + 0)) { printf "FAIL: %s: plot row %d has no interval\n", name, n; bad = 1 } }
    END { if (n != want) { printf "FAIL: %s: the plot draws %d rows\n", name, n; bad = 1 } exit bad }' || fail=1
  # the report: a ranking of five rows (interval, plan, headroom columns), #1's assumptions
  n=$(sed -n '/<section id="ranking"/,/<\/section>/p' "$out/report.html" | grep -c '^<tr><td class="n">[1-5]</td>')
  [ "$n" = "$want" ] || bad "$name: the report's ranking has $n rows"
  grep -q '<th>interval ms</th>' "$out/report.html" && grep -q '<th>headroom GiB</th>' "$out/report.html" &&
    grep -q '<th>plan (recompute, offload)</th>' "$out/report.html" || bad "$name: the report lacks a column"
  grep -q '<section id="assumptions"' "$out/report.html" || bad "$name: the report has no assumptions"
}

for run in "$src"/samples/published/*.yaml; do
  check "$(basename "$run" .yaml)" -y "$run"
done
check demo-llama -y "$src/samples/runs/llama3-8b.yaml" -d 64 -b 512 -c "$src/samples/ratios/llama3-8b-h100.json" -ar
check demo-deepseek -y "$src/samples/runs/deepseek-v3.yaml" -ar
[ $fail = 0 ] && echo ok
