/*
 * cli.c — the pricing programs' command line: the run and cluster options nd-estimate,
 * nd-search, nd-compare and nd-fit take (ND's and nd's), ND's flags of other binaries, as a
 * group of the one command line of all six programs (nd/base/cmdline.h), which reads the
 * shared flags (-h --version -v -q -o -V -M -c) and ND's spellings.
 */
#include "nd/session/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/array.h"

/* The shared long options, concatenated with a program's own by nd_cli_parse. */
static const struct option nd_cli_common_options[] = {
    {"yaml_config", required_argument, 0, 'y'},
    {"framework", required_argument, 0, 'f'},
    {"model", required_argument, 0, 'm'},
    {"train-yaml", required_argument, 0, ND_OPT_TRAIN_YAML},
    {"accelerate-yaml", required_argument, 0, ND_OPT_ACCELERATE_YAML},
    {"model-config", required_argument, 0, ND_OPT_MODEL_CONFIG},
    {"search-config", required_argument, 0, 's'},
    {"device_type", required_argument, 0, 'A'},
    {"devices", required_argument, 0, 'd'},
    {"global_batch_size", required_argument, 0, 'b'},
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
    {"jobs", required_argument, 0, 'j'},
    {"threads", required_argument, 0, 'j'},
    {"threads_num", required_argument, 0, 'j'},
    {"set", required_argument, 0, ND_OPT_SET},
};

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
};
#define FOREIGN_COUNT ((int)(ND_ARRAY_LEN(foreign)))

/* ND's options that take several words (argparse nargs). */
static const nd_cmdline_multiword multiwords[] = {{'l', "dimensions"}, {0, "recompute"}};

/* Short options of the shared options. */
#define ND_CLI_COMMON_SHORT "y:f:m:A:d:b:s:j:"

/* The shared options' help, an entry per option so that a program's --help leaves out those
 * it does not use (nd_cli_program.unused); opt 0 is text every program prints. */
static const nd_cmdline_help common_help[] = {
    {0, "Run and cluster (flags override the run file):\n"},
    {'y', "  -y, --yaml_config FILE   run description: nd's run YAML, a Hugging Face config.json, or a\n"
          "                           framework's config (-f; recognised from the file when omitted)\n"},
    {'f', "  -f, --framework F        the format of -y: nd, mindformers, mindspeed (megatron), hyper_v2,\n"
          "                           hyperparallel2, torchtitan, simumax (docs/nd-compat.md)\n"},
    {'m', "  -m, --model NAME         the model's name in outputs (ND: the model hooks to use)\n"},
    {ND_OPT_TRAIN_YAML,
     "      --train-yaml FILE    hyperparallel2: the training yaml beside -y's model yaml\n"},
    {ND_OPT_ACCELERATE_YAML,
     "      --accelerate-yaml F  hyperparallel2: the accelerate yaml (parallel degrees)\n"},
    {ND_OPT_MODEL_CONFIG, "      --model-config FILE  simumax: the model JSON beside -y's strategy JSON\n"},
    {'s', "  -s, --search-config F    ND's search config: its model, cluster and constraints (nd-search:\n"
          "                           also its candidate lists; docs/search.md)\n"},
    {'A', "  -A, --device_type NAME   device: V100, A100, A100-40GB, H100, H800, H200, B200, B300,\n"
          "                           GB200, GB300 (NVL72), A2, A3, or one from --device-file\n"},
    {ND_OPT_DEVICE_FILE, "      --device-file FILE   YAML file adding or overriding devices\n"},
    {'d', "  -d, --devices N          devices in the cluster\n"},
    {'b', "  -b, --global_batch_size N  sequences per optimizer step\n"},
    {ND_OPT_MEM, "  -mem, --mem-margin SIZE  memory kept free below the budget; a strategy fits when its\n"
                 "                           reserved peak plus the runtime context stays under the budget\n"
                 "                           less this margin (default: 3 % of the device, 2 % with\n"
                 "                           expandable segments; 0 when -M or a budget is stated;\n"
                 "                           --mem_for_ppb: ND's spelling)\n"},
    {ND_OPT_SEQ, "      --seq N              sequence length (tokens)\n"},
    {ND_OPT_PRECISION, "      --precision P        bf16, fp16 or fp32\n"},
    {ND_OPT_GRAD_PRECISION, "      --grad-precision P   gradient precision: fp32, bf16 or fp16\n"},
    {ND_OPT_SCHEDULE,
     "      --schedule S         pipeline schedule: 1f1b, interleaved, zb-h1, zb-h2, zb-v, gpipe,\n"
     "                           dualpipe, dualpipev\n"},
    {ND_OPT_OPTIMIZER, "      --optimizer O        adamw (or adam), sgd or muon\n"},
    {ND_OPT_FLASH, "      --flash-attention B  true or false\n"},
    {ND_OPT_DROPOUT, "      --dropout P          dropout probability\n"},
    {ND_OPT_SWAP_OS, "  -swap_os, --swap_opt_state  optimizer states live in host memory\n"},
    {ND_OPT_MPPB,
     "  -mppb, --manual_pipeline_balance  the framework config's per-stage layers and recompute\n"},
    {ND_OPT_SET, "      --set KEY=VALUE      any train key of the run file (docs/run-file.md)\n"},
    {ND_OPT_STRICT, "      --strict             refuse a setting nd would take from a default\n"},
    {'j', "  -j, --jobs N             threads (default $ND_JOBS, else 1)\n"},
};

