/*
 * framework.c — the framework formats: their -f names, recognising a file's format,
 * dispatching to each reader and writer, and the helpers they share (framework.h).
 */
#include "framework_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/inputs/search_config.h"
#include "nd/base/text.h"

static const char *const format_names[ND_CONFIGS] = {
    "nd", "mindformers", "megatron", "mindspeed", "hyper_v2", "hyperparallel2", "torchtitan",
};

const char *nd_config_format_name(nd_config_format f)
{
    return f >= 0 && f < ND_CONFIGS ? format_names[f] : "?";
}

/* Names compared in any case, '_' and '-' alike. */
static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '_' ? '-' : (char)(*a >= 'A' && *a <= 'Z' ? *a + 32 : *a);
        char y = *b == '_' ? '-' : (char)(*b >= 'A' && *b <= 'Z' ? *b + 32 : *b);
        if (x != y) return false;
    }
    return !*a && !*b;
}

int nd_config_format_parse(const char *name, nd_config_format *out, bool *json_hint)
{
    static const struct { const char *name; nd_config_format f; } names[] = {
        {"nd", ND_CONFIG_ND}, {"mindformers", ND_CONFIG_MINDFORMERS}, {"mindspeed", ND_CONFIG_MEGATRON},
        {"megatron", ND_CONFIG_MEGATRON}, {"megatron-lm", ND_CONFIG_MEGATRON},
        {"mindspeed-llm", ND_CONFIG_MEGATRON}, {"mindspeed-json", ND_CONFIG_MINDSPEED_JSON},
        {"hyper-v2", ND_CONFIG_HYPER_V2}, {"hyperparallel2", ND_CONFIG_HYPERPARALLEL2},
        {"hyperparallel", ND_CONFIG_TORCHTITAN}, {"torchtitan", ND_CONFIG_TORCHTITAN},
    };
    *json_hint = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (same_name(name, names[i].name)) {
            *out = names[i].f;
            *json_hint = same_name(name, "mindspeed");
            return 0;
        }
    return -1;
}

static bool has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && nd_text_equal_nocase(path + n - m, suffix);
}

/* A YAML file's format from its top-level keys. */
static nd_config_format yaml_format(const char *path)
{
    nd_yaml y;
    nd_error err;
    if (nd_yaml_load(&y, path, &err)) return ND_CONFIG_ND; /* nd's reader names the fault */
    static const char *const mindformers[] = {"parallel_config", "runner_config", "recompute_config",
                                              "moe_config", "model.model_config", "trainer"};
    static const char *const hyper[] = {"accelerator", "fsdp_config", "activation_checkpoint", "training",
                                        "dataset", "model._target_", "model.pretrained_model_name_or_path",
                                        "train.accelerator", "model.config_overrides"};
    nd_config_format f = ND_CONFIG_ND;
    for (size_t i = 0; i < sizeof mindformers / sizeof mindformers[0] && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, mindformers[i])) f = ND_CONFIG_MINDFORMERS;
    for (size_t i = 0; i < sizeof hyper / sizeof hyper[0] && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, hyper[i])) f = ND_CONFIG_HYPER_V2;
    nd_yaml_free(&y);
    return f;
}

nd_config_format nd_config_format_detect(const char *path)
{
    if (has_suffix(path, ".toml") || strstr(path, ".toml:") || strstr(path, ".py:")) return ND_CONFIG_TORCHTITAN;
    char *text;
    size_t len;
    nd_error err;
    if (nd_read_file(path, 16u << 20, &text, &len, &err)) return ND_CONFIG_ND;
    const char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) p += 3;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    nd_config_format f = ND_CONFIG_ND;
    if (*p == '{') {
        bool hf = strstr(text, "\"model_type\"") || strstr(text, "\"architectures\"");
        if (!hf && (strstr(text, "\"tmp\"") || strstr(text, "\"model_id\""))) f = ND_CONFIG_MINDSPEED_JSON;
    } else if (strstr(text, "--num-layers") || strstr(text, "--tensor-model-parallel-size") ||
               strstr(text, "--hidden-size")) {
        f = ND_CONFIG_MEGATRON;
    } else {
        f = yaml_format(path);
    }
    free(text);
    return f;
}

