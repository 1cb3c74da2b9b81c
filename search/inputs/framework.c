/*
 * framework.c — the framework formats: their -f names, recognising a file's format,
 * dispatching to each reader and writer, and the helpers they share (framework.h).
 */
#include "fw_formats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/inputs/search_config.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

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
    static const struct {
        const char *name;
        nd_config_format f;
    } names[] = {
        {"nd", ND_CONFIG_ND},
        {"mindformers", ND_CONFIG_MINDFORMERS},
        {"mindspeed", ND_CONFIG_MEGATRON},
        {"megatron", ND_CONFIG_MEGATRON},
        {"megatron-lm", ND_CONFIG_MEGATRON},
        {"mindspeed-llm", ND_CONFIG_MEGATRON},
        {"mindspeed-json", ND_CONFIG_MINDSPEED_JSON},
        {"hyper-v2", ND_CONFIG_HYPER_V2},
        {"hyperparallel2", ND_CONFIG_HYPERPARALLEL2},
        {"hyperparallel", ND_CONFIG_TORCHTITAN},
        {"torchtitan", ND_CONFIG_TORCHTITAN},
    };
    *json_hint = false;
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
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
    static const char *const mindformers[] = {"parallel_config", "runner_config",      "recompute_config",
                                              "moe_config",      "model.model_config", "trainer"};
    static const char *const hyper[] = {"accelerator",
                                        "fsdp_config",
                                        "activation_checkpoint",
                                        "training",
                                        "dataset",
                                        "model._target_",
                                        "model.pretrained_model_name_or_path",
                                        "train.accelerator",
                                        "model.config_overrides"};
    nd_config_format f = ND_CONFIG_ND;
    for (size_t i = 0; i < ND_ARRAY_LEN(mindformers) && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, mindformers[i])) f = ND_CONFIG_MINDFORMERS;
    for (size_t i = 0; i < ND_ARRAY_LEN(hyper) && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, hyper[i])) f = ND_CONFIG_HYPER_V2;
    nd_yaml_free(&y);
    return f;
}

nd_config_format nd_config_format_detect(const char *path)
{
    if (has_suffix(path, ".toml") || strstr(path, ".toml:") || strstr(path, ".py:"))
        return ND_CONFIG_TORCHTITAN;
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

/* The framework formats nd reads and writes back (nd's own run file is nd_run_load's). */
static const fw_format *const formats[] = {
    &fw_mindformers_format, &fw_megatron_format,       &fw_mindspeed_json_format,
    &fw_hyper_v2_format,    &fw_hyperparallel2_format, &fw_torchtitan_format,
};

static const fw_format *format_of(nd_config_format f)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(formats); i++)
        if (formats[i]->format == f) return formats[i];
    return NULL;
}

int nd_config_load(nd_run *run, const nd_config_input *in, nd_error *err)
{
    nd_config_format f;
    bool json = false;
    if (in->framework) {
        if (nd_config_format_parse(in->framework, &f, &json))
            return nd_error_set(err, ND_EUSAGE,
                                "-f %s: not a framework nd reads (nd, mindformers, mindspeed, "
                                "megatron, hyper_v2, hyperparallel, hyperparallel2, torchtitan)",
                                in->framework);
        if (json && nd_config_format_detect(in->path) == ND_CONFIG_MINDSPEED_JSON)
            f = ND_CONFIG_MINDSPEED_JSON;
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
    const fw_format *reader = format_of(f);
    return reader ? reader->read(&r, in) : nd_error_set(err, ND_EUSAGE, "-f: unknown format");
}

int nd_config_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                    nd_error *err)
{
    written[0] = '\0';
    int rc = nd_make_dir(dir, err);
    if (rc) return rc;
    const fw_format *writer = format_of(run->format);
    if (!writer)
        return nd_error_set(err, ND_EINPUT, "%s is nd's own run file: its strategy goes to best.yaml",
                            run->source);
    return writer->write(run, c, dir, written, size, err);
}
