/*
 * cmdline.c — the one command line of all six programs: the shared flags (-h --version -v -q
 * -o -V -M -c), the option table a program parses with (its own, a group's, the shared ones,
 * --no-X forms), the getopt loop, --help, and the streams a verbosity chooses.
 */
#include "nd/base/cmdline.h"

#include <stdlib.h>
#include <string.h>

#include "cmdline_internal.h"
#include "nd/base/array.h"
#include "nd/base/flags.h"
#include "nd/base/text.h"
#include "nd/base/version.h"

/* The shared flags: every program's table ends with them (a program's own option of the same
 * name comes first and wins). --budget is nd-plot's former name of -M. */
static const struct option shared_options[] = {
    {"output-dir", required_argument, 0, ND_FLAG_OUTPUT_DIR},
    {"max_mem", required_argument, 0, ND_FLAG_BUDGET},
    {"budget", required_argument, 0, ND_FLAG_BUDGET},
    {"cache_file", required_argument, 0, ND_FLAG_RATIOS},
    {"ratios", required_argument, 0, ND_FLAG_RATIOS},
    {"verify", no_argument, 0, ND_FLAG_VERIFY},
    {"verbosity", required_argument, 0, ND_FLAG_VERBOSITY_N},
    {"verbose", optional_argument, 0, ND_FLAG_VERBOSITY},
    {"quiet", no_argument, 0, ND_FLAG_QUIET},
    {"help", no_argument, 0, ND_FLAG_HELP},
    {"version", no_argument, 0, ND_FLAG_VERSION},
};
#define SHARED_SHORT "o:M:c:Vv::qh"

static const nd_cmdline_help shared_help[] = {
    {0, "\nEvery nd program reads these alike (docs/cli.md):\n"},
    {ND_FLAG_OUTPUT_DIR,
     "  -o, --output-dir DIR     where the outputs go (created if missing); without it nothing\n"
     "                           is written but what a flag names\n"},
    {ND_FLAG_BUDGET,
     "  -M, --max_mem SIZE       memory budget per device (58GB, 60000MB; default: the device's HBM)\n"},
    {ND_FLAG_RATIOS, "  -c, --cache_file FILE    ratios file from nd-fit: each part x its ratio\n"},
    {ND_FLAG_VERIFY,
     "  -V, --verify             the model's census against the checkpoint's tensors, then exit\n"},
    {ND_FLAG_VERBOSITY,
     "  -v, --verbosity N        0 errors only, 1 results, 2 notes and a \"wrote PATH\" line per\n"
     "                           output (default), 3-6 more detail; -v alone: one more\n"},
    {ND_FLAG_QUIET, "  -q, --quiet              -v 1: results only (errors still print)\n"},
    {ND_FLAG_HELP, "  -h, --help               this text\n"
                   "      --version            the version\n"},
    {0, "\nLong options take '_' or '-' alike, one dash or two; every switch has a --no-X form.\n\n"},
};

void nd_cmdline_shared_init(nd_cmdline_shared *s)
{
    memset(s, 0, sizeof *s);
    s->verbosity = ND_VERBOSITY_DEFAULT;
}

bool nd_cmdline_says(const nd_cmdline_shared *s, int level)
{
    return s->verbosity >= level;
}

int nd_cmdline_usage_error(const char *program, const char *message)
{
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program, message, program);
    return 2;
}

/* The entry of p->unused for option opt, or NULL when the program uses it. */
static const nd_cmdline_unused *unused_entry(const nd_cmdline_program *p, int opt)
{
    for (const nd_cmdline_unused *u = p->unused; u && u->opt; u++)
        if (u->opt == opt) return u;
    return NULL;
}

/* The option table a program parses with: its own options, the group's, the shared ones
 * (each name once, the first kept), and a --no-X form of every switch. Names are spelled as
 * nd_cmdline_spell makes them; *names owns their text. */
typedef struct option_table {
    struct option *items;
    int count;
    char *names;
    size_t names_used, names_size;
    char shorts[128];
} option_table;

static bool table_has(const option_table *t, const char *name)
{
    for (int i = 0; i < t->count; i++)
        if (!strcmp(t->items[i].name, name)) return true;
    return false;
}

static void table_add(option_table *t, const char *name, int has_arg, int val, const char *prefix)
{
    char *text = t->names + t->names_used;
    snprintf(text, t->names_size - t->names_used, "%s%s", prefix, name);
    nd_cmdline_spell(text);
    t->names_used += strlen(text) + 1;
    if (table_has(t, text)) return;
    t->items[t->count++] = (struct option){text, has_arg, 0, val};
}

/* Room for a list of options: entries and bytes of names (each twice, for --no-X). */
static void count_options(const struct option *o, int *entries, size_t *bytes)
{
    for (; o && o->name; o++) {
        *entries += 2;
        *bytes += 2 * strlen(o->name) + 8;
    }
}

