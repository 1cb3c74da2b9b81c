#!/bin/sh
# yaml_roundtrip.sh BIN OUT CONFIG READ_FLAGS -- SEARCH_FLAGS... — a framework YAML config
# read, searched and written back, then checked as its trainer would load it: OUT/resolved.yaml
# parses with Python's yaml (PyYAML, MindFormers' and HyperParallel's loader; libyaml through
# nd itself when Python has no yaml), keeps every anchor (&name) of CONFIG, and nd reading it
# back (with READ_FLAGS, e.g. "-A A2") states the strategy of OUT/best.yaml, the one nd chose.
set -u
bin=$1 out=$2 config=$3 read=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
"$bin/nd-search" -y "$config" "$@" -t 1 -o "$out" --no-plots --no-progress >"$out.log" 2>&1 ||
    { echo "FAIL: nd-search exited $?"; tail -3 "$out.log"; exit 1; }
res=$out/resolved.yaml
[ -s "$res" ] || { echo "FAIL: no $res"; exit 1; }
if python3 -c 'import yaml' 2>/dev/null; then
    python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$res" ||
        { echo "FAIL: PyYAML refuses $res"; exit 1; }
    parser=PyYAML
else
    parser=libyaml
fi
a=$(grep -o '&[A-Za-z0-9_]*' "$config" | sort | tr '\n' ' ')
b=$(grep -o '&[A-Za-z0-9_]*' "$res" | sort | tr '\n' ' ')
[ "$a" = "$b" ] || { echo "FAIL: anchors '$a' became '$b'"; exit 1; }
# shellcheck disable=SC2086
want=$("$bin/nd-estimate" -y "$out/best.yaml" 2>/dev/null | grep '^strategy:')
# shellcheck disable=SC2086
got=$("$bin/nd-estimate" -y "$res" $read 2>&1 | grep '^strategy:\|nd-estimate:')
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL: chose '$want', $res reads '$got'"; exit 1; }
echo "roundtrip ok ($parser): $got"
