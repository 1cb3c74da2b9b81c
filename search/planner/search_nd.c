/*
 * search_nd.c — two of ND's search outputs: the exhaustive additions (-e, -ee, -eee: the
 * best ranked strategies beyond the top K in which each searched dimension exceeds 1), and
 * -k's pipeline-balancer description of the K-th strategy (every layer's forward and
 * backward per recompute option, in units of a plain first body layer's forward). Rules as
 * ND's parallelize.py states them (docs/reference/nd-costmodel.md §6.3).
 */
#include "search_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/costmodel/layer_cache.h"
#include "nd/planner/search_out.h"
#include "nd/base/units.h"

static bool above_one(const nd_ranked *r, nd_dim d)
{
    return nd_strategy_dim_resolved(&r->s, d) > 1;
}

static bool chosen(const size_t *list, size_t n, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (list[j] == i) return true;
    return false;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t nd_search_exhaustive(const nd_search_result *res, size_t top, const nd_dim *dims, int n_dims,
                            const int counts[3], size_t *out, size_t cap, FILE *diag)
{
    size_t normal = top < res->count ? top : res->count, n = 0;
    int e = counts[0], ee = counts[1], eee = counts[2];
    for (int k = 0; k < n_dims; k++) {
        nd_dim d = dims[k];
        int present = 0;
        for (size_t i = 0; i < normal; i++) present += above_one(&res->items[i], d);
        /* -eee N: N distinct additions reserved per dimension, over -e and -ee */
        int needed = eee ? eee : ee >= e ? ee : (ee > e - present ? ee : e - present);
        int added = 0;
        for (size_t i = normal; i < res->count && added < needed && n < cap; i++) {
            if (!above_one(&res->items[i], d)) continue;
            bool taken = chosen(out, n, i);
            if (eee && taken) continue; /* reserved for an earlier dimension */
            if (!taken) out[n++] = i;
            added++;
        }
        if (eee && added < eee && diag)
            fprintf(diag, "warning: only %d of %d unique exhaustive result(s) found for dimension %s\n",
                    added, eee, nd_dim_name(d));
    }
    qsort(out, n, sizeof *out, cmp_size);
    return n;
}

/* ---- -k: the pipeline balancer's layer description --------------------------------------- */

static cJSON *option_times(const nd_layer_cost *l, double unit)
{
    cJSON *o = cJSON_CreateObject();
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
        cJSON_AddNumberToObject(o, nd_recompute_name((nd_recompute)m),
                                (l->backward_ms + l->recompute_ms[m]) / unit);
    return o;
}

static cJSON *option_values(const double v[ND_RECOMPUTE_MODES], double scale)
{
    cJSON *o = cJSON_CreateObject();
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
        cJSON_AddNumberToObject(o, nd_recompute_name((nd_recompute)m), v[m] * scale);
    return o;
}

static cJSON *layer_json(const char *name, int64_t index, const char *kind, const nd_layer_cost *l,
                         double unit)
{
    const double mib = 1.0 / ND_MIB;
    double comm[ND_RECOMPUTE_MODES];
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++) comm[m] = l->tp_ms[m] + l->ep_ms[m] + l->cp_ms[m];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    if (index >= 0) cJSON_AddNumberToObject(o, "index", (double)index);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddNumberToObject(o, "forward", l->forward_ms / unit);
    cJSON_AddItemToObject(o, "backward", option_times(l, unit));
    cJSON_AddItemToObject(o, "communication", option_values(comm, 1 / unit));
    cJSON_AddItemToObject(o, "activations_mib", option_values(l->activation_bytes, mib));
    cJSON_AddItemToObject(o, "working_mib", option_values(l->working_bytes, mib));
    return o;
}

