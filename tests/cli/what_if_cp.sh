#!/bin/sh
# what_if_cp.sh SEARCH RUN — nd-search's "what if" lines for CP's other forms. At 128k on 64 H100
# (Megatron, the ring by default) #1 runs CP, so each other form Megatron runs (a2a, allgather)
# gets a line; the a2a line's #1 and step must be what a search under --set cp_comm=a2a ranks
# first. At 8k #1 and the run use no CP: no such line (no searches spent on it).
set -eu
search=$1 run=$2
out=$("$search" -y "$run" -A H100 -d 64 -b 64 --seq 131072 -t 1 2>&1)
line=$(printf '%s\n' "$out" | grep 'what if .*with cp_comm a2a') || { echo "no a2a line"; exit 1; }
printf '%s\n' "$out" | grep -q 'what if .*with cp_comm allgather' || { echo "no allgather line"; exit 1; }
ms=$(printf '%s\n' "$line" | sed -n 's/.*(\([0-9.]*\) ms against.*/\1/p')
a2a=$("$search" -y "$run" -A H100 -d 64 -b 64 --seq 131072 -t 1 --set cp_comm=a2a --no-what-if 2>&1 |
    awk '$1 == "1" { printf "%.1f\n", $(NF-3); exit }')
[ "$ms" = "$a2a" ] || { echo "what if says $ms ms, the a2a search ranks $a2a ms first"; exit 1; }
if "$search" -y "$run" -A H100 -d 64 -b 64 -t 1 2>&1 | grep -q 'with cp_comm'; then
    echo "a cp_comm line at 8k, where nothing runs CP"
    exit 1
fi
echo "ok $ms"