int nd_config_load(nd_run *run, const nd_config_input *in, nd_error *err)
{
    nd_config_format f;
    bool json = false;
    if (in->framework) {
        if (nd_config_format_parse(in->framework, &f, &json))
            return nd_error_set(err, ND_EUSAGE, "-f %s: not a framework nd reads (nd, mindformers, mindspeed, "
                                "megatron, hyper_v2, hyperparallel, hyperparallel2, torchtitan)", in->framework);
        if (json && nd_config_format_detect(in->path) == ND_CONFIG_MINDSPEED_JSON) f = ND_CONFIG_MINDSPEED_JSON;
        /* ND's -f mindformers is its default: a file of another format says which it is */
        if (f == ND_CONFIG_MINDFORMERS && nd_config_format_detect(in->path) != ND_CONFIG_MINDFORMERS)
            f = nd_config_format_detect(in->path);
    } else {
        f = nd_config_format_detect(in->path);
    }
    if ((in->train_yaml || in->accelerate_yaml) && (f == ND_CONFIG_HYPER_V2 || f == ND_CONFIG_ND))
        f = ND_CONFIG_HYPERPARALLEL2;
    if (f == ND_CONFIG_ND) return nd_run_load(run, in->path, err);
    nd_run_init(run, in->path);
    run->format = f;
    fw_reader r = {run, in->path, in->strict, err};
    switch (f) {
    case ND_CONFIG_MINDFORMERS: return fw_mindformers_read(&r);
    case ND_CONFIG_MEGATRON: return fw_megatron_read(&r);
    case ND_CONFIG_MINDSPEED_JSON: return fw_mindspeed_json_read(&r);
    case ND_CONFIG_HYPER_V2: return fw_hyper_read(&r, NULL, NULL);
    case ND_CONFIG_HYPERPARALLEL2:
        if (!in->train_yaml || !in->accelerate_yaml)
            return nd_error_set(err, ND_EUSAGE, "-f hyperparallel2 reads three files: -y the model yaml, "
                                "--train-yaml and --accelerate-yaml");
        return fw_hyper_read(&r, in->train_yaml, in->accelerate_yaml);
    case ND_CONFIG_TORCHTITAN: return fw_torchtitan_read(&r);
    default: return nd_error_set(err, ND_EUSAGE, "-f: unknown format");
    }
}

