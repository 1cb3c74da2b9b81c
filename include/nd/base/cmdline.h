/*
 * cmdline.h — the one command line of all six nd programs: how options are spelled and read,
 * and the flags every program takes with the same meaning (docs/cli.md).
 *
 * Shared by all six:
 *
 *   -h, --help             the usage, the program's flags, then these; exit 0
 *       --version          "nd-X VERSION"; exit 0
 *   -v N, --verbosity N    0 errors only, 1 results, 2 notes and "wrote" lines (default), 3-6
 *                          more detail; a bare -v is one level more
 *   -q, --quiet            -v 1
 *   -o, --output-dir DIR   the directory every output goes to (created if missing)
 *   -V, --verify           the model's census against its checkpoint, then exit
 *   -M, --max_mem SIZE     the memory budget per device
 *   -c, --cache_file FILE  the ratios file nd-fit wrote
 *
 * A program without a use for one of them says so (nd_cmdline_unused: refused, or a note),
 * never reads it as something else. Long options take '_' and '-' alike, one dash or two,
 * and every switch has a --no-X form; ND's spellings (-v 2, -l DP MP, --recompute off full,
 * -mppb's en dash) are brought to one before getopt reads them. A group (nd_cmdline_group)
 * adds options several programs share beyond these: the pricing programs' run and cluster
 * flags (nd/session/cli.h).
 */
#ifndef ND_BASE_CMDLINE_H
#define ND_BASE_CMDLINE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nd/base/error.h"

/* The verbosity scale (ND's -v N, 0..6; ND's default 2). */
enum {
    ND_VERBOSITY_QUIET = 0,   /* errors only: no table, no notes */
    ND_VERBOSITY_RESULTS = 1, /* results on stdout, no notes, progress or "wrote" lines on stderr */
    ND_VERBOSITY_DEFAULT = 2, /* + notes, summaries, progress, a "wrote PATH" line per output */
    ND_VERBOSITY_INFO = 3,    /* + the details: the search's bounds, nd-classify's blocks */
    ND_VERBOSITY_DETAIL = 4,  /* + every dropped candidate and its excess memory */
    ND_VERBOSITY_TRACE = 5,   /* + every priced candidate */
    ND_VERBOSITY_DEBUG = 6,   /* + every candidate's parts per stage */
    ND_VERBOSITY_MAX = 6
};

/* Added to a switch's code for its --no-X form: a handler sees `opt & ND_CMDLINE_NO` and sets
 * the switch off. Every option without an argument has one. */
#define ND_CMDLINE_NO 0x10000

/* The codes of the shared flags (their short letters), as handlers and nd_cmdline_unused name
 * them; --help and --version have codes of their own above every program's. */
enum {
    ND_FLAG_OUTPUT_DIR = 'o',
    ND_FLAG_BUDGET = 'M',
    ND_FLAG_RATIOS = 'c',
    ND_FLAG_VERIFY = 'V',
    ND_FLAG_VERBOSITY = 'v',
    ND_FLAG_QUIET = 'q',
    ND_FLAG_HELP = 'h',
    ND_FLAG_VERSION = 0x7000,
    ND_FLAG_VERBOSITY_N /* --verbosity N (-v N is brought to it) */
};

/* What the shared flags said, read alike by every program. Strings point into argv or into
 * words (which must outlive their use). */
typedef struct nd_cmdline_shared {
    int verbosity;       /* ND_VERBOSITY_*; ND_VERBOSITY_DEFAULT when not given */
    const char *out_dir; /* -o DIR, or NULL */
    const char *budget;  /* -M SIZE as typed, or NULL (each program parses it) */
    const char *ratios;  /* -c FILE, or NULL */
    bool verify;         /* -V */
    char words[8192];    /* the command line's words as the parser spelled them */
} nd_cmdline_shared;

/* Defaults: ND_VERBOSITY_DEFAULT, nothing given. */
void nd_cmdline_shared_init(nd_cmdline_shared *s);

/* Whether messages at `level` are printed: the verbosity is at least level. */
bool nd_cmdline_says(const nd_cmdline_shared *s, int level);

/* A program's handler for its own options: returns 0 when it took opt, 1 when opt is not one
 * of its own, or ND_EUSAGE with err filled. A switch's --no-X form arrives as its code |
 * ND_CMDLINE_NO. A program's option of the same long name as a shared one wins. */
