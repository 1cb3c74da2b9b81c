/*
 * rename_fail.c — an LD_PRELOAD shim that makes rename() fail, for testing that every
 * output nd writes is atomic (tests/rename_fail.sh).
 *
 * When ND_RENAME_FAIL is set, a rename whose destination contains that text fails with
 * EIO (as a full disk or a lost NFS server would make it) and leaves both files as they
 * were; every other rename goes to the C library's. Not linked with the sanitizers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to)
{
    const char *fail = getenv("ND_RENAME_FAIL");
    if (fail && *fail && to && strstr(to, fail)) {
        errno = EIO;
        return -1;
    }
    int (*real)(const char *, const char *);
    *(void **)&real = dlsym(RTLD_NEXT, "rename"); /* POSIX's way round ISO C's cast rule */
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(from, to);
}