static cJSON *stages_json(const nd_priced_stages *p, int64_t pp)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; i < pp; i++) {
        const nd_stage_memory *m = &p->mem[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "stage", (double)i);
        cJSON_AddNumberToObject(o, "first_layer", (double)m->first_layer);
        cJSON_AddNumberToObject(o, "layers", (double)m->layers);
        cJSON_AddNumberToObject(o, "static_mib", m->params_mib + m->grads_mib + m->optimizer_mib);
        cJSON_AddNumberToObject(o, "runtime_mib", m->buffers_mib + m->allocator_mib + m->context_mib);
        cJSON_AddNumberToObject(o, "total_mib", m->total_mib);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *describe(const nd_search_config *cfg, const nd_ranked *r, size_t k,
                       const nd_layer_cache_entry *c, const nd_priced_stages *p)
{
    const nd_model *m = cfg->ctx->model;
    nd_layer_kind first = nd_model_layer_kind(m, 0);
    double unit = c->layer[first].forward_ms > 0 ? c->layer[first].forward_ms : 1;
    cJSON *doc = cJSON_CreateObject(), *strategy = cJSON_CreateObject(), *layers = cJSON_CreateArray();
    cJSON_AddNumberToObject(doc, "rank", (double)k);
    for (int d = 0; d < ND_DIMS; d++)
        cJSON_AddNumberToObject(strategy, nd_dim_name((nd_dim)d),
                                (double)nd_strategy_dim_resolved(&r->s, (nd_dim)d));
    cJSON_AddStringToObject(strategy, "recompute", nd_recompute_name(r->s.recompute));
    cJSON_AddStringToObject(strategy, "schedule", nd_schedule_name(r->s.schedule));
    cJSON_AddItemToObject(doc, "strategy", strategy);
    cJSON_AddStringToObject(doc, "model", m->name);
    cJSON_AddStringToObject(doc, "device", cfg->ctx->device->name);
    cJSON_AddNumberToObject(doc, "memory_budget_mib", cfg->ctx->budget_mib);
    cJSON_AddNumberToObject(doc, "unit_ms", unit);
    cJSON_AddItemToObject(doc, "stages", stages_json(p, r->s.pp));
    cJSON_AddItemToArray(layers, layer_json("embedding", -1, "embedding", &c->embedding, unit));
    for (int64_t i = 0; i < m->layers + m->mtp_layers; i++) {
        nd_layer_kind kind = i < m->layers ? nd_model_layer_kind(m, i) : ND_LAYER_DENSE;
        char name[32];
        snprintf(name, sizeof name, i < m->layers ? "layer %lld" : "mtp %lld",
                 (long long)(i < m->layers ? i : i - m->layers));
        cJSON_AddItemToArray(layers, layer_json(name, i, nd_layer_kind_name(kind), &c->layer[kind], unit));
    }
    cJSON_AddItemToArray(layers, layer_json("head", -1, "head", &c->head, unit));
    cJSON_AddItemToObject(doc, "layers", layers);
    return doc;
}

int nd_search_write_ppb(const char *dir, const char *name, const nd_search_config *cfg,
                        const nd_search_result *res, size_t k, char *path, size_t size, nd_error *err)
{
    if (k >= res->count)
        return nd_error_set(err, ND_EUSAGE, "-k/--ppb_k: %zu configurations were ranked, got %zu", res->count,
                            k);
    const nd_ranked *r = &res->items[k];
    nd_layer_inputs in = {cfg->ctx->model, cfg->ctx->train, cfg->ctx->device, cfg->ctx->train->seq_len};
    nd_layer_shape shape = {r->s.tp, r->s.cp, r->s.ep, r->s.etp ? r->s.etp : r->s.tp, r->s.mbs, r->s.sp};
    nd_layer_cache_entry scratch;
    const nd_layer_cache_entry *c = nd_layer_cache_get(NULL, &in, &shape, &scratch);
    nd_priced_stages p;
    int rc = nd_search_price_stages(cfg, r, &p, err);
    cJSON *doc = rc ? NULL : describe(cfg, r, k, c, &p);
    nd_priced_stages_free(&p);
    if (rc) return rc;
    char file[600];
    snprintf(file, sizeof file, "%s_nd_to_ppb_%zu.json", name, k);
    char *full = nd_path_join(dir, file);
    rc = !doc || !full ? nd_error_set(err, ND_ENOMEM, "out of memory") : nd_make_dir(dir, err);
    if (!rc) rc = nd_json_write_file(full, doc, err);
    if (!rc) snprintf(path, size, "%s", full);
    free(full);
    cJSON_Delete(doc);
    return rc;
}
