/*
 * stage_layers.c — which layers a stage runs, in order, and which recompute mode a
 * per-layer plan gives each of them. A plan stores counts per stage, kind and mode;
 * the order below turns the counts into layers for best.yaml and the potentials.
 */
#include "nd/costmodel/stage.h"

#include "nd/costmodel/split.h"

int64_t nd_stage_layer_count(const nd_context *ctx, const nd_stage_work *w)
{
    return w->layers + (w->last ? ctx->model->mtp_layers : 0);
}

int64_t nd_stage_layer_at(const nd_context *ctx, const nd_strategy *s, const nd_stage_work *w, int64_t j)
{
    const nd_model *m = ctx->model;
    if (j >= w->layers) return m->layers + (j - w->layers); /* MTP layers follow the body */
    nd_held_chunks h;
    nd_stage_held_chunks(s, w->stage, &h);
    for (int i = 0; i < h.n; i++) {
        int64_t first, count;
        nd_split_chunk(s, m->layers, h.v[i] % s->pp, h.v[i] / s->pp, &first, &count);
        if (j < count) return first + j;
        j -= count;
    }
    return -1;
}

nd_recompute nd_plan_layer_mode(const nd_recompute_plan *plan, int64_t stage, nd_layer_kind kind, int64_t pos,
                                bool *offloaded)
{
    const int64_t *n = plan->layers[stage][kind];
    int64_t off_host = plan->offloaded ? plan->offloaded[stage][kind] : 0;
    if (offloaded) *offloaded = pos < off_host;
    if (pos < off_host) return ND_RECOMPUTE_OFF;
    pos -= off_host;
    if (pos < n[ND_RECOMPUTE_SELECTIVE]) return ND_RECOMPUTE_SELECTIVE;
    pos -= n[ND_RECOMPUTE_SELECTIVE];
    return pos < n[ND_RECOMPUTE_FULL] ? ND_RECOMPUTE_FULL : ND_RECOMPUTE_OFF;
}

int64_t nd_plan_layer_index(const nd_context *ctx, const nd_strategy *s, int64_t stage, nd_layer_kind kind,
                            int64_t pos)
{
    nd_stage_work w;
    nd_stage_work_init(ctx, s, NULL, stage, &w);
    int64_t count = nd_stage_layer_count(ctx, &w);
    for (int64_t j = 0, seen = 0; j < count; j++) {
        int64_t i = nd_stage_layer_at(ctx, s, &w, j);
        if (nd_model_layer_kind(ctx->model, i) == kind && seen++ == pos) return i;
    }
    return -1;
}

void nd_plan_each_layer(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                        nd_plan_layer_fn fn, void *arg)
{
    for (int64_t st = 0; st < s->pp; st++) {
        nd_stage_work w;
        nd_stage_work_init(ctx, s, NULL, st, &w);
        int64_t seen[ND_LAYER_KINDS] = {0}, count = nd_stage_layer_count(ctx, &w);
        for (int64_t j = 0; j < count; j++) {
            int64_t i = nd_stage_layer_at(ctx, s, &w, j);
            nd_layer_kind k = nd_model_layer_kind(ctx->model, i);
            fn(arg, i, nd_plan_layer_mode(plan, st, k, seen[k]++, NULL));
        }
    }
}
