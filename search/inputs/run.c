/*
 * run.c — loading a run description (YAML, or a bare config.json) and
 * applying command-line overrides. One table of train keys serves the file
 * and the flags, so both accept the same words.
 */
#include "nd/inputs/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/base/text.h"
#include "nd/base/yaml_doc.h"
#include "train_keys.h"
#include "nd/base/array.h"

static int set_selective(nd_train *t, const char *word, const char *where, nd_error *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } mods[] = {
        {"core_attn", ND_SELECTIVE_CORE_ATTN}, {"activation", ND_SELECTIVE_ACTIVATION},
        {"norm", ND_SELECTIVE_NORM},           {"layernorm", ND_SELECTIVE_NORM},
        {"mla_up_proj", ND_SELECTIVE_MLA_UP},  {"moe_act", ND_SELECTIVE_MOE_ACT},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(mods); i++)
        if (!strcmp(word, mods[i].name)) {
            t->selective_modules |= mods[i].bit;
            return ND_OK;
        }
    return nd_error_set(err, ND_EINPUT,
                        "%s%sselective_modules: '%s' is not core_attn, activation, norm (layernorm), "
                        "mla_up_proj or moe_act",
                        where ? where : "", where ? ": " : "", word);
}

/* `precision` sets the gradient and master-weight sizes too, so it is applied before the
 * keys that refine them, wherever it stands in the file. */
/* train.pipeline_layout: kept as text, read once the strategy's PP is known
 * (nd_run_bind_layout). */
static int set_layout_text(nd_run *run, const char *value, const char *where, nd_error *err)
{
    if (strlen(value) >= sizeof run->pipeline_layout_text || nd_text_name_chars(value) < 0)
        return nd_error_set(err, ND_EINPUT,
                            "%s: key 'pipeline_layout': not a layout of printable text up to %zu "
                            "bytes",
                            where, sizeof run->pipeline_layout_text - 1);
    nd_text_copy(run->pipeline_layout_text, value, sizeof run->pipeline_layout_text);
    return ND_OK;
}

static int load_train(nd_run *run, nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    const char *spelled[ND_TRAIN_FIELDS] = {0}; /* per train field, the spelling the file used */
    int rc = nd_yaml_expect_mapping(y, map, "train", err);
    yaml_node_t *precision = nd_yaml_get(y, map, "precision");
    const char *pv = nd_yaml_text(precision);
    if (!rc && precision && (!pv || nd_train_set_precision(&run->train, pv)))
        return nd_error_set(err, ND_EINPUT, "%s:%d: key 'precision': '%s' is not bf16, fp16 or fp32", y->path,
                            nd_yaml_line(precision), pv ? pv : "?");
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i), *vn = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(kn);
        char where[600];
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(kn));
        if (key && !strcmp(key, "selective_modules")) {
            run->train.selective_modules = 0;
            if (vn->type != YAML_SEQUENCE_NODE)
                return nd_error_set(err, ND_EINPUT, "%s: key 'selective_modules' must be a list", where);
            for (size_t j = 0; !rc && j < nd_yaml_size(vn); j++) {
                const char *w = nd_yaml_text(nd_yaml_item(y, vn, j));
                rc = set_selective(&run->train, w ? w : "?", where, err);
            }
            continue;
        }
        const char *value = nd_yaml_text(vn), *hint = "";
        if (!key || !value)
            return nd_error_set(err, ND_EINPUT, "%s: train entries must be `key: value`", where);
        if (!strcmp(key, "precision")) continue;
        if (!strcmp(key, "pipeline_layout") || !strcmp(key, "pipeline_model_parallel_layout")) {
            if ((rc = set_layout_text(run, value, where, err))) return rc;
            continue;
        }
        int field = nd_train_key_index(key);
        if (field >= 0 && spelled[field])
            return nd_error_set(err, ND_EINPUT,
                                "%s: train key '%s' repeats '%s' (one field, two "
                                "spellings: state it once)",
                                where, key, spelled[field]);
        if (field >= 0) spelled[field] = key;
        int r = nd_train_set_key(&run->train, key, value, &hint);
        char hint_buf[ND_TEXT_HINT_MAX], known[ND_TRAIN_KEYS_TEXT_MAX];
        if (r == -2)
            return nd_error_set(err, ND_EINPUT, "%s: unknown train key '%s' (%sknown: %s)", where, key,
                                nd_text_hint(key, nd_train_keys_text(known, sizeof known), hint_buf), known);
        if (r == -1)
            return nd_error_set(err, ND_EINPUT, "%s: key '%s': '%s' is not %s", where, key, value, hint);
    }
    return rc;
}