int nd_run_apply_model_section(nd_run *run, const nd_search_config_file *f, bool standalone, nd_error *err)
{
    fw_reader r = {run, f->path, false, err};
    int rc = ND_OK;
    if (standalone) { /* ND's ModelSpec: the family from model_type, arch or the name */
        nd_run_init(run, f->path);
        const char *type = NULL, *arch = NULL, *name = NULL;
        int line = 0;
        for (int i = 0; i < f->n_model; i++) {
            if (!strcmp(f->model[i].key, "model_type")) type = f->model[i].value, line = f->model[i].line;
            else if (!strcmp(f->model[i].key, "arch")) arch = f->model[i].value;
            else if (!strcmp(f->model[i].key, "name")) name = f->model[i].value;
        }
        nd_text_copy(run->model.name, name ? name : "model", sizeof run->model.name);
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", f->path, line);
        if (type) rc = nd_model_set_type(&run->model, type, where, err), nd_text_copy(run->model.name, name ? name : type, sizeof run->model.name);
        else rc = fw_model_family(&r, arch ? arch : name, line);
        if (rc) return rc;
    }
    bool has_positions = false;
    for (int i = 0; !rc && i < f->n_model; i++) {
        const char *k = f->model[i].key, *v = f->model[i].value;
        int line = f->model[i].line;
        char theirs[96];
        snprintf(theirs, sizeof theirs, "model.%.60s", k);
        if (!strcmp(k, "model_type") || !strcmp(k, "arch") || !strcmp(k, "moe_enabled")) continue;
        if (!strcmp(k, "name")) nd_text_copy(run->model.name, v, sizeof run->model.name);
        else if (!strcmp(k, "compute_dtype"))
            rc = fw_precision_of(v) ? fw_train(&r, "precision", fw_precision_of(v), line, theirs) : ND_OK;
        else if (!strcmp(k, "use_flash_attention")) rc = fw_train(&r, "flash_attention", v, line, theirs);
        else if (!strcmp(k, "moe_inter_dim")) /* ND's loader reads moe_intermediate_size, not this */
            fw_note(run, "%s:%d: model.moe_inter_dim is not a key ND's model loader reads: ignored, as ND does "
                    "(moe_intermediate_size is)", f->path, line);
        else if (nd_model_key_known(k)) {
            rc = fw_model(&r, k, v, line, theirs);
            has_positions |= !strcmp(k, "max_position_embeddings");
            /* a standalone spec's sequence is its max_position_embeddings (ND: 4096 unless stated) */
            if (!rc && standalone && !strcmp(k, "max_position_embeddings")) rc = fw_train(&r, "seq_len", v, line, theirs);
        } else if (!nd_model_key_ignored(k)) {
            fw_note(run, "%s:%d: model.%s is not a key nd prices: ignored", f->path, line, k);
        }
    }
    if (rc) return rc;
    if (standalone) {
        if (!has_positions) {
            rc = fw_train(&r, "seq_len", "4096", 0, "model.max_position_embeddings");
            fw_note(run, "%s: model.max_position_embeddings not stated: a sequence of 4096 tokens (ND's default)",
                    f->path);
        }
        if (!rc) rc = fw_finish(&r);
        run->format = ND_CONFIG_ND;
        return rc;
    }
    nd_model_finish_type(&run->model);
    return nd_model_validate(&run->model, f->path, err);
}

int nd_config_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                    nd_error *err)
{
    written[0] = '\0';
    int rc = nd_make_dir(dir, err);
    if (rc) return rc;
    switch (run->format) {
    case ND_CONFIG_MINDFORMERS: return fw_mindformers_write(run, c, dir, written, size, err);
    case ND_CONFIG_MEGATRON: return fw_megatron_write(run, c, dir, written, size, err);
    case ND_CONFIG_MINDSPEED_JSON: return fw_mindspeed_json_write(run, c, dir, written, size, err);
    case ND_CONFIG_HYPER_V2:
    case ND_CONFIG_HYPERPARALLEL2: return fw_hyper_write(run, c, dir, written, size, err);
    case ND_CONFIG_TORCHTITAN: return fw_torchtitan_write(run, c, dir, written, size, err);
    default:
        return nd_error_set(err, ND_EINPUT, "%s is nd's own run file: its strategy goes to best.yaml", run->source);
    }
}

int nd_config_derive(nd_run *run, nd_error *err)
{
    nd_strategy *s = &run->strategy;
    if (run->derive_dp) {
        int64_t model = s->tp * s->pp * s->cp;
        if (run->devices <= 0)
            return nd_error_set(err, ND_EUSAGE, "give -d N: %s states no world size (its launcher's, or "
                                "context.device_num), from which DP follows", run->source);
        if (run->devices % model)
            return nd_error_set(err, ND_EUSAGE, "-d %lld: the devices do not divide over TP x PP x CP = %lld",
                                (long long)run->devices, (long long)model);
        s->dp = run->devices / model;
    }
    if (run->op_spans_dp) {
        int64_t groups = run->op_instances > 0 ? run->op_instances : 1;
        s->op = (s->dp * s->cp) % groups ? s->dp * s->cp : s->dp * s->cp / groups;
        if (s->op <= 1) s->op = 1, s->zero = 0;
    }
    if ((run->derive_dp || run->op_spans_dp || run->derive_mb) && run->train.global_batch && s->dp * s->mbs > 0 &&
        run->train.global_batch % (s->dp * s->mbs) == 0)
        s->mb = run->train.global_batch / (s->dp * s->mbs);
    if (!run->train.global_batch) run->train.global_batch = s->dp * s->mb * s->mbs; /* the config's own */
    return ND_OK;
}

