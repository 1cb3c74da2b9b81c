#!/bin/sh
# classify_expect.sh STATUS REGEX CMD ARGS... — runs CMD, passes when it exits with
# STATUS and its stdout+stderr match the extended regular expression REGEX.
# A command naming ${ND_SHARED_DIR}/traces is skipped (77) when that folder is absent.
want=$1 regex=$2
shift 2
case "$*" in *"/traces/"*) [ -d "${ND_SHARED_DIR:-/nonexistent}/traces" ] || exit 77 ;; esac
out=$("$@" 2>&1)
got=$?
if [ "$got" -ne "$want" ]; then
    printf 'exit status %s, expected %s\n%s\n' "$got" "$want" "$out"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
    printf 'output does not match /%s/:\n%s\n' "$regex" "$out"
    exit 1
fi
exit 0
