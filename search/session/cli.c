/*
 * cli.c — the shared command line: the options every pricing binary takes (ND's and
 * nd's), ND's flags of other binaries, and nd_cli_parse, which reads them all in ND's
 * spellings (cli_argv.c) with --no-X forms of every switch.
 */
#include "nd/session/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"

#include "nd/base/flags.h"
#include "nd/base/text.h"
#include "nd/base/version.h"
#include "nd/base/array.h"

/* The shared long options, concatenated with a program's own by nd_cli_parse. */
static const struct option nd_cli_common_options[] = {
    {"yaml_config", required_argument, 0, 'y'},
    {"framework", required_argument, 0, 'f'},
    {"model", required_argument, 0, 'm'},
    {"train-yaml", required_argument, 0, ND_OPT_TRAIN_YAML},
    {"accelerate-yaml", required_argument, 0, ND_OPT_ACCELERATE_YAML},
    {"search-config", required_argument, 0, 's'},
    {"device_type", required_argument, 0, 'A'},
    {"devices", required_argument, 0, 'd'},
    {"global_batch_size", required_argument, 0, 'b'},
    {"max_mem", required_argument, 0, 'M'},
    {"cache_file", required_argument, 0, 'c'},
    {"ratios", required_argument, 0, 'c'},
    {"device-file", required_argument, 0, ND_OPT_DEVICE_FILE},
    {"mem", required_argument, 0, ND_OPT_MEM},
    {"mem_for_ppb", required_argument, 0, ND_OPT_MEM},
    {"mem-margin", required_argument, 0, ND_OPT_MEM},
    {"seq", required_argument, 0, ND_OPT_SEQ},
    {"precision", required_argument, 0, ND_OPT_PRECISION},
    {"grad-precision", required_argument, 0, ND_OPT_GRAD_PRECISION},
    {"schedule", required_argument, 0, ND_OPT_SCHEDULE},
    {"optimizer", required_argument, 0, ND_OPT_OPTIMIZER},
    {"flash-attention", required_argument, 0, ND_OPT_FLASH},
    {"dropout", required_argument, 0, ND_OPT_DROPOUT},
    {"swap_os", no_argument, 0, ND_OPT_SWAP_OS},
    {"swap_opt_state", no_argument, 0, ND_OPT_SWAP_OS},
    {"mppb", no_argument, 0, ND_OPT_MPPB},
    {"manual_pipeline_balance", no_argument, 0, ND_OPT_MPPB},
    {"strict", no_argument, 0, ND_OPT_STRICT},
    {"verify", no_argument, 0, 'V'},
    {"jobs", required_argument, 0, 'j'},
    {"threads", required_argument, 0, 'j'},
    {"threads_num", required_argument, 0, 'j'},
    {"set", required_argument, 0, ND_OPT_SET},
    {"verbosity", required_argument, 0, ND_OPT_VERBOSITY},
    {"verbose", optional_argument, 0, 'v'},
    {"quiet", no_argument, 0, 'q'},
};
static const int nd_cli_common_option_count = (int)(ND_ARRAY_LEN(nd_cli_common_options));

/* ND's flags that belong to one nd binary's job (run_nd does all of them in one program):
 * a binary without them accepts them, so that an ND command line runs, and names them in
 * a note instead of silently. */
static const struct nd_cli_foreign {
    char short_name;
    const char *name;
    int has_arg;
    const char *owner;
} foreign[] = {
    {'l', "dimensions", required_argument, "nd-search"},
    {'t', "top_config_number", required_argument, "nd-search"},
    {'e', "exhaustive", required_argument, "nd-search"},
    {0, "ee", required_argument, "nd-search"},
    {0, "force_exhaustive", required_argument, "nd-search"},
    {0, "eee", required_argument, "nd-search"},
    {0, "fforce-exhaustive", required_argument, "nd-search"},
    {'k', "ppb_k", required_argument, "nd-search"},
    {0, "ar", no_argument, "nd-search"},
    {0, "auto_recompute", no_argument, "nd-search"},
    {0, "ao", no_argument, "nd-search"},
    {0, "auto_offload", no_argument, "nd-search"},
    {0, "host_link_gibps", required_argument, "nd-search"},
    {0, "sustained_tflops", required_argument, "nd-search"},
    {0, "host_link_overlap", required_argument, "nd-search"},
    {0, "host_link_cost", required_argument, "nd-search"},
    {0, "ranking_csv", required_argument, "nd-search"},
    {0, "rp", no_argument, "nd-search"},
    {0, "recompute_potentials", no_argument, "nd-search"},
    {0, "real_csv", required_argument, "nd-compare"},
    {0, "write_ratios", required_argument, "nd-fit"},
    {'o', "output-dir", required_argument, "nd-search and nd-compare"},
};
#define FOREIGN_COUNT ((int)(ND_ARRAY_LEN(foreign)))