/* ---- shared by the readers ------------------------------------------------------------ */

static int where_prefix(fw_reader *r, int line, const char *theirs)
{
    r->err->code = ND_EINPUT;
    if (line > 0) return nd_error_prefix(r->err, "%s:%d: %s", r->path, line, theirs);
    return nd_error_prefix(r->err, "%s: %s", r->path, theirs);
}

int fw_model(fw_reader *r, const char *key, const char *value, int line, const char *theirs)
{
    char where[600];
    if (line > 0) snprintf(where, sizeof where, "%s:%d: %s", r->path, line, theirs);
    else snprintf(where, sizeof where, "%s: %s", r->path, theirs);
    return nd_model_set_field(&r->run->model, key, value, where, r->err);
}

int fw_train(fw_reader *r, const char *key, const char *value, int line, const char *theirs)
{
    if (!nd_run_set(r->run, key, value, r->err)) return ND_OK;
    return where_prefix(r, line, theirs);
}

int fw_strategy(fw_reader *r, const char *key, const char *value, int line, const char *theirs)
{
    r->run->has_strategy = true;
    if (!nd_strategy_set(&r->run->strategy, key, value, r->err)) return ND_OK;
    return where_prefix(r, line, theirs);
}

int fw_degree(fw_reader *r, const char *key, int64_t value, int line, const char *theirs)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    return fw_strategy(r, key, text, line, theirs);
}

static void add_note(nd_run *run, const char *fmt, va_list ap) ND_PRINTF(2, 0);
static void add_note(nd_run *run, const char *fmt, va_list ap)
{
    if (run->n_notes < ND_RUN_MAX_NOTES) vsnprintf(run->notes[run->n_notes++], sizeof run->notes[0], fmt, ap);
}

void fw_note(nd_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_note(run, fmt, ap);
    va_end(ap);
}

int fw_default(fw_reader *r, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->strict) return nd_error_set(r->err, ND_EINPUT, "%s: %s (--strict refuses a default)", r->path, what);
    fw_note(r->run, "%s: %s", r->path, what);
    return ND_OK;
}

int fw_model_family(fw_reader *r, const char *name, int line)
{
    static const struct { const char *has; const char *type; } families[] = {
        {"deepseekv2", "deepseek_v2"}, {"deepseek", "deepseek_v3"}, {"qwen3moe", "qwen3_moe"},
        {"qwen3", "qwen3"}, {"qwen2moe", "qwen2_moe"}, {"qwen", "qwen2"}, {"mixtral", "mixtral"},
        {"mistral", "mistral"}, {"gptneox", "gpt_neox"}, {"neox", "gpt_neox"}, {"gpt", "gpt2"},
        {"llama", "llama"},
    };
    char flat[128];
    size_t n = 0;
    for (const char *p = name ? name : ""; *p && n + 1 < sizeof flat; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) flat[n++] = *p;
        else if (*p >= 'A' && *p <= 'Z') flat[n++] = (char)(*p + 32);
    flat[n] = '\0';
    const char *type = "custom";
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strstr(flat, families[i].has)) {
            type = families[i].type;
            break;
        }
    char where[600];
    snprintf(where, sizeof where, "%s:%d", r->path, line);
    char keep[128];
    nd_text_copy(keep, r->run->model.name, sizeof keep);
    int rc = nd_model_set_type(&r->run->model, type, where, r->err);
    nd_text_copy(r->run->model.name, keep, sizeof r->run->model.name);
    return rc;
}