/* Consumes opt if it is a pricing option: returns 1 (consumed), 0 (not one), or a negative
 * ND_EUSAGE code with err filled. */
static int nd_cli_common_option(nd_cli_common *c, int opt, const char *arg, nd_error *err);

/* ND's flag of another binary, noted as typed. */
static void note_foreign(nd_cli_common *c, int index, const char *typed)
{
    if (c->n_notes >= ND_CLI_MAX_NOTES) return;
    c->notes[c->n_notes] = typed;
    c->note_owner[c->n_notes++] = foreign[index].owner;
}

/* One line per binary the ignored flags belong to. */
static void print_notes(const char *program, const nd_cli_common *c)
{
    if (!nd_cli_says(c, ND_VERBOSITY_DEFAULT)) return;
    for (int i = 0; i < c->n_notes; i++) {
        bool first = true;
        for (int j = 0; j < i; j++) first &= strcmp(c->note_owner[j], c->note_owner[i]) != 0;
        if (!first) continue;
        fprintf(stderr, "%s: note: ", program);
        int n = 0;
        for (int j = i; j < c->n_notes; j++)
            if (!strcmp(c->note_owner[j], c->note_owner[i]))
                fprintf(stderr, "%s%s", n++ ? ", " : "", c->notes[j]);
        fprintf(stderr, " %s %s's (ND's run_nd does everything); %s does not use %s\n", n > 1 ? "are" : "is",
                c->note_owner[i], program, n > 1 ? "them" : "it");
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

/* The group's handler: a pricing option, else ND's flag of another binary (noted). */
static int group_handle(int opt, const char *arg, const char *typed, const char *program, void *state,
                        const nd_cmdline_shared *shared, nd_error *err)
{
    (void)shared;
    nd_cli_common *c = state;
    int taken = nd_cli_common_option(c, opt, arg, err);
    if (taken < 0) return taken;
    if (taken) return 0;
    int base = opt & ~ND_CLI_NO;
    for (int i = 0; i < FOREIGN_COUNT && base < 128; i++) /* a short one: -l, -t, ... */
        if (foreign[i].short_name == base) base = ND_OPT_FOREIGN + i;
    if (base < ND_OPT_FOREIGN || base >= ND_OPT_FOREIGN + FOREIGN_COUNT) return 1;
    if (strstr(foreign[base - ND_OPT_FOREIGN].owner, program)) /* ND's, not taken yet */
        return nd_error_set(err, ND_EUSAGE, "'%.200s' is ND's; %s does not take it yet (docs/nd-compat.md)",
                            typed, program);
    note_foreign(c, base - ND_OPT_FOREIGN, typed);
    return 0;
}

/* After the options: -j from $ND_JOBS when not given, and the notes of ND's flags. */
static int group_finish(void *state, const nd_cmdline_shared *shared, const char *program, nd_error *err)
{
    (void)shared;
    nd_cli_common *c = state;
    const char *env = getenv("ND_JOBS");
    if (!c->jobs && env && *env && read_jobs("ND_JOBS", env, c, err) < 0) return err->code;
    print_notes(program, c);
    return ND_OK;
}

int nd_cli_parse(const nd_cli_program *p, int argc, char **argv, nd_cli_common *common, void *request)
{
    /* the group's table: the pricing options, then ND's flags of other binaries */
    struct option options[ND_ARRAY_LEN(nd_cli_common_options) + FOREIGN_COUNT + 1];
    char shorts[64];
    size_t n = 0, k = strlen(ND_CLI_COMMON_SHORT);
    memcpy(shorts, ND_CLI_COMMON_SHORT, k + 1);
    for (size_t i = 0; i < ND_ARRAY_LEN(nd_cli_common_options); i++) options[n++] = nd_cli_common_options[i];
    for (int i = 0; i < FOREIGN_COUNT; i++) {
        options[n++] = (struct option){foreign[i].name, foreign[i].has_arg, 0, ND_OPT_FOREIGN + i};
        char c = foreign[i].short_name;
        if (c && !strchr(shorts, c) && !strchr(p->short_options, c) && k + 3 < sizeof shorts) {
            shorts[k++] = c;
            if (foreign[i].has_arg) shorts[k++] = ':';
            shorts[k] = '\0';
        }
    }
    options[n] = (struct option){0, 0, 0, 0};
    const nd_cmdline_group group = {options,    shorts, common_help,  ND_ARRAY_LEN(common_help),
                                    multiwords, 2,      group_handle, group_finish};
    const nd_cmdline_program program = {
        p->name,    p->usage,  p->exit_status, p->options, p->short_options, p->handle,
        p->operand, p->unused, p->shared_help, &group,     common,           NULL,
        0};
    return nd_cmdline_parse(&program, argc, argv, &common->shared, request);
}

void nd_cli_common_init(nd_cli_common *c)
{
    memset(c, 0, sizeof *c);
    nd_cmdline_shared_init(&c->shared);
}

bool nd_cli_says(const nd_cli_common *c, int level)
{
    return nd_cmdline_says(&c->shared, level);
}

bool nd_cli_stage_counts(const nd_cli_common *c, nd_config_format f)
{
    return c->mppb || f == ND_CONFIG_SIMUMAX;
}

void nd_cli_streams_open(const nd_cli_common *c, nd_cli_streams *s)
{
    nd_cmdline_streams_open(c->shared.verbosity, s);
}

void nd_cli_streams_close(nd_cli_streams *s)
{
    nd_cmdline_streams_close(s);
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

/* The switches: their --no-X forms set them off. */
static int common_switch(nd_cli_common *c, int base, bool on, nd_error *err)
{
    switch (base) {
    case ND_OPT_SWAP_OS:
        return nd_cli_common_add_flag(c, "swap_optimizer", on ? "true" : "false", "-swap_os", err);
    case ND_OPT_MPPB: c->mppb = on; return 1;
    case ND_OPT_STRICT: c->strict = on; return 1;
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
    case ND_OPT_MODEL_CONFIG: c->model_config = arg; return 1;
    case 's': c->search_config = arg; return 1;
    case 'A': c->device = arg; return 1;
    case 'd': c->devices = arg; return 1;
    case 'b': c->gbs = arg; return 1;
    case 'j': return read_jobs("-j", arg, c, err);
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