/* ND's options that take several words (argparse nargs). */
static const nd_cli_multiword multiwords[] = {{'l', "dimensions"}, {0, "recompute"}};

/* Short options of the shared options. */
#define ND_CLI_COMMON_SHORT "y:f:m:A:d:b:M:c:s:j:Vv::q"

/* The shared options' help, an entry per option so that a program's --help leaves out those
 * it does not use (nd_cli_program.unused); opt 0 is text every program prints. */
static const struct {
    int opt;
    const char *text;
} common_help[] = {
    {0, "Run and cluster (flags override the run file):\n"},
    {'y', "  -y, --yaml_config FILE   run description: nd's run YAML, a Hugging Face config.json, or a\n"
          "                           framework's config (-f; recognised from the file when omitted)\n"},
    {'f', "  -f, --framework F        the format of -y: nd, mindformers, mindspeed (megatron), hyper_v2,\n"
          "                           hyperparallel2, torchtitan (docs/nd-compat.md)\n"},
    {'m', "  -m, --model NAME         the model's name in outputs (ND: the model hooks to use)\n"},
    {ND_OPT_TRAIN_YAML,
     "      --train-yaml FILE    hyperparallel2: the training yaml beside -y's model yaml\n"},
    {ND_OPT_ACCELERATE_YAML,
     "      --accelerate-yaml F  hyperparallel2: the accelerate yaml (parallel degrees)\n"},
    {'s', "  -s, --search-config F    ND's search config: its model, cluster and constraints (nd-search:\n"
          "                           also its candidate lists; docs/search.md)\n"},
    {'A', "  -A, --device_type NAME   device: V100, A100, A100-40GB, H100, H800, H200, B200, B300,\n"
          "                           GB200, GB300 (NVL72), A2, A3, or one from --device-file\n"},
    {ND_OPT_DEVICE_FILE, "      --device-file FILE   YAML file adding or overriding devices\n"},
    {'d', "  -d, --devices N          devices in the cluster\n"},
    {'b', "  -b, --global_batch_size N  sequences per optimizer step\n"},
    {'M', "  -M, --max_mem SIZE       memory budget per device (58GB, 60000MB; default: the device's HBM)\n"},
    {ND_OPT_MEM, "  -mem, --mem-margin SIZE  memory kept free below the budget; a strategy fits when its\n"
                 "                           reserved peak plus the runtime context stays under the budget\n"
                 "                           less this margin (default: 3 % of the device, 2 % with\n"
                 "                           expandable segments; 0 when -M or a budget is stated;\n"
                 "                           --mem_for_ppb: ND's spelling)\n"},
    {'c', "  -c, --cache_file FILE    ratios file from nd-fit: each part x its ratio\n"},
    {ND_OPT_SEQ, "      --seq N              sequence length (tokens)\n"},
    {ND_OPT_PRECISION, "      --precision P        bf16, fp16 or fp32\n"},
    {ND_OPT_GRAD_PRECISION, "      --grad-precision P   gradient precision: fp32, bf16 or fp16\n"},
    {ND_OPT_SCHEDULE, "      --schedule S         pipeline schedule: 1f1b, interleaved, zb-h1, gpipe\n"},
    {ND_OPT_OPTIMIZER, "      --optimizer O        adamw, sgd or muon\n"},
    {ND_OPT_FLASH, "      --flash-attention B  true or false\n"},
    {ND_OPT_DROPOUT, "      --dropout P          dropout probability\n"},
    {ND_OPT_SWAP_OS, "  -swap_os, --swap_opt_state  optimizer states live in host memory\n"},
    {ND_OPT_MPPB,
     "  -mppb, --manual_pipeline_balance  the framework config's per-stage layers and recompute\n"},
    {ND_OPT_SET, "      --set KEY=VALUE      any train key of the run file (docs/run-file.md)\n"},
    {'V', "  -V, --verify             the model's census against the checkpoint's tensors, then exit\n"},
    {ND_OPT_STRICT, "      --strict             refuse a setting nd would take from a default\n"},
    {'j', "  -j, --jobs N             threads (default $ND_JOBS, else 1)\n"},
    {'v', "  -v, --verbosity N        0 errors only, 1 results, 2 notes (default), 3-6 more detail\n"},
    {'q', "  -q, --quiet              no notes or progress on stderr (-v 1; errors still print)\n"},
    {0, "\n"
        "Long options take '_' or '-' alike, one dash or two; every switch has a --no-X form.\n"},
};

