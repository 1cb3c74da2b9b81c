#include "nd/cli.h"

#include <stdio.h>
#include <string.h>

#include "nd/text.h"
#include "nd/version.h"

/* The shared long options, concatenated with a program's own by nd_cli_parse. */
static const struct option nd_cli_common_options[] = {
    {"yaml_config", required_argument, 0, 'y'},
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
    {"set", required_argument, 0, ND_OPT_SET},
    {"verbose", optional_argument, 0, 'v'},
};
static const int nd_cli_common_option_count = (int)(sizeof nd_cli_common_options / sizeof nd_cli_common_options[0]);

/* Short options of the shared options. */
#define ND_CLI_COMMON_SHORT "y:A:d:b:M:c:v::"

/* Help text of the shared options. */
static const char nd_cli_common_help[] =
    "Run and cluster (flags override the run file):\n"
    "  -y, --yaml_config FILE   run description (YAML) or a Hugging Face config.json\n"
    "  -A, --device_type NAME   device: V100, A100, A100-40GB, H100, H800, H200, B200, B300,\n"
    "                           GB200, GB300 (NVL72), A2, A3, or one from --device-file\n"
    "      --device-file FILE   YAML file adding or overriding devices\n"
    "  -d, --devices N          devices in the cluster\n"
    "  -b, --global_batch_size N  sequences per optimizer step\n"
    "  -M, --max_mem SIZE       memory budget per device (58GB, 60000MB; default: the device's HBM)\n"
    "  -mem, --mem-margin SIZE  memory kept free below the budget (default 0); a strategy fits\n"
    "                           when its reserved peak plus the runtime context stays under\n"
    "                           the budget less this margin (--mem_for_ppb: ND's spelling)\n"
    "  -c, --cache_file FILE    ratios file from nd-fit: each part x its ratio\n"
    "      --seq N              sequence length (tokens)\n"
    "      --precision P        bf16, fp16 or fp32\n"
    "      --grad-precision P   gradient precision: fp32, bf16 or fp16\n"
    "      --schedule S         pipeline schedule: 1f1b, interleaved, zb-h1, gpipe\n"
    "      --optimizer O        adamw, sgd or muon\n"
    "      --flash-attention B  true or false\n"
    "      --dropout P          dropout probability\n"
    "      -swap_os             optimizer states live in host memory\n"
    "      --set KEY=VALUE      any train key of the run file (docs/run-file.md)\n"
    "  -v, --verbose            more detail on stderr\n";

/* Consumes opt if it is a shared option: returns 1 (consumed), 0 (not shared), or a
 * negative ND_EUSAGE code with err filled. */
static int nd_cli_common_option(nd_cli_common *c, int opt, const char *arg, nd_error *err);

static int usage_error(const nd_cli_program *p, const char *message)
{
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", p->name, message, p->name);
    return 2;
}

