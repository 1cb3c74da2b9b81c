/*
 * search_config.c — reading ND's search config (-s). Every pricing binary reads it (its
 * model, cluster and constraints); nd-search applies its candidate lists
 * (nd_search_config_apply, search/planner/search_space.c).
 */
#include "nd/inputs/search_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/yaml_doc.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

/* parallelism: keys and the dimension each restricts. */
static const struct {
    const char *key;
    nd_dim dim;
} dims[] = {
    {"dp", ND_DIM_DP},
    {"tp", ND_DIM_MP},
    {"pp", ND_DIM_PP},
    {"cp", ND_DIM_CP},
    {"ep", ND_DIM_EP},
    {"fsdp", ND_DIM_OP},
    {"micro_batch_num", ND_DIM_MB},
    {"micro_batch_size", ND_DIM_MBS},
    {"vpp", ND_DIM_VPP},
    {"pp_interleave_num", ND_DIM_VPP},
    {"sp", ND_DIM_SP},
};

static int where_error(nd_yaml *y, yaml_node_t *n, nd_error *err, const char *fmt, ...) ND_PRINTF(4, 5);

/* One message naming the file and line of node n. */
static int where_error(nd_yaml *y, yaml_node_t *n, nd_error *err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nd_error_set(err, ND_EINPUT, "%s:%d: %s", y->path, nd_yaml_line(n), msg);
}

static void add_note(nd_search_config_file *f, nd_yaml *y, yaml_node_t *n, const char *fmt, ...)
    ND_PRINTF(4, 5);

static void add_note(nd_search_config_file *f, nd_yaml *y, yaml_node_t *n, const char *fmt, ...)
{
    if (f->n_notes >= (int)(ND_ARRAY_LEN(f->notes))) return;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(f->notes[f->n_notes++], sizeof f->notes[0], "%.1000s:%d: %.159s", y->path, nd_yaml_line(n), msg);
}

static int read_dim(nd_yaml *y, yaml_node_t *v, nd_dim d, nd_search_config_file *f, nd_error *err)
{
    f->declared[d] = true;
    const char *t = nd_yaml_text(v);
    int64_t x;
    if (t && !strcmp(t, "auto")) return ND_OK;
    if (t) {
        if (d == ND_DIM_SP) {
            bool b;
            if (nd_parse_bool(t, &b)) return where_error(y, v, err, "sp: '%s' is not true or false", t);
            x = b;
        } else if (nd_parse_int64(t, 1, 1 << 24, &x)) {
            return where_error(y, v, err, "'%s' is not a whole number >= 1, a list or auto", t);
        }
        f->fixed[d] = true;
        f->fixed_value[d] = x;
        return ND_OK;
    }
    if (v->type != YAML_SEQUENCE_NODE || nd_yaml_size(v) == 0 || nd_yaml_size(v) > ND_SEARCH_CONFIG_MAX_LIST)
        return where_error(y, v, err, "%s", "a dimension is a number, a list of 1 to 64 numbers, or auto");
    for (size_t i = 0; i < nd_yaml_size(v); i++) {
        const char *item = nd_yaml_text(nd_yaml_item(y, v, i));
        if (!item || nd_parse_int64(item, d == ND_DIM_SP ? 0 : 1, 1 << 24, &x))
            return where_error(y, v, err, "list item '%s' is not a whole number >= 1", item ? item : "?");
        f->list[d][f->n_list[d]++] = x;
    }
    return ND_OK;
}

