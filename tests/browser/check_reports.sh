#!/bin/sh
# check_reports.sh BUILD_DIR OUT_DIR — the one-page HTML reports in a real browser: runs the
# demo (scripts/demo.sh, every binary's --report) into OUT_DIR, writes the kinds of page it does
# not (a device view, an offloaded plan, a published configuration, a fit of step times), then
# loads each report in
# headless Chromium and fails on a script or console error, a resource that does not load,
# a plot (inline SVG) that does not render, or a missing section (docs/report.md).
#
# Without chromium this is skipped (exit 77) with a message, unless ND_REQUIRE_BROWSER=1
# (CI sets it: there a missing browser is a failure). CHROMIUM names another binary.
set -u
build=${1:?usage: check_reports.sh BUILD_DIR OUT_DIR}
out=${2:?usage: check_reports.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
  for c in chromium chromium-headless-shell chromium-browser; do
    if command -v "$c" >/dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
  done
fi
if [ -z "$chromium" ]; then
  if [ "${ND_REQUIRE_BROWSER:-0}" = 1 ]; then
    echo "FAIL: no chromium on PATH and ND_REQUIRE_BROWSER=1 (install the Debian package chromium)"
    exit 1
  fi
  echo "SKIP: no chromium on PATH: the reports are not checked in a browser (apt-get install chromium)"
  exit 77
fi
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot: the demo draws no plots"; exit 77; }

rm -rf "$out"
mkdir -p "$out"
"$src/scripts/demo.sh" "$build" "$out/demo" > "$out/demo.log" 2>&1 || {
  echo "FAIL: the demo failed"; tail -n 30 "$out/demo.log"; exit 1; }

# The sections each binary's report must have (docs/report.md).
want_for() {
  case "$(sed -n 's/.*<footer>Written by \(nd-[a-z]*\) .*/\1/p' "$1" | head -1)" in
    nd-compare) echo "summary inputs accuracy plots rows notes" ;;
    nd-fit) echo "summary inputs ratios plots rows notes" ;;
    nd-search) echo "summary assumptions inputs ranking plan plots refused notes" ;;
    nd-classify) echo "summary inputs parts plots communication warnings" ;;
    *) echo "unknown-generator" ;;
  esac
}

# check_page REPORT WANT QUIET: loads a copy of REPORT with the checker in front, in a fresh
# profile; 0 when it renders with every section of WANT and no error, else 1 (and, unless
# QUIET, what went wrong).
check_page() {
  report=$1 want=$2 quiet=$3
  n=$((n + 1))
  page="$out/page-$n.html"
  # The checker goes first in <head>, so it hears every error the page raises.
  awk -v want="$want" -v js="$here/check_report.js" '
    { print }
    /^<head>$/ && !done { print "<meta name=\"nd-want\" content=\"" want "\">"; print "<script>";
      while ((getline line < js) > 0) print line; print "</script>"; done = 1 }' "$report" > "$page"
  profile=$(mktemp -d "$out/profile.XXXXXX")
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1200,2000 --virtual-time-budget=10000 \
    --enable-logging=stderr --v=0 --dump-dom "file://$page" > "$page.dom" 2> "$page.log"
  status=$?
  rm -rf "$profile"
  verdict=$(sed -n '/ND-CHECK-RESULT figures/,/ND-CHECK-END/p' "$page.dom")
  console=$(grep -E 'CONSOLE|Uncaught' "$page.log" || true)
  if [ $status -ne 0 ] || [ -z "$verdict" ]; then
    [ "$quiet" = 1 ] || { echo "FAIL: $report: chromium exit $status, no verdict"; tail -n 5 "$page.log"; }
    return 1
  fi
  if ! printf '%s\n' "$verdict" | grep -q 'problems=0$' || [ -n "$console" ]; then
    [ "$quiet" = 1 ] || { echo "FAIL: $report"; printf '%s\n%s\n' "$verdict" "$console"; }
    return 1
  fi
  [ "$quiet" = 1 ] || echo "ok $report: $(printf '%s' "$verdict" | head -1 | sed 's/.*ND-CHECK-RESULT //'), sections: $want"
  return 0
}

# The pages the demo does not write, so that every kind of page is loaded: nd-classify's with a
# device view (its kernel classes figure), nd-search's with an offloaded plan, an uncalibrated
# search without -c's odds, nd-fit's of a round of step times only.
bin="$build/bin"
"$bin/nd-classify" "$src/tests/data/classify/kernel_shapes.json" --dims DP=8 -q \
  --report "$out/demo/extra-classify-kernels.html" >/dev/null &&
"$bin/nd-search" -y "$src/samples/runs/llama3-8b.yaml" -d 16 -b 64 -M 20GB -A A3 -ar -ao -t 5 -q \
  --report "$out/demo/extra-search-offload.html" >/dev/null &&
"$bin/nd-search" -y "$src/samples/published/llama3.1-405b-mbridge-h100.yaml" -ar -t 5 -q \
  --report "$out/demo/extra-search-published.html" >/dev/null &&
"$bin/nd-fit" -y "$src/samples/runs/dlperf-gpt-h1536-l16.yaml" --real_csv "$src/samples/rounds/dlperf-gpt-h1536-l16.csv" \
  --hold auto -q --report "$out/demo/extra-fit-total.html" >/dev/null || {
  echo "FAIL: an extra report could not be written"; exit 1; }
grep -q '<figcaption>Device time by kernel class' "$out/demo/extra-classify-kernels.html" || { echo "FAIL: no kernel classes figure"; exit 1; }
grep -q '<td>[^<]*offloaded</td>' "$out/demo/extra-search-offload.html" || {
  echo "FAIL: the offloaded plan is not in the search report"; exit 1; }

n=0 fails=0 checked=0
for report in $(find "$out/demo" -name '*.html' | sort); do
  checked=$((checked + 1))
  check_page "$report" "$(want_for "$report")" 0 || fails=$((fails + 1))
done
[ $checked -ge 11 ] || { echo "FAIL: only $checked reports found"; exit 1; }

# The checker must catch what it is for: each broken copy of a report has to fail.
base="$out/demo/compare-raw/report.html"
want=$(want_for "$base")
broken() { # broken NAME SED_SCRIPT
  sed "$2" "$base" > "$out/broken-$1.html"
  if check_page "$out/broken-$1.html" "$want" 1; then
    echo "FAIL: the checker passed a report with $1"; fails=$((fails + 1))
  else
    echo "ok the checker catches $1"
  fi
}
broken "a console error" 's|<h1>|<script>console.error("broken")</script><h1>|'
broken "a script error" 's|<h1>|<script>no_such_function()</script><h1>|'
broken "an image that does not load" 's|<h1>|<img src="missing.png" alt="x"><h1>|'
broken "a missing section" 's|<section id="accuracy">|<section id="accuracy-renamed">|'
broken "a plot that does not render" 's|<svg |<svg style="display:none" |'
[ $fails -eq 0 ] || exit 1
echo "all $checked reports render"
