#!/bin/sh
# safetensors.sh HEADER.json — a .safetensors file on stdout holding HEADER.json as its header
# and no data: 8 bytes of little-endian length, then the JSON padded with spaces to a multiple
# of 8 (safetensors' layout). nd's -V reads headers only, so a checkpoint's census can be
# tried without its weights.
set -eu
json=$(tr -d '\n' < "$1")
n=$(printf '%s' "$json" | wc -c)
pad=$(( (8 - n % 8) % 8 ))
total=$((n + pad))
i=0
while [ $i -lt 8 ]; do
  printf "\\$(printf '%03o' $(( (total >> (8 * i)) & 255 )))"
  i=$((i + 1))
done
printf '%s' "$json"
printf '%*s' "$pad" ''