static int load_model_section(nd_run *run, nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "model", err);
    if (rc) return rc;
    char where[600];
    const char *config = nd_yaml_text(nd_yaml_get(y, map, "config_json"));
    const char *type = nd_yaml_text(nd_yaml_get(y, map, "model_type"));
    if (config) {
        char *path = config[0] == '/' ? nd_strdup(config) : NULL;
        if (!path) {
            char *dir = nd_path_dir(y->path);
            path = dir ? nd_path_join(dir, config) : NULL;
            free(dir);
        }
        if (!path) return nd_error_set(err, ND_ENOMEM, "out of memory");
        rc = nd_model_read_hf_file(&run->model, path, false, err);     /* validated after overrides */
        snprintf(run->checkpoint, sizeof run->checkpoint, "%s", path); /* for -V */
        free(path);
        if (rc)
            return nd_error_prefix(err, "%s:%d: model.config_json", y->path,
                                   nd_yaml_line(nd_yaml_get(y, map, "config_json")));
    } else {
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(map));
        if ((rc = nd_model_set_type(&run->model, type ? type : "custom", where, err))) return rc;
    }
    /* Inline keys: the whole model, or overrides of the config.json. */
    for (size_t i = 0; i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        const char *key = nd_yaml_text(kn), *value = nd_yaml_text(nd_yaml_value_at(y, map, i));
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(kn));
        if (!key) return nd_error_set(err, ND_EINPUT, "%s: model keys must be text", where);
        if (!strcmp(key, "config_json") || !strcmp(key, "model_type")) continue;
        if (nd_model_key_ignored(key) && !nd_model_key_known(key)) continue; /* as in config.json */
        if (!value)
            return nd_error_set(err, ND_EINPUT, "%s: model key '%s' must be a single value", where, key);
        if ((rc = nd_model_set_field(&run->model, key, value, where, err))) return rc;
    }
    snprintf(where, sizeof where, "%s:%d: model", y->path, nd_yaml_line(map));
    nd_model_finish_type(&run->model);
    return nd_model_validate(&run->model, where, err);
}

static int load_cluster(nd_run *run, nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "cluster", err);
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        const char *key = nd_yaml_text(kn), *value = nd_yaml_text(nd_yaml_value_at(y, map, i));
        char where[600];
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(kn));
        if (!key || !value)
            return nd_error_set(err, ND_EINPUT, "%s: cluster entries must be `key: value`", where);
        if (!strcmp(key, "device_file")) {
            char *dir = value[0] == '/' ? NULL : nd_path_dir(y->path);
            char *p = value[0] == '/' ? nd_strdup(value) : dir ? nd_path_join(dir, value) : NULL;
            size_t n = p ? nd_text_copy(run->device_file, p, sizeof run->device_file) : 0;
            free(dir);
            free(p);
            if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
            if (n >= sizeof run->device_file)
                return nd_error_set(err, ND_EINPUT,
                                    "%s: cluster.device_file: the path is longer "
                                    "than %zu bytes",
                                    where, sizeof run->device_file - 1);
            continue;
        }
        static const char cluster_keys[] = "device, device_file, devices, memory_budget";
        char hint_buf[ND_TEXT_HINT_MAX];
        if (strcmp(key, "device") && strcmp(key, "devices") && strcmp(key, "memory_budget"))
            return nd_error_set(err, ND_EINPUT, "%s: unknown cluster key '%s' (%sknown: %s)", where, key,
                                nd_text_hint(key, cluster_keys, hint_buf), cluster_keys);
        if ((rc = nd_run_set(run, key, value, err))) {
            err->code = ND_EINPUT;
            return nd_error_prefix(err, "%s", where);
        }
        if (!strcmp(key, "device")) run->device_line = nd_yaml_line(kn); /* an unknown name names it */
    }
    return rc;
}

