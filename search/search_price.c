/*
 * search_price.c — pricing one candidate for the search, with the per-layer
 * recompute knapsack (-ar) and activation offload (-ao) when asked.
 */
#include "search_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/knapsack.h"
#include "nd/stage.h"

#define MIB (1024.0 * 1024.0)

typedef struct plan_storage {
    int64_t layers[ND_MAX_STAGES][ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
    int64_t offloaded[ND_MAX_STAGES][ND_LAYER_KINDS];
} plan_storage;

static double ratio(const nd_context *ctx, nd_part p)
{
    return ctx->ratios ? ctx->ratios->value[nd_ratio_key_of_part(p)] : 1.0;
}

/* The step time a layer's recompute mode decides (its recompute, the communication it
 * repeats, its kernel launches), corrected as the estimate's parts are (-c). */
static double mode_time_ms(const nd_context *ctx, const nd_layer_cost *l, nd_recompute r)
{
    return l->recompute_ms[r] * ratio(ctx, ND_PART_RECOMPUTE) + l->tp_ms[r] * ratio(ctx, ND_PART_MP_COMM) +
           l->ep_ms[r] * ratio(ctx, ND_PART_EP_COMM) + l->cp_ms[r] * ratio(ctx, ND_PART_CP_COMM) +
           l->kernels[r] * ctx->device->kernel_launch_us / 1e3 * ratio(ctx, ND_PART_OVERHEAD);
}

/* A mode a layer may not take (-ar --recompute MODES) costs more time and memory than any
 * plan has: finite, so that zero layers of it add nothing. */
#define BARRED 1e30

static void knapsack_kinds(const nd_search_config *cfg, const nd_layer_cache_entry *c,
                           const int64_t layers[ND_LAYER_KINDS], nd_knapsack_kind kinds[ND_LAYER_KINDS])
{
    unsigned allowed = cfg->space.layer_modes ? cfg->space.layer_modes : (1u << ND_RECOMPUTE_MODES) - 1;
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_layer_cost *l = &c->layer[k];
        kinds[k].layers = layers[k];
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
            bool barred = !(allowed & (1u << r));
            kinds[k].time_ms[r] = barred ? BARRED : mode_time_ms(cfg->ctx, l, (nd_recompute)r);
            kinds[k].act_bytes[r] = barred ? BARRED : l->activation_bytes[r];
            kinds[k].working_bytes[r] = barred ? BARRED : l->working_bytes[r];
        }
    }
}

/* Layers of each kind among the first k layers of the stage (they offload first). */
static void first_layers(const nd_model *m, const nd_stage_work *w, int64_t k, int64_t out[ND_LAYER_KINDS])
{
    for (int i = 0; i < ND_LAYER_KINDS; i++) out[i] = nd_model_count_kind(m, w->first_layer, k, (nd_layer_kind)i);
}

/* Whether k offloaded layers' copies hide in the forward: each copy, and all queued after
 * it, must finish within overlap x the forward still to run (ND's -ao rule). The queue is
 * linear in the layer index, so checking the first and the last offloaded layer suffices. */
static bool copies_hide(double copy_ms, double fwd_ms, double overlap, int64_t k, int64_t n)
{
    if (k == 0) return true;
    bool first = (double)k * copy_ms <= overlap * (double)(n - 1) * fwd_ms;
    bool last = copy_ms <= overlap * (double)(n - k) * fwd_ms;
    return first && last;
}

