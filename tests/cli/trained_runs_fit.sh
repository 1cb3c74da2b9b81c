#!/bin/sh
# Every published configuration that really trained must fit in nd's eyes (issue 12: "no
# configuration that ran called 'does not fit'"). The facts are the sources' own: DLPerf's
# 15 Megatron runs on V100, three single published peaks, torchtitan's 16 measured runs,
# llm-foundry's 191 MPT runs and Megatron-LM's 10 SC21 weak-scaling runs all trained (samples/published/README.md). bench_fidelity prices
# them; this checks its refusal counts only (its error figures are a benchmark, not a test).
set -eu
out=$("$1")
fail=0
check() {
    printf '%s\n' "$out" | grep -Eq "$1" || { echo "FAIL: no line matching: $1"; fail=1; }
}
check '^DLPerf V100 .* 0/15$'
check 'Published peaks' && check '^all .* refused 0/3$'
check '^  all: memory MAPE .* refused 0/16;'
check '191 priced, 0 refused'
check '^  all: step MAPE .* refused 0/10$'
check '^  PTD-P: step MAPE .* refused 0/6$'
[ $fail = 0 ] || { printf '%s\n' "$out"; exit 1; }
echo ok
