/*
 * io.h — files in and out, the way every nd binary does them.
 *
 * Outputs are written to a temporary file in the destination's directory and
 * renamed over the destination only when complete (nd_outfile), so a failed
 * run leaves any earlier file as it was. Numbers are written as the shortest
 * text that reads back to the same double (nd_format_double), so outputs are
 * byte-identical for identical inputs.
 */
#ifndef ND_IO_H
#define ND_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "nd/error.h"

/* An output file being written: fp is open on a temporary file next to path. */
typedef struct nd_outfile {
    FILE *fp;
    char *path;     /* owned: the final name */
    char *tmp_path; /* owned: the temporary name */
} nd_outfile;

/* Opens a temporary file beside path. ND_EIO (naming path) if that fails. */
int nd_outfile_open(nd_outfile *out, const char *path, nd_error *err);

/* Flushes, closes and renames the temporary file over path. On any failure the
 * temporary file is removed, path is untouched and ND_EIO is returned. The
 * outfile is released either way. */
int nd_outfile_commit(nd_outfile *out, nd_error *err);

/* Closes and removes the temporary file; path is untouched. Safe to call on an
 * outfile already committed or discarded. */
void nd_outfile_discard(nd_outfile *out);

/* Writes len bytes to path atomically (nd_outfile underneath). */
int nd_write_file_atomic(const char *path, const void *data, size_t len, nd_error *err);

/* Reads a whole file into a NUL-terminated buffer the caller frees. Refuses
 * files larger than max_bytes with ND_EINPUT. Missing, unreadable or not a regular
 * file (a FIFO would block): ND_EINPUT (the user named it). */
int nd_read_file(const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err);

/* Opens path for reading only when it is a regular file (after symlinks): a FIFO, a
 * device, a socket or a directory is refused with ND_EINPUT ("... is a FIFO, not a
 * regular file") and never blocks, since the open is non-blocking until the type is
 * known. Returns the descriptor (the caller closes it), or a negative ND_E code. */
int nd_open_regular(const char *path, nd_error *err);

/* The same as a stdio stream opened "rb" (the caller fcloses it); NULL with err set. */
FILE *nd_fopen_regular(const char *path, nd_error *err);

/* An exclusive lock on the file at path, for a read-modify-replace cycle that
 * several processes may run at once (appending a row to a round file). The file is
 * opened (created empty when absent), locked with flock(), and checked to still be
 * the file the path names: a writer that replaced it by rename meanwhile makes the
 * lock retry on the new file. Hold it while reading the old content through fd and
 * renaming the new one over path; then nd_path_unlock. */
typedef struct nd_path_lock {
    int fd;       /* open read-only on the locked file; -1 when not held */
    bool created; /* the file did not exist: this lock created it empty */
} nd_path_lock;

/* ND_EINPUT when path is not a regular file, ND_EIO when it cannot be opened or
 * locked. */
int nd_path_lock_take(nd_path_lock *lock, const char *path, nd_error *err);

/* Releases the lock. With remove_created, a file this lock created (and nothing has
 * replaced) is removed again: a failed run leaves no empty file behind. */
void nd_path_lock_release(nd_path_lock *lock, const char *path, bool remove_created);

/* Reads what remains of an open descriptor (named path in messages) into a
 * NUL-terminated buffer the caller frees; the same limits and errors as nd_read_file.
 * The descriptor stays open. */
int nd_read_fd(int fd, const char *path, size_t max_bytes, char **data, size_t *len, nd_error *err);

/* Creates a directory (one level) if it does not exist. ND_EIO on failure. */
int nd_make_dir(const char *path, nd_error *err);

/* Joins dir and name with one '/', into a new string the caller frees. */
char *nd_path_join(const char *dir, const char *name);

/* The file name of path without directories and without its last extension
 * ("out/round.csv" -> "round"), in a new string the caller frees. */
char *nd_path_stem(const char *path);

/* The directory part of path ("a/b.csv" -> "a", "b.csv" -> "."), new string. */
char *nd_path_dir(const char *path);

/* Shortest decimal text that strtod reads back to exactly x ("0.1", "1e+300",
 * "nan" and "inf" for non-finite values). buf must hold ND_DOUBLE_TEXT_MAX. */
#define ND_DOUBLE_TEXT_MAX 32
const char *nd_format_double(double x, char buf[ND_DOUBLE_TEXT_MAX]);

/* Duplicates a string (C11 has no strdup); NULL stays NULL. */
char *nd_strdup(const char *s);

#endif