int nd_cli_parse(const nd_cli_program *p, int argc, char **argv, nd_cli_common *common, void *request)
{
    struct option options[96];
    int n = 0;
    for (int i = 0; i < nd_cli_common_option_count; i++) options[n++] = nd_cli_common_options[i];
    for (const struct option *o = p->options; o->name && n < 93; o++) options[n++] = *o;
    options[n++] = (struct option){"help", no_argument, 0, ND_OPT_HELP};
    options[n++] = (struct option){"version", no_argument, 0, ND_OPT_VERSION};
    options[n] = (struct option){0, 0, 0, 0};
    char shorts[64];
    snprintf(shorts, sizeof shorts, "%s%sh", ND_CLI_COMMON_SHORT, p->short_options);
    nd_error err = {0};
    int opt;
    opterr = 0;
    while ((opt = getopt_long_only(argc, argv, shorts, options, NULL)) != -1) {
        int shared = nd_cli_common_option(common, opt, optarg, &err);
        if (shared < 0) return usage_error(p, err.message);
        if (shared) continue;
        int own = p->handle(opt, optarg, request, &err);
        if (own < 0) return usage_error(p, err.message);
        if (own == 0) continue;
        if (opt == 'h' || opt == ND_OPT_HELP) {
            fputs(p->usage, stdout), fputs(nd_cli_common_help, stdout);
            fputs("\n"
                  "  -h, --help               this text\n"
                  "      --version            version\n"
                  "\n", stdout);
            fputs(p->exit_status, stdout);
            return 0;
        }
        if (opt == ND_OPT_VERSION) {
            printf("%s %s\n", p->name, ND_VERSION);
            return 0;
        }
        char msg[300];
        snprintf(msg, sizeof msg, "unknown or incomplete option '%s'", argv[optind - 1]);
        return usage_error(p, msg);
    }
    for (int i = optind; i < argc; i++) {
        if (p->operand && p->operand(argv[i], request) == 0) continue;
        char msg[300];
        snprintf(msg, sizeof msg, "unexpected argument '%.200s'", argv[i]);
        return usage_error(p, msg);
    }
    return -1;
}

