/*
 * search_config_out.c — what ND's search-config path (-s) prints after the ranking: the
 * space it searched ("Parallelism:"), and, after "Resolved strategy written to", ND's lines:
 * the activation checkpoint mode, the activations offloaded, what recomputing each layer its
 * own way would score instead (ND's recompute_per_layer), and "Optimal strategy:" in ND's
 * format (dp tp pp cp ep mb_num recompute mem score), then nd's dp_shard and dp_replicate.
 */
#include "search_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/inputs/search_config.h"
#include "nd/planner/search_out.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

/* ND's name and the nd dimension, in ND's order. */
static const struct {
    const char *key;
    nd_dim d;
} keys[] = {
    {"dp", ND_DIM_DP},
    {"tp", ND_DIM_MP},
    {"pp", ND_DIM_PP},
    {"cp", ND_DIM_CP},
    {"ep", ND_DIM_EP},
    {"fsdp", ND_DIM_OP},
    {"micro_batch_num", ND_DIM_MB},
    {"micro_batch_size", ND_DIM_MBS},
    {"pp_interleave_num", ND_DIM_VPP},
    {"sp", ND_DIM_SP},
};

/* "[1, 2, 4]" (the config's list), "auto" (searched), or the fixed value and where from. */
static void dim_text(const nd_search_config *cfg, const nd_search_config_file *f, nd_dim d, char *buf,
                     size_t size)
{
    const nd_search_space *sp = &cfg->space;
    if (f->n_list[d] && (sp->vary & ND_DIM_BIT(d))) {
        size_t used = (size_t)snprintf(buf, size, "[");
        for (size_t i = 0; i < f->n_list[d] && used + 24 < size; i++)
            used +=
                (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)f->list[d][i]);
        snprintf(buf + used, size - used, "]");
    } else if (sp->vary & ND_DIM_BIT(d)) {
        snprintf(buf, size, "auto");
    } else {
        const char *from = f->declared[d] ? "" : f->train_yaml[0] ? " (train_yaml's)" : " (fixed)";
        snprintf(buf, size, "%lld%s", (long long)nd_strategy_dim(&cfg->base, d), from);
    }
}

/* The GiB of activations the peak stage keeps on the host, and their share of its
 * activations. */
static void offloaded(const nd_search_config *cfg, const nd_ranked *r, double *gib, double *share)
{
    *gib = *share = 0;
    nd_priced_stages p;
    if (nd_search_price_stages(cfg, r, &p, NULL) || !p.plan.offloaded) {
        nd_priced_stages_free(&p);
        return;
    }
    const nd_strategy *s = &r->s;
    nd_layer_inputs in = {cfg->ctx->model, cfg->ctx->train, cfg->ctx->device, cfg->ctx->train->seq_len};
    nd_layer_shape shape = {s->tp, s->cp, s->ep, s->etp ? s->etp : s->tp, s->mbs, s->sp};
    nd_layer_cache *cache = nd_layer_cache_alloc();
    nd_layer_cache_entry scratch;
    const nd_layer_cache_entry *c = cache ? nd_layer_cache_get(cache, &in, &shape, &scratch) : NULL;
    int64_t st = p.est.peak_stage;
    double bytes = 0;
    for (int k = 0; c && k < ND_LAYER_KINDS; k++)
        bytes += (double)p.off[st][k] * c->layer[k].activation_bytes[ND_RECOMPUTE_OFF] * p.mem[st].inflight;
    *gib = bytes / ND_GIB;
    double device = p.mem[st].activations_mib * ND_MIB;
    *share = bytes + device > 0 ? bytes / (bytes + device) : 0;
    nd_layer_cache_free(cache);
    nd_priced_stages_free(&p);
}

/* ND's activation_checkpoint_layers: the layers running another mode than the main one. */
static void ranges(const nd_search_config *cfg, const nd_ranked *r, char *json, size_t size)
{
    snprintf(json, size, "{}");
    nd_priced_stages p;
    if (!nd_search_price_stages(cfg, r, &p, NULL) && r->per_layer) {
        size_t used = (size_t)snprintf(json, size, "{");
        used = nd_search_layer_ranges(cfg->ctx, &r->s, &p.plan, r->s.recompute, json, size, used);
        if (used + 2 < size) snprintf(json + used, size - used, "}");
    }
    nd_priced_stages_free(&p);
}