static int load_strategy(nd_run *run, nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "strategy", err);
    uint64_t seen = 0;
    run->has_strategy = true;
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        const char *key = nd_yaml_text(kn), *value = nd_yaml_text(nd_yaml_value_at(y, map, i));
        if (!key || !value)
            return nd_error_set(err, ND_EINPUT, "%s:%d: strategy entries must be `KEY: value`", y->path,
                                nd_yaml_line(kn));
        if ((rc = nd_strategy_set_once(&run->strategy, key, value, &seen, err)))
            return nd_error_prefix(err, "%s:%d", y->path, nd_yaml_line(kn));
    }
    return rc;
}

/* `recompute_plan: {copy_cost_ms_per_gib: x, stages: [{dense: [off, sel, full], moe: [...],
 * offloaded: [dense, moe]}, ...]}` */
static int read_triple(nd_yaml *y, yaml_node_t *list, int64_t *out, size_t n, const char *what, nd_error *err)
{
    if (!list || list->type != YAML_SEQUENCE_NODE || nd_yaml_size(list) != n)
        return nd_error_set(err, ND_EINPUT, "%s:%d: '%s' must be a list of %zu whole numbers", y->path,
                            nd_yaml_line(list), what, n);
    for (size_t i = 0; i < n; i++) {
        const char *v = nd_yaml_text(nd_yaml_item(y, list, i));
        if (!v || nd_parse_int64(v, 0, ND_MODEL_FIELD_MAX, &out[i]))
            return nd_error_set(err, ND_EINPUT, "%s:%d: '%s': '%s' is not a whole number", y->path,
                                nd_yaml_line(list), what, v ? v : "?");
    }
    return ND_OK;
}

static int load_plan(nd_run *run, nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "recompute_plan", err);
    if (rc) return rc;
    const char *cost = nd_yaml_text(nd_yaml_get(y, map, "copy_cost_ms_per_gib"));
    if (cost && (nd_parse_double(cost, &run->plan.copy_cost_ms_per_gib) ||
                 run->plan.copy_cost_ms_per_gib < 0 || run->plan.copy_cost_ms_per_gib > 1e9))
        return nd_error_set(err, ND_EINPUT,
                            "%s: recompute_plan.copy_cost_ms_per_gib: '%s' is not a number in "
                            "[0, 1e9]",
                            y->path, cost);
    yaml_node_t *stages = nd_yaml_get(y, map, "stages");
    if (!stages || stages->type != YAML_SEQUENCE_NODE || nd_yaml_size(stages) == 0 ||
        nd_yaml_size(stages) > ND_RUN_MAX_STAGES)
        return nd_error_set(err, ND_EINPUT, "%s:%d: recompute_plan.stages must be a list of 1 to %d stages",
                            y->path, nd_yaml_line(map), ND_RUN_MAX_STAGES);
    run->plan.stages = (int64_t)nd_yaml_size(stages);
    for (size_t i = 0; i < nd_yaml_size(stages) && !rc; i++) {
        yaml_node_t *st = nd_yaml_item(y, stages, i);
        if ((rc = nd_yaml_expect_mapping(y, st, "recompute_plan stage", err))) break;
        const char *dense_key = nd_layer_kind_name(ND_LAYER_DENSE);
        const char *moe_key = nd_layer_kind_name(ND_LAYER_MOE);
        yaml_node_t *dense = nd_yaml_get(y, st, dense_key), *moe = nd_yaml_get(y, st, moe_key);
        yaml_node_t *off = nd_yaml_get(y, st, "offloaded");
        if (dense) rc = read_triple(y, dense, run->plan.layers[i][ND_LAYER_DENSE], 3, dense_key, err);
        if (!rc && moe) rc = read_triple(y, moe, run->plan.layers[i][ND_LAYER_MOE], 3, moe_key, err);
        if (!rc && off) rc = read_triple(y, off, run->plan.offloaded[i], 2, "offloaded", err);
    }
    run->has_plan = !rc;
    return rc;
}

