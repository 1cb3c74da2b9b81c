/* io_internal.h — what io.c (inputs) and outputs.c (outputs, the run) share inside nd_base. */
#ifndef ND_IO_INTERNAL_H
#define ND_IO_INTERNAL_H

#include <stdbool.h>
#include <sys/stat.h>

/* Remembers, inside a run, that the file st describes was read, so that no output of the
 * run replaces it. Out of memory: ND_ENOMEM. */
int nd_run_note_input(const struct stat *st);

/* Inside a run, takes over a lock (nd_path_lock's descriptor of a locked directory): the run
 * closes fd once its outputs are renamed or removed. false (the caller releases it) outside a
 * run or when out of memory. */
bool nd_run_hold_lock(int fd);

#endif
