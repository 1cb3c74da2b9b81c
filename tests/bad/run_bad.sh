#!/bin/sh
# run_bad.sh READER FILE STATUS REGEX — runs the nd binary READER names on the bad input
# FILE, through tests/cli/expect.sh: the exit status must be STATUS and stderr (stdout
# when STATUS is 0) must match the extended regex REGEX, on one line. tests/bad/MANIFEST
# lists the cases; tests/bad.cmake makes one CTest test per (file, reader).
# Environment: ND_ESTIMATE, ND_SEARCH, ND_COMPARE, ND_FIT, ND_CLASSIFY, ND_PLOT (the binaries),
# ND_SOURCE_DIR, ND_BAD_OUT (a scratch directory), ND_BAD_GEN (generate.sh's output, for
# the gen:NAME inputs).
set -u
reader=$1 file=$2 status=$3 regex=$4
src=${ND_SOURCE_DIR:?}
here=$src/tests/bad
expect=$src/tests/cli/expect.sh
llama=$src/samples/runs/llama3-8b.yaml
round=$src/samples/rounds/llama3-8b-h100.csv
out=${ND_BAD_OUT:-${TMPDIR:-/tmp}}/$reader-$(basename "$file")
case "$file" in
  gen:*) file=${ND_BAD_GEN:?}/${file#gen:} ;;
  /*) ;;
  *) file=$here/$file ;;
esac
mkdir -p "$out"
cd "$out" || exit 1 # anything a binary writes lands in the scratch directory

case "$reader" in
  estimate-run)     set -- "$ND_ESTIMATE" -y "$file" -A H100 ;;
  search-run)       set -- "$ND_SEARCH" -y "$file" -A H100 -d 8 -b 64 -t 1 --no-progress ;;
  compare-run)      set -- "$ND_COMPARE" -y "$file" -A H100 --real_csv "$round" -o "$out" --no-plots ;;
  fit-run)          set -- "$ND_FIT" -y "$file" -A H100 --real_csv "$round" ;;
  compare-round)    set -- "$ND_COMPARE" -y "$llama" --real_csv "$file" -o "$out" --no-plots ;;
  fit-round)        set -- "$ND_FIT" -y "$llama" --real_csv "$file" ;;
  estimate-ratios)  set -- "$ND_ESTIMATE" -y "$llama" -c "$file" ;;
  search-ratios)    set -- "$ND_SEARCH" -y "$llama" -d 8 -b 64 -t 1 --no-progress -c "$file" ;;
  compare-ratios)   set -- "$ND_COMPARE" -y "$llama" --real_csv "$round" -o "$out" --no-plots -c "$file" ;;
  estimate-devices) set -- "$ND_ESTIMATE" -y "$llama" --device-file "$file" -A X1 ;;
  search-devices)   set -- "$ND_SEARCH" -y "$llama" --device-file "$file" -A X1 -d 8 -b 64 -t 1 --no-progress ;;
  compare-devices)  set -- "$ND_COMPARE" -y "$llama" --device-file "$file" -A X1 --real_csv "$round" -o "$out" --no-plots ;;
  fit-devices)      set -- "$ND_FIT" -y "$llama" --device-file "$file" -A X1 --real_csv "$round" ;;
  search-config)    set -- "$ND_SEARCH" -y "$llama" -s "$file" -t 1 --no-progress ;;
  classify-trace)   set -- "$ND_CLASSIFY" "$file" --dims DP=2 ;;
  classify-ascend)  set -- "$ND_CLASSIFY" "$file" --dims DP=8 ;;
  classify-log)     set -- "$ND_CLASSIFY" --log "$file" ;;
  classify-sweep)   set -- "$ND_CLASSIFY" --sweep "$file" ;;
  plot-parity)      set -- "$ND_PLOT" parity "$file" -o "$out/parity" --script-only ;;
  plot-memory)      set -- "$ND_PLOT" memory "$file" -o "$out/memory" --script-only ;;
  *) echo "run_bad.sh: unknown reader '$reader'"; exit 1 ;;
esac
exec sh "$expect" "$status" "$regex" "$@"
