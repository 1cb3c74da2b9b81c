/*
 * io.h — files in and out, the way every nd binary does them.
 *
 * Outputs are written to a temporary file in the destination's directory and
 * renamed over the destination only when complete (nd_outfile), all of a run's
 * outputs together, so a failed run leaves every earlier file as it was. Inputs
 * are regular files only, opened without blocking (nd_open_regular), and no
 * output may replace one.
 */
#ifndef ND_IO_H
#define ND_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "nd/base/error.h"
#include "nd/base/text.h" /* nd_format_double: numbers as outputs write them */

/* ---- outputs ------------------------------------------------------------------------------
 *
 * An output is written to a temporary file with a short name (".NAME.XXXXXX", NAME cut to
 * 40 bytes, so a 255-byte file name still has a temporary) in the destination's directory.
 * Outside a run (library use, tests) nd_outfile_commit renames it over the destination at
 * once. Inside a run (nd_outputs_begin, which every binary's main starts with nd_main_start)
 * commits are staged, and nd_outputs_commit renames every staged output at the end, so one
 * run's outputs are replaced all together or not at all: if any rename fails, the outputs
 * already renamed are put back (from hard links made just before) and every earlier file is
 * left byte for byte. An output is refused (ND_EINPUT) when it names a file this run read
 * (same device and inode, after symlinks: a hard link counts) or another output of the run. */

/* An output file being written: fp is open on a temporary file next to path. */
typedef struct nd_outfile {
    FILE *fp;
    char *path;               /* the final name (owned by the output's record) */
    char *tmp_path;           /* the temporary name (owned by the output's record) */
    struct nd_output *record; /* internal: the run's record of this output */
} nd_outfile;

/* Opens a temporary file beside path. ND_EINPUT if path is an input of this run, another
 * output of it, or a directory; ND_EIO (naming path and the reason) if it cannot be
 * created. */
int nd_outfile_open(nd_outfile *out, const char *path, nd_error *err);

/* Flushes, syncs and closes the temporary file; outside a run renames it over path, inside
 * one stages it for nd_outputs_commit. On any failure the temporary file is removed, path is
 * untouched and ND_EIO (with the reason) is returned. The outfile is released either way. */
int nd_outfile_commit(nd_outfile *out, nd_error *err);

/* Closes and removes the temporary file; path is untouched. Safe to call on an
 * outfile already committed or discarded. */
void nd_outfile_discard(nd_outfile *out);

/* Writes len bytes to path atomically (nd_outfile underneath). */
int nd_write_file_atomic(const char *path, const void *data, size_t len, nd_error *err);

/* Starts a run: from now on the files read are remembered (no output may replace one) and
 * outputs are staged until nd_outputs_commit or nd_outputs_abort. Not nested. */
void nd_outputs_begin(void);

/* Renames every staged output over its destination, all or none (see above), and ends the
 * run. ND_EIO naming the file and the reason if one cannot be renamed (the others are put
 * back); ND_EINPUT if one now names an input. */
int nd_outputs_commit(nd_error *err);

/* The same, then calls each(arg, path, replaced) for every output the run wrote, in the order
 * they were opened; replaced says an earlier file was there. Not called when the commit
 * fails (or, out of memory, for outputs it cannot list). */
int nd_outputs_commit_each(nd_error *err, void (*each)(void *arg, const char *path, bool replaced),
                           void *arg);

/* Removes every temporary file of the run (staged or still open) and ends it; every earlier
 * file stays as it was. */
void nd_outputs_abort(void);

/* The temporary file holding what this run wrote to path and has not renamed yet (staged for
 * nd_outputs_commit), or NULL: path is not staged (outside a run, its file is path itself).
 * Owned by the run; valid until its commit or abort. For reading an output back before it is
 * committed. */
const char *nd_outputs_staged(const char *path);

/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored) that remove
 * this process's temporary files and then die of the signal as before. The handlers only
 * unlink names built beforehand (async-signal-safe); threads that must not run them block
 * the signals with nd_signals_block. */
void nd_signals_install(void);

/* Blocks (in the calling thread) the signals nd_signals_install handles, saving the old
 * mask in old; nd_signals_restore puts it back. Threads created in between inherit it. */
void nd_signals_block(sigset_t *old);
void nd_signals_restore(const sigset_t *old);

/* ---- inputs ------------------------------------------------------------------------------- */

/* Reads a whole file into a NUL-terminated buffer the caller frees. Refuses
 * files larger than max_bytes with ND_EINPUT. Missing, unreadable or not a regular
 * file (a FIFO would block): ND_EINPUT (the user named it). Opened with
 * nd_open_regular, so no output of the run may replace it. */
int nd_read_file(const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err);

/* Opens path for reading only when it is a regular file (after symlinks): a FIFO, a
 * device, a socket or a directory is refused with ND_EINPUT ("... is a FIFO, not a
 * regular file") and never blocks, since the open is non-blocking until the type is
 * known. Inside a run (nd_outputs_begin) the file's device and inode are remembered:
 * no output of the run may replace it. Returns the descriptor (the caller closes it),
 * or a negative ND_E code. */
