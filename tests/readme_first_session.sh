#!/bin/sh
# readme_first_session.sh SOURCE_DIR BUILD_DIR WORK_DIR — runs every command of the README's
# "A first session" as written, in order, in WORK_DIR: there `build` is BUILD_DIR and `samples`
# the repository's, so the paths read as in the README. Each must exit 0 and the files the
# section promises must be there.
set -u
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
ln -s "$(cd "$build" && pwd)" "$work/build"
ln -s "$src/samples" "$work/samples"
# The section's commands: the indented lines after its heading, continuations joined.
awk '/^## A first session/ { on = 1; next } /^## / { on = 0 }
     on && /^    / { line = line substr($0, 5); if (line ~ /\\$/) { sub(/\\$/, "", line); next }
                    print line; line = "" }' "$src/README.md" > "$work/commands"
count=$(grep -c '' "$work/commands")
[ "$count" -ge 6 ] || { echo "FAIL: only $count commands found under '## A first session'"; exit 1; }
cd "$work" || exit 1
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  if ! sh -c "$cmd" > "log.$i" 2>&1; then
    echo "FAIL: command $i exits non-zero: $cmd"; tail -n 5 "log.$i"; exit 1
  fi
done < commands
for f in out/compare.html out/classify.html out/fit.html out/ratios.json out/round.csv plan/best.yaml \
         plan/report.html plan/ranking.svg; do
  [ -s "$f" ] || { echo "FAIL: the session did not write $f"; exit 1; }
done
echo "ok: $count commands of the README's first session ran"