static int read_parallelism(nd_yaml *y, yaml_node_t *map, nd_search_config_file *f, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "parallelism", err);
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i), *v = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(k);
        bool known = false;
        for (size_t j = 0; key && j < ND_ARRAY_LEN(dims) && !known; j++)
            if (!strcmp(key, dims[j].key)) {
                known = true;
                rc = read_dim(y, v, dims[j].dim, f, err);
            }
        if (!known && key && (!strcmp(key, "etp") || !strcmp(key, "dp_replicate"))) {
            const char *t = nd_yaml_text(v);
            int64_t x;
            if (!strcmp(key, "etp") && t &&
                !nd_parse_int64(t, 1, 1 << 24, &x)) { /* fixed: never searched (ND) */
                f->etp = x;
                continue;
            }
            add_note(f, y, k, "parallelism.%s follows from the other degrees (ND never searches it)", key);
            continue;
        }
        static const char listed[] =
            "dp, tp, pp, cp, ep, etp, fsdp, micro_batch_num, micro_batch_size, vpp, sp";
        char hint_buf[ND_TEXT_HINT_MAX];
        if (!known)
            rc = where_error(y, k, err, "unknown parallelism key '%s' (%sknown: %s)", key ? key : "?",
                             nd_text_hint(key, listed, hint_buf), listed);
    }
    return rc;
}

static int read_number(nd_yaml *y, yaml_node_t *map, const char *key, double *out, nd_error *err)
{
    yaml_node_t *v = nd_yaml_get(y, map, key);
    if (!v) return ND_OK;
    const char *t = nd_yaml_text(v);
    if (!t || nd_parse_double(t, out) || *out < 0)
        return where_error(y, v, err, "%s: '%s' is not a number >= 0", key, t ? t : "?");
    if (*out > ND_MEMORY_MIB_MAX / ND_MIB_PER_GIB) /* both keys are GiB of device memory */
        return where_error(y, v, err, "%s: %s is more than the %g GiB nd accepts", key, t,
                           ND_MEMORY_MIB_MAX / ND_MIB_PER_GIB);
    return ND_OK;
}

/* Every key of a section must be one nd reads or one of ND's it knowingly ignores. */
static int check_keys(nd_yaml *y, yaml_node_t *map, const char *section, const char *const known[], size_t n,
                      const char *listed, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, section, err);
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i);
        const char *key = nd_yaml_text(k);
        bool ok = false;
        for (size_t j = 0; key && j < n && !ok; j++) ok = !strcmp(key, known[j]);
        char hint_buf[ND_TEXT_HINT_MAX];
        if (!ok)
            rc = where_error(y, k, err, "unknown %s key '%s' (%sknown: %s)", section, key ? key : "?",
                             nd_text_hint(key, listed, hint_buf), listed);
    }
    return rc;
}

static const char *const cluster_keys[] = {"num_nodes", "cards_per_node", "device_memory_gb", "device_type"};
static const char *const constraint_keys[] = {"global_batch_size", "memory_limit_gb"};
/* stage_partition_mode .. layer_recompute_layers are ND's and ignored (docs/search.md). */
static const char *const pp_keys[] = {"pp_degree",          "pp_interleave_num",     "micro_batch_num",
                                      "pipeline_schedule",  "stage_partition_mode",  "stage_partition",
                                      "layer_offset_range", "layer_recompute_layers"};
#define KEYS(a) a, ND_ARRAY_LEN(a)

/* A count that sizes the search (10^12 nodes would never finish): a whole number in
 * [1, max], or absent (left 0). */
static int read_count(nd_yaml *y, yaml_node_t *map, const char *key, int64_t max, int64_t *out, nd_error *err)
{
    yaml_node_t *v = nd_yaml_get(y, map, key);
    if (!v) return ND_OK;
    const char *t = nd_yaml_text(v);
    if (!t || nd_parse_int64(t, 1, max, out))
        return where_error(y, v, err, "%s: '%s' is not a whole number in [1, %lld]", key, t ? t : "?",
                           (long long)max);
    return ND_OK;
}

