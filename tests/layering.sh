#!/bin/sh
# layering.sh SOURCE_DIR [BUILD_DIR] — the floor plan holds (docs/architecture.md), read from
# the tree itself, with no hand-kept map:
#   1. every library is a leaf folder of the same name (`add_library(nd_X` in .../X/), and its
#      public headers are include/nd/X/*.h; include/nd/ holds no header outside a library;
#   2. a library may use the libraries its CMakeLists.txt links (`target_link_libraries(nd_X
#      PUBLIC ...)`) and what they use, nothing else: every `#include "nd/Y/h.h"` in its
#      folder or its headers names an existing header of one of them; a plain `#include "h.h"`
#      names a header beside the file;
#   3. no circles: between libraries, between public headers, and (with BUILD_DIR) between
#      the object files of the libraries (one file calling into another that calls back),
#      found with nm and tsort.
set -u
src=${1:?usage: layering.sh SOURCE_DIR [BUILD_DIR]}
build=${2:-}
cd "$src" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "$*"; bad=1; }
# tsort's complaints as one line per circle: "a -> b -> c -> a"
loops() {
  awk '/input contains a loop/ { if (n) print line " -> " first; n = 0; next }
       { sub(/^tsort: /, ""); if (!n) { first = $0; line = $0 } else line = line " -> " $0; n++ }
       END { if (n) print line " -> " first }' "$1" | sort -u
}

# ---- 1. libraries and their folders ----------------------------------------------------------
for cm in $(find . -name CMakeLists.txt -not -path './build*' -not -path './tests/*' -not -path './bench/*' | sort); do
  dir=$(dirname "$cm" | sed 's|^\./||')
  for lib in $(sed -n 's/^add_library(nd_\([a-z_]*\) STATIC.*/\1/p' "$cm"); do
    [ "$(basename "$dir")" = "$lib" ] || fail "$cm: library nd_$lib is not in a folder named $lib"
    echo "$lib $dir" >> "$tmp/libs"
    # what it links: nd_* names after PUBLIC/PRIVATE in target_link_libraries(nd_lib ...)
    deps=$(awk -v t="nd_$lib" '
      $0 ~ "target_link_libraries\\(" t "[ )]" { on = 1 }
      on { for (i = 1; i <= NF; i++) if ($i ~ /^nd_[a-z_]+\)?$/ && $i != t) { g = $i; sub(/\)$/, "", g); sub(/^nd_/, "", g); print g }
           if ($0 ~ /\)/) on = 0 }' "$cm" | sort -u | tr '\n' ' ')
    echo "$lib $deps" >> "$tmp/deps"
    for d in $deps; do echo "$lib $d" >> "$tmp/lib_edges"; done
    echo "$lib $lib" >> "$tmp/lib_edges"
  done
done
[ -s "$tmp/libs" ] || { echo "no libraries found under $src"; exit 1; }
lib_dir() { awk -v l="$1" '$1 == l { print $2 }' "$tmp/libs"; }

if ! tsort "$tmp/lib_edges" > /dev/null 2> "$tmp/err"; then
  loops "$tmp/err" | while read -r l; do echo "libraries link in a circle: $l"; done; bad=1
fi

# the libraries each may use: itself and the closure of what it links
closure() {
  seen=" $1 "
  todo=$1
  while [ -n "$todo" ]; do
    next=""
    for l in $todo; do
      for d in $(awk -v l="$l" '$1 == l { $1 = ""; print }' "$tmp/deps"); do
        case "$seen" in *" $d "*) ;; *) seen="$seen$d "; next="$next $d" ;; esac
      done
    done
    todo=$next
  done
  echo "$seen"
}

for h in include/nd/*.h; do
  [ -e "$h" ] && fail "$h: a public header outside a library's folder (include/nd/LIBRARY/)"
done
for d in include/nd/*/; do
  l=$(basename "$d")
  [ -n "$(lib_dir "$l")" ] || fail "$d: no library nd_$l owns this folder of headers"
done

# ---- 2. includes -----------------------------------------------------------------------------
while read -r lib dir; do
  allowed=$(closure "$lib")
  for f in $(find "$dir" -maxdepth 1 -name '*.[ch]' | sort) $(find "include/nd/$lib" -name '*.h' 2>/dev/null | sort); do
    for inc in $(sed -n 's/^#include "\(nd\/[^"]*\)".*/\1/p' "$f"); do
      hl=$(echo "$inc" | cut -d/ -f2)
      [ -f "include/$inc" ] || { fail "$f: includes $inc, which does not exist"; continue; }
      case "$allowed" in
        *" $hl "*) ;;
        *) fail "$f: nd_$lib includes $inc of nd_$hl, which it does not link (its CMakeLists.txt)" ;;
      esac
      case "$f" in include/*) echo "$f include/$inc" >> "$tmp/hdr_edges" ;; esac
    done
    for inc in $(sed -n 's/^#include "\([^/"]*\.h\)".*/\1/p' "$f"); do
      [ -f "$(dirname "$f")/$inc" ] || fail "$f: includes \"$inc\", which is not beside it"
    done
    case "$f" in include/*) echo "$f $f" >> "$tmp/hdr_edges" ;; esac
  done
done < "$tmp/libs"

if [ -s "$tmp/hdr_edges" ] && ! tsort "$tmp/hdr_edges" > /dev/null 2> "$tmp/err"; then
  loops "$tmp/err" | while read -r l; do echo "public headers include each other in a circle: $l"; done; bad=1
fi

# ---- 3. object files: who calls whom ---------------------------------------------------------
objects=0
if [ -n "$build" ]; then
  : > "$tmp/defs"
  : > "$tmp/uses"
  while read -r lib dir; do
    for o in $(find "$build/$dir/CMakeFiles/nd_$lib.dir" -name '*.o' 2>/dev/null | sort); do
      name="$dir/$(basename "$o" .c.o)"
      objects=$((objects + 1))
      nm "$o" | awk -v n="$name" '$2 ~ /^[TDBRC]$/ { print $3, n >> "'"$tmp/defs"'" }
                                   $1 == "U" { print $2, n >> "'"$tmp/uses"'" }'
      echo "$name $name" >> "$tmp/obj_edges"
    done
  done < "$tmp/libs"
  [ "$objects" -gt 0 ] || fail "$build: no object files of the libraries (build first)"
  sort -k1,1 "$tmp/defs" > "$tmp/defs.s"
  sort -k1,1 "$tmp/uses" > "$tmp/uses.s"
  join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $3 { print $2, $3 }' | sort -u >> "$tmp/obj_edges"
  if ! tsort "$tmp/obj_edges" > /dev/null 2> "$tmp/err"; then
    loops "$tmp/err" | while read -r l; do echo "object files call each other in a circle: $l"; done; bad=1
  fi
fi

nlibs=$(wc -l < "$tmp/libs")
[ "$bad" -eq 0 ] && echo "layering ok: $nlibs libraries, $objects object files, no circles"
exit "$bad"
