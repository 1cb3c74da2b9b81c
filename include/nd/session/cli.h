/*
 * cli.h — the command line every pricing binary shares, and turning it into a loaded
 * run, a device and a budget.
 *
 * The pricing options are ND's (run_nd's -y -f -m -d -b -A -mem -s -j --strict -swap_os
 * -mppb --train-yaml --accelerate-yaml) plus nd's run overrides (--seq, --set, ...), a group
 * of the one command line of all six programs (nd/base/cmdline.h), which reads the flags
 * every program shares: -h --version -v -q -o -V -M -c. nd_cli_parse reads ND's spellings
 * as ND users type them:
 * '_' and '-' alike in every long option (--yaml_config = --yaml-config), one dash or
 * two, --no-X for every switch, ND's multi-word -l DP MP and --recompute off full,
 * `-v 2`. An ND flag that belongs to another nd binary's job is accepted everywhere
 * and named in a note, so that an ND command line runs unchanged. docs/nd-compat.md
 * lists every ND flag with its status.
 */
#ifndef ND_CLI_H
#define ND_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include "nd/costmodel/device.h"
#include "nd/base/cmdline.h"
#include "nd/base/error.h"
#include "nd/inputs/ratios.h"
#include "nd/inputs/run.h"
#include <stdio.h>

#define ND_CLI_MAX_SETS 64

#define ND_CLI_MAX_NOTES 16

typedef struct nd_cli_common {
    const char *run_path;        /* -y */
    const char *framework;       /* -f: the format of -y (NULL: recognised from the file) */
    const char *model_name;      /* -m: the model's name (ND: the model hooks to use) */
    const char *train_yaml;      /* --train-yaml (ND's hyperparallel2) */
    const char *accelerate_yaml; /* --accelerate-yaml (ND's hyperparallel2) */
    const char *model_config;    /* --model-config (simumax's model JSON) */
    const char *search_config;   /* -s: ND's search config, in every binary */
    const char *device;          /* -A */
    const char *device_file;     /* --device-file */
    const char *devices;         /* -d */
    const char *gbs;             /* -b */
    const char *reserve;         /* -mem */
    int jobs;                    /* -j, --jobs, else $ND_JOBS; 0 = not stated */
    bool strict;                 /* --strict: refuse what would be priced from a default */
    bool mppb;                   /* -mppb: stage layers and recompute from the framework config */
    int n_notes;                 /* ND flags this binary does not use, as typed, for a note */
    const char *notes[ND_CLI_MAX_NOTES];
    const char *note_owner[ND_CLI_MAX_NOTES];
    nd_cmdline_shared shared; /* -v -q -o -V -M -c, read alike by all six programs */
    int set_count;
    const char *set_keys[ND_CLI_MAX_SETS];
    const char *set_values[ND_CLI_MAX_SETS];
    const char *set_flags[ND_CLI_MAX_SETS]; /* the flag as typed, for messages */
    char set_storage[ND_CLI_MAX_SETS][256];
} nd_cli_common;

/* Option codes of the shared long options (above 256, clear of short options). */
enum {
    ND_OPT_DEVICE_FILE = 300,
    ND_OPT_MEM,
    ND_OPT_SEQ,
    ND_OPT_PRECISION,
    ND_OPT_RECOMPUTE,
    ND_OPT_SCHEDULE,
    ND_OPT_SET,
    ND_OPT_OPTIMIZER,
    ND_OPT_FLASH,
    ND_OPT_DROPOUT,
    ND_OPT_GRAD_PRECISION,
    ND_OPT_SWAP_OS,
    ND_OPT_TRAIN_YAML,
    ND_OPT_ACCELERATE_YAML,
    ND_OPT_MODEL_CONFIG,
    ND_OPT_STRICT,
    ND_OPT_MPPB,
    ND_OPT_FOREIGN,
    ND_OPT_COMMON_LAST = ND_OPT_FOREIGN + 64
};

/* Added to a switch's code for its --no-X form: a handler sees `opt & ND_CLI_NO` and sets
 * the switch off. Every option without an argument has one. */
#define ND_CLI_NO ND_CMDLINE_NO

/* A binary's own flags beside the shared ones. handle returns 0 when it took opt,
 * 1 when opt is not one of its own, or ND_EUSAGE with err filled. A switch's --no-X
 * form arrives as its code | ND_CLI_NO. A program's option of the same name as a shared
 * one wins. */
typedef int (*nd_cli_handler)(int opt, const char *arg, void *request, nd_error *err);
/* The words left after the options, one at a time (ND's `-l DP MP PP` gives its list as
 * separate words): returns 0 when it took arg, 1 when arg is not the program's. */
