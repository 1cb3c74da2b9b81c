#!/bin/sh
# variant.sh BIN SCRIPT SED OUT KEYS [nd flags...] — real_launch.sh on SCRIPT edited by the
# sed expression SED (@FILE: the sed script FILE) — a spelling the real file does not use —
# then, when CHECK is set in the environment, requires resolved.sh to hold the fixed string CHECK.
set -u
bin=$1 script=$2 expr=$3 out=$4 keys=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
case $expr in
@*) mkdir -p "$out" && sed -f "${expr#@}" "$script" >"$out.src.sh" || exit 1 ;;
*) mkdir -p "$out" && sed "$expr" "$script" >"$out.src.sh" || exit 1 ;;
esac
sh "$here/real_launch.sh" "$bin" "$out.src.sh" "$out" "$keys" "$@" || exit 1
if [ -n "${CHECK:-}" ]; then
  grep -qF -- "$CHECK" "$out/plan/resolved.sh" || { echo "FAIL: resolved.sh lost: $CHECK"; exit 1; }
fi
