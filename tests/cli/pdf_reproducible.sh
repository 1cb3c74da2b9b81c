#!/bin/sh
# pdf_reproducible.sh ND-PLOT CSV — issue 17, case 14: a PDF drawn twice from the same CSV is
# byte-identical (cairo's /CreationDate is blanked), and with SOURCE_DATE_EPOCH it carries
# that date. Skipped (77) without gnuplot.
set -u
plot=$1 csv=$2
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$plot" memory "$csv" -o "$dir" --name a --format pdf -q >/dev/null || exit 1
sleep 1 # a second later: the old PDFs differed in their seconds
"$plot" memory "$csv" -o "$dir" --name b --format pdf -q >/dev/null || exit 1
cmp "$dir/a.pdf" "$dir/b.pdf" || { echo "FAIL: two PDFs of one CSV differ"; exit 1; }
grep -a -q "CreationDate" "$dir/a.pdf" && { echo "FAIL: a PDF keeps the time it was drawn"; exit 1; }
# 1700000000 s after 1970-01-01 UTC is 2023-11-14 22:13:20 (date -u -d @1700000000)
SOURCE_DATE_EPOCH=1700000000 "$plot" memory "$csv" -o "$dir" --name c --format pdf -q >/dev/null || exit 1
grep -a -q "/CreationDate (D:20231114221320Z)" "$dir/c.pdf" || { echo "FAIL: SOURCE_DATE_EPOCH not honoured"; exit 1; }
echo ok