typedef int (*nd_cli_operand_handler)(const char *arg, void *request);
/* A shared option a program has no use for: giving it is refused (refuse) or noted on stderr,
 * never silently ignored, and the program's --help leaves it out. */
typedef nd_cmdline_unused nd_cli_unused;

typedef struct nd_cli_program {
    const char *name;             /* "nd-fit": message prefix and --version */
    const char *usage;            /* --help: usage and own options, then the shared options' */
    const char *exit_status;      /* help, -h and --version, and this: what each status means */
    const struct option *options; /* its own long options, ending with a zero entry */
    const char *short_options;    /* its own short options ("o:"), beside the shared ones */
    nd_cli_handler handle;
    nd_cli_operand_handler operand;     /* NULL: the program takes no operands */
    const nd_cli_unused *unused;        /* shared options it does not use, ending with {0}; NULL: none */
    const nd_cmdline_help *shared_help; /* its own --help text for a shared flag; NULL: none */
} nd_cli_program;

/* Parses argv: the shared options into *common, the program's through its handler, plus
 * -h/--help and --version, then any operands through p->operand. ND's flags the program
 * does not use are recorded in common->notes and named on stderr (unless -v 0 or 1).
 * Returns -1 when the command should run, else the exit status to return at once (0 after
 * --help or --version; 2 after a usage error, reported on stderr with a pointer to
 * --help). argv is not modified. */
int nd_cli_parse(const nd_cli_program *p, int argc, char **argv, nd_cli_common *common, void *request);

/* Empty options at ND's default verbosity (2); -j from $ND_JOBS happens in nd_cli_parse. */
void nd_cli_common_init(nd_cli_common *c);

/* Whether messages at `level` are printed: the verbosity is at least level. */
bool nd_cli_says(const nd_cli_common *c, int level);

/* Whether a run's per-stage layers and recompute counts are priced as its config states them:
 * with -mppb (ND's rule for its formats), and always for a SimuMax run, whose counts are what
 * SimuMax itself prices. */
bool nd_cli_stage_counts(const nd_cli_common *c, nd_config_format f);

/* Where a command prints, by verbosity: results to `out` (stdout; nowhere at -v 0), notes,
 * summaries and progress to `diag` (stderr; nowhere below -v 2). Errors always reach stderr
 * (nd_main_finish). Files are written at every level. */
typedef nd_cmdline_streams nd_cli_streams;
void nd_cli_streams_open(const nd_cli_common *c, nd_cli_streams *s);
void nd_cli_streams_close(nd_cli_streams *s);

/* Records an override of run setting key from a dedicated flag (--seq, --recompute...),
 * applied over the run file when the session opens; errors name `flag`. Returns 1, or
 * ND_EUSAGE when there are too many. value must outlive c. */
int nd_cli_common_add_flag(nd_cli_common *c, const char *key, const char *value, const char *flag,
                           nd_error *err);

/* Whether the command line set run key `key` (--schedule, --set key=...). */
bool nd_cli_sets(const nd_cli_common *c, const char *key);

/* What every pricing command starts from: the run with the flags applied, the device
 * table and the chosen device, the memory budget, and the ratios file if -c was given. */
struct nd_search_config_file;
typedef struct nd_session {
    nd_run run;
    struct nd_search_config_file *search; /* -s, read; NULL without (owned) */
    nd_device_table table;
    const nd_device *device;
    double budget_mib; /* what a strategy may use: the stated budget or the device's, less the margin */
    double margin_mib; /* the margin taken off: -mem, else the framework's (nd_train_memory_margin_mib) */
    nd_ratios_file ratios;
    bool has_ratios;
} nd_session;

/* Loads -y, reads -s (its device, batch, memory and nodes where the flags state none), applies
 * the overrides (the command line wins over the files), loads device files,
 * resolves the device, the device count and the budget, and loads -c, printing to diag a note
 * for each way the ratios were fitted for another device, model or sequence length. The
 * device count and batch may stay 0 when neither the flags nor the file state them and
 * need_cluster is false. Errors name the flag or file. The caller closes s with
 * nd_session_close after a failure too: what was opened before it is in s. */
int nd_session_open(nd_session *s, const nd_cli_common *c, bool need_cluster, FILE *diag, nd_error *err);

void nd_session_close(nd_session *s);

/* ND's -V/--verify: the run's model against its checkpoint's tensors (census.h), printed on
 * out; with out_dir, DIR/census_spec.yaml too. Without a checkpoint beside the config, nd's
 * side alone and a note. Every binary runs it in place of its job when -V is given. */
int nd_verify_command(const nd_cli_common *c, const char *out_dir, FILE *out, FILE *diag, nd_error *err);

#endif