static int read_cluster(nd_yaml *y, yaml_node_t *map, nd_search_config_file *f, nd_error *err)
{
    int rc = check_keys(y, map, "cluster", KEYS(cluster_keys),
                        "num_nodes, cards_per_node, device_memory_gb, device_type", err);
    double mem_gb = 0;
    if (!rc) rc = read_count(y, map, "num_nodes", ND_SEARCH_CONFIG_MAX_DEVICES, &f->num_nodes, err);
    if (!rc) rc = read_count(y, map, "cards_per_node", 1 << 20, &f->cards_per_node, err);
    if (!rc && f->num_nodes * (f->cards_per_node ? f->cards_per_node : 1) > ND_SEARCH_CONFIG_MAX_DEVICES)
        rc = where_error(y, map, err, "num_nodes x cards_per_node = %lld devices; nd searches at most %lld",
                         (long long)(f->num_nodes * f->cards_per_node),
                         (long long)ND_SEARCH_CONFIG_MAX_DEVICES);
    if (!rc) rc = read_number(y, map, "device_memory_gb", &mem_gb, err);
    yaml_node_t *type_node = nd_yaml_get(y, map, "device_type");
    const char *type = nd_yaml_text(type_node);
    if (!rc && type && (nd_text_name_chars(type) < 0 || strlen(type) >= sizeof f->device))
        rc = where_error(y, type_node, err, "device_type: '%s' is not a device name", type);
    if (type) nd_text_copy(f->device, type, sizeof f->device);
    if (type) f->device_line = nd_yaml_line(type_node);
    if (mem_gb > 0) f->memory_mib = mem_gb * ND_MIB_PER_GIB;
    return rc;
}

static int read_recompute(nd_yaml *y, yaml_node_t *v, nd_search_config_file *f, nd_error *err)
{
    const char *t = nd_yaml_text(v);
    if (!t) return where_error(y, v, err, "%s", "recompute must be off, selective, full, auto or per_layer");
    if (!strcmp(t, "per_layer")) {
        f->per_layer = true;
        return ND_OK;
    }
    if (!strcmp(t, "auto")) {
        f->n_modes = 3;
        for (int m = 0; m < 3; m++) f->modes[m] = (nd_recompute)m;
        return ND_OK;
    }
    nd_recompute m;
    if (nd_recompute_parse(t, &m))
        return where_error(y, v, err, "recompute: '%s' is not off, selective, full, auto or per_layer", t);
    f->n_modes = 1;
    f->modes[0] = m;
    return ND_OK;
}

/* A path the file names, relative to its directory. */
static int path_beside(nd_yaml *y, yaml_node_t *v, const char *key, char *out, size_t size, nd_error *err)
{
    const char *t = nd_yaml_text(v);
    if (!t || !t[0]) return where_error(y, v, err, "%s: a file name", key);
    char *dir = t[0] == '/' ? NULL : nd_path_dir(y->path);
    char *joined = dir ? nd_path_join(dir, t) : NULL;
    int n = snprintf(out, size, "%s", joined ? joined : t);
    free(dir);
    free(joined);
    if (n < 0 || (size_t)n >= size) return where_error(y, v, err, "%s: the path is too long", key);
    return ND_OK;
}

/* model: kept as written; the session applies it (framework.h), local_batch_size read here. */
static int read_model(nd_yaml *y, yaml_node_t *map, nd_search_config_file *f, nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "model", err);
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i), *v = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(k), *value = nd_yaml_text(v);
        if (!key) continue;
        if (!value) {
            add_note(f, y, k, "model.%.60s is not a single value: not read", key);
            continue;
        }
        if (!strcmp(key, "local_batch_size")) {
            if (nd_parse_int64(value, 1, 1 << 20, &f->local_batch_size))
                return where_error(y, v, err, "model.local_batch_size: '%s' is not a whole number >= 1",
                                   value);
            continue;
        }
        if (f->n_model == ND_SEARCH_CONFIG_MAX_MODEL_KEYS)
            return where_error(y, k, err, "model: more than %d keys", ND_SEARCH_CONFIG_MAX_MODEL_KEYS);
        if (strlen(key) >= sizeof f->model[0].key || strlen(value) >= sizeof f->model[0].value)
            return where_error(y, k, err, "model.%.60s: the key or its value is too long", key);
        snprintf(f->model[f->n_model].key, sizeof f->model[0].key, "%s", key);
        snprintf(f->model[f->n_model].value, sizeof f->model[0].value, "%s", value);
        f->model[f->n_model++].line = nd_yaml_line(k);
    }
    return rc;
}

/* estimator: ND's internals. ratios_file is -c's, cp_algo the CP algorithm,
 * recompute_strategy the recompute when the file states none at the top. */