int nd_open_regular(const char *path, nd_error *err);

/* The same as a stdio stream opened "rb" (the caller fcloses it); NULL with err set. */
FILE *nd_fopen_regular(const char *path, nd_error *err);

/* Exclusive locks for read-modify-replace cycles that several processes may run at once
 * (appending a row to a round file, a nightly refit replacing yesterday's ratios). The lock
 * is on the directory that holds each file (the file a symlink at the end of the path names,
 * where the replacement is written): flock() on the directory, re-checked to still be the
 * directory the path names. Taking it creates nothing, so a run killed while it waits or
 * holds the lock leaves no file behind, and a replacement renamed in by a rival is simply
 * read after the lock is taken. Several paths are locked in one call, each directory once,
 * in the order of their (device, inode): two runs that lock the same files, named in any
 * order, take them in the same order and cannot deadlock. Hold the locks while reading the
 * old content (nd_path_lock_read) and renaming the new one over the path. */
#define ND_PATH_LOCK_MAX 8
typedef struct nd_path_lock {
    int fd[ND_PATH_LOCK_MAX]; /* open on each locked directory */
    int n;                    /* how many are held */
} nd_path_lock;

/* Locks the directory of path. ND_EINPUT when path names a directory or a file that is not
 * regular, ND_EIO when the directory cannot be opened or locked. */
int nd_path_lock_take(nd_path_lock *lock, const char *path, nd_error *err);

/* Locks the directories of n paths (NULL entries skipped, at most ND_PATH_LOCK_MAX), each
 * once, in (device, inode) order; the same errors. Nothing is held after an error. */
int nd_path_lock_take_all(nd_path_lock *lock, const char *const *paths, int n, nd_error *err);

/* Releases the locks. Inside a run (nd_outputs_begin) the run takes them over and releases
 * them once its outputs are renamed or removed, so a rival never reads a file between the
 * read and the replacement. */
void nd_path_lock_release(nd_path_lock *lock);

/* Reads the file path names now (after symlinks), held under nd_path_lock, into a
 * NUL-terminated buffer the caller frees: the file about to be replaced, not an input of the
 * run. A missing file gives ND_OK with *data NULL and *len 0; a file that is not regular
 * ND_EINPUT; one larger than max_bytes ND_EINPUT. */
int nd_path_lock_read(const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err);

/* The file a write to path replaces: path with every symlink at its end followed (a relative
 * link read against the link's directory), so that an output named through a link is written
 * through it and the link stays. A new string the caller frees; NULL when out of memory.
 * A loop of links is left as it is (the write then fails with the system's reason). */
char *nd_path_resolve(const char *path);

/* Refuses, before anything runs, two outputs that name one file: the same spelling, a
 * symlink to it, a hard link or another path through the file system (compared by device
 * and inode, or for a new file by its directory's and its name). names[i] is the flag that
 * named paths[i] ("--write_ratios"); NULL paths are skipped. ND_EUSAGE naming both flags. */
int nd_outputs_distinct(const char *const *names, const char *const *paths, int n, nd_error *err);

/* The same, and each output one the write would take: a file name, not a directory or a
 * device, not a file this run has read. Call it once the inputs are read, before the work, so
 * that a refused output prints nothing else. ND_EUSAGE naming the flag and the path. */
int nd_outputs_writable(const char *const *names, const char *const *paths, int n, nd_error *err);

/* Reads what remains of an open descriptor (named path in messages) into a
 * NUL-terminated buffer the caller frees; the same limits and errors as nd_read_file.
 * The descriptor stays open. */
int nd_read_fd(int fd, const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err);

/* Creates a directory (one level) if it does not exist. ND_EINPUT when path, or a folder on its
 * way, is a file (the caller's path is wrong: exit 2); ND_EIO when it cannot be made otherwise. */
int nd_make_dir(const char *path, nd_error *err);

/* Joins dir and name with one '/', into a new string the caller frees. */
char *nd_path_join(const char *dir, const char *name);

/* path made absolute against the working directory (not resolving symlinks), in a new
 * string the caller frees; NULL when out of memory or the directory cannot be named. */
char *nd_path_absolute(const char *path);

/* A new string printf would write (for paths: no fixed-size buffer), or NULL when out of
 * memory. The caller frees it. */
char *nd_path_printf(const char *fmt, ...) ND_PRINTF(1, 2);

/* The file name of path without directories and without its last extension
 * ("out/round.csv" -> "round"), in a new string the caller frees. */
char *nd_path_stem(const char *path);

/* The directory part of path ("a/b.csv" -> "a", "b.csv" -> "."), new string. */
char *nd_path_dir(const char *path);

/* Duplicates a string (C11 has no strdup); NULL stays NULL. */
char *nd_strdup(const char *s);

#endif