static void add_options(option_table *t, const struct option *o)
{
    for (; o && o->name; o++) table_add(t, o->name, o->has_arg, o->val, "");
}

static void add_shorts(option_table *t, const char *shorts)
{
    size_t n = strlen(t->shorts);
    snprintf(t->shorts + n, sizeof t->shorts - n, "%s", shorts ? shorts : "");
}

static int table_build(option_table *t, const nd_cmdline_program *p)
{
    int cap = 2 * (int)ND_ARRAY_LEN(shared_options) + 2;
    size_t names = 64;
    count_options(p->options, &cap, &names);
    count_options(p->group ? p->group->options : NULL, &cap, &names);
    for (size_t i = 0; i < ND_ARRAY_LEN(shared_options); i++) names += 2 * strlen(shared_options[i].name) + 8;
    memset(t, 0, sizeof *t);
    t->items = calloc((size_t)cap + 1, sizeof *t->items);
    t->names_size = names;
    t->names = malloc(t->names_size);
    if (!t->items || !t->names) {
        free(t->items);
        free(t->names);
        return -1;
    }
    add_options(t, p->options);
    if (p->group) add_options(t, p->group->options);
    for (size_t i = 0; i < ND_ARRAY_LEN(shared_options); i++)
        table_add(t, shared_options[i].name, shared_options[i].has_arg, shared_options[i].val, "");
    add_shorts(t, p->short_options);
    if (p->group) add_shorts(t, p->group->short_options);
    add_shorts(t, SHARED_SHORT);
    for (int i = 0, n = t->count; i < n; i++)
        if (t->items[i].has_arg == no_argument && strncmp(t->items[i].name, "no-", 3) &&
            t->items[i].val != ND_FLAG_HELP && t->items[i].val != ND_FLAG_VERSION)
            table_add(t, t->items[i].name, no_argument, t->items[i].val | ND_CMDLINE_NO, "no-");
    t->items[t->count] = (struct option){0, 0, 0, 0};
    return 0;
}

/* The program's own text for a shared flag's help line, or NULL. */
static const char *own_help(const nd_cmdline_program *p, int opt)
{
    for (const nd_cmdline_help *h = p->shared_help; h && h->text; h++)
        if (h->opt == opt) return h->text;
    return NULL;
}

static void print_help(const nd_cmdline_program *p)
{
    fputs(p->usage, stdout);
    for (size_t i = 0; p->group && i < p->group->n_help; i++) {
        const nd_cmdline_help *h = &p->group->help[i];
        if (!h->opt || !unused_entry(p, h->opt)) fputs(h->text, stdout);
    }
    for (size_t i = 0; i < ND_ARRAY_LEN(shared_help); i++) {
        const nd_cmdline_help *h = &shared_help[i];
        const nd_cmdline_unused *u = h->opt ? unused_entry(p, h->opt) : NULL;
        if (u && u->refuse) continue;
        const char *text = h->opt ? own_help(p, h->opt) : NULL;
        fputs(text ? text : h->text, stdout);
    }
    fputs(p->exit_status, stdout);
}

static int read_verbosity(nd_cmdline_shared *s, const char *arg, nd_error *err)
{
    int64_t v;
    if (nd_parse_int64(arg, 0, ND_VERBOSITY_MAX, &v))
        return nd_error_set(err, ND_EUSAGE, "-v: '%s' is not a level from 0 to %d", arg, ND_VERBOSITY_MAX);
    s->verbosity = (int)v;
    return 1;
}

/* A shared flag: 1 (taken), 0 (not shared), or ND_EUSAGE with err filled. */
static int shared_option(nd_cmdline_shared *s, int opt, const char *arg, nd_error *err)
{
    bool on = !(opt & ND_CMDLINE_NO);
    switch (opt & ~ND_CMDLINE_NO) {
    case ND_FLAG_VERIFY: s->verify = on; return 1;
    case ND_FLAG_QUIET: s->verbosity = on ? ND_VERBOSITY_RESULTS : ND_VERBOSITY_DEFAULT; return 1;
    default: break;
    }
    if (!on) return 0;
    switch (opt) {
    case ND_FLAG_OUTPUT_DIR:
        if (!*arg) return nd_error_set(err, ND_EUSAGE, "-o: an empty directory name");
        s->out_dir = arg;
        return 1;
    case ND_FLAG_BUDGET: s->budget = arg; return 1;
    case ND_FLAG_RATIOS: s->ratios = arg; return 1;
    case ND_FLAG_VERBOSITY_N: return read_verbosity(s, arg, err);
    case ND_FLAG_VERBOSITY:
        if (arg) return read_verbosity(s, arg, err);
        if (s->verbosity < ND_VERBOSITY_MAX) s->verbosity++;
        return 1;
    default: return 0;
    }
}

/* The message for a shared or group flag the program does not use: refused, or noted. */
static int refuse_unused(const nd_cmdline_program *p, const nd_cmdline_unused *u, const char *typed)
{
    char msg[400];
    snprintf(msg, sizeof msg, "%.100s does not apply: %s", typed, u->why);
    return nd_cmdline_usage_error(p->name, msg);
}