static int read_estimator(nd_yaml *y, yaml_node_t *map, nd_search_config_file *f, bool *recompute_strategy,
                          nd_error *err)
{
    int rc = nd_yaml_expect_mapping(y, map, "estimator", err);
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i), *v = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(k), *value = nd_yaml_text(v);
        if (!key) continue;
        if (!strcmp(key, "ratios_file")) {
            rc = path_beside(y, v, "estimator.ratios_file", f->ratios_file, sizeof f->ratios_file, err);
        } else if (!strcmp(key, "enable_profiling_calibration")) {
            bool on = true;
            if (!value || nd_parse_bool(value, &on))
                rc = where_error(y, v, err,
                                 "estimator.enable_profiling_calibration: '%s' is not true or false",
                                 value ? value : "?");
            f->calibration_off = !on;
        } else if (!strcmp(key, "cp_algo")) {
            if (!value || strlen(value) >= sizeof f->cp_algo)
                rc = where_error(y, v, err, "%s", "estimator.cp_algo: ring, ulysses or hybrid");
            else
                snprintf(f->cp_algo, sizeof f->cp_algo, "%s", value);
        } else if (!strcmp(key, "recompute_strategy")) {
            *recompute_strategy = true;
        } else if (!strcmp(key, "type")) {
            if (!value || strcmp(value, "symbolic"))
                add_note(f, y, v, "estimator.type '%.40s': nd's estimator is symbolic (ND's default)",
                         value ? value : "?");
        } else {
            add_note(f, y, k, "estimator.%.60s is not a key nd uses: ignored", key);
        }
    }
    if (!rc && f->calibration_off && f->ratios_file[0])
        add_note(f, y, map, "%s",
                 "estimator.ratios_file is not applied: enable_profiling_calibration is false");
    return rc;
}

static const char *known_sections[] = {"train_yaml",      "model",      "cluster",
                                       "parallelism",     "constraint", "recompute",
                                       "recompute_modes", "pp_config",  "estimator"};

