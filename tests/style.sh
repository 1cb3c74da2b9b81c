#!/bin/sh
# style.sh SOURCE_DIR — the house rules of docs/style.md that a script can check:
#   1. every C file is as clang-format (the committed .clang-format) would write it;
#   2. no line is longer than 110 columns;
#   3. every C file starts with a comment saying what it is for (its purpose line);
#   4. every citation resolves inside the repository: a `docs/....md` (or `reference/....md`,
#      which lives in docs/reference/) named in a C file, a script or a page exists, and a
#      `§n` or `§Word` after it is a heading of that page; every relative link of a page
#      (`[text](path)`) names a file of the repository.
# Needs clang-format 14 (Debian's clang-format); exits 77 (skipped) without it unless
# ND_REQUIRE_STYLE=1.
set -u
src=${1:?usage: style.sh SOURCE_DIR}
cd "$src" || exit 1
bad=0
fail() { echo "$*"; bad=1; }
tmpbad=$(mktemp) || exit 1
trap 'rm -f "$tmpbad"' EXIT

cfiles=$(find base search calib plot include tests bench -name '*.[ch]' -not -path '*/build*' | sort)

# ---- 1. clang-format ---------------------------------------------------------------------------
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  [ "${ND_REQUIRE_STYLE:-0}" = 1 ] && { echo "clang-format is not installed"; exit 1; }
  echo "clang-format is not installed: skipped"; exit 77
fi
for f in $cfiles; do
  "$cf" --style=file "$f" | cmp -s - "$f" || fail "$f: not as clang-format writes it (clang-format -i $f)"
done

# ---- 2. line length ----------------------------------------------------------------------------
for f in $cfiles; do
  awk -v f="$f" 'length > 110 { printf "%s:%d: %d columns (at most 110)\n", f, NR, length; bad = 1 }
                 END { exit bad }' "$f" || bad=1
done

# ---- 3. purpose line ---------------------------------------------------------------------------
for f in $cfiles; do
  head -c 2 "$f" | grep -q '^/\*' || fail "$f: no purpose line (a comment saying what the file is for) at its top"
done

# ---- 4. citations ------------------------------------------------------------------------------
# heading_has PAGE SECTION: a heading of PAGE starts with the section number, or holds the word
heading_has() {
  case "$2" in
    [0-9]*) grep -Eq "^#+ +§?$(echo "$2" | sed 's/\./\\./g')([ .:)]|$)" "$1" ;;
    *) grep -E '^#+ ' "$1" | grep -qiF "$2" ;;
  esac
}
cites=$(find base search calib plot include tests bench scripts docs -type f \
          \( -name '*.[ch]' -o -name '*.sh' -o -name '*.cmake' -o -name '*.md' \) -not -path '*/build*' \
          -not -name style.sh | sort)
for f in $cites README.md; do
  # "docs/x.md §3.4", "reference/x.md §Word", "cost-model.md §Memory" (a page of docs/ by name)
  # (a path inside another repository is written with it, owner/name/docs/x.md, and not checked)
  grep -noE '(^|[^/A-Za-z0-9_.-])((docs/)?reference/[A-Za-z0-9_-]+\.md|docs/[A-Za-z0-9_/-]+\.md|[a-z-]+\.md)( §[0-9A-Za-z.]+)?' "$f" 2>/dev/null |
  while IFS=: read -r line cite; do
    cite=$(echo "$cite" | sed 's/^[^A-Za-z]*//')
    page=${cite%% §*}
    case "$page" in
      docs/*) path=$page ;;
      reference/*) path=docs/$page ;;
      *) if [ -f "docs/$page" ]; then path=docs/$page
         elif [ -f "$(dirname "$f")/$page" ]; then path=$(dirname "$f")/$page
         else continue; fi ;;  # a bare file name that is not one of ours (README.md of a repo, ...)
    esac
    [ -f "$path" ] || { echo "$f:$line: cites $page, which is not in the repository"; echo x >> "$tmpbad"; continue; }
    case "$cite" in
      *" §"*) sec=${cite#* §}; sec=${sec%.}
              heading_has "$path" "$sec" || { echo "$f:$line: cites $page §$sec, which is not a heading of $path"; echo x >> "$tmpbad"; } ;;
    esac
  done
done 2>/dev/null
# relative links of the pages
for f in README.md $(find docs -name '*.md' | sort); do
  grep -noE '\]\([^)#: ]+(#[^)]*)?\)' "$f" | while IFS=: read -r line link; do
    target=${link#](}; target=${target%)}; target=${target%%#*}
    [ -z "$target" ] && continue
    [ -e "$(dirname "$f")/$target" ] || { echo "$f:$line: links $target, which is not in the repository"; echo x >> "$tmpbad"; }
  done
done
[ -s "$tmpbad" ] && bad=1

[ "$bad" -eq 0 ] && echo "style ok: $(echo "$cfiles" | wc -l) C files, citations and links resolve"
exit "$bad"
