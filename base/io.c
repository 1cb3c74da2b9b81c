/* io.c — reading inputs (regular files only, never blocking) and locks on the directories of
 * files replaced in a read-modify-replace cycle. Paths:
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

/* The directory a write to path renames into, and its identity. 0 or an errno. */
static int lock_dir_of(const char *path, char **dir, struct stat *st)
{
    char *target = nd_path_resolve(path);
    *dir = target ? nd_path_dir(target) : NULL;
    free(target);
    if (!*dir) return ENOMEM;
    return stat(*dir, st) == 0 ? 0 : errno;
}

/* Refuses a destination that exists and is not a regular file. */
static int check_lockable(const char *path, nd_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return nd_error_set(err, ND_EINPUT, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
    return ND_OK;
}

static void unlock_all(nd_path_lock *lock)
{
    for (int i = 0; i < lock->n; i++) close(lock->fd[i]); /* releases the flock */
    lock->n = 0;
}

/* Opens and flocks dir; 1 when it is still the directory named dir once locked (a rename of
 * the directory meanwhile: 0, the caller retries), a negative ND_E code on failure. */
static int lock_one(const char *dir, const char *path, int *fd_out, nd_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return nd_error_set(err, ND_EIO, "%s: cannot lock its directory: %s", path, strerror(errno));
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
        int e = errno;
        close(fd);
        return nd_error_set(err, ND_EIO, "%s: cannot lock its directory: %s", path, strerror(e));
    }
    struct stat a, b;
    if (fstat(fd, &a) != 0 || stat(dir, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        close(fd);
        return 0;
    }
    *fd_out = fd;
    return 1;
}

typedef struct lock_target {
    char *dir;
    const char *path;
    dev_t dev;
    ino_t ino;
} lock_target;

static int target_order(const void *a, const void *b)
{
    const lock_target *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return 0;
}

int nd_path_lock_take_all(nd_path_lock *lock, const char *const *paths, int n, nd_error *err)
{
    lock->n = 0;
    lock_target t[ND_PATH_LOCK_MAX];
    int count = 0, rc = ND_OK;
    for (int i = 0; i < n && !rc; i++) {
        if (!paths[i]) continue;
        if (count == ND_PATH_LOCK_MAX) {
            rc = nd_error_set(err, ND_EIO, "internal: more than %d files to lock", ND_PATH_LOCK_MAX);
            break;
        }
        if ((rc = check_lockable(paths[i], err))) break;
        struct stat st;
        int e = lock_dir_of(paths[i], &t[count].dir, &st);
        if (e) {
            free(t[count].dir);
            rc = nd_error_set(err, e == ENOMEM ? ND_ENOMEM : ND_EIO, "%s: cannot lock its directory: %s",
                              paths[i], strerror(e));
            break;
        }
        t[count].path = paths[i];
        t[count].dev = st.st_dev;
        t[count].ino = st.st_ino;
        count++;
    }
    /* One fixed order for every process: by the directories' identity, each once. */
    qsort(t, (size_t)count, sizeof t[0], target_order);
    /* A few rounds at most: each retry means a directory was renamed while we waited. */
    for (int attempt = 0; !rc && attempt < 1000; attempt++) {
        int got = 1;
        for (int i = 0; i < count && got == 1; i++) {
            if (i && !target_order(&t[i - 1], &t[i])) continue;
            int fd = -1;
            got = lock_one(t[i].dir, t[i].path, &fd, err);
            if (got == 1) lock->fd[lock->n++] = fd;
        }
        if (got == 1) break;
        unlock_all(lock);
        if (got < 0) rc = got;
        if (!rc && attempt == 999)
            rc = nd_error_set(err, ND_EIO, "%s: cannot lock: its directory keeps being replaced", t[0].path);
    }
    for (int i = 0; i < count; i++) free(t[i].dir);
    if (rc) unlock_all(lock);
    return rc;
}

int nd_path_lock_take(nd_path_lock *lock, const char *path, nd_error *err)
{
    return nd_path_lock_take_all(lock, &path, 1, err);
}

void nd_path_lock_release(nd_path_lock *lock)
{
    /* Inside a run the replacement is only staged: the run holds the locks until it has
     * renamed its outputs (or removed them). */
    for (int i = 0; i < lock->n; i++)
        if (!nd_run_hold_lock(lock->fd[i])) close(lock->fd[i]);
    lock->n = 0;
}

int nd_path_lock_read(const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err)
{
    *data = NULL;
    if (len) *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return ND_OK;
    if (fd < 0) return nd_error_set(err, ND_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return nd_error_set(err, ND_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return nd_error_set(err, ND_EINPUT, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int rc = nd_read_fd(fd, path, max_bytes, data, len, err);
    close(fd);
    return rc;
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
