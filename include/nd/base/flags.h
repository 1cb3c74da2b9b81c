/*
 * flags.h — what every nd main says about a flag it cannot take.
 *
 * getopt refuses a word for two reasons: the flag is unknown, or it needs a value and none
 * followed. The message says which, and for an unknown flag names the nearest known one:
 *
 *   unknown option '--real-csv' (did you mean '--real_csv'?)
 *   option '--format' needs a value
 */
#ifndef ND_FLAGS_H
#define ND_FLAGS_H

#include <getopt.h>
#include <stddef.h>

/* The message for the word getopt refused (argv's word as typed, "--x=1" included), given
 * the program's long options (ending with a zero entry) and its short options string, into
 * msg (size bytes, one line). */
void nd_flag_refused_message(const struct option *longs, const char *shorts, const char *typed, char *msg,
                             size_t size);

#endif
