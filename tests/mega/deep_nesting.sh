#!/bin/sh
# deep_nesting.sh ND-ESTIMATE OUT — scripts nested past reason ($(( with 200,000 parentheses,
# signs or powers; $( and ${ opened 200,000 times; quotes inside command substitutions): each
# read ends with status 0 or 2 (a message), never a crash from the stack running out.
set -u
est=$1 out=$2
mkdir -p "$out" || exit 1
rep() { head -c "$2" /dev/zero | tr '\0' "$1"; }
tail='torchrun --nproc_per_node $X x.py --num-layers 2 --hidden-size 64 --num-attention-heads 2'
n=0
for kind in parens signs powers commands braces quotes; do
  f=$out/$kind.sh
  case $kind in
  parens) { printf 'X=$(('; rep '(' 200000; printf 1; rep ')' 200000; printf '))\n'; } >"$f" ;;
  signs) { printf 'X=$(('; rep '-' 200000 | sed 's/-/- /g'; printf '1))\n'; } >"$f" ;;
  powers) { printf 'X=$(('; rep '*' 200000 | sed 's/\*/2**/g'; printf '1))\n'; } >"$f" ;;
  commands) { printf 'X='; rep '(' 200000 | sed 's/(/$(/g'; printf '\n'; } >"$f" ;;
  braces) { printf 'X='; rep '{' 200000 | sed 's/{/${A:-/g'; printf '\n'; } >"$f" ;;
  quotes) { printf 'X="'; rep '(' 100000 | sed "s/(/\$('\"/g"; printf '\n'; } >"$f" ;;
  esac
  echo "$tail" >>"$f"
  "$est" -y "$f" -A H100 -d 8 -f megatron >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || { echo "FAIL: $kind: exit status $rc"; exit 1; }
  n=$((n + 1))
done
echo "no crash: $n scripts"