/* One option: the program's handler first (its options win), then the shared flags, then
 * the group's. Returns -1 to go on, else the exit status. */
static int take_option(const nd_cmdline_program *p, nd_cmdline_shared *s, void *request, int opt,
                       const char *typed)
{
    nd_error err = {0};
    int own = p->handle ? p->handle(opt, optarg, request, &err) : 1;
    if (own < 0) return nd_cmdline_usage_error(p->name, err.message);
    if (own == 0) return -1;
    if (opt == ND_FLAG_HELP) {
        print_help(p);
        return 0;
    }
    if (opt == ND_FLAG_VERSION) {
        printf("%s %s\n", p->name, ND_VERSION);
        return 0;
    }
    int base = opt & ~ND_CMDLINE_NO;
    const nd_cmdline_unused *unused = unused_entry(p, base == ND_FLAG_VERBOSITY_N ? ND_FLAG_VERBOSITY : base);
    if (unused && unused->refuse) return refuse_unused(p, unused, typed);
    int taken = shared_option(s, opt, optarg, &err);
    if (!taken && p->group)
        taken = p->group->handle(opt, optarg, typed, p->name, p->group_state, s, &err) == 0 ? 1 : 0;
    if (err.code) return nd_cmdline_usage_error(p->name, err.message);
    if (taken && unused && nd_cmdline_says(s, ND_VERBOSITY_DEFAULT))
        fprintf(stderr, "%s: note: %s is not used: %s\n", p->name, typed, unused->why);
    if (taken) return -1;
    char msg[400];
    nd_flag_refused_message(NULL, "", typed, msg, sizeof msg);
    return nd_cmdline_usage_error(p->name, msg);
}

/* The multi-word options of the program and its group, in one list (at most 8). */
static size_t multiwords(const nd_cmdline_program *p, nd_cmdline_multiword out[8])
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_multiword && n < 8; i++) out[n++] = p->multiword[i];
    for (size_t i = 0; p->group && i < p->group->n_multiwords && n < 8; i++)
        out[n++] = p->group->multiwords[i];
    return n;
}

int nd_cmdline_parse(const nd_cmdline_program *p, int argc, char **argv, nd_cmdline_shared *shared,
                     void *request)
{
    option_table t;
    nd_cmdline_argv words;
    nd_cmdline_multiword multi[8];
    size_t n_multi = multiwords(p, multi);
    if (table_build(&t, p)) return nd_cmdline_usage_error(p->name, "out of memory");
    if (nd_cmdline_argv_normalize(t.items, multi, (int)n_multi, argc, argv, shared->words,
                                  sizeof shared->words, &words)) {
        free(t.items);
        free(t.names);
        return nd_cmdline_usage_error(p->name,
                                      "the command line is too long (8192 bytes of options at most)");
    }
    int status = -1, opt;
    opterr = 0;
    optind = 0; /* glibc: a full re-initialisation, so a second parse starts afresh */
    while (status < 0 && (opt = getopt_long_only(words.argc, words.argv, t.shorts, t.items, NULL)) != -1) {
        int at = optind - 1 < words.argc ? optind - 1 : words.argc - 1;
        const char *typed = argv[words.origin[at > 0 ? at : 1]];
        if (opt == '?' || opt == ':') {
            char msg[400];
            nd_flag_refused_message(t.items, t.shorts, typed, msg, sizeof msg);
            status = nd_cmdline_usage_error(p->name, msg);
            break;
        }
        /* the word of an option whose argument followed it is the one before */
        if (optarg && at > 0 && words.argv[at] == optarg) typed = argv[words.origin[at - 1]];
        status = take_option(p, shared, request, opt, typed);
    }
    for (int i = optind; status < 0 && i < words.argc; i++) {
        if (p->operand && p->operand(words.argv[i], request) == 0) continue;
        char msg[300];
        snprintf(msg, sizeof msg, "unexpected argument '%.200s'", argv[words.origin[i]]);
        status = nd_cmdline_usage_error(p->name, msg);
    }
    nd_error err = {0};
    if (status < 0 && p->group && p->group->finish && p->group->finish(p->group_state, shared, p->name, &err))
        status = nd_cmdline_usage_error(p->name, err.message);
    nd_cmdline_argv_free(&words);
    free(t.items);
    free(t.names);
    return status;
}

void nd_cmdline_streams_open(int verbosity, nd_cmdline_streams *s)
{
    s->null = verbosity < ND_VERBOSITY_DEFAULT ? fopen("/dev/null", "w") : NULL;
    s->out = verbosity == ND_VERBOSITY_QUIET && s->null ? s->null : stdout;
    s->diag = s->null ? s->null : stderr;
}

void nd_cmdline_streams_close(nd_cmdline_streams *s)
{
    if (s->null) fclose(s->null);
    s->null = NULL;
}
