/*
 * fw_common.c — what every framework reader and writer shares: setting a run's model,
 * training and strategy keys with messages that name the user's own file, line and key,
 * the notes (or --strict errors) for what a config leaves out, and small lookups.
 */
#include "fw_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/inputs/model_fields.h"
#include "nd/base/array.h"

static int where_prefix(fw_reader *r, int line, const char *theirs)
{
    r->err->code = ND_EINPUT;
    if (line > 0) return nd_error_prefix(r->err, "%s:%d: %s", r->path, line, theirs);
    return nd_error_prefix(r->err, "%s: %s", r->path, theirs);
}

int fw_model(fw_reader *r, const char *key, const char *value, int line, const char *theirs)
{
    char where[600];
    if (line > 0)
        snprintf(where, sizeof where, "%s:%d: %s", r->path, line, theirs);
    else
        snprintf(where, sizeof where, "%s: %s", r->path, theirs);
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
    if (r->strict)
        return nd_error_set(r->err, ND_EINPUT, "%s: %s (--strict refuses a default)", r->path, what);
    fw_note(r->run, "%s: %s", r->path, what);
    return ND_OK;
}

int fw_model_family(fw_reader *r, const char *name, int line)
{
    static const struct {
        const char *has;
        const char *type;
    } families[] = {
        {"deepseekv2", "deepseek_v2"},
        {"deepseek", "deepseek_v3"},
        {"qwen3moe", "qwen3_moe"},
        {"qwen3", "qwen3"},
        {"qwen2moe", "qwen2_moe"},
        {"qwen", "qwen2"},
        {"mixtral", "mixtral"},
        {"mistral", "mistral"},
        {"gptneox", "gpt_neox"},
        {"neox", "gpt_neox"},
        {"gpt", "gpt2"},
        {"llama", "llama"},
    };
    char flat[128];
    size_t n = 0;
    for (const char *p = name ? name : ""; *p && n + 1 < sizeof flat; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
            flat[n++] = *p;
        else if (*p >= 'A' && *p <= 'Z')
            flat[n++] = (char)(*p + 32);
    flat[n] = '\0';
    const char *type = "custom";
    for (size_t i = 0; i < ND_ARRAY_LEN(families); i++)
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
        !run->pipeline_layout_text[0] && /* an explicit layout states the split */
        nd_strategy_uneven_split(L, s->pp, &s->first_stage_layers, &s->last_stage_layers))
        fw_note(run, "%s: %lld layers over %lld stages: FIRST=%lld LAST=%lld, the middle stages equal",
                r->path, (long long)L, (long long)s->pp, (long long)s->first_stage_layers,
                (long long)s->last_stage_layers);
    if (!run->devices && !run->derive_dp) run->devices = s->dp * s->tp * s->pp * s->cp;
    if (!run->train.global_batch && !run->derive_dp) run->train.global_batch = s->dp * s->mb * s->mbs;
    /* ND's rule: without -mppb, --recompute or -ar a search prices every candidate fully
     * recomputed (docs/reference/nd-costmodel.md §3.1); the config's own mode is what it runs. */
    run->search_full_recompute = true;
    nd_run_sync_strategy(run, false, false);
    return ND_OK;
}

const char *fw_precision_of(const char *dtype)
{
    if (!dtype) return NULL;
    if (strstr(dtype, "bfloat16") || strstr(dtype, "bf16")) return "bf16";
    if (strstr(dtype, "float16") || strstr(dtype, "fp16") || strstr(dtype, "half")) return "fp16";
    if (strstr(dtype, "float32") || strstr(dtype, "fp32") || nd_text_equal_nocase(dtype, "float"))
        return "fp32";
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
    if (t && (!strcmp(t, "~") || nd_text_equal_nocase(t, "null") || nd_text_equal_nocase(t, "none")))
        t = NULL;
    if (line) *line = n ? nd_yaml_line(n) : 0;
    return t;
}

int fw_check_spellings(fw_reader *r, nd_yaml *y, yaml_node_t *map, const char *what)
{
    static const char *const groups[][4] = {
        {"num_layers", "num_hidden_layers", "n_layer", "n_layers"},
        {"num_heads", "num_attention_heads", "n_head", "n_heads"},
        {"n_kv_heads", "num_key_value_heads", "num_query_groups", NULL},
        {"intermediate_size", "ffn_hidden_size", NULL, NULL},
        {"qk_layernorm", "use_qk_norm", "qk_norm", NULL},
        {"mtp_depth", "num_nextn_predict_layers", "mtp_num_layers", NULL},
    };
    for (size_t g = 0; g < ND_ARRAY_LEN(groups); g++) {
        const char *first = NULL;
        yaml_node_t *at = NULL;
        for (size_t k = 0; k < 4 && groups[g][k]; k++) {
            yaml_node_t *v = nd_yaml_get(y, map, groups[g][k]);
            if (!v) continue;
            if (first)
                return nd_error_set(r->err, ND_EINPUT,
                                    "%s:%d: %s.%s and %s.%s (line %d) are two spellings of one field: "
                                    "state one",
                                    r->path, nd_yaml_line(v), what, groups[g][k], what, first,
                                    nd_yaml_line(at));
            first = groups[g][k];
            at = v;
        }
    }
    return ND_OK;
}

char *fw_path_beside(const char *base, const char *name)
{
    if (name[0] == '/') return nd_strdup(name);
    char *dir = nd_path_dir(base);
    char *p = dir ? nd_path_join(dir, name) : NULL;
    free(dir);
    return p;
}

const char *fw_output_path(const char *dir, const char *name, char *buf, size_t size, char *written,
                           size_t wsize)
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

int nd_config_derive(nd_run *run, nd_error *err)
{
    nd_strategy *s = &run->strategy;
    if (run->derive_dp) {
        int64_t model = s->tp * s->pp * s->cp;
        if (run->devices <= 0)
            return nd_error_set(err, ND_EUSAGE,
                                "give -d N: %s states no world size (its launcher's, or "
                                "context.device_num), from which DP follows",
                                run->source);
        if (run->devices % model)
            return nd_error_set(err, ND_EUSAGE,
                                "-d %lld: the devices (-d, else the config's world size) do not divide "
                                "over TP x PP x CP = %lld",
                                (long long)run->devices, (long long)model);
        s->dp = run->devices / model;
    }
    if (run->op_spans_dp) {
        int64_t groups = run->op_instances > 0 ? run->op_instances : 1;
        s->op = (s->dp * s->cp) % groups ? s->dp * s->cp : s->dp * s->cp / groups;
        if (s->op <= 1) {
            s->op = 1;
            s->zero = 0;
        }
    }
    if ((run->derive_dp || run->op_spans_dp || run->derive_mb) && run->train.global_batch &&
        s->dp * s->mbs > 0 && run->train.global_batch % (s->dp * s->mbs) == 0)
        s->mb = run->train.global_batch / (s->dp * s->mbs);
    if (!run->train.global_batch) run->train.global_batch = s->dp * s->mb * s->mbs; /* the config's own */
    return ND_OK;
}
