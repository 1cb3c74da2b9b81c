/* io.c — reading inputs (regular files only, never blocking) and locks on round files. Paths:
 * path.c; outputs and the run they belong to: outputs.c. */
#include "nd/base/io.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "nd/base/text.h"

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a file";
}

int nd_open_regular(const char *path, nd_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return nd_error_set(err, ND_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return nd_error_set(err, ND_EINPUT, "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return nd_error_set(err, ND_EINPUT, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (nd_run_note_input(&st)) { /* no output of this run may replace it */
        close(fd);
        return nd_error_set(err, ND_ENOMEM, "%s: out of memory", path);
    }
    return fd;
}

FILE *nd_fopen_regular(const char *path, nd_error *err)
{
    int fd = nd_open_regular(path, err);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    return f;
}

static bool same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int nd_path_lock_take(nd_path_lock *lock, const char *path, nd_error *err)
{
    lock->fd = -1;
    lock->created = false;
    /* A few rounds at most: each retry means another writer replaced the file. */
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        bool created = false;
        if (fd < 0 && errno == ENOENT) {
            fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0666);
            created = fd >= 0;
            if (fd < 0 && errno == EEXIST) continue; /* another writer created it */
        }
        if (fd < 0) return nd_error_set(err, ND_EIO, "%s: cannot open: %s", path, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return nd_error_set(err, ND_EINPUT, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
        }
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        int rc;
        while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
        }
        if (rc != 0) {
            int e = errno;
            close(fd);
            return nd_error_set(err, ND_EIO, "%s: cannot lock: %s", path, strerror(e));
        }
        if (same_file(fd, path)) {
            lock->fd = fd;
            lock->created = created;
            return ND_OK;
        }
        close(fd); /* replaced (or removed) while we waited: lock the new one */
    }
    return nd_error_set(err, ND_EIO, "%s: cannot lock: the file keeps being replaced", path);
}

void nd_path_lock_release(nd_path_lock *lock, const char *path, bool remove_created)
{
    if (lock->fd < 0) return;
    /* Inside a run the replacement is only staged: the run holds the lock until it has
     * renamed its outputs (or removed them, and the file if this lock created it). */
    if (!remove_created && nd_run_hold_lock(lock->fd, path, lock->created)) {
        lock->fd = -1;
        lock->created = false;
        return;
    }
    struct stat st;
    /* Still the empty file this lock created: nothing was written, so it goes again. */
    if (remove_created && lock->created && same_file(lock->fd, path) && fstat(lock->fd, &st) == 0 &&
        st.st_size == 0)
        unlink(path);
    close(lock->fd); /* releases the flock */
    lock->fd = -1;
    lock->created = false;
}

int nd_read_fd(int fd, const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err)
{
    *data = NULL;
    if (len) *len = 0;
    size_t cap = max_bytes < 65536 ? max_bytes : 65536, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "%s: out of memory reading the file", path);
    for (;;) {
        if (n == cap) {
            /* A file of exactly max_bytes is allowed: one byte more tells (buf has room). */
            if (cap >= max_bytes && read(fd, buf + n, 1) == 0) break;
            if (cap >= max_bytes) {
                free(buf);
                return nd_error_set(err, ND_EINPUT, "%s: larger than the %zu bytes allowed", path, max_bytes);
            }
            cap = cap > max_bytes / 2 ? max_bytes : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                return nd_error_set(err, ND_ENOMEM, "%s: out of memory reading the file", path);
            }
            buf = nb;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return nd_error_set(err, ND_EINPUT, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    *data = buf;
    if (len) *len = n;
    return ND_OK;
}

int nd_read_file(const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err)
{
    *data = NULL;
    if (len) *len = 0;
    int fd = nd_open_regular(path, err);
    if (fd < 0) return fd;
    int rc = nd_read_fd(fd, path, max_bytes, data, len, err);
    close(fd);
    return rc;
}