/* The entry of p->unused for shared option opt, or NULL when the program uses it. */
static const nd_cli_unused *unused_entry(const nd_cli_program *p, int opt)
{
    for (const nd_cli_unused *u = p->unused; u && u->opt; u++)
        if (u->opt == opt) return u;
    return NULL;
}

/* Consumes opt if it is a shared option: returns 1 (consumed), 0 (not shared), or a
 * negative ND_EUSAGE code with err filled. */
static int nd_cli_common_option(nd_cli_common *c, int opt, const char *arg, nd_error *err);

static int usage_error(const nd_cli_program *p, const char *message)
{
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", p->name, message, p->name);
    return 2;
}

/* The combined option table a program parses with: its own options, the shared ones it
 * does not override, ND's flags of other binaries, --help, --version, and a --no-X form of
 * every switch. Names are spelled as nd_cli_spell makes them; *names owns their text. */
typedef struct option_table {
    struct option *items;
    int count;
    char *names;
    size_t names_used, names_size;
    char shorts[96];
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
    nd_cli_spell(text);
    t->names_used += strlen(text) + 1;
    if (table_has(t, text)) return;
    t->items[t->count++] = (struct option){text, has_arg, 0, val};
}

static int table_build(option_table *t, const nd_cli_program *p)
{
    int cap = 2 * (nd_cli_common_option_count + FOREIGN_COUNT + 2);
    size_t names = 0;
    for (const struct option *o = p->options; o->name; o++) {
        cap += 2;
        names += 2 * strlen(o->name) + 8;
    }
    for (int i = 0; i < nd_cli_common_option_count; i++)
        names += 2 * strlen(nd_cli_common_options[i].name) + 8;
    for (int i = 0; i < FOREIGN_COUNT; i++) names += 2 * strlen(foreign[i].name) + 8;
    memset(t, 0, sizeof *t);
    t->items = calloc((size_t)cap + 1, sizeof *t->items);
    t->names_size = names + 64;
    t->names = malloc(t->names_size);
    if (!t->items || !t->names) {
        free(t->items);
        free(t->names);
        return -1;
    }
    for (const struct option *o = p->options; o->name; o++) table_add(t, o->name, o->has_arg, o->val, "");
    for (int i = 0; i < nd_cli_common_option_count; i++) {
        const struct option *o = &nd_cli_common_options[i];
        table_add(t, o->name, o->has_arg, o->val, "");
    }
    snprintf(t->shorts, sizeof t->shorts, "%s%sh", p->short_options, ND_CLI_COMMON_SHORT);
    for (int i = 0; i < FOREIGN_COUNT; i++) {
        table_add(t, foreign[i].name, foreign[i].has_arg, ND_OPT_FOREIGN + i, "");
        char c = foreign[i].short_name;
        size_t n = strlen(t->shorts);
        if (c && !strchr(t->shorts, c) && n + 3 < sizeof t->shorts) {
            t->shorts[n] = c;
            t->shorts[n + 1] = foreign[i].has_arg ? ':' : '\0';
            t->shorts[n + 2] = '\0';
        }
    }
    table_add(t, "help", no_argument, ND_OPT_HELP, "");
    table_add(t, "version", no_argument, ND_OPT_VERSION, "");
    for (int i = 0, n = t->count; i < n; i++)
        if (t->items[i].has_arg == no_argument && strncmp(t->items[i].name, "no-", 3) &&
            t->items[i].val != ND_OPT_HELP && t->items[i].val != ND_OPT_VERSION)
            table_add(t, t->items[i].name, no_argument, t->items[i].val | ND_CLI_NO, "no-");
    t->items[t->count] = (struct option){0, 0, 0, 0};
    return 0;
}