void nd_run_init(nd_run *run, const char *path)
{
    memset(run, 0, sizeof *run);
    nd_train_init(&run->train);
    nd_strategy_init(&run->strategy);
    nd_text_copy(run->source, path, sizeof run->source);
}

void nd_run_sync_strategy(nd_run *run, bool strategy_recompute, bool strategy_schedule)
{
    if (!strategy_recompute) run->strategy.recompute = run->train.recompute;
    if (!strategy_schedule) run->strategy.schedule = run->train.schedule;
    run->strategy.embedding_in_split = run->train.account_embedding;
    run->strategy.loss_in_split = run->train.account_loss;
}

static bool has_key_nocase(nd_yaml *y, yaml_node_t *map, const char *key);

static int load_yaml(nd_run *run, nd_yaml *y, nd_error *err)
{
    yaml_node_t *root = nd_yaml_root(y);
    int rc = nd_yaml_expect_mapping(y, root, "the run file", err);
    if (rc) return rc;
    yaml_node_t *model = nd_yaml_get(y, root, "model");
    if (!model)
        return nd_error_set(err, ND_EINPUT,
                            "%s: no 'model:' section (a run file has model:, train:, "
                            "and optionally cluster: and strategy:)",
                            y->path);
    for (size_t i = 0; i < nd_yaml_size(root); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, root, i);
        const char *key = nd_yaml_text(kn);
        if (!key || (strcmp(key, "model") && strcmp(key, "train") && strcmp(key, "cluster") &&
                     strcmp(key, "strategy") && strcmp(key, "recompute_plan") &&
                     strcmp(key, "hyperparallel") && strcmp(key, "census"))) {
            static const char sections[] =
                "model, train, cluster, strategy, recompute_plan, hyperparallel, census";
            char hint_buf[ND_TEXT_HINT_MAX];
            return nd_error_set(err, ND_EINPUT, "%s:%d: unknown section '%s' (%sknown: %s)", y->path,
                                nd_yaml_line(kn), key ? key : "?", nd_text_hint(key, sections, hint_buf),
                                sections);
        }
    }
    if ((rc = load_model_section(run, y, model, err))) return rc;
    yaml_node_t *train = nd_yaml_get(y, root, "train");
    if (train && (rc = load_train(run, y, train, err))) return rc;
    yaml_node_t *cluster = nd_yaml_get(y, root, "cluster");
    if (cluster && (rc = load_cluster(run, y, cluster, err))) return rc;
    yaml_node_t *strategy = nd_yaml_get(y, root, "strategy");
    if (strategy && (rc = load_strategy(run, y, strategy, err))) return rc;
    yaml_node_t *plan = nd_yaml_get(y, root, "recompute_plan");
    if (plan && (rc = load_plan(run, y, plan, err))) return rc;
    /* hyperparallel: HyperParallel's train.yaml keys, written for the trainer; census: -V's
     * numbers beside the model it read from a checkpoint (census_spec.yaml). nd reads neither. */
    nd_run_sync_strategy(run, has_key_nocase(y, strategy, "recompute"),
                         has_key_nocase(y, strategy, "schedule"));
    if ((rc = nd_run_bind_layout(run, err))) return rc;
    return ND_OK;
}

static bool has_key_nocase(nd_yaml *y, yaml_node_t *map, const char *key)
{
    for (size_t i = 0; map && map->type == YAML_MAPPING_NODE && i < nd_yaml_size(map); i++)
        if (nd_text_equal_nocase(nd_yaml_text(nd_yaml_key_at(y, map, i)), key)) return true;
    return false;
}

