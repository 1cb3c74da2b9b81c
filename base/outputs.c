/*
 * outputs.c — every file nd writes, and the run those files belong to.
 *
 * An output is a temporary file beside its destination, renamed over it when complete. A
 * run (nd_outputs_begin ... nd_outputs_commit) stages the renames so that its outputs are
 * replaced together: just before renaming, each existing destination gets a hard link (its
 * backup); if a rename fails, the destinations already renamed are put back from their
 * backups (or removed, when there was no earlier file) and the other temporaries removed.
 * A run also remembers the identity (device, inode) of every file it read, so that no output
 * replaces an input, whatever path (symlink, hard link, "./") names it. An output named
 * through a symlink is written through it: the temporary goes beside the file the link names
 * and is renamed over that file, so the link stays.
 *
 * This is process-wide state, against the house rule of no globals, because it has no
 * other home: a signal handler can reach only globals, and a run is a process. It is
 * guarded by a mutex and only changed with the handled signals blocked, so the handler (which
 * only unlinks names built beforehand) never sees a half-changed list. Search threads block
 * the signals (nd_signals_block), so the handler runs in the thread that changes the list
 * or in none.
 */
#include "nd/base/io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "nd/base/array.h"

/* A temporary keeps at most this many bytes of its destination's name, so that a legal
 * 255-byte name still has a legal temporary (".NAME.XXXXXX" + ".bN" for a backup). */
#define TMP_NAME_KEEP 40

enum { OUT_OPEN, OUT_STAGED };

typedef struct nd_output {
    char *dest;   /* as the user named it (messages) */
    char *target; /* the file replaced: dest with its symlinks followed */
    char *tmp;    /* the temporary; NULL once renamed or removed */
    char *backup; /* a link to the earlier destination while a commit runs, or NULL */
    dev_t dev;    /* identity: the destination's, or its directory's when new */
    ino_t ino;
    char *new_name; /* when new: the name in that directory; NULL when it exists */
    int state;
    struct nd_output *next;
} nd_output;

typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

/* A lock (nd_path_lock: a descriptor of a locked directory) on what one of the run's outputs
 * replaces (a round appended to, a refitted ratios file): held until the run's renames are
 * done. */
typedef int held_lock;

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static nd_output *volatile outputs; /* every temporary of this process: the handler's list */
static bool running;
static file_id *inputs;
static size_t n_inputs, cap_inputs;
static held_lock *locks;
static size_t n_locks, cap_locks;
static volatile pid_t owner; /* a child between fork and exec must not unlink our files */

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
/* SIGXFSZ (a write past `ulimit -f`) is ignored instead: the write then fails with EFBIG and
 * the run ends like any other failed write, its temporary removed and one line said. */
#define N_HANDLED (ND_ARRAY_LEN(handled_signals))

/* ---- signals ----------------------------------------------------------------------------- */

static void on_signal(int sig)
{
    int saved = errno;
    if (getpid() == owner)
        for (nd_output *p = outputs; p; p = p->next)
            if (p->tmp) unlink(p->tmp);
    errno = saved;
    /* SA_RESETHAND restored the default; the signal is blocked until we return, then it ends
     * the process as it would have without us (the exit status says which signal). */
    raise(sig);
}

void nd_signals_install(void)
{
    owner = getpid();
    for (size_t i = 0; i < N_HANDLED; i++) {
        struct sigaction now;
        if (sigaction(handled_signals[i], NULL, &now) != 0) continue;
        /* nohup and `cmd &` ignore some of them: keep what the parent chose. */
        if (now.sa_handler == SIG_IGN) continue;
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_handler = on_signal;
        sigemptyset(&act.sa_mask);
        for (size_t j = 0; j < N_HANDLED; j++) sigaddset(&act.sa_mask, handled_signals[j]);
        act.sa_flags = SA_RESETHAND;
        sigaction(handled_signals[i], &act, NULL);
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, NULL);
}

