/*
 * main.h — what every program's main does first and last (nd_main_start, nd_main_finish), so
 * that all six start, commit their outputs and choose their exit status alike.
 */
#ifndef ND_BASE_MAIN_H
#define ND_BASE_MAIN_H

#include "nd/base/error.h"

/* The start of every binary's main (after its flags are read): signal handlers that remove
 * the run's temporary files, and a run whose outputs are committed together
 * (nd_outputs_begin in io.h). */
void nd_main_start(void);

/* The end of every binary's main: on success commits the run's outputs (all or none), else
 * removes them; reports a failed command ("<program>: <message>"), an unwritable stdout or
 * a failed commit, and returns the exit status. */
int nd_main_finish(const char *program, int code, const nd_error *err);

/* The same, and on success "<program>: wrote PATH" on stderr for every output the run wrote
 * (" (replacing an earlier file)" when one was there), at verbosity ND_VERBOSITY_DEFAULT and
 * above (nd/base/cmdline.h; -q writes none). nd_main_finish lists none. */
int nd_main_end(const char *program, int verbosity, int code, const nd_error *err);

#endif
