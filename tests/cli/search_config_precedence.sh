#!/bin/sh
# search_config_precedence.sh ND-SEARCH RUN DATA-DIR — the command line wins over a search
# config (-s), and a config's lists restrict the derived dimensions DP and MB.
set -u
search=$1 run=$2 data=$3
dir=$(mktemp -d)
ok=1
first_count() { "$search" -y "$run" -d 64 -b 512 --no-progress "$@" 2>&1 >/dev/null | sed -n '1s/ strategies enumerated.*//p'; }

# -ar picks modes per layer: a config's "recompute: auto" must not price each candidate 3 times
# (schedule_only.yaml is the same config without its recompute).
a=$(first_count -ar -s "$data/schedule_only.yaml") b=$(first_count -ar -s "$data/recompute_auto.yaml")
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: -ar alone enumerates $a, with recompute: auto $b"; ok=0; }

# --recompute off over the config's auto: one mode, as without the config.
a=$(first_count --recompute off -s "$data/schedule_only.yaml") b=$(first_count --recompute off -s "$data/recompute_auto.yaml")
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: --recompute off enumerates $a, with the config $b"; ok=0; }

# --schedule gpipe over the config's interleaved: best.yaml keeps gpipe, VPP 1.
"$search" -y "$run" -d 64 -b 512 --no-progress --no-plots --schedule gpipe -s "$data/recompute_auto.yaml" \
    -o "$dir/out" >/dev/null 2>&1 || { echo "FAIL: nd-search --schedule gpipe exited $?"; ok=0; }
grep -q '^  schedule: "gpipe"' "$dir/out/best.yaml" || { echo "FAIL: best.yaml lost --schedule gpipe"; ok=0; }
grep -q '^  VPP: 1$' "$dir/out/best.yaml" || { echo "FAIL: gpipe with VPP > 1"; ok=0; }

# dp: [8, 16] and micro_batch_num: [4, 8] restrict every ranked row (columns 2 and 8).
"$search" -y "$run" -d 64 -b 512 --no-progress -s "$data/dp_mb_lists.yaml" --ranking_csv "$dir/rank.csv" \
    >/dev/null 2>&1 || { echo "FAIL: nd-search with lists exited $?"; ok=0; }
rows=$(awk -F, 'NR > 1' "$dir/rank.csv" | wc -l)
bad=$(awk -F, 'NR > 1 && !(($2 == 8 || $2 == 16) && ($8 == 4 || $8 == 8))' "$dir/rank.csv" | wc -l)
[ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] || { echo "FAIL: $bad of $rows ranked rows outside the lists"; ok=0; }
rm -rf "$dir"
[ "$ok" -eq 1 ]