void nd_signals_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_HANDLED; i++) sigaddset(&set, handled_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void nd_signals_restore(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The list and the inputs change only between these two. */
static void run_enter(sigset_t *old)
{
    nd_signals_block(old);
    pthread_mutex_lock(&run_lock);
}

static void run_leave(const sigset_t *old)
{
    pthread_mutex_unlock(&run_lock);
    nd_signals_restore(old);
}

/* ---- inputs ------------------------------------------------------------------------------ */

int nd_run_note_input(const struct stat *st)
{
    sigset_t old;
    int rc = ND_OK;
    run_enter(&old);
    if (running) {
        if (n_inputs == cap_inputs) {
            size_t cap = cap_inputs ? 2 * cap_inputs : 16;
            file_id *grown = realloc(inputs, cap * sizeof *grown);
            if (grown) {
                inputs = grown;
                cap_inputs = cap;
            }
        }
        if (n_inputs < cap_inputs)
            inputs[n_inputs++] = (file_id){st->st_dev, st->st_ino};
        else
            rc = ND_ENOMEM;
    }
    run_leave(&old);
    return rc;
}

/* Whether st is a file this run read. */
static bool is_input(const struct stat *st)
{
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino) return true;
    return false;
}

bool nd_run_hold_lock(int fd)
{
    sigset_t old;
    bool held = false;
    run_enter(&old);
    if (running && n_locks == cap_locks) {
        size_t cap = cap_locks ? 2 * cap_locks : 4;
        held_lock *grown = realloc(locks, cap * sizeof *grown);
        if (grown) {
            locks = grown;
            cap_locks = cap;
        }
    }
    if (running && n_locks < cap_locks) {
        locks[n_locks++] = fd;
        held = true;
    }
    run_leave(&old);
    return held;
}

/* Closes the held locks (releasing them). */
static void release_locks(void)
{
    for (size_t i = 0; i < n_locks; i++) close(locks[i]);
    free(locks);
    locks = NULL;
    n_locks = cap_locks = 0;
}

/* ---- one output -------------------------------------------------------------------------- */

static void output_free(nd_output *p)
{
    free(p->dest);
    free(p->target);
    free(p->tmp);
    free(p->backup);
    free(p->new_name);
    free(p);
}

/* Takes p off the list (with the signals blocked and the lock held). */
static void output_unlist(nd_output *p)
{
    for (nd_output *volatile *q = &outputs; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            return;
        }
}

/* ".NAME.XXXXXX" in dir, NAME cut to TMP_NAME_KEEP bytes on a UTF-8 character boundary. */
static char *temporary_template(const char *dir, const char *name)
{
    size_t keep = strlen(name);
    if (keep > TMP_NAME_KEEP) {
        keep = TMP_NAME_KEEP;
        while (keep > 0 && ((unsigned char)name[keep] & 0xc0) == 0x80) keep--;
    }
    return nd_path_printf("%s/.%.*s.XXXXXX", dir, (int)keep, name);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Fills p's identity and refuses a destination that is an input, a directory, a device, or
 * another output of this process. Called with the lock held. */
static int check_destination(nd_output *p, const char *dir, nd_error *err)
{
    struct stat st;
    if (stat(p->target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return nd_error_set(err, ND_EINPUT, "%s: is a directory, not a file to write", p->dest);
        if (!S_ISREG(st.st_mode))
            return nd_error_set(err, ND_EINPUT,
                                "%s: is not a regular file; nd writes a finished "
                                "file and renames it over the destination",
                                p->dest);
        if (is_input(&st))
            return nd_error_set(err, ND_EINPUT,
                                "%s: is also an input of this run; an output must "
                                "not replace it: choose another output name",
                                p->dest);
        p->dev = st.st_dev;
        p->ino = st.st_ino;
    } else {
        if (stat(dir, &st) != 0)
            return nd_error_set(err, ND_EIO, "%s: cannot write: %s", p->dest, strerror(errno));
        p->dev = st.st_dev;
        p->ino = st.st_ino;
        if (!(p->new_name = nd_strdup(base_name(p->target))))
            return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (nd_output *q = outputs; q; q = q->next) {
        bool same = q->dev == p->dev && q->ino == p->ino &&
                    (!q->new_name ? !p->new_name : p->new_name && !strcmp(q->new_name, p->new_name));
        if (same && !strcmp(q->dest, p->dest))
            return nd_error_set(err, ND_EINPUT, "%s: is named twice as an output of this run", p->dest);
        if (same)
            return nd_error_set(err, ND_EINPUT,
                                "%s: is named twice as an output of this run "
                                "(also as %s)",
                                p->dest, q->dest);
    }
    return ND_OK;
}

int nd_outfile_open(nd_outfile *out, const char *path, nd_error *err)
{
    memset(out, 0, sizeof *out);
    if (!*path || !*base_name(path))
        return nd_error_set(err, ND_EINPUT, "'%s': an output needs a file name", path);
    nd_output *p = calloc(1, sizeof *p);
    char *dir = NULL;
    if (p) p->dest = nd_strdup(path);
    if (p && p->dest) p->target = nd_path_resolve(path);
    if (p && p->target) dir = nd_path_dir(p->target);
    if (p && dir) p->tmp = temporary_template(dir, base_name(p->target));
    if (!p || !dir || !p->dest || !p->target || !p->tmp) {
        free(dir);
        if (p) output_free(p);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    sigset_t old;
    run_enter(&old);
    int rc = check_destination(p, dir, err);
    int fd = -1;
    if (!rc && (fd = mkstemp(p->tmp)) < 0)
        rc = nd_error_set(err, ND_EIO, "%s: cannot write: %s", path, strerror(errno));
    if (!rc) { /* listed at once: from here on a signal removes it */
        nd_output *volatile *q = &outputs;
        while (*q) q = &(*q)->next;
        *q = p;
    }
    run_leave(&old);
    free(dir);
    if (rc) {
        output_free(p);
        return rc;
    }
    out->fp = fdopen(fd, "w");
    out->record = p;
    out->path = p->dest;
    out->tmp_path = p->tmp;
    if (!out->fp) {
        int e = errno;
        close(fd);
        nd_outfile_discard(out);
        return nd_error_set(err, ND_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return ND_OK;
}

/* Removes p's temporary, takes it off the list and frees it. */
static void output_drop(nd_output *p)
{
    sigset_t old;
    run_enter(&old);
    if (p->tmp) unlink(p->tmp);
    output_unlist(p);
    run_leave(&old);
    output_free(p);
}

void nd_outfile_discard(nd_outfile *out)
{
    if (out->fp) fclose(out->fp);
    if (out->record) output_drop(out->record);
    memset(out, 0, sizeof *out);
}

/* Flushes, syncs, sets the mode and closes; 0 or the errno of the first failure. */
static int finish_temporary(FILE *fp)
{
    int e = 0;
    errno = 0;
    bool failed_before = ferror(fp);
    if (fflush(fp) != 0) e = errno ? errno : EIO;
    /* A write that failed inside an earlier fprintf left the flag, not a trustworthy errno:
     * one more byte written straight to the file tells the reason (ENOSPC, EDQUOT, ...). The
     * temporary is thrown away anyway. */
    if (!e && failed_before) e = write(fileno(fp), "\n", 1) < 0 ? errno : EIO;
    if (!e && fsync(fileno(fp)) != 0 && errno != EINVAL) e = errno;
    if (!e) { /* mkstemp creates 0600; outputs are ordinary files a team shares */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fileno(fp), 0666 & ~mask);
    }
    if (fclose(fp) != 0 && !e) e = errno;
    return e;
}

static int cannot_write(nd_error *err, const char *path, int e)
{
    return nd_error_set(err, ND_EIO, "%s: cannot write: %s (any earlier file is unchanged)", path,
                        strerror(e));
}

int nd_outfile_commit(nd_outfile *out, nd_error *err)
{
    nd_output *p = out->record;
    if (!out->fp || !p) return nd_error_set(err, ND_EIO, "internal: output file not open");
    int e = finish_temporary(out->fp);
    out->fp = NULL;
    if (e) {
        int rc = cannot_write(err, p->dest, e);
        nd_outfile_discard(out);
        return rc;
    }
    sigset_t old;
    run_enter(&old);
    bool staged = running;
    if (staged) p->state = OUT_STAGED;
    run_leave(&old);
    if (staged) {
        memset(out, 0, sizeof *out);
        return ND_OK;
    }
    if (rename(p->tmp, p->target) != 0) {
        int rc = cannot_write(err, p->dest, errno);
        nd_outfile_discard(out);
        return rc;
    }
    free(p->tmp);
    p->tmp = NULL;
    nd_outfile_discard(out);
    return ND_OK;
}

int nd_write_file_atomic(const char *path, const void *data, size_t len, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    if (len && fwrite(data, 1, len, out.fp) != len) {
        rc = cannot_write(err, path, errno ? errno : EIO);
        nd_outfile_discard(&out);
        return rc;
    }
    return nd_outfile_commit(&out, err);
}

/* ---- the run ----------------------------------------------------------------------------- */

void nd_outputs_begin(void)
{
    sigset_t old;
    run_enter(&old);
    running = true;
    run_leave(&old);
}

/* Copies path into a new file named to (created, not replaced): the backup where a file
 * system has no hard links. 0 or an errno. */
static int copy_file(const char *path, const char *to)
{
    int in = open(path, O_RDONLY | O_CLOEXEC), e = 0;
    if (in < 0) return errno;
    struct stat st;
    int outfd =
        fstat(in, &st) == 0 ? open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777) : -1;
    if (outfd < 0) e = errno;
    char buf[65536];
    for (ssize_t got; !e && (got = read(in, buf, sizeof buf)) != 0;) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 || write(outfd, buf, (size_t)got) != got) e = errno ? errno : EIO;
    }
    if (outfd >= 0 && close(outfd) != 0 && !e) e = errno;
    close(in);
    if (e && outfd >= 0) unlink(to);
    return e;
}

/* Links (or copies) p's destination to a new name beside its temporary, if it exists. 0 or
 * an errno. */
static int make_backup(nd_output *p)
{
    for (int k = 0; k < 100; k++) {
        char *name = nd_path_printf("%s.b%d", p->tmp, k);
        if (!name) return ENOMEM;
        int e = link(p->target, name) == 0 ? 0 : errno;
        if (e == EPERM || e == EMLINK || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS)
            e = copy_file(p->target, name);
        if (!e) {
            p->backup = name;
            return 0;
        }
        free(name);
        if (e == ENOENT) return 0; /* no earlier file: nothing to keep */
        if (e != EEXIST) return e;
    }
    return EEXIST;
}

/* Puts back what p's destination was before the commit renamed over it. Should that fail
 * too, the backup stays where it is (forgotten, so not removed): the earlier content is
 * never deleted. */
static void restore(nd_output *p)
{
    if (!p->backup)
        unlink(p->target);
    else
        rename(p->backup, p->target);
    free(p->backup);
    p->backup = NULL;
}

/* The commit itself, with the signals blocked and the lock held. Outputs still open belong
 * to their writer (a caller's bug, or another thread's), not to the commit: left alone. */
static int commit_staged(nd_error *err)
{
    int rc = ND_OK;
    for (nd_output *p = outputs; p && !rc; p = p->next) {
        struct stat st;
        if (p->state == OUT_STAGED && stat(p->target, &st) == 0 && is_input(&st))
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: is also an input of this run; an output must "
                              "not replace it: choose another output name",
                              p->dest);
    }
    for (nd_output *p = outputs; p && !rc; p = p->next) {
        int e = p->state == OUT_STAGED ? make_backup(p) : 0;
        if (e) rc = cannot_write(err, p->dest, e);
    }
    nd_output *failed = NULL;
    for (nd_output *p = outputs; p && !rc; p = p->next) {
        if (p->state != OUT_STAGED) continue;
        if (rename(p->tmp, p->target) != 0) {
            rc = cannot_write(err, p->dest, errno);
            failed = p;
            break;
        }
        free(p->tmp);
        p->tmp = NULL;
    }
    for (nd_output *p = outputs; failed && p != failed; p = p->next)
        if (p->state == OUT_STAGED) restore(p);
    return rc;
}

/* Ends the run: removes what the staged outputs left (temporaries, backups), releases the
 * held locks and forgets the inputs. Lock held. */
static void end_run(void)
{
    release_locks();
    for (nd_output *volatile *q = &outputs; *q;) {
        nd_output *p = *q;
        if (p->state != OUT_STAGED) {
            q = &p->next;
            continue;
        }
        if (p->tmp) unlink(p->tmp);
        if (p->backup) unlink(p->backup);
        *q = p->next;
        output_free(p);
    }
    free(inputs);
    inputs = NULL;
    n_inputs = cap_inputs = 0;
    running = false;
}

/* The staged outputs' destinations in the order they were opened, and whether each replaced
 * an earlier file (it had a backup), copied before end_run frees them. Lock held. */
typedef struct written_list {
    char **paths;
    bool *replaced;
    size_t n;
} written_list;

static void list_staged(written_list *w)
{
    size_t n = 0;
    for (nd_output *p = outputs; p; p = p->next) n += p->state == OUT_STAGED;
    w->paths = n ? calloc(n, sizeof *w->paths) : NULL;
    w->replaced = n ? calloc(n, sizeof *w->replaced) : NULL;
    if (n && (!w->paths || !w->replaced)) return; /* out of memory: nothing is listed */
    for (nd_output *p = outputs; p; p = p->next)
        if (p->state == OUT_STAGED && (w->paths[w->n] = nd_strdup(p->dest))) w->replaced[w->n++] = p->backup;
}

int nd_outputs_commit_each(nd_error *err, void (*each)(void *arg, const char *path, bool replaced), void *arg)
{
    sigset_t old;
    written_list w = {0};
    run_enter(&old);
    int rc = commit_staged(err);
    if (!rc && each) list_staged(&w);
    end_run();
    run_leave(&old);
    for (size_t i = 0; i < w.n; i++) {
        each(arg, w.paths[i], w.replaced[i]);
        free(w.paths[i]);
    }
    free(w.paths);
    free(w.replaced);
    return rc;
}

int nd_outputs_commit(nd_error *err)
{
    return nd_outputs_commit_each(err, NULL, NULL);
}

const char *nd_outputs_staged(const char *path)
{
    const char *tmp = NULL;
    sigset_t old;
    run_enter(&old);
    for (nd_output *p = outputs; p && !tmp; p = p->next)
        if (p->state == OUT_STAGED && p->tmp && !strcmp(p->dest, path)) tmp = p->tmp;
    run_leave(&old);
    return tmp;
}

void nd_outputs_abort(void)
{
    sigset_t old;
    run_enter(&old);
    end_run();
    run_leave(&old);
}

/* ---- outputs named twice ------------------------------------------------------------------ */

/* What a write to path replaces: the file's identity, or for a new file its directory's and
 * its name (owned by *name). false when neither can be read (the write will say why). */
static bool output_identity(const char *path, file_id *id, char **name)
{
    *name = NULL;
    char *target = nd_path_resolve(path);
    if (!target) return false;
    struct stat st;
    bool known = stat(target, &st) == 0;
    if (!known) {
        char *dir = nd_path_dir(target);
        known = dir && stat(dir, &st) == 0 && (*name = nd_strdup(base_name(target)));
        free(dir);
    }
    free(target);
    if (known) *id = (file_id){st.st_dev, st.st_ino};
    return known;
}

/* One output refused as nd_outfile_open would refuse it (no file name, a directory, not a
 * regular file, an input of this run), checked before anything runs. A file in a directory that
 * does not exist yet (-o DIR creates it) is left to the write. */
static int output_writable(const char *name, const char *path, nd_error *err)
{
    if (!*path || !*base_name(path))
        return nd_error_set(err, ND_EUSAGE, "%s '%s': an output needs a file name", name, path);
    char *target = nd_path_resolve(path);
    if (!target) return nd_error_set(err, ND_ENOMEM, "out of memory");
    struct stat st;
    int rc = ND_OK;
    sigset_t old;
    run_enter(&old);
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            rc = nd_error_set(err, ND_EUSAGE, "%s %s: is a directory, not a file to write", name, path);
        else if (!S_ISREG(st.st_mode))
            rc = nd_error_set(err, ND_EUSAGE,
                              "%s %s: is not a regular file; nd writes a finished file and renames it over "
                              "the destination",
                              name, path);
        else if (is_input(&st))
            rc = nd_error_set(err, ND_EUSAGE,
                              "%s %s: is also an input of this run; an output must not replace it: choose "
                              "another output name",
                              name, path);
    }
    run_leave(&old);
    free(target);
    return rc;
}

int nd_outputs_writable(const char *const *names, const char *const *paths, int n, nd_error *err)
{
    int rc = nd_outputs_distinct(names, paths, n, err);
    for (int i = 0; i < n && !rc; i++)
        if (paths[i]) rc = output_writable(names[i], paths[i], err);
    return rc;
}

int nd_outputs_distinct(const char *const *names, const char *const *paths, int n, nd_error *err)
{
    int rc = ND_OK;
    for (int i = 0; i < n && !rc; i++) {
        file_id a;
        char *an;
        if (!paths[i] || !output_identity(paths[i], &a, &an)) continue;
        for (int j = 0; j < i && !rc; j++) {
            file_id b;
            char *bn;
            if (!paths[j] || !output_identity(paths[j], &b, &bn)) continue;
            if (a.dev == b.dev && a.ino == b.ino && (!an ? !bn : bn && !strcmp(an, bn)))
                rc = nd_error_set(err, ND_EUSAGE,
                                  "%s %s: is named twice as an output of this run (also as %s): give "
                                  "%s and %s each its own file",
                                  names[i], paths[i], paths[j], names[j], names[i]);
            free(bn);
        }
        free(an);
    }
    return rc;
}