static bool looks_like_json(const char *text)
{
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3; /* a UTF-8 BOM */
    while (*text == ' ' || *text == '\n' || *text == '\r' || *text == '\t') text++;
    return *text == '{';
}

int nd_run_load(nd_run *run, const char *path, nd_error *err)
{
    nd_run_init(run, path);
    char *text;
    size_t len;
    int rc = nd_read_file(path, 16u << 20, &text, &len, err);
    if (rc) return rc;
    if (looks_like_json(text)) {
        /* A bare config.json: the model; the rest comes from flags. */
        rc = nd_model_parse_hf_json(&run->model, text, len, path, err);
        snprintf(run->checkpoint, sizeof run->checkpoint, "%s", path); /* for -V */
        free(text);
        nd_run_sync_strategy(run, false, false);
        return rc;
    }
    nd_yaml y;
    rc = nd_yaml_parse(&y, text, len, path, err);
    free(text);
    if (rc) return rc;
    rc = load_yaml(run, &y, err);
    nd_yaml_free(&y);
    return rc;
}

int nd_run_set(nd_run *run, const char *key, const char *value, nd_error *err)
{
    const char *hint = "";
    if (!strcmp(key, "device")) {
        if (!value[0] || strlen(value) >= sizeof run->device || nd_text_name_chars(value) < 0)
            return nd_error_set(err, ND_EUSAGE,
                                "device name '%s' is empty, too long or not "
                                "printable UTF-8",
                                value);
        nd_text_copy(run->device, value, sizeof run->device);
        run->device_line = 0; /* a flag's, until the run file's reader says otherwise */
        return ND_OK;
    }
    if (!strcmp(key, "devices")) {
        int64_t n;
        if (nd_parse_int64(value, 1, (int64_t)1 << 24, &n))
            return nd_error_set(err, ND_EUSAGE, "devices: '%s' is not a whole number in [1, 16777216]",
                                value);
        run->devices = n;
        return ND_OK;
    }
    if (!strcmp(key, "memory_budget")) {
        double mib;
        if (nd_parse_memory_mib(value, &mib) || mib <= 0)
            return nd_error_set(err, ND_EUSAGE, "memory_budget: '%s' is not a size up to 1 PiB such as 58GB",
                                value);
        run->memory_budget_mib = mib;
        return ND_OK;
    }
    if (!strcmp(key, "pipeline_layout") || !strcmp(key, "pipeline_model_parallel_layout")) {
        int rc = set_layout_text(run, value, "--set pipeline_layout", err);
        if (rc) err->code = ND_EUSAGE;
        return rc;
    }
    if (!strcmp(key, "selective_modules")) {
        /* A comma-separated list on the command line: core_attn,activation,norm. */
        char list[256];
        nd_text_copy(list, value, sizeof list);
        run->train.selective_modules = 0;
        for (char *save = NULL, *w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
            if (set_selective(&run->train, w, NULL, err)) {
                err->code = ND_EUSAGE;
                return ND_EUSAGE;
            }
        return ND_OK;
    }
    bool recompute = !strcmp(key, "recompute"), schedule = !strcmp(key, "schedule");
    int r = nd_train_set_key(&run->train, key, value, &hint);
    char hint_buf[ND_TEXT_HINT_MAX], known[ND_TRAIN_KEYS_TEXT_MAX];
    if (r == -2)
        return nd_error_set(err, ND_EUSAGE,
                            "unknown setting '%s' (%sknown: device, devices, memory_budget, %s)", key,
                            nd_text_hint(key, nd_train_keys_text(known, sizeof known), hint_buf), known);
    if (r == -1) return nd_error_set(err, ND_EUSAGE, "%s: '%s' is not %s", key, value, hint);
    if (recompute) run->strategy.recompute = run->train.recompute;
    if (schedule) run->strategy.schedule = run->train.schedule;
    return ND_OK;
}
