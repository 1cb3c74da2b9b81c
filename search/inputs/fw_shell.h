/*
 * fw_shell.h — bash's words and expansions as nd reads a launch script (fw_shell.c), for the
 * script reader (fw_args.c): shell words, the script's variables, $((...)) arithmetic and
 * ${...} forms. Internal to nd_inputs.
 */
#ifndef ND_INPUTS_FW_SHELL_H
#define ND_INPUTS_FW_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#include "fw_args.h"

/* One shell word: bytes [from, to) of the script, on line `line`. */
typedef struct word {
    size_t from, to;
    int line;
} word;

/* Where an expansion writes, and what it met on the way. */
typedef struct outbuf {
    char *s;
    size_t used, size;
    bool defaulted;      /* a default stood in for a variable the script does not set */
    bool full;           /* a character did not fit */
    bool branch;         /* a variable set in an if/case block stood in */
    bool unset_empty;    /* a variable the script does not set reads as empty (a test's words) */
    char unset_name[64]; /* the first such variable, for the note */
} outbuf;

/* Past the group that opens at t[p] ('"', '\'', '`', "$(", "${"), nested groups included;
 * lines counted. The offset after its close (len when it stays open). */
size_t fw_shell_skip_group(const char *t, size_t len, size_t p, int *line);

/* The next shell word in [*p, end) (fw_shell.c says what separates words); false at the end. */
bool fw_shell_next_word(const char *t, size_t end, size_t *p, int *line, bool inner, word *w);

/* A word as bash expands it (dq: inside double quotes), into o; false when it uses what nd
 * does not read (a command's output, the script's arguments, a variable the script does not
 * set unless o->unset_empty). */
bool fw_shell_expand_text(const args_doc *d, const char *s, size_t n, int depth, bool dq, outbuf *o);

/* fw_shell_expand_text into out (size bytes), with what the value took (a default for a variable
 * the script does not set, a cut value, a variable set in a block nd does not evaluate). */
bool fw_shell_expand(const args_doc *d, const char *s, size_t n, bool dq, char *out, size_t size,
                     bool *defaulted, bool *full, bool *branch);

#endif
