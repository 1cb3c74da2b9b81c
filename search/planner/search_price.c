/*
 * search_price.c — pricing one candidate for the search, with the per-layer
 * recompute knapsack (-ar) and activation offload (-ao) when asked.
 */
#include "search_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/planner/knapsack.h"
#include "nd/costmodel/stage.h"
#include "nd/inputs/layout.h"
#include "nd/base/units.h"

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
    bool expandable = nd_train_expandable_segments(cfg->ctx->train);
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_layer_cost *l = &c->layer[k];
        kinds[k].layers = layers[k];
        for (int r = 0; r < ND_RECOMPUTE_MODES; r++) {
            bool barred = !(allowed & (1u << r));
            kinds[k].time_ms[r] = barred ? BARRED : mode_time_ms(cfg->ctx, l, (nd_recompute)r);
            /* the allocator rounds each kept tensor up to its block: half of 2 MiB on average
             * (nd_stage_memory_compute), which a stage of many small layers feels */
            double rounding = expandable ? 0 : l->activation_tensors[r] * ND_MIB;
            kinds[k].act_bytes[r] = barred ? BARRED : l->activation_bytes[r] + rounding;
            kinds[k].working_bytes[r] = barred ? BARRED : l->working_bytes[r];
        }
    }
}

/* Layers of each kind among the first k layers of the stage (they offload first). */
static void first_layers(const nd_model *m, const nd_stage_work *w, int64_t k, int64_t out[ND_LAYER_KINDS])
{
    for (int i = 0; i < ND_LAYER_KINDS; i++)
        out[i] = nd_model_count_kind(m, w->first_layer, k, (nd_layer_kind)i);
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

/* One stage's planning inputs, fixed for every offload count. */
typedef struct stage_plan {
    const nd_search_config *cfg;
    const nd_layer_cache_entry *c;
    const nd_stage_work *w;
    int64_t layers[ND_LAYER_KINDS], n;
    double budget, floor_working, host_b_per_ms, fwd_scale;
} stage_plan;

/* A plan with k of the stage's first layers offloaded: its time (INFINITY when the copies do
 * not hide or nothing fits), counts per kind and mode, and offloaded layers per kind. */
typedef struct offload_plan {
    double time;
    bool hides;
    int64_t counts[ND_LAYER_KINDS][ND_RECOMPUTE_MODES], off[ND_LAYER_KINDS];
} offload_plan;

static void plan_offload(const stage_plan *sp, int64_t k, offload_plan *out)
{
    const nd_context *ctx = sp->cfg->ctx;
    const nd_layer_cache_entry *c = sp->c;
    int64_t rest[ND_LAYER_KINDS];
    first_layers(ctx->model, sp->w, k, out->off);
    double in_transit = 0, off_time = 0, copy_ms = 0, fwd_ms = 0;
    for (int i = 0; i < ND_LAYER_KINDS; i++) {
        rest[i] = sp->layers[i] - out->off[i];
        if (!out->off[i]) continue;
        double bytes = c->layer[i].activation_bytes[ND_RECOMPUTE_OFF];
        in_transit = fmax(in_transit, bytes);
        copy_ms = fmax(copy_ms, bytes / sp->host_b_per_ms);
        /* ND's --sustained_tflops times the forward as FLOPs at that rate (not with -c) */
        double fwd = sp->cfg->space.sustained_tflops > 0 && !ctx->ratios
                         ? c->layer[i].model_flops / (sp->cfg->space.sustained_tflops * 1e9)
                         : c->layer[i].forward_ms * sp->fwd_scale;
        fwd_ms = fmax(fwd_ms, fwd);
        /* An offloaded layer runs as one kept without recompute, plus its copies' cost. */
        off_time += (double)out->off[i] * (mode_time_ms(ctx, &c->layer[i], ND_RECOMPUTE_OFF) +
                                           2.0 * bytes / ND_GIB * sp->cfg->space.host_cost_ms_per_gib);
    }
    out->time = INFINITY;
    out->hides = copies_hide(copy_ms, fwd_ms, sp->cfg->space.host_overlap, k, sp->n);
    if (!out->hides) return;
    nd_knapsack_kind kinds[ND_LAYER_KINDS];
    knapsack_kinds(sp->cfg, c, rest, kinds);
    double t;
    if (nd_knapsack_stage(kinds, sp->w->inflight, sp->budget - in_transit, sp->floor_working, out->counts,
                          &t) ||
        t >= BARRED)
        return;
    out->time = t + off_time;
}

/* Keeps p in best when it is faster (the smaller k on a tie). */
static void keep_faster(const offload_plan *p, int64_t k, offload_plan *best, int64_t *best_k)
{
    bool faster = p->time < best->time * (1 - 1e-12);
    bool tie_smaller = !faster && !(best->time < p->time * (1 - 1e-12)) && k < *best_k;
    if (isfinite(p->time) && (faster || tie_smaller)) {
        *best = *p;
        *best_k = k;
    }
}

/* The offload counts whose copies hide form a prefix [0, K] of each stretch where the kinds
 * offloaded stay the same (the copy time and the forward they hide in change only where a
 * second kind joins): the first count that does not hide, by bisection per stretch. */
static int64_t largest_hiding(const stage_plan *sp, int64_t switch_at)
{
    int64_t lo = 0, ends[2] = {switch_at - 1, sp->n};
    offload_plan p;
    for (int seg = 0; seg < 2; seg++) {
        int64_t hi = ends[seg];
        if (hi <= lo) continue;
        plan_offload(sp, hi, &p);
        if (p.hides) { /* the whole stretch hides: go on with the next */
            lo = hi;
            continue;
        }
        while (hi - lo > 1) { /* lo hides, hi does not */
            int64_t mid = lo + (hi - lo) / 2;
            plan_offload(sp, mid, &p);
            if (p.hides)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
    return lo;
}

/* The offload counts tried in [lo, hi], a stretch where the offloaded kinds stay the same.
 * Without a copy cost an offloaded layer costs what a kept one does and frees its memory,
 * so the time never rises with k: the fastest is at hi, and the smallest k as fast is found
 * by bisection (exact). With a copy cost every k is tried up to EXACT_OFFLOADS counts;
 * beyond, a grid of GRID_OFFLOADS counts and a search around the best halving its step. */
#define EXACT_OFFLOADS 128
#define GRID_OFFLOADS  64
static void search_stretch(const stage_plan *sp, int64_t lo, int64_t hi, offload_plan *best, int64_t *best_k)
{
    offload_plan p;
    if (hi < lo) return;
    if (hi - lo < EXACT_OFFLOADS) {
        for (int64_t k = lo; k <= hi; k++) {
            plan_offload(sp, k, &p);
            keep_faster(&p, k, best, best_k);
        }
        return;
    }
    if (sp->cfg->space.host_cost_ms_per_gib == 0) {
        offload_plan top;
        plan_offload(sp, hi, &top);
        if (!isfinite(top.time)) return;
        int64_t a = lo, b = hi; /* the smallest k in [a, b] as fast as hi: b is */
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
            plan_offload(sp, mid, &p);
            if (isfinite(p.time) && !(top.time < p.time * (1 - 1e-12)))
                b = mid;
            else
                a = mid + 1;
        }
        plan_offload(sp, a, &p);
        keep_faster(&p, a, best, best_k);
        return;
    }
    int64_t step = (hi - lo) / GRID_OFFLOADS, at = -1;
    double at_time = INFINITY;
    for (int64_t k = lo; k <= hi; k = k + step > hi && k < hi ? hi : k + step) {
        plan_offload(sp, k, &p);
        keep_faster(&p, k, best, best_k);
        if (p.time < at_time) {
            at_time = p.time;
            at = k;
        }
    }
    for (; at >= 0 && step >= 1; step /= 2)
        for (int dir = -1; dir <= 1; dir += 2)
            for (int64_t k = at + dir * step; k >= lo && k <= hi; k += dir * step) {
                plan_offload(sp, k, &p);
                keep_faster(&p, k, best, best_k);
                if (!(p.time < at_time * (1 - 1e-12))) break;
                at_time = p.time;
                at = k;
            }
}

/* Plans one stage within budget bytes for its layers: the knapsack on the layers not
 * offloaded, for the offload counts worth trying (docs/search.md, "Many layers"): a few
 * dozen knapsacks per stage, whatever the number of layers. */
static int plan_stage(const nd_search_config *cfg, const nd_layer_cache_entry *c, const nd_strategy *s,
                      const nd_stage_work *w, double budget, plan_storage *ps)
{
    const nd_context *ctx = cfg->ctx;
    const nd_device *d = ctx->device;
    stage_plan sp = {cfg, c, w, {0}, 0, budget, 0, 0, 1.0};
    sp.floor_working =
        fmax(w->first ? c->embedding.working_bytes[0] : 0, w->last ? c->head.working_bytes[0] : 0);
    for (int k = 0; k < ND_LAYER_KINDS; k++) sp.layers[k] = w->n[k][0] + w->n[k][1] + w->n[k][2];
    sp.n = sp.layers[0] + sp.layers[1];
    sp.host_b_per_ms = (cfg->space.host_gbps > 0 ? cfg->space.host_gbps : d->host_gbps) * 1e9 / 1e3;
    /* The copies hide in the forward; a ratios file calibrates its length (FORWARD, else COMPUTE). */
    if (ctx->ratios)
        sp.fwd_scale = ctx->ratios->stated[ND_RATIO_FORWARD] ? ctx->ratios->value[ND_RATIO_FORWARD]
                                                             : ctx->ratios->value[ND_RATIO_COMPUTE];
    offload_plan best = {INFINITY, false, {{0}}, {0}}, p;
    int64_t best_k = INT64_MAX;
    plan_offload(&sp, 0, &p);
    keep_faster(&p, 0, &best, &best_k);
    if (cfg->space.offload && s->vpp <= 1 && sp.n > 0) {
        /* where the second kind first appears among the stage's layers (n + 1: never) */
        nd_layer_kind first_kind = nd_model_layer_kind(ctx->model, w->first_layer);
        int64_t switch_at = sp.n + 1;
        for (int64_t i = 1; i < sp.n && switch_at > sp.n; i++)
            if (nd_model_layer_kind(ctx->model, w->first_layer + i) != first_kind) switch_at = i + 1;
        int64_t kmax = largest_hiding(&sp, switch_at);
        search_stretch(&sp, 1, kmax < switch_at - 1 ? kmax : switch_at - 1, &best, &best_k);
        search_stretch(&sp, switch_at, kmax, &best, &best_k);
    }
    if (!isfinite(best.time)) return -1;
    for (int i = 0; i < ND_LAYER_KINDS; i++) {
        memcpy(ps->layers[w->stage][i], best.counts[i], sizeof best.counts[i]);
        ps->layers[w->stage][i][ND_RECOMPUTE_OFF] += best.off[i];
        ps->offloaded[w->stage][i] = best.off[i];
    }
    return 0;
}

/* The bytes a stage's layers may hold: the budget less the static state, the runtime, the
 * buffers and what the allocator caches beside them (priced for the fully recomputed plan),
 * and the embedding's and head's activations. */
static double layers_budget(const nd_context *ctx, const nd_layer_cache_entry *c, const nd_stage_work *w,
                            const nd_stage_memory *mem)
{
    double ends_act =
        (w->first ? c->embedding.activation_bytes[0] : 0) + (w->last ? c->head.activation_bytes[0] : 0);
    double room_mib = ctx->budget_mib - mem->params_mib - mem->grads_mib - mem->optimizer_mib -
                      mem->context_mib - (mem->allocator_mib - mem->held_mib) - mem->buffers_mib;
    return room_mib * ND_MIB - w->inflight * ends_act;
}

static void fill_ranked(const nd_strategy *s, const nd_estimate *e, nd_ranked *r)
{
    memset(r, 0, sizeof *r);
    r->s = *s;
    memcpy(r->parts_ms, e->parts_ms, sizeof r->parts_ms);
    memcpy(r->raw_parts_ms, e->raw_parts_ms, sizeof r->raw_parts_ms);
    r->kernels_per_step = e->kernels_per_step;
    r->microbatch_slots = e->microbatch_slots;
    r->step_ms = e->step_ms;
    r->peak_mib = e->peak_firm_mib; /* what must fit: held buffers are given back */
    r->tokens_per_s_per_device = e->tokens_per_s_per_device;
    r->mfu = e->mfu;
}

/* Builds the per-layer plan of s from its fully recomputed memory, each stage's layers
 * allowed their budget less shrink_bytes[stage]. Returns 0 or -1. */
static int make_plan(const nd_search_config *cfg, nd_layer_cache *cache, const nd_strategy *full,
                     const nd_stage_memory *mem, const double *shrink_bytes, plan_storage *ps,
                     nd_recompute_plan *plan)
{
    nd_layer_inputs in = {cfg->ctx->model, cfg->ctx->train, cfg->ctx->device, cfg->ctx->train->seq_len};
    nd_layer_shape shape = {full->tp,  full->cp, full->ep, full->etp ? full->etp : full->tp,
                            full->mbs, full->sp};
    nd_layer_cache_entry scratch;
    const nd_layer_cache_entry *c = nd_layer_cache_get(cache, &in, &shape, &scratch);
    memset(ps->offloaded, 0, sizeof(ps->offloaded[0]) * (size_t)full->pp);
    for (int64_t i = 0; i < full->pp; i++) {
        nd_stage_work w;
        nd_stage_work_init(cfg->ctx, full, NULL, i, &w);
        double budget = layers_budget(cfg->ctx, c, &w, &mem[i]) - shrink_bytes[i];
        if (plan_stage(cfg, c, full, &w, budget, ps)) return -1;
    }
    plan->stages = full->pp;
    plan->layers = ps->layers;
    plan->offloaded = cfg->space.offload ? ps->offloaded : NULL;
    plan->copy_cost_ms_per_gib = cfg->space.host_cost_ms_per_gib;
    return 0;
}

/* The per-layer plan of s that fits, priced into *chosen. The knapsack counts each layer's
 * kept bytes; what grows beside them (the allocator's blocks and rounding) is only known once
 * the plan is priced, so a stage that comes out over the budget is planned again with its
 * overshoot (and a tenth more) taken off, up to PLAN_TRIES times. -1 when no plan fits: the
 * fully recomputed strategy, which fits, stands. */
#define PLAN_TRIES 6
/* The part of a stage's overshoot taken off again on top of it: a tenth, so that a second try
 * usually fits where the allocator's rounding grew the first. */
#define PLAN_OVERSHOOT_MARGIN 1.1
static int plan_that_fits(const nd_search_config *cfg, nd_layer_cache *cache, const nd_strategy *full,
                          const nd_stage_memory *mem, plan_storage *ps, nd_recompute_plan *plan,
                          nd_estimate *chosen)
{
    double shrink[ND_MAX_STAGES] = {0};
    nd_stage_memory got[ND_MAX_STAGES];
    for (int attempt = 0; attempt < PLAN_TRIES; attempt++) {
        if (make_plan(cfg, cache, full, mem, shrink, ps, plan)) return -1;
        memset(chosen, 0, sizeof *chosen);
        chosen->stage_memory = got;
        if (nd_estimate_strategy(cfg->ctx, full, cache, plan, chosen, NULL)) return -1;
        chosen->stage_memory = NULL;
        if (chosen->fits) return 0;
        for (int64_t i = 0; i < full->pp; i++)
            if (nd_stage_memory_firm_mib(&got[i]) > cfg->ctx->budget_mib)
                shrink[i] += PLAN_OVERSHOOT_MARGIN *
                             (nd_stage_memory_firm_mib(&got[i]) - cfg->ctx->budget_mib) * ND_MIB;
    }
    return -1;
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

/* ND's -mppb: the config's per-stage recompute counts, rescaled to s, as s's plan. */
static int price_layout(const nd_search_config *cfg, nd_layer_cache *cache, nd_strategy *s, nd_ranked *r,
                        double *peak_mib)
{
    int64_t layers[ND_MAX_STAGES][ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
    nd_recompute_plan plan = {s->pp, layers, NULL, 0};
    nd_layout_plan(cfg->ctx->model, cfg->space.layout, s, layers);
    nd_estimate est = {0};
    if (nd_estimate_strategy(cfg->ctx, s, cache, &plan, &est, NULL)) return 0;
    *peak_mib = est.peak_firm_mib;
    if (!est.fits) return 0;
    fill_ranked(s, &est, r);
    summarise_plan(&plan, r);
    *s = r->s;
    return 1;
}

int nd_search_price(const nd_search_config *cfg, nd_layer_cache *cache, nd_strategy *s, nd_ranked *r,
                    double *peak_mib)
{
    nd_estimate est = {0};
    if (cfg->space.layout) return price_layout(cfg, cache, s, r, peak_mib);
    if (!cfg->space.per_layer) {
        if (nd_estimate_strategy(cfg->ctx, s, cache, NULL, &est, NULL)) return 0;
        *peak_mib = est.peak_firm_mib;
        if (!est.fits) return 0;
        fill_ranked(s, &est, r);
        return 1;
    }
    nd_strategy full = *s;
    full.recompute = ND_RECOMPUTE_FULL;
    nd_stage_memory mem[ND_MAX_STAGES];
    est.stage_memory = mem;
    if (nd_estimate_strategy(cfg->ctx, &full, cache, NULL, &est, NULL)) return 0;
    est.stage_memory = NULL;
    *peak_mib = est.peak_firm_mib;
    if (!est.fits) return 0;
    plan_storage ps;
    nd_recompute_plan plan;
    nd_estimate chosen;
    if (plan_that_fits(cfg, cache, &full, mem, &ps, &plan, &chosen)) { /* every layer full */
        fill_ranked(&full, &est, r);
        *s = r->s;
        return 1;
    }
    fill_ranked(&full, &chosen, r);
    summarise_plan(&plan, r);
    *s = r->s;
    return 1;
}

int nd_search_plan(const nd_search_config *cfg, const nd_ranked *r, nd_recompute_plan *plan)
{
    if (!r->per_layer) return -1;
    if (cfg->space.layout) {
        if (nd_layout_plan(cfg->ctx->model, cfg->space.layout, &r->s, plan->layers)) return -1;
        plan->stages = r->s.pp;
        plan->offloaded = NULL;
        plan->copy_cost_ms_per_gib = 0;
        return 0;
    }
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
        nd_estimate chosen;
        if (!plan_that_fits(cfg, cache, &full, mem, ps, &tmp, &chosen)) {
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
    free(p->mem);
    free(p->tm);
    free(p->layers);
    free(p->off);
}

int nd_search_price_stages(const nd_search_config *cfg, const nd_ranked *r, nd_priced_stages *p,
                           nd_error *err)
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
    p->est.stage_memory = p->mem;
    p->est.stage_time = p->tm;
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