int fw_finish(fw_reader *r)
{
    nd_run *run = r->run;
    nd_model_finish_type(&run->model);
    int rc = nd_model_validate(&run->model, r->path, r->err);
    if (rc) return rc;
    nd_strategy *s = &run->strategy;
    /* layers the pipeline does not divide: the search's uneven split (middle stages equal) */
    int64_t L = run->model.layers;
    if (s->pp > 1 && s->vpp == 1 && L % s->pp && !s->first_stage_layers && !s->last_stage_layers &&
        nd_strategy_uneven_split(L, s->pp, &s->first_stage_layers, &s->last_stage_layers))
        fw_note(run, "%s: %lld layers over %lld stages: FIRST=%lld LAST=%lld, the middle stages equal", r->path,
                (long long)L, (long long)s->pp, (long long)s->first_stage_layers, (long long)s->last_stage_layers);
    if (!run->devices && !run->derive_dp) run->devices = s->dp * s->tp * s->pp * s->cp;
    if (!run->train.global_batch && !run->derive_dp) run->train.global_batch = s->dp * s->mb * s->mbs;
    /* ND's rule: without -mppb, --recompute or -ar a search prices every candidate fully
     * recomputed (reference/nd-costmodel.md §3.1); the config's own mode is what it runs. */
    run->search_full_recompute = true;
    nd_run_sync_strategy(run, false, false);
    return ND_OK;
}

const char *fw_precision_of(const char *dtype)
{
    if (!dtype) return NULL;
    if (strstr(dtype, "bfloat16") || strstr(dtype, "bf16")) return "bf16";
    if (strstr(dtype, "float16") || strstr(dtype, "fp16") || strstr(dtype, "half")) return "fp16";
    if (strstr(dtype, "float32") || strstr(dtype, "fp32") || nd_text_equal_nocase(dtype, "float")) return "fp32";
    return NULL;
}

bool fw_true(const char *text)
{
    bool b;
    return text && !nd_parse_bool(text, &b) && b;
}

yaml_node_t *fw_yaml_at(nd_yaml *y, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    yaml_node_t *n = nd_yaml_root(y);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && n; k = strtok_r(NULL, ".", &save))
        n = nd_yaml_get(y, n, k);
    return n;
}

const char *fw_yaml_text(nd_yaml *y, const char *dotted, int *line)
{
    yaml_node_t *n = fw_yaml_at(y, dotted);
    const char *t = nd_yaml_text(n);
    if (t && !t[0] && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) t = NULL; /* `key:` alone */
    if (t && (!strcmp(t, "~") || nd_text_equal_nocase(t, "null") || nd_text_equal_nocase(t, "none"))) t = NULL;
    if (line) *line = n ? nd_yaml_line(n) : 0;
    return t;
}

char *fw_path_beside(const char *base, const char *name)
{
    if (name[0] == '/') return nd_strdup(name);
    char *dir = nd_path_dir(base);
    char *p = dir ? nd_path_join(dir, name) : NULL;
    free(dir);
    return p;
}

const char *fw_output_path(const char *dir, const char *name, char *buf, size_t size, char *written, size_t wsize)
{
    snprintf(buf, size, "%s/%s", dir, name);
    size_t used = strlen(written);
    snprintf(written + used, wsize - used, "%s\n", buf);
    return buf;
}

nd_recompute fw_choice_mode(const nd_config_choice *c)
{
    if (!c->plan) return c->s.recompute;
    int64_t by[ND_RECOMPUTE_MODES] = {0};
    for (int64_t i = 0; i < c->plan_stages; i++)
        for (int k = 0; k < 2; k++)
            for (int m = 0; m < ND_RECOMPUTE_MODES; m++) by[m] += c->plan[i][k][m];
    /* ND's trainer plan: the recomputing mode most layers run (full on a tie), off when none does */
    if (!by[ND_RECOMPUTE_FULL] && !by[ND_RECOMPUTE_SELECTIVE]) return ND_RECOMPUTE_OFF;
    return by[ND_RECOMPUTE_FULL] >= by[ND_RECOMPUTE_SELECTIVE] ? ND_RECOMPUTE_FULL : ND_RECOMPUTE_SELECTIVE;
}
