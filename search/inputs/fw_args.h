/*
 * fw_args.h — a launch script's --flags and shell variables as bash would pass them
 * (fw_args.c), shared by the Megatron reader (fw_megatron.c) and its write-back
 * (fw_megatron_write.c, fw_megatron.h).
 */
#ifndef ND_INPUTS_FW_ARGS_H
#define ND_INPUTS_FW_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nd/base/error.h"

#define MAX_ARGS 1024

typedef struct arg {
    char name[64];     /* without the dashes, '_' as '-' */
    char value[4096];  /* variables expanded; "" for a switch */
    size_t from, to;   /* the flag word's bytes */
    size_t vfrom, vto; /* the value word's bytes (equal when none) */
    size_t list_to;    /* a list flag's (argparse nargs='+'): its last value word's end; else vto */
    int list_count;    /* its value words (1 for any other flag with a value) */
    int line;
    bool has_value;
    bool unresolved; /* its value uses a variable the script does not set */
    bool inner;      /* it stands in a quoted variable's value (GPT_ARGS="...") */
    bool defaulted;  /* its value took a default for a variable the script does not set */
    bool too_long;   /* its value does not fit value[] */
    bool in_branch;  /* it stands in an if/case block, or its value takes a variable set in one */
    bool looked_up;  /* a reader asked for it (fw_args_get, fw_args_val, fw_args_on) */
    int owner;       /* the variable whose quoted value holds it (vars[]), -1 for none */
} arg;

/* A shell variable the script sets (NAME=value); every assignment is kept, in order. */
typedef struct var {
    char name[64];
    char *value;       /* expanded */
    size_t vfrom, vto; /* the value's bytes (inside its quotes) */
    bool plain;        /* the value is a literal word (no $, no quotes inside) */
    bool defaulted;    /* it took a ${NAME:-default} for a variable the script does not set */
    bool unknown;      /* its value uses what nd does not read (a command's output, $1, ...) */
    bool in_branch;    /* set in an if/case block, or from a variable set in one */
    bool unused;       /* no $NAME outside its own assignments: its flags reach no command */
} var;

/* An if/case block open where the scan stands: evaluated when its tests are ones nd reads
 * ([ ], [[ ]] on strings and numbers), the branch bash takes then the only one read. */
typedef struct branch_frame {
    bool evaluated; /* every test so far read */
    bool active;    /* the words under the current branch are read */
    bool taken;     /* a branch of the block was taken already */
    int empty_line; /* a test of the block read a variable the script does not set as empty */
    char empty_var[48];
} branch_frame;

/* A flag under a block whose branch was chosen by a test on a variable left to the
 * environment (read as empty): named in a note when the reader asks for that flag. */
typedef struct empty_flag {
    char name[48];
    int test_line;
    char var[48];
} empty_flag;

#define MAX_BRANCH_DEPTH 32

typedef struct args_doc {
    char *text;
    size_t len;
    arg items[MAX_ARGS];
    int count;
    var *vars; /* no cap: a script sets as many as it likes */
    int n_vars, cap_vars;
    int owner;                    /* the variable whose value the scan is in, -1 outside one */
    const arg *needed_unresolved; /* the first value nd needed that uses a variable the script
                                     does not set (reported once reading ends) */
    int branch_depth;             /* if/case blocks nd does not evaluate, open where the scan stands */
    branch_frame frames[MAX_BRANCH_DEPTH];
    int n_frames;
    empty_flag empty_flags[64];
    int n_empty_flags;
    char asked[160][48]; /* the flags a reader asked for (fw_args_get, fw_args_val, fw_args_on) */
    int n_asked;
} args_doc;

/* The first flag a reader asked for that stands under a block chosen by a test on a variable
 * the script does not set (read as empty, as in an empty environment), or NULL. */
const empty_flag *fw_args_empty_test(const args_doc *d);

/* Reads and scans the script at path into d (the caller's, not zeroed); on failure too the
 * caller frees it with fw_args_unload, which also frees d itself. */
int fw_args_load(args_doc *d, const char *path, nd_error *err);
void fw_args_unload(args_doc *d);

/* The last occurrence of a flag (a later one wins, as argparse reads them), or NULL; one in an
 * if/case branch whose value uses a variable the script does not set is the branch not taken
 * and passed over. */
const arg *fw_args_find(const args_doc *d, const char *name);

/* Whether a stands in the value of a variable nothing expands, so that bash passes it to no
 * command; fw_args_find passes over it. */
bool fw_args_unpassed(const args_doc *d, const arg *a);

/* Whether a reader asked for the flag `name` (fw_args_get, fw_args_val, fw_args_on). */
bool fw_args_asked(const args_doc *d, const char *name);

/* fw_args_find for a reader: the flag is marked as used (arg.looked_up), so what nd took from
 * an if/case branch can be named; fw_args_val and fw_args_on mark it likewise. */
const arg *fw_args_get(args_doc *d, const char *name);

/* A flag's value (NULL when absent, a switch, or using a variable the script does not set:
 * the first such needed value is kept in d->needed_unresolved); *line its line. */
const char *fw_args_val(args_doc *d, const char *name, int *line);

bool fw_args_on(args_doc *d, const char *name);

/* A list flag's whole numbers (--hierarchical-context-parallel-sizes 2 4), up to max of
 * them, as written (a variable in a list is not expanded: -1 then; a number above
 * ND_ARGS_LIST_MAX is held at it); the count read. */
#define ND_ARGS_LIST_MAX ((int64_t)1 << 40)
int fw_args_list_ints(const args_doc *d, const arg *a, int64_t *out, int max);

/* Whether c may stand in a shell variable's name. */
bool fw_args_name_char(char c);

/* The world size of the script's launcher (torchrun --nproc_per_node x --nnodes), 0 if it
 * states none nd can read. */
int64_t fw_args_world_size(args_doc *d);

/* Which Megatron the arguments are for (train.framework): megatron, megatron-legacy,
 * megatron-deepspeed or mindspeed. */
const char *fw_args_flavour(const args_doc *d);

#endif