/* The short option of a foreign flag's code, for its note ("-l"), else its long name. */
static void note_foreign(nd_cli_common *c, int index, const char *typed)
{
    if (c->n_notes >= ND_CLI_MAX_NOTES) return;
    c->notes[c->n_notes] = typed;
    c->note_owner[c->n_notes++] = foreign[index].owner;
}

/* One line per binary the ignored flags belong to. */
static void print_notes(const nd_cli_program *p, nd_cli_common *c)
{
    if (!nd_cli_says(c, ND_VERBOSITY_DEFAULT)) return;
    if (c->verify && c->output_dir) { /* -V -o: the census spec goes there */
        int kept = 0;
        for (int i = 0; i < c->n_notes; i++)
            if (strncmp(c->notes[i], "-o", 2) && !strstr(c->notes[i], "output")) {
                c->notes[kept] = c->notes[i];
                c->note_owner[kept++] = c->note_owner[i];
            }
        c->n_notes = kept;
    }
    for (int i = 0; i < c->n_notes; i++) {
        bool first = true;
        for (int j = 0; j < i; j++) first &= strcmp(c->note_owner[j], c->note_owner[i]) != 0;
        if (!first) continue;
        fprintf(stderr, "%s: note: ", p->name);
        int n = 0;
        for (int j = i; j < c->n_notes; j++)
            if (!strcmp(c->note_owner[j], c->note_owner[i]))
                fprintf(stderr, "%s%s", n++ ? ", " : "", c->notes[j]);
        fprintf(stderr, " %s %s's (ND's run_nd does everything); %s does not use %s\n", n > 1 ? "are" : "is",
                c->note_owner[i], p->name, n > 1 ? "them" : "it");
    }
}

static int read_jobs(const char *what, const char *text, nd_cli_common *c, nd_error *err)
{
    int64_t v;
    if (nd_parse_int64(text, 1, 256, &v))
        return nd_error_set(err, ND_EUSAGE, "%s: '%s' is not a whole number of threads from 1 to 256", what,
                            text);
    c->jobs = (int)v;
    return 1;
}

static void print_help(const nd_cli_program *p)
{
    fputs(p->usage, stdout);
    for (size_t i = 0; i < ND_ARRAY_LEN(common_help); i++)
        if (!common_help[i].opt || !unused_entry(p, common_help[i].opt)) fputs(common_help[i].text, stdout);
    fputs("\n"
          "  -h, --help               this text\n"
          "      --version            version\n"
          "\n",
          stdout);
    fputs(p->exit_status, stdout);
}

/* One option: the program's handler first (its options win), then the shared ones, then
 * ND's flags of other binaries. Returns -1 to go on, else the exit status. */