typedef int (*nd_cmdline_handler)(int opt, const char *arg, void *request, nd_error *err);

/* The words left after the options, one at a time: 0 when it took arg, 1 when not. */
typedef int (*nd_cmdline_operand)(const char *arg, void *request);

/* A shared or group option a program has no use for: refused (refuse) or noted on stderr,
 * never silently ignored nor read as something else; --help leaves it out. */
typedef struct nd_cmdline_unused {
    int opt;         /* the option's code ('c', ND_FLAG_VERIFY, a group's code); 0 ends a list */
    bool refuse;     /* true: a usage error; false: a note, and the run goes on */
    const char *why; /* "nd-fit fits the raw estimates" */
} nd_cmdline_unused;

/* One entry of --help: the text of option opt (0: text every program prints). */
typedef struct nd_cmdline_help {
    int opt;
    const char *text;
} nd_cmdline_help;

/* An option that takes several words, as ND's argparse options do (nargs): -l DP MP PP. */
typedef struct nd_cmdline_multiword {
    char short_name;       /* 0 when it has none */
    const char *long_name; /* '-' between words */
} nd_cmdline_multiword;

/* Options several programs share beyond the common flags, read by the group's handler after
 * the program's (handle: as nd_cmdline_handler, with the option as typed and the program's
 * name for its messages); finish runs once every option is read (0, or ND_EUSAGE). */
typedef struct nd_cmdline_group {
    const struct option *options; /* ends with a zero entry */
    const char *short_options;
    const nd_cmdline_help *help; /* --help's entries for the group, in order */
    size_t n_help;
    const nd_cmdline_multiword *multiwords;
    size_t n_multiwords;
    int (*handle)(int opt, const char *arg, const char *typed, const char *program, void *state,
                  const nd_cmdline_shared *shared, nd_error *err);
    int (*finish)(void *state, const nd_cmdline_shared *shared, const char *program, nd_error *err);
} nd_cmdline_group;

typedef struct nd_cmdline_program {
    const char *name;             /* "nd-fit": message prefix and --version */
    const char *usage;            /* --help: usage and the program's own options */
    const char *exit_status;      /* --help's last paragraph: what each status means */
    const struct option *options; /* its own long options, ending with a zero entry */
    const char *short_options;    /* its own short options ("t:"), beside the shared ones */
    nd_cmdline_handler handle;
    nd_cmdline_operand operand;            /* NULL: the program takes no operands */
    const nd_cmdline_unused *unused;       /* ending with {0}; NULL: uses every shared flag */
    const nd_cmdline_help *shared_help;    /* a program's own text for a shared flag's --help
                                              line, ending with {0}; NULL: the common text */
    const nd_cmdline_group *group;         /* NULL, or the group it takes (the pricing flags) */
    void *group_state;                     /* handed to the group's handler */
    const nd_cmdline_multiword *multiword; /* the program's own multi-word options */
    size_t n_multiword;
} nd_cmdline_program;

/* Parses argv: the shared flags into *shared, the program's options through its handler, the
 * group's through the group's, then the operands. Returns -1 when the command should run,
 * else the exit status to return at once: 0 after --help or --version, 2 after a usage error
 * (one line on stderr, "nd-X: MESSAGE", then "Try 'nd-X --help'."). argv is not modified.
 * Unknown flags are refused with the nearest known one (flags.h). */
int nd_cmdline_parse(const nd_cmdline_program *p, int argc, char **argv, nd_cmdline_shared *shared,
                     void *request);

/* Where a command prints, by verbosity: results to `out` (stdout; nowhere at -v 0), notes,
 * summaries and progress to `diag` (stderr; nowhere below -v 2). Errors always reach stderr
 * (nd_main_end). Files are written at every level. */
typedef struct nd_cmdline_streams {
    FILE *out, *diag;
    FILE *null; /* /dev/null when something is silenced (owned) */
} nd_cmdline_streams;

void nd_cmdline_streams_open(int verbosity, nd_cmdline_streams *s);
void nd_cmdline_streams_close(nd_cmdline_streams *s);

/* The usage error every program prints: "PROGRAM: MESSAGE" and "Try 'PROGRAM --help'." on
 * stderr; returns 2. */
int nd_cmdline_usage_error(const char *program, const char *message);

#endif