void nd_search_print_config_space(FILE *out, const nd_search_config *cfg, const nd_search_config_file *f)
{
    char text[256];
    fputs("Parallelism:", out);
    for (size_t i = 0; i < ND_ARRAY_LEN(keys); i++) {
        dim_text(cfg, f, keys[i].d, text, sizeof text);
        fprintf(out, "%s %s %s", i ? "," : "", keys[i].key, text);
    }
    bool widened = false;
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) widened |= f->n_list[d] && !cfg->space.allowed[d];
    fputs(widened ? " (nothing within the lists fitted: searched beyond them)\n" : "\n", out);
}

/* A JSON map of ranges as Python prints the dict ND logs: single quotes. */
static void python_quotes(char *json)
{
    for (char *c = json; *c; c++)
        if (*c == '"') *c = '\'';
}

void nd_search_print_config_result(FILE *out, const nd_search_config *cfg, const nd_search_result *res)
{
    if (!res->count) return;
    const nd_ranked *best = &res->items[0];
    const nd_strategy *s = &best->s;
    char json[4096];
    /* ND's _log_activation_checkpoint, then its "Optimal strategy:" line, byte for byte
     * (docs/nd-compat.md §The search config's result) */
    json[0] = '\0';
    if (best->per_layer) ranges(cfg, best, json, sizeof json);
    if (json[0] && strcmp(json, "{}")) { /* ND: when activation_checkpoint_layers is not empty */
        python_quotes(json);
        fprintf(out, "Activation checkpoint mode %s, and per layer: %s\n", nd_recompute_name(s->recompute),
                json);
    } else {
        fprintf(out, "Activation checkpoint mode for every layer: %s\n", nd_recompute_name(s->recompute));
    }
    if (best->offloaded_layers) {
        double gib, share;
        offloaded(cfg, best, &gib, &share);
        fprintf(
            out,
            "Offloaded to the host, priced as offload should run: %lld layers of the peak stage (%.2f GiB "
            "a micro-batch, %.0f%% of what it keeps). The trainer runs no offload yet, so the plan it is "
            "given keeps them off\n",
            (long long)best->offloaded_layers, gib, 100 * share);
    }
    if (!best->per_layer) {
        /* ND's recompute_per_layer: the same strategy with a mode chosen for each layer */
        nd_search_config alt = *cfg;
        alt.space.per_layer = true;
        alt.space.offload = false;
        alt.space.layout = NULL;
        nd_layer_cache *cache = nd_layer_cache_alloc();
        nd_strategy t = best->s;
        nd_ranked r;
        double peak;
        if (cache && nd_search_price(&alt, cache, &t, &r, &peak) && r.per_layer) {
            ranges(&alt, &r, json, sizeof json);
            python_quotes(json);
            fprintf(out,
                    "With each layer run its own way, the score would be %.2e at %.0f MB: mode %s, "
                    "per layer %s\n",
                    r.step_ms, r.peak_mib, nd_recompute_name(r.s.recompute), json);
        }
        nd_layer_cache_free(cache);
    }
    fprintf(out,
            "Optimal strategy: dp=%lld tp=%lld pp=%lld cp=%lld ep=%lld mb_num=%lld recompute=%s mem=%.0f MB "
            "score=%.2e\n",
            (long long)s->dp, (long long)s->tp, (long long)s->pp, (long long)s->cp, (long long)s->ep,
            (long long)s->mb, nd_recompute_name(s->recompute), floor(best->peak_mib), best->step_ms);
    /* nd's: the rest of ND's result keys, and the score at full precision, in ms */
    int64_t shard = s->op < s->dp * s->cp ? s->op : s->dp * s->cp; /* ND: OP capped by DP x CP */
    fprintf(out, "  dp_shard=%lld dp_replicate=%lld score=%.2f ms\n", (long long)shard,
            (long long)(s->dp * s->cp / shard), best->step_ms);
}
