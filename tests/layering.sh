#!/bin/sh
# layering.sh SOURCE_DIR — dependencies point one way (docs/architecture.md): every
# `#include "nd/X.h"` in a library's folder names a header of that library or of one it
# may use. A header missing from the table below fails the check, so a new public header
# gets its library stated here.
#   nd_base <- nd_plot <- nd_html;  nd_base <- nd_core <- nd_search (+ nd_plot, nd_html);
#   nd_core <- nd_search <- nd_calib (+ nd_plot, nd_html);  nd_base <- nd_classify (+ nd_plot, nd_html)
set -u
src=${1:?usage: layering.sh SOURCE_DIR}
cd "$src" || exit 1

# The library each public header belongs to.
lib_of() {
  case "$1" in
    error|io|text|json|yaml_doc|yaml_edit|toml|formats|version|flags|progress) echo base ;;
    model|model_fields|device|strategy|run|parts|collective|layer|layer_cache|stage|estimate|\
    ratios|report|cli|search_config|prediction|framework|checkpoint|census) echo core ;;
    search|search_out|knapsack) echo search ;;
    classified|compare|metrics|fit|fit_device|fit_suggest) echo calib ;;
    classify) echo classify ;;
    plot|csv_table) echo plot ;;
    html) echo html ;;
    *) echo unknown ;;
  esac
}

# The libraries a library may include from (itself included).
may_use() {
  case "$1" in
    base) echo "base" ;;
    plot) echo "base plot" ;;
    html) echo "base plot html" ;;
    core) echo "base core" ;;
    search) echo "base core plot html search" ;;
    calib) echo "base core plot html search calib" ;;
    classify) echo "base plot html classify" ;;
  esac
}

# The library of a file, by its folder.
lib_of_file() {
  case "$1" in
    base/*) echo base ;;
    search/costmodel/*) echo core ;;
    search/*) echo search ;;
    calib/classify/*) echo classify ;;
    calib/*) echo calib ;;
    plot/*) echo plot ;;
    html/*) echo html ;;
    include/nd/*) lib_of "$(basename "$1" .h)" ;;
  esac
}

bad=0
files=$(find base search calib plot html include/nd -name '*.[ch]' | sort)
for f in $files; do
  lib=$(lib_of_file "$f")
  allowed=$(may_use "$lib")
  for h in $(sed -n 's/^#include "nd\/\([a-z_]*\)\.h".*/\1/p' "$f"); do
    hl=$(lib_of "$h")
    if [ "$hl" = unknown ]; then
      echo "$f: includes nd/$h.h, which tests/layering.sh does not place in a library"
      bad=1
      continue
    fi
    case " $allowed " in
      *" $hl "*) ;;
      *) echo "$f: nd_$lib includes nd/$h.h of nd_$hl, which it may not use"; bad=1 ;;
    esac
  done
done
# Every public header is placed (a new one must be given its library).
for h in include/nd/*.h; do
  [ "$(lib_of "$(basename "$h" .h)")" != unknown ] || { echo "$h: not placed in a library"; bad=1; }
done
[ "$bad" -eq 0 ] && echo "layering ok: $(echo "$files" | wc -l) files"
exit "$bad"