void nd_cli_common_init(nd_cli_common *c)
{
    memset(c, 0, sizeof *c);
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

int nd_cli_common_add_flag(nd_cli_common *c, const char *key, const char *value, const char *flag, nd_error *err)
{
    int rc = nd_cli_common_add_set(c, key, value, err);
    if (rc > 0) c->set_flags[c->set_count - 1] = flag;
    return rc;
}

static int nd_cli_common_option(nd_cli_common *c, int opt, const char *arg, nd_error *err)
{
    switch (opt) {
    case 'y': c->run_path = arg; return 1;
    case 'A': c->device = arg; return 1;
    case 'd': c->devices = arg; return 1;
    case 'b': c->gbs = arg; return 1;
    case 'M': c->budget = arg; return 1;
    case 'c': c->ratios_path = arg; return 1;
    case 'v':
        if (arg) {
            int64_t v;
            if (nd_parse_int64(arg, 0, 6, &v))
                return nd_error_set(err, ND_EUSAGE, "-v: '%s' is not a level from 0 to 6", arg);
            c->verbosity = (int)v;
        } else {
            c->verbosity++;
        }
        return 1;
    case ND_OPT_DEVICE_FILE: c->device_file = arg; return 1;
    case ND_OPT_MEM: c->reserve = arg; return 1;
    case ND_OPT_SEQ: return nd_cli_common_add_flag(c, "seq_len", arg, "--seq", err);
    case ND_OPT_PRECISION: return nd_cli_common_add_flag(c, "precision", arg, "--precision", err);
    case ND_OPT_GRAD_PRECISION: return nd_cli_common_add_flag(c, "grad_precision", arg, "--grad-precision", err);
    case ND_OPT_SCHEDULE: return nd_cli_common_add_flag(c, "schedule", arg, "--schedule", err);
    case ND_OPT_OPTIMIZER: return nd_cli_common_add_flag(c, "optimizer", arg, "--optimizer", err);
    case ND_OPT_FLASH: return nd_cli_common_add_flag(c, "flash_attention", arg, "--flash-attention", err);
    case ND_OPT_DROPOUT: return nd_cli_common_add_flag(c, "dropout", arg, "--dropout", err);
    case ND_OPT_SWAP_OS: return nd_cli_common_add_flag(c, "swap_optimizer", "true", "-swap_os", err);
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

/* Loads -y, applies the overrides (CLI wins over the file), loads device files and
 * resolves the device and device count. devices/gbs may stay 0 when neither the flags
 * nor the file state them and `need_cluster` is false. Errors name the flag or file. */
static int nd_cli_common_resolve(const nd_cli_common *c, bool need_cluster, nd_run *run,
                                 nd_device_table *table, const nd_device **device, double *budget_mib,
                                 nd_error *err)
{
    int rc;
    *device = NULL;
    table->items = NULL, table->count = 0;
    if (!c->run_path) return nd_error_set(err, ND_EUSAGE, "-y RUN is required (a run YAML or a config.json)");
    if ((rc = nd_run_load(run, c->run_path, err))) return rc;
    /* --precision first: it resets the gradient and master sizes other flags refine. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->set_count; i++) {
            if ((pass == 0) != !strcmp(c->set_keys[i], "precision")) continue;
            if ((rc = nd_run_set(run, c->set_keys[i], c->set_values[i], err)))
                return nd_error_prefix(err, "%s", c->set_flags[i] ? c->set_flags[i] : "--set");
        }
    if (c->devices && (rc = nd_run_set(run, "devices", c->devices, err))) return nd_error_prefix(err, "-d");
    if (c->gbs && (rc = nd_run_set(run, "global_batch", c->gbs, err))) return nd_error_prefix(err, "-b");
    if (c->budget && (rc = nd_run_set(run, "memory_budget", c->budget, err))) return nd_error_prefix(err, "-M");
    if (c->device) nd_text_copy(run->device, c->device, sizeof run->device);

    if ((rc = nd_device_table_builtin(table, err))) return rc;
    if (run->device_file[0] && (rc = nd_device_table_load(table, run->device_file, err))) return rc;
    if (c->device_file && (rc = nd_device_table_load(table, c->device_file, err))) return rc;
    if (!run->device[0]) {
        char names[512];
        nd_device_table_names(table, names, sizeof names);
        return nd_error_set(err, ND_EUSAGE, "no device: give -A (%s) or cluster.device in the run file", names);
    }
    *device = nd_device_table_find(table, run->device);
    if (!*device) {
        char names[512];
        nd_device_table_names(table, names, sizeof names);
        return nd_error_set(err, ND_EUSAGE, "-A %s: unknown device (known: %s)", run->device, names);
    }
    if (run->train.fp8 && (*device)->fp8_tflops <= 0)
        return nd_error_set(err, ND_EUSAGE, "fp8: device %s has no FP8 tensor cores (fp8_tflops is 0)",
                            (*device)->name);
    if (need_cluster && run->devices <= 0)
        return nd_error_set(err, ND_EUSAGE, "no device count: give -d N or cluster.devices in the run file");
    double budget = run->memory_budget_mib > 0 ? run->memory_budget_mib : (*device)->hbm_gib * 1024.0;
    if (c->reserve) {
        double reserve;
        if (nd_parse_memory_mib(c->reserve, &reserve))
            return nd_error_set(err, ND_EUSAGE, "-mem: '%s' is not a size such as 4GB", c->reserve);
        if (reserve >= budget)
            return nd_error_set(err, ND_EUSAGE, "-mem %s leaves no memory below the %.0f MiB budget",
                                c->reserve, budget);
        budget -= reserve;
    }
    *budget_mib = budget;
    return ND_OK;
}

int nd_session_open(nd_session *s, const nd_cli_common *c, bool need_cluster, FILE *diag,
                    nd_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = nd_cli_common_resolve(c, need_cluster, &s->run, &s->table, &s->device, &s->budget_mib, err);
    if (rc || !c->ratios_path) return rc;
    if ((rc = nd_ratios_load(c->ratios_path, &s->ratios, err))) return rc;
    s->has_ratios = true;
    char notes[1024];
    nd_ratios_mismatch(&s->ratios, s->device->name, s->run.model.name, s->run.train.seq_len, notes,
                       sizeof notes);
    /* Every line of the notes gets its prefix. */
    for (char *line = notes, *end; diag && *line; line = end) {
        end = strchr(line, '\n');
        end = end ? end + 1 : line + strlen(line);
        fprintf(diag, "note: %.*s", (int)(end - line), line);
    }
    return ND_OK;
}

void nd_session_close(nd_session *s)
{
    nd_device_table_free(&s->table);
}
