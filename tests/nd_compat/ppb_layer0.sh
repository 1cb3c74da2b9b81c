#!/bin/sh
# ppb_layer0.sh FILE — from a -k description (JSON), the first body layer's forward and its
# fully recomputed backward less its plain one, rounded to 1e-9: "forward F full-off D".
set -u
sed -n '/"name": "layer 0"/,/"working_mib"/p' "$1" | tr -d ' \n' |
  awk '{ f = $0; sub(/.*"forward":/, "", f); sub(/,.*/, "", f)
         b = $0; sub(/.*"backward":\{/, "", b); sub(/\}.*/, "", b)
         off = b; sub(/.*"off":/, "", off); sub(/,.*/, "", off)
         full = b; sub(/.*"full":/, "", full); sub(/[,}].*/, "", full)
         printf "forward %g full-off %.9g\n", f, full - off }'