static int take_option(const nd_cli_program *p, nd_cli_common *common, void *request, int opt,
                       const char *typed)
{
    nd_error err = {0};
    int own = p->handle(opt, optarg, request, &err);
    if (own < 0) return usage_error(p, err.message);
    if (own == 0) return -1;
    const nd_cli_unused *unused = unused_entry(p, opt & ~ND_CLI_NO);
    if (unused && unused->refuse) {
        char msg[400];
        snprintf(msg, sizeof msg, "%.100s does not apply: %s", typed, unused->why);
        return usage_error(p, msg);
    }
    int shared = nd_cli_common_option(common, opt, optarg, &err);
    if (unused && shared > 0 && nd_cli_says(common, ND_VERBOSITY_DEFAULT))
        fprintf(stderr, "%s: note: %s is not used: %s\n", p->name, typed, unused->why);
    if (shared < 0) return usage_error(p, err.message);
    if (shared) return -1;
    int base = opt & ~ND_CLI_NO;
    for (int i = 0; i < FOREIGN_COUNT && base < 128; i++) /* a short one: -l, -t, ... */
        if (foreign[i].short_name == base) base = ND_OPT_FOREIGN + i;
    if (base >= ND_OPT_FOREIGN && base < ND_OPT_FOREIGN + FOREIGN_COUNT) {
        if (strstr(foreign[base - ND_OPT_FOREIGN].owner, p->name)) { /* ND's, not taken yet */
            char msg[300];
            snprintf(msg, sizeof msg, "'%.200s' is ND's; %s does not take it yet (docs/nd-compat.md)", typed,
                     p->name);
            return usage_error(p, msg);
        }
        note_foreign(common, base - ND_OPT_FOREIGN, typed);
        if (foreign[base - ND_OPT_FOREIGN].short_name == 'o') common->output_dir = optarg; /* -V -o */
        return -1;
    }
    if (opt == 'h' || opt == ND_OPT_HELP) {
        print_help(p);
        return 0;
    }
    if (opt == ND_OPT_VERSION) {
        printf("%s %s\n", p->name, ND_VERSION);
        return 0;
    }
    char msg[400];
    nd_flag_refused_message(NULL, "", typed, msg, sizeof msg);
    return usage_error(p, msg);
}

int nd_cli_parse(const nd_cli_program *p, int argc, char **argv, nd_cli_common *common, void *request)
{
    option_table t;
    nd_cli_argv words;
    if (table_build(&t, p)) return usage_error(p, "out of memory");
    if (nd_cli_argv_normalize(t.items, multiwords, 2, argc, argv, common->words, sizeof common->words,
                              &words)) {
        free(t.items);
        free(t.names);
        return usage_error(p, "the command line is too long (8192 bytes of options at most)");
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
            status = usage_error(p, msg);
            break;
        }
        /* the word of an option whose argument followed it is the one before */
        if (optarg && at > 0 && words.argv[at] == optarg) typed = argv[words.origin[at - 1]];
        status = take_option(p, common, request, opt, typed);
    }
    for (int i = optind; status < 0 && i < words.argc; i++) {
        if (p->operand && p->operand(words.argv[i], request) == 0) continue;
        char msg[300];
        snprintf(msg, sizeof msg, "unexpected argument '%.200s'", argv[words.origin[i]]);
        status = usage_error(p, msg);
    }
    const char *env = getenv("ND_JOBS");
    nd_error err = {0};
    if (status < 0 && !common->jobs && env && *env && read_jobs("ND_JOBS", env, common, &err) < 0)
        status = usage_error(p, err.message);
    if (status < 0) print_notes(p, common);
    nd_cli_argv_free(&words);
    free(t.items);
    free(t.names);
    return status;
}

void nd_cli_common_init(nd_cli_common *c)
{
    memset(c, 0, sizeof *c);
    c->verbosity = ND_VERBOSITY_DEFAULT;
}

bool nd_cli_says(const nd_cli_common *c, int level)
{
    return c->verbosity >= level;
}

void nd_cli_streams_open(const nd_cli_common *c, nd_cli_streams *s)
{
    s->null = c->verbosity < ND_VERBOSITY_DEFAULT ? fopen("/dev/null", "w") : NULL;
    s->out = c->verbosity == ND_VERBOSITY_QUIET && s->null ? s->null : stdout;
    s->diag = s->null ? s->null : stderr;
}

void nd_cli_streams_close(nd_cli_streams *s)
{
    if (s->null) fclose(s->null);
    s->null = NULL;
}

/* Records an override of run setting key (applied by nd_cli_common_resolve). Returns 1,
 * or ND_EUSAGE when there are too many. value must outlive c. */
static int nd_cli_common_add_set(nd_cli_common *c, const char *key, const char *value, nd_error *err)
{
    if (c->set_count >= ND_CLI_MAX_SETS)
        return nd_error_set(err, ND_EUSAGE, "too many overrides (at most %d)", ND_CLI_MAX_SETS);
    int i = c->set_count++;
    snprintf(c->set_storage[i], sizeof c->set_storage[i], "%s", key);
    c->set_keys[i] = c->set_storage[i];
    c->set_values[i] = value;
    c->set_flags[i] = "--set";
    return 1;
}