int nd_search_config_load(const char *path, nd_search_config_file *f, nd_error *err)
{
    memset(f, 0, sizeof *f);
    nd_yaml y;
    int rc = nd_yaml_load(&y, path, err);
    if (rc) return rc;
    yaml_node_t *root = nd_yaml_root(&y);
    rc = nd_yaml_expect_mapping(&y, root, "the search config", err);
    for (size_t i = 0; !rc && i < nd_yaml_size(root); i++) {
        const char *key = nd_yaml_text(nd_yaml_key_at(&y, root, i));
        bool known = false;
        for (size_t j = 0; key && j < ND_ARRAY_LEN(known_sections); j++)
            known |= !strcmp(key, known_sections[j]);
        static const char listed[] = "train_yaml, model, cluster, parallelism, constraint, recompute, "
                                     "recompute_modes, pp_config, estimator";
        char hint_buf[ND_TEXT_HINT_MAX];
        if (!known)
            rc = where_error(&y, nd_yaml_key_at(&y, root, i), err, "unknown section '%s' (%sknown: %s)",
                             key ? key : "?", nd_text_hint(key, listed, hint_buf), listed);
    }
    yaml_node_t *n;
    snprintf(f->path, sizeof f->path, "%s", path);
    if (!rc && (n = nd_yaml_get(&y, root, "train_yaml"))) {
        rc = path_beside(&y, n, "train_yaml", f->train_yaml, sizeof f->train_yaml, err);
        f->train_yaml_line = nd_yaml_line(n);
    }
    if (!rc && (n = nd_yaml_get(&y, root, "model"))) rc = read_model(&y, n, f, err);
    bool strategy_recompute = false;
    if (!rc && (n = nd_yaml_get(&y, root, "estimator")))
        rc = read_estimator(&y, n, f, &strategy_recompute, err);
    if (!rc && strategy_recompute && !nd_yaml_get(&y, root, "recompute") &&
        !nd_yaml_get(&y, root, "recompute_modes"))
        rc = read_recompute(&y, nd_yaml_get(&y, nd_yaml_get(&y, root, "estimator"), "recompute_strategy"), f,
                            err);
    if (!rc && (n = nd_yaml_get(&y, root, "parallelism"))) rc = read_parallelism(&y, n, f, err);
    if (!rc && (n = nd_yaml_get(&y, root, "cluster"))) rc = read_cluster(&y, n, f, err);
    if (!rc && (n = nd_yaml_get(&y, root, "constraint"))) {
        double limit = 0;
        rc =
            check_keys(&y, n, "constraint", KEYS(constraint_keys), "global_batch_size, memory_limit_gb", err);
        if (!rc) rc = read_count(&y, n, "global_batch_size", (int64_t)1 << 30, &f->global_batch, err);
        if (!rc) rc = read_number(&y, n, "memory_limit_gb", &limit, err);
        if (limit > 0 && (f->memory_mib == 0 || limit * ND_MIB_PER_GIB < f->memory_mib))
            f->memory_mib = limit * ND_MIB_PER_GIB;
    }
    if (!rc && (n = nd_yaml_get(&y, root, "recompute"))) rc = read_recompute(&y, n, f, err);
    if (!rc && (n = nd_yaml_get(&y, root, "recompute_modes"))) {
        if (n->type != YAML_SEQUENCE_NODE)
            rc = where_error(&y, n, err, "%s", "recompute_modes must be a list such as [selective, full]");
        f->n_modes = 0;
        for (size_t i = 0; !rc && i < nd_yaml_size(n) && f->n_modes < 3; i++) {
            const char *t = nd_yaml_text(nd_yaml_item(&y, n, i));
            if (!t || nd_recompute_parse(t, &f->modes[f->n_modes]))
                rc = where_error(&y, n, err, "recompute_modes: '%s' is not off, selective or full",
                                 t ? t : "?");
            else
                f->n_modes++;
        }
    }
    if (!rc && (n = nd_yaml_get(&y, root, "pp_config"))) {
        yaml_node_t *v;
        rc = check_keys(
            &y, n, "pp_config", KEYS(pp_keys),
            "pp_degree, pp_interleave_num, micro_batch_num, "
            "pipeline_schedule; ND's stage_partition_mode, stage_partition, layer_offset_range and "
            "layer_recompute_layers are accepted and ignored",
            err);
        static const char *const unused[] = {"stage_partition", "layer_offset_range",
                                             "layer_recompute_layers"};
        for (size_t i = 0; !rc && i < ND_ARRAY_LEN(unused); i++)
            if ((v = nd_yaml_get(&y, n, unused[i])))
                add_note(f, &y, v,
                         "pp_config.%s is ND's pipeline balancer's: the search splits the layers "
                         "evenly (or FIRST/LAST), -mppb takes a config's",
                         unused[i]);
        const char *mode = nd_yaml_text(nd_yaml_get(&y, n, "stage_partition_mode"));
        if (!rc && mode && strcmp(mode, "uniform"))
            add_note(f, &y, nd_yaml_get(&y, n, "stage_partition_mode"),
                     "pp_config.stage_partition_mode '%.30s': "
                     "the search splits the layers evenly (uniform)",
                     mode);
        if (!rc && (v = nd_yaml_get(&y, n, "pp_degree"))) rc = read_dim(&y, v, ND_DIM_PP, f, err);
        if (!rc && (v = nd_yaml_get(&y, n, "pp_interleave_num"))) rc = read_dim(&y, v, ND_DIM_VPP, f, err);
        if (!rc && (v = nd_yaml_get(&y, n, "micro_batch_num"))) rc = read_dim(&y, v, ND_DIM_MB, f, err);
        const char *sched = nd_yaml_text(nd_yaml_get(&y, n, "pipeline_schedule"));
        if (!rc && sched) {
            if (nd_schedule_parse(sched, &f->schedule))
                rc = where_error(&y, n, err,
                                 "pipeline_schedule: '%s' is not 1f1b, interleaved, zb-h1 or gpipe", sched);
            else
                f->has_schedule = true;
        }
    }
    nd_yaml_free(&y);
    return rc;
}
