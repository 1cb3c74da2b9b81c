#!/bin/sh
# layers.sh COMMAND... — runs an nd-estimate COMMAND and prints "layers: a,b,..." (the layers
# column of its memory table, one count a pipeline stage) and the strategy line.
"$@" 2>/dev/null | awk '/^  stage layers/ {t = 1; next} /^  peak/ {t = 0}
  t && $1 ~ /^[0-9]+$/ {s = s (s == "" ? "" : ",") $2} /^strategy:/ {print} END {print "layers: " s}'
