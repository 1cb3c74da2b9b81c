/* path.c — paths and owned strings: joining, the stem and the directory of a path, an
 * absolute path, a formatted path, a directory made when missing, the file a symlink names. */
#include "nd/base/io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *nd_strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

char *nd_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (a && dir[a - 1] != '/') p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}

char *nd_path_stem(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *s = nd_strdup(base);
    if (!s) return NULL;
    char *dot = strrchr(s, '.');
    if (dot && dot != s) *dot = '\0';
    return s;
}

char *nd_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return nd_strdup(".");
    if (slash == path) return nd_strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

char *nd_path_absolute(const char *path)
{
    if (path[0] == '/') return nd_strdup(path);
    for (size_t size = 256; size <= ((size_t)1 << 20); size *= 2) {
        char *cwd = malloc(size);
        if (!cwd) return NULL;
        if (getcwd(cwd, size)) {
            char *abs = nd_path_join(cwd, path);
            free(cwd);
            return abs;
        }
        free(cwd);
        if (errno != ERANGE) return NULL;
    }
    return NULL;
}

char *nd_path_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

int nd_make_dir(const char *path, nd_error *err)
{
    /* A file where the directory should be (-o FILE, or a file on its way) is the user's path
     * given wrong, as --memory-csv DIR is (exit 2, outputs.c); a directory that cannot be made
     * for any other reason (permissions, a missing parent, a full or read-only disk) is a
     * failure while running (exit 1). */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return ND_OK;
        return nd_error_set(err, ND_EINPUT, "%s: exists and is not a directory", path);
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return nd_error_set(err, errno == ENOTDIR ? ND_EINPUT : ND_EIO, "%s: cannot create directory: %s",
                            path, strerror(errno));
    return ND_OK;
}

/* The system's own limit on links followed in one lookup (Linux MAXSYMLINKS). */
#define LINKS_FOLLOWED_MAX 40

char *nd_path_resolve(const char *path)
{
    char *cur = nd_strdup(path);
    for (int hop = 0; cur && hop < LINKS_FOLLOWED_MAX; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        size_t size = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
        char *target = malloc(size + 1);
        ssize_t got = target ? readlink(cur, target, size) : -1;
        if (got < 0 || (size_t)got >= size) { /* changed meanwhile: leave it to the write */
            free(target);
            return cur;
        }
        target[got] = '\0';
        char *next = NULL;
        if (target[0] == '/') {
            next = target;
            target = NULL;
        } else {
            char *dir = nd_path_dir(cur);
            next = dir ? nd_path_join(dir, target) : NULL;
            free(dir);
        }
        free(target);
        free(cur);
        cur = next;
    }
    return cur;
}
