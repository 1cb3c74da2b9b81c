#!/bin/sh
# classify_no_cycles.sh LIB — the object files of nd_classify (the static library LIB) call
# each other one way: no two objects reach each other through the symbols they define and
# use (nm). Prints "ok", or each pair in a cycle and exits 1. Docs: docs/architecture.md.
lib=$1
[ -f "$lib" ] || { echo "no library $lib"; exit 1; }
nm -A "$lib" 2>/dev/null | awk '
{
    # "lib.a:member.o: 0000 T name" or "lib.a:member.o:          U name"
    split($1, part, ":"); obj = part[2]
    if (obj == "") next
    objs[obj] = 1
    if (NF >= 3 && $(NF-1) ~ /^[TDBRC]$/) def[$NF] = obj
    else if ($(NF-1) == "U") { use[obj, ++nuse[obj]] = $NF }
}
END {
    n = 0
    for (o in objs) name[++n] = o
    for (i = 1; i <= n; i++) idx[name[i]] = i
    for (i = 1; i <= n; i++) {
        o = name[i]
        for (k = 1; k <= nuse[o]; k++) {
            d = def[use[o, k]]
            if (d != "" && d != o) reach[i, idx[d]] = 1
        }
    }
    for (m = 1; m <= n; m++)
        for (i = 1; i <= n; i++)
            if (reach[i, m])
                for (j = 1; j <= n; j++)
                    if (reach[m, j]) reach[i, j] = 1
    bad = 0
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (reach[i, j] && reach[j, i]) { print "cycle: " name[i] " <-> " name[j]; bad = 1 }
    if (!bad) print "ok"
    exit bad
}'
