# results.sh — sourced by the shell tests that report each case: a scratch directory $work
# (removed on exit) and result NAME WHY, which counts an empty WHY as passed, else failed;
# the test ends with: echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
result() { # NAME WHY
  if [ -z "$2" ]; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAIL: $1: $2"; fi
}
