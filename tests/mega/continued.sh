#!/bin/sh
# continued.sh SCRIPT — prints SCRIPT (a launch script with --disable-bias-linear) with
# Megatron's two-level CP added, its list flag's levels over a line continuation
# (--hierarchical-context-parallel-sizes 2 \<newline> 2): the test of the write-back
# (cli_mega.cmake) and a fuzz seed (tests/fuzz/seeds.sh).
sed 's|--disable-bias-linear|--disable-bias-linear --context-parallel-size 4 --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes 2 \\\n    2|' "$1"
