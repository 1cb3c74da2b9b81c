/*
 * cli.h — the command-line options every pricing binary shares (ND's names:
 * -y -A -d -b -M -mem -c, plus --device-file and run overrides), and turning
 * them into a loaded run, a device and a context. A main describes its own flags
 * (nd_cli_program) and nd_cli_parse reads both.
 */
#ifndef ND_CLI_H
#define ND_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include "nd/device.h"
#include "nd/error.h"
#include "nd/ratios.h"
#include "nd/run.h"
#include <stdio.h>

#define ND_CLI_MAX_SETS 64

typedef struct nd_cli_common {
    const char *run_path;      /* -y */
    const char *device;        /* -A */
    const char *device_file;   /* --device-file */
    const char *ratios_path;   /* -c */
    const char *devices;       /* -d */
    const char *gbs;           /* -b */
    const char *budget;        /* -M */
    const char *reserve;       /* -mem */
    int verbosity;             /* -v */
    int set_count;
    const char *set_keys[ND_CLI_MAX_SETS];
    const char *set_values[ND_CLI_MAX_SETS];
    const char *set_flags[ND_CLI_MAX_SETS]; /* the flag as typed, for messages */
    char set_storage[ND_CLI_MAX_SETS][256];
} nd_cli_common;

/* Option codes of the shared long options (above 256, clear of short options). */
enum {
    ND_OPT_DEVICE_FILE = 300, ND_OPT_MEM, ND_OPT_SEQ, ND_OPT_PRECISION, ND_OPT_RECOMPUTE,
    ND_OPT_SCHEDULE, ND_OPT_SET, ND_OPT_OPTIMIZER, ND_OPT_FLASH, ND_OPT_DROPOUT,
    ND_OPT_GRAD_PRECISION, ND_OPT_SWAP_OS, ND_OPT_HELP, ND_OPT_VERSION, ND_OPT_COMMON_LAST
};

/* A binary's own flags beside the shared ones. handle returns 0 when it took opt,
 * 1 when opt is not one of its own, or ND_EUSAGE with err filled. */
typedef int (*nd_cli_handler)(int opt, const char *arg, void *request, nd_error *err);
/* The words left after the options, one at a time (ND's `-l DP MP PP` gives its list as
 * separate words): returns 0 when it took arg, 1 when arg is not the program's. */
typedef int (*nd_cli_operand_handler)(const char *arg, void *request);
typedef struct nd_cli_program {
    const char *name;              /* "nd-fit": message prefix and --version */
    const char *usage;             /* --help: usage and own options, then the shared options' */
    const char *exit_status;       /* help, -h and --version, and this: what each status means */
    const struct option *options;  /* its own long options, ending with a zero entry */
    const char *short_options;     /* its own short options ("o:"), beside the shared ones */
    nd_cli_handler handle;
    nd_cli_operand_handler operand; /* NULL: the program takes no operands */
} nd_cli_program;

/* Parses argv: the shared options into *common, the program's through its handler, plus
 * -h/--help and --version, then any operands through p->operand. Returns -1 when the
 * command should run, else the exit status to return at once (0 after --help or
 * --version; 2 after a usage error, reported on stderr with a pointer to --help). */
int nd_cli_parse(const nd_cli_program *p, int argc, char **argv, nd_cli_common *common, void *request);

void nd_cli_common_init(nd_cli_common *c);

/* Records an override of run setting key from a dedicated flag (--seq, --recompute...),
 * applied over the run file when the session opens; errors name `flag`. Returns 1, or
 * ND_EUSAGE when there are too many. value must outlive c. */
int nd_cli_common_add_flag(nd_cli_common *c, const char *key, const char *value, const char *flag, nd_error *err);

/* What every pricing command starts from: the run with the flags applied, the device
 * table and the chosen device, the memory budget, and the ratios file if -c was given. */
typedef struct nd_session {
    nd_run run;
    nd_device_table table;
    const nd_device *device;
    double budget_mib;
    nd_ratios_file ratios;
    bool has_ratios;
} nd_session;

/* Loads -y, applies the overrides (the command line wins over the file), loads device files,
 * resolves the device, the device count and the budget, and loads -c, printing to diag a note
 * for each way the ratios were fitted for another device, model or sequence length. The
 * device count and batch may stay 0 when neither the flags nor the file state them and
 * need_cluster is false. Errors name the flag or file. */
int nd_session_open(nd_session *s, const nd_cli_common *c, bool need_cluster, FILE *diag,
                    nd_error *err);

void nd_session_close(nd_session *s);

#endif