/* Plans one stage: the knapsack on the layers not offloaded, for each allowed offload count. */
static int plan_stage(const nd_search_config *cfg, const nd_layer_cache_entry *c, const nd_strategy *s,
                      const nd_stage_work *w, const nd_stage_memory *mem, plan_storage *ps)
{
    const nd_context *ctx = cfg->ctx;
    const nd_device *d = ctx->device;
    double ends_act = (w->first ? c->embedding.activation_bytes[0] : 0) + (w->last ? c->head.activation_bytes[0] : 0);
    double floor_working = fmax(w->first ? c->embedding.working_bytes[0] : 0, w->last ? c->head.working_bytes[0] : 0);
    /* What the layers' activations and working set may take: the budget less the static state,
     * the runtime and what the allocator caches beside them (priced for the starting plan). */
    double room_mib = ctx->budget_mib - mem->params_mib - mem->grads_mib - mem->optimizer_mib -
                      mem->context_mib - mem->allocator_mib - mem->buffers_mib;
    double budget = room_mib * MIB - w->inflight * ends_act;
    int64_t layers[ND_LAYER_KINDS];
    for (int k = 0; k < ND_LAYER_KINDS; k++) layers[k] = w->n[k][0] + w->n[k][1] + w->n[k][2];
    int64_t n = layers[0] + layers[1];
    double host = (cfg->space.host_gbps > 0 ? cfg->space.host_gbps : d->host_gbps) * 1e9 / 1e3; /* B/ms */
    /* The copies hide in the forward; a ratios file calibrates its length (FORWARD, else COMPUTE). */
    double fwd_scale = 1.0;
    if (ctx->ratios)
        fwd_scale = ctx->ratios->stated[ND_RATIO_FORWARD] ? ctx->ratios->value[ND_RATIO_FORWARD]
                                                          : ctx->ratios->value[ND_RATIO_COMPUTE];
    double best = INFINITY;
    int64_t kmax = cfg->space.offload && s->vpp <= 1 ? n : 0;
    for (int64_t k = 0; k <= kmax; k++) {
        int64_t off[ND_LAYER_KINDS], rest[ND_LAYER_KINDS];
        first_layers(ctx->model, w, k, off);
        double in_transit = 0, off_time = 0, copy_ms = 0, fwd_ms = 0;
        for (int i = 0; i < ND_LAYER_KINDS; i++) {
            rest[i] = layers[i] - off[i];
            if (!off[i]) continue;
            double bytes = c->layer[i].activation_bytes[ND_RECOMPUTE_OFF];
            in_transit = fmax(in_transit, bytes);
            copy_ms = fmax(copy_ms, bytes / host);
            fwd_ms = fmax(fwd_ms, c->layer[i].forward_ms * fwd_scale);
            /* An offloaded layer runs as one kept without recompute, plus its copies' cost. */
            off_time += (double)off[i] * (mode_time_ms(ctx, &c->layer[i], ND_RECOMPUTE_OFF) +
                                          2.0 * bytes / (1024.0 * MIB) * cfg->space.host_cost_ms_per_gib);
        }
        if (!copies_hide(copy_ms, fwd_ms, cfg->space.host_overlap, k, n)) break;
        nd_knapsack_kind kinds[ND_LAYER_KINDS];
        knapsack_kinds(cfg, c, rest, kinds);
        int64_t counts[ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
        double t;
        if (nd_knapsack_stage(kinds, w->inflight, budget - in_transit, floor_working, counts, &t) ||
            t >= BARRED)
            continue;
        if (t + off_time < best * (1 - 1e-12)) {
            best = t + off_time;
            for (int i = 0; i < ND_LAYER_KINDS; i++) {
                memcpy(ps->layers[w->stage][i], counts[i], sizeof counts[i]);
                ps->layers[w->stage][i][ND_RECOMPUTE_OFF] += off[i];
                ps->offloaded[w->stage][i] = off[i];
            }
        }
    }
    return isfinite(best) ? 0 : -1;
}

static void fill_ranked(const nd_strategy *s, const nd_estimate *e, nd_ranked *r)
{
    memset(r, 0, sizeof *r);
    r->s = *s;
    memcpy(r->parts_ms, e->parts_ms, sizeof r->parts_ms);
    memcpy(r->raw_parts_ms, e->raw_parts_ms, sizeof r->raw_parts_ms);
    r->kernels_per_step = e->kernels_per_step, r->microbatch_slots = e->microbatch_slots;
    r->step_ms = e->step_ms;
    r->peak_mib = e->peak_mib;
    r->tokens_per_s_per_device = e->tokens_per_s_per_device;
    r->mfu = e->mfu;
}

/* Builds the per-layer plan of s from its fully recomputed memory. Returns 0 or -1. */
static int make_plan(const nd_search_config *cfg, nd_layer_cache *cache, const nd_strategy *full,
                     const nd_stage_memory *mem, plan_storage *ps, nd_recompute_plan *plan)
{
    nd_layer_inputs in = {cfg->ctx->model, cfg->ctx->train, cfg->ctx->device, cfg->ctx->train->seq_len};
    nd_layer_shape shape = {full->tp, full->cp, full->ep, full->etp ? full->etp : full->tp, full->mbs, full->sp};
    nd_layer_cache_entry scratch;
    const nd_layer_cache_entry *c = nd_layer_cache_get(cache, &in, &shape, &scratch);
    memset(ps->offloaded, 0, sizeof(ps->offloaded[0]) * (size_t)full->pp);
    for (int64_t i = 0; i < full->pp; i++) {
        nd_stage_work w;
        nd_stage_work_init(cfg->ctx, full, NULL, i, &w);
        if (plan_stage(cfg, c, full, &w, &mem[i], ps)) return -1;
    }
    plan->stages = full->pp;
    plan->layers = ps->layers;
    plan->offloaded = cfg->space.offload ? ps->offloaded : NULL;
    plan->copy_cost_ms_per_gib = cfg->space.host_cost_ms_per_gib;
    return 0;
}

static void summarise_plan(const nd_recompute_plan *plan, nd_ranked *r)
{
    r->per_layer = true;
    for (int64_t i = 0; i < plan->stages; i++)
        for (int k = 0; k < ND_LAYER_KINDS; k++) {
            for (int m = 0; m < ND_RECOMPUTE_MODES; m++) r->layers_by_mode[m] += plan->layers[i][k][m];
            if (plan->offloaded) r->offloaded_layers += plan->offloaded[i][k];
        }
    /* The mode most layers run names the plan (full on a tie), as the trainer's plan does. */
    nd_recompute main = ND_RECOMPUTE_FULL;
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++)
        if (r->layers_by_mode[m] > r->layers_by_mode[main]) main = (nd_recompute)m;
    r->s.recompute = main;
}

