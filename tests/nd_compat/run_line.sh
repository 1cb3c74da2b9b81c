#!/bin/sh
# run_line.sh NAME STATUS CHECKS COMMAND — runs one ND command line (tests/nd_compat/LINES) in
# a scratch directory of its own and checks its outcome: the exit status, then each check
# of CHECKS (separated by " ;; "):
#   out~ERE  err~ERE       stdout / stderr matches the extended regex
#   !out~ERE !err~ERE      ... does not match
#   file:PATH~ERE          the file (relative to the scratch directory) exists and matches
#   !file:PATH             the file does not exist
#   lines:err:N            stderr has N lines
#   same:A:B               files A and B are byte for byte the same
#   diff:A:B:N             A and B differ in exactly N lines (diff's changed lines, both sides)
# COMMAND runs under sh with the nd binaries first on PATH, $S the samples directory, $D
# this directory (tests/nd_compat) and $T the scratch directory (the current directory; its
# files `out` and `err` hold what the command printed).
# Environment: ND_BIN, ND_SAMPLES, ND_COMPAT_DIR, ND_COMPAT_OUT.
set -u
name=$1 status=$2 checks=$3
shift 3
T=${ND_COMPAT_OUT:?}/$name
rm -rf "$T" && mkdir -p "$T" && cd "$T" || exit 1
export T S="${ND_SAMPLES:?}" D="${ND_COMPAT_DIR:?}" PATH="${ND_BIN:?}:$PATH"
sh -c "$*" >out 2>err
got=$?
fail() {
  echo "FAIL $name: $*"; echo "--- command: $*"; echo "--- stdout"; head -c 3000 out; echo "--- stderr"; head -c 3000 err
  exit 1
}
[ "$got" -eq "$status" ] || fail "exit status $got, expected $status"
rest=$checks
while [ -n "$rest" ]; do
  item=${rest%% ;; *}
  [ "$item" = "$rest" ] && rest= || rest=${rest#* ;; }
  neg=
  case "$item" in !*) neg=1 item=${item#!} ;; esac
  case "$item" in
    out~*|err~*)
      f=${item%%~*} re=${item#*~}
      if grep -Eq -- "$re" "$f"; then [ -z "$neg" ] || fail "$f matches /$re/"
      else [ -n "$neg" ] || fail "$f does not match /$re/"; fi ;;
    file:*~*)
      spec=${item#file:} f=${spec%%~*} re=${spec#*~}
      [ -f "$f" ] || fail "no file $f"
      grep -Eq -- "$re" "$f" || fail "$f does not match /$re/" ;;
    file:*)
      f=${item#file:}
      if [ -n "$neg" ]; then [ ! -e "$f" ] || fail "$f exists"; else [ -f "$f" ] || fail "no file $f"; fi ;;
    lines:*)
      spec=${item#lines:} f=${spec%%:*} n=${spec#*:}
      [ "$(grep -c '' "$f")" -eq "$n" ] || fail "$f has $(grep -c '' "$f") lines, expected $n" ;;
    same:*)
      spec=${item#same:} a=${spec%%:*} b=${spec#*:}
      cmp -s "$a" "$b" || fail "$a and $b differ" ;;
    diff:*)
      spec=${item#diff:} a=${spec%%:*} spec=${spec#*:} b=${spec%%:*} n=${spec#*:}
      got_n=$(diff "$a" "$b" | grep -c '^[<>]')
      [ "$got_n" -eq "$n" ] || { diff "$a" "$b"; fail "$a and $b differ in $got_n lines, expected $n"; } ;;
    *) fail "cannot read the check '$item'" ;;
  esac
done
exit 0
