/*
 * cmdline_internal.h — the command line brought to one spelling before getopt reads it
 * (cmdline_argv.c), for nd_cmdline_parse (cmdline.c).
 */
#ifndef ND_CMDLINE_INTERNAL_H
#define ND_CMDLINE_INTERNAL_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "nd/base/cmdline.h"

/* A rewritten command line: argv[i] came from the caller's origin[i]. The words it makes
 * live in the caller's storage (the parsed options point into them after parsing). */
typedef struct nd_cmdline_argv {
    int argc;
    char **argv;   /* owned, NULL-terminated */
    int *origin;   /* owned: index in the caller's argv of each word */
    char *storage; /* the caller's */
    size_t used, size;
} nd_cmdline_argv;

/* The spelling of an option name nd matches: every '_' a '-'. In place. */
void nd_cmdline_spell(char *name);

/* Rewrites argv for getopt_long_only over `options` (already spelled with nd_cmdline_spell):
 * '_' in an option's name becomes '-' when that names an option; ND's en dash
 * (-–manual_pipeline_balance) is two dashes; the words after a multi-word option are
 * joined with commas into its argument (`-l DP MP` -> `--dimensions=DP,MP`); `-v N` and
 * `--verbosity N` become `--verbosity=N`. The new words are made in storage. Returns 0,
 * or -1 out of memory or storage. */
int nd_cmdline_argv_normalize(const struct option *options, const nd_cmdline_multiword *multi, int n_multi,
                              int argc, char **argv, char *storage, size_t size, nd_cmdline_argv *out);

void nd_cmdline_argv_free(nd_cmdline_argv *a);

#endif