int nd_search_price(const nd_search_config *cfg, nd_layer_cache *cache, nd_strategy *s, nd_ranked *r,
                    double *peak_mib)
{
    nd_estimate est = {0};
    if (!cfg->space.per_layer) {
        if (nd_estimate_strategy(cfg->ctx, s, cache, NULL, &est, NULL)) return 0;
        *peak_mib = est.peak_mib;
        if (!est.fits) return 0;
        fill_ranked(s, &est, r);
        return 1;
    }
    nd_strategy full = *s;
    full.recompute = ND_RECOMPUTE_FULL;
    nd_stage_memory mem[ND_MAX_STAGES];
    est.stage_memory = mem;
    if (nd_estimate_strategy(cfg->ctx, &full, cache, NULL, &est, NULL)) return 0;
    *peak_mib = est.peak_mib;
    if (!est.fits) return 0;
    plan_storage ps;
    nd_recompute_plan plan;
    if (make_plan(cfg, cache, &full, mem, &ps, &plan)) return 0;
    nd_estimate chosen = {0};
    if (nd_estimate_strategy(cfg->ctx, &full, cache, &plan, &chosen, NULL) || !chosen.fits) return 0;
    fill_ranked(&full, &chosen, r);
    summarise_plan(&plan, r);
    *s = r->s;
    return 1;
}

int nd_search_plan(const nd_search_config *cfg, const nd_ranked *r, nd_recompute_plan *plan)
{
    if (!r->per_layer) return -1;
    nd_strategy full = r->s;
    full.recompute = ND_RECOMPUTE_FULL;
    nd_stage_memory mem[ND_MAX_STAGES];
    nd_estimate est = {0};
    est.stage_memory = mem;
    nd_layer_cache *cache = nd_layer_cache_alloc();
    int rc = -1;
    plan_storage *ps = malloc(sizeof *ps);
    if (cache && ps && !nd_estimate_strategy(cfg->ctx, &full, cache, NULL, &est, NULL)) {
        nd_recompute_plan tmp;
        if (!make_plan(cfg, cache, &full, mem, ps, &tmp)) {
            for (int64_t i = 0; i < full.pp; i++) {
                memcpy(plan->layers[i], ps->layers[i], sizeof ps->layers[i]);
                if (plan->offloaded) memcpy(plan->offloaded[i], ps->offloaded[i], sizeof ps->offloaded[i]);
            }
            plan->stages = full.pp;
            plan->copy_cost_ms_per_gib = tmp.copy_cost_ms_per_gib;
            if (!tmp.offloaded) plan->offloaded = NULL;
            rc = 0;
        }
    }
    free(ps);
    nd_layer_cache_free(cache);
    return rc;
}

void nd_priced_stages_free(nd_priced_stages *p)
{
    free(p->mem), free(p->tm), free(p->layers), free(p->off);
}

int nd_search_price_stages(const nd_search_config *cfg, const nd_ranked *r, nd_priced_stages *p, nd_error *err)
{
    int64_t pp = r->s.pp;
    memset(p, 0, sizeof *p);
    p->mem = calloc((size_t)pp, sizeof *p->mem);
    p->tm = calloc((size_t)pp, sizeof *p->tm);
    p->layers = calloc((size_t)pp, sizeof *p->layers);
    p->off = calloc((size_t)pp, sizeof *p->off);
    if (!p->mem || !p->tm || !p->layers || !p->off) return nd_error_set(err, ND_ENOMEM, "out of memory");
    p->plan = (nd_recompute_plan){0, p->layers, p->off, 0};
    bool has_plan = r->per_layer && !nd_search_plan(cfg, r, &p->plan);
    p->est.stage_memory = p->mem, p->est.stage_time = p->tm;
    if (nd_estimate_strategy(cfg->ctx, &r->s, NULL, has_plan ? &p->plan : NULL, &p->est, NULL))
        return nd_error_set(err, ND_ERUNTIME, "cannot price the strategy again");
    return ND_OK;
}

double nd_search_peak_halfwidth_mib(const nd_search_config *cfg, const nd_ranked *r)
{
    const nd_ratios *ratios = cfg->ctx->ratios;
    if (!ratios || !(ratios->memory_stated[ND_MEM_ACTIVATIONS] || ratios->memory_stated[ND_MEM_TRANSIENT]))
        return NAN;
    nd_priced_stages p;
    double half = NAN;
    if (!nd_search_price_stages(cfg, r, &p, NULL)) {
        /* The variance is of the raw MiB the ratios scale (as nd-compare's intervals). */
        const nd_stage_memory *m = &p.mem[p.est.peak_stage];
        double transient = m->working_mib + m->buffers_mib + m->allocator_mib;
        half = nd_ratios_peak_halfwidth_mib(ratios, m->activations_mib / ratios->memory[ND_MEM_ACTIVATIONS],
                                            transient / ratios->memory[ND_MEM_TRANSIENT], m->total_mib);
    }
    nd_priced_stages_free(&p);
    return half;
}