int nd_cli_common_add_flag(nd_cli_common *c, const char *key, const char *value, const char *flag,
                           nd_error *err)
{
    int rc = nd_cli_common_add_set(c, key, value, err);
    if (rc > 0) c->set_flags[c->set_count - 1] = flag;
    return rc;
}

static int read_verbosity(nd_cli_common *c, const char *flag, const char *arg, nd_error *err)
{
    int64_t v;
    if (nd_parse_int64(arg, 0, ND_VERBOSITY_MAX, &v))
        return nd_error_set(err, ND_EUSAGE, "%s: '%s' is not a level from 0 to 6", flag, arg);
    c->verbosity = (int)v;
    return 1;
}

/* The switches: their --no-X forms set them off. */
static int common_switch(nd_cli_common *c, int base, bool on, nd_error *err)
{
    switch (base) {
    case ND_OPT_SWAP_OS:
        return nd_cli_common_add_flag(c, "swap_optimizer", on ? "true" : "false", "-swap_os", err);
    case ND_OPT_MPPB: c->mppb = on; return 1;
    case ND_OPT_STRICT: c->strict = on; return 1;
    case 'V': c->verify = on; return 1;
    case 'q': c->verbosity = on ? ND_VERBOSITY_RESULTS : ND_VERBOSITY_DEFAULT; return 1;
    default: return 0;
    }
}

static int nd_cli_common_option(nd_cli_common *c, int opt, const char *arg, nd_error *err)
{
    int base = opt & ~ND_CLI_NO;
    int sw = common_switch(c, base, !(opt & ND_CLI_NO), err);
    if (sw) return sw;
    if (opt & ND_CLI_NO) return 0;
    switch (opt) {
    case 'y': c->run_path = arg; return 1;
    case 'f': c->framework = arg; return 1;
    case 'm': c->model_name = arg; return 1;
    case ND_OPT_TRAIN_YAML: c->train_yaml = arg; return 1;
    case ND_OPT_ACCELERATE_YAML: c->accelerate_yaml = arg; return 1;
    case 's': c->search_config = arg; return 1;
    case 'A': c->device = arg; return 1;
    case 'd': c->devices = arg; return 1;
    case 'b': c->gbs = arg; return 1;
    case 'M': c->budget = arg; return 1;
    case 'c': c->ratios_path = arg; return 1;
    case 'j': return read_jobs("-j", arg, c, err);
    case ND_OPT_VERBOSITY: return read_verbosity(c, "-v", arg, err);
    case 'v':
        if (arg) return read_verbosity(c, "-v", arg, err);
        if (c->verbosity < ND_VERBOSITY_MAX) c->verbosity++;
        return 1;
    case ND_OPT_DEVICE_FILE: c->device_file = arg; return 1;
    case ND_OPT_MEM: c->reserve = arg; return 1;
    case ND_OPT_SEQ: return nd_cli_common_add_flag(c, "seq_len", arg, "--seq", err);
    case ND_OPT_PRECISION: return nd_cli_common_add_flag(c, "precision", arg, "--precision", err);
    case ND_OPT_GRAD_PRECISION:
        return nd_cli_common_add_flag(c, "grad_precision", arg, "--grad-precision", err);
    case ND_OPT_SCHEDULE: return nd_cli_common_add_flag(c, "schedule", arg, "--schedule", err);
    case ND_OPT_OPTIMIZER: return nd_cli_common_add_flag(c, "optimizer", arg, "--optimizer", err);
    case ND_OPT_FLASH: return nd_cli_common_add_flag(c, "flash_attention", arg, "--flash-attention", err);
    case ND_OPT_DROPOUT: return nd_cli_common_add_flag(c, "dropout", arg, "--dropout", err);
    case ND_OPT_SET: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || eq - arg >= 255)
            return nd_error_set(err, ND_EUSAGE, "--set '%s': expected KEY=VALUE", arg);
        int rc = nd_cli_common_add_set(c, "", eq + 1, err);
        if (rc < 0) return rc;
        int i = c->set_count - 1;
        memcpy(c->set_storage[i], arg, (size_t)(eq - arg));
        c->set_storage[i][eq - arg] = '\0';
        return 1;
    }
    default: return 0;
    }
}
