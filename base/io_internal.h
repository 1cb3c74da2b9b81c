/* io_internal.h — what io.c (inputs) and outputs.c (outputs, the run) share inside nd_base. */
#ifndef ND_IO_INTERNAL_H
#define ND_IO_INTERNAL_H

#include <stdbool.h>
#include <sys/stat.h>

/* Remembers, inside a run, that the file st describes was read, so that no output of the
 * run replaces it. Out of memory: ND_ENOMEM. */
int nd_run_note_input(const struct stat *st);

/* Inside a run, takes over a lock (nd_path_lock) on path: the run closes fd once its outputs
 * are renamed, or, when it fails, removes the file too if the lock created it and it is
 * still empty. false (the caller releases it) outside a run or when out of memory. */
bool nd_run_hold_lock(int fd, const char *path, bool created);

#endif
