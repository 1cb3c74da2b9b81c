/*
 * layout.c — ND's -mppb: the per-stage layers and recompute counts a framework config
 * states (MindFormers' offset and recompute lists, MindSpeed's pipeline_num_layers and
 * recompute_num_layers, Megatron's block recompute, HyperParallel's offset, full_rec and
 * sel_rec) applied to a strategy: the stage layers as FIRST/LAST, the counts as a
 * per-stage recompute plan, rescaled when the strategy's PP is not the config's.
 */
#include "nd/inputs/layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/stage.h"

bool nd_layout_stated(const nd_run_layout *L)
{
    return L->has_layers || L->has_recompute || L->has_selective;
}

/* The layers of each of the config's stages: its own, else the even split. */
static int64_t config_stage_layers(const nd_run_layout *L, int64_t layers, int64_t stage)
{
    int64_t stages = L->stages > 0 ? L->stages : 1;
    return L->has_layers ? L->layers[stage] : layers / stages;
}

/* "9,8,8,7" (-1 = "all"), cut short with "..." past the buffer. */
static void list_text(const int64_t *v, int64_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t i = 0; i < n && used + 24 < size; i++) {
        if (v[i] < 0)
            used += (size_t)snprintf(buf + used, size - used, "%sall", i ? "," : "");
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "", (long long)v[i]);
    }
    if (used + 24 >= size && size > 4) snprintf(buf + size - 4, 4, "...");
}

int nd_layout_strategy(nd_run *run, char *note, size_t size)
{
    const nd_run_layout *L = &run->layout;
    nd_strategy *s = &run->strategy;
    note[0] = '\0';
    if (!nd_layout_stated(L) && s->layout) { /* the layers per stage its layout states, bound already */
        snprintf(note, size,
                 "-mppb: %s: the layers per stage its pipeline layout states, no recompute counts",
                 run->source);
        return 0;
    }
    if (!nd_layout_stated(L)) {
        snprintf(note, size, "-mppb: %s states no per-stage layers or recompute: nothing to apply",
                 run->source);
        return 0;
    }
    int64_t pp = s->pp, n = L->stages > 0 ? L->stages : 1;
    char layers[64] = "", full[64] = "", sel[64] = "";
    int set = 0;
    if (L->has_layers && L->stages == pp && pp >= 2) {
        int64_t first = L->layers[0], last = L->layers[pp - 1], middle = pp > 2 ? L->layers[1] : first;
        bool equal = true;
        for (int64_t i = 1; i < pp - 1; i++) equal &= L->layers[i] == middle;
        list_text(L->layers, pp, layers, sizeof layers);
        if (equal && s->vpp == 1 && middle > 0) {
            bool even = first == middle && last == middle;
            s->first_stage_layers = even ? 0 : first;
            s->last_stage_layers = even ? 0 : last;
            set = 1;
        }
    }
    if (L->has_recompute) list_text(L->recompute, n, full, sizeof full);
    if (L->has_selective) list_text(L->selective, n, sel, sizeof sel);
    snprintf(note, size, "-mppb: %s%s%s%s%s%s%s%s", layers[0] ? "layers per stage " : "", layers,
             layers[0] && !set ? " (not a first and a last stage around equal ones: split evenly)" : "",
             full[0] ? (layers[0] ? "; " : "") : "", full[0] ? "full recompute per stage " : "", full,
             sel[0] ? (layers[0] || full[0] ? "; selective per stage " : "selective per stage ") : "", sel);
    if (full[0] || sel[0]) {
        size_t used = strlen(note);
        snprintf(note + used, size - used, " (the first layers of each stage%s)",
                 L->stages > 1 ? "; at another PP, the same share" : "");
    }
    return set;
}

/* Count k of the config's stage c, for a stage of n layers: as stated when the PPs match,
 * else the same share of the stage (ND rescales the lists to each PP). -1 = every layer. */
static int64_t stage_count(const nd_run_layout *L, const int64_t *counts, int64_t layers, int64_t pp,
                           int64_t stage, int64_t n)
{
    int64_t stages = L->stages > 0 ? L->stages : 0;
    int64_t k;
    if (stages == 0 || stages == 1) {
        k = counts[0]; /* one count for every stage (Megatron's block, a bare int) */
    } else if (stages == pp) {
        k = counts[stage];
    } else {
        int64_t c = stage * stages / pp;
        int64_t of = config_stage_layers(L, layers, c);
        k = counts[c] < 0 || of <= 0 ? -1 : (int64_t)llround((double)counts[c] * (double)n / (double)of);
    }
    return k < 0 || k > n ? n : k;
}

int nd_layout_plan(const nd_model *m, const nd_run_layout *L, const nd_strategy *s,
                   int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES])
{
    if (!L->has_recompute && !L->has_selective) return -1;
    if (s->pp < 1 || s->pp > ND_MAX_STAGES) return -1;
    for (int64_t st = 0; st < s->pp; st++) {
        int64_t first, n;
        nd_strategy_stage_layers(s, m->layers, st, &first, &n);
        int64_t full = L->has_recompute ? stage_count(L, L->recompute, m->layers, s->pp, st, n) : 0;
        int64_t sel = L->has_selective ? stage_count(L, L->selective, m->layers, s->pp, st, n) : 0;
        if (sel < full) sel = full;
        memset(layers[st], 0, sizeof layers[st]);
        for (int64_t j = 0; j < n; j++) {
            nd_recompute mode = j < full  ? ND_RECOMPUTE_FULL
                                : j < sel ? ND_RECOMPUTE_SELECTIVE
                                          : ND_RECOMPUTE_OFF;
            layers[st][nd_model_layer_kind(m, first + j)][mode]++;
        }
    }
    return 0;
}

int nd_layout_partial_note(const nd_run *run, char *note, size_t size)
{
    const nd_run_layout *L = &run->layout;
    const nd_strategy *s = &run->strategy;
    nd_recompute mode = s->recompute;
    note[0] = '\0';
    if (mode == ND_RECOMPUTE_OFF || !(mode == ND_RECOMPUTE_FULL ? L->has_recompute : L->has_selective))
        return 0;
    int64_t(*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = calloc(ND_MAX_STAGES, sizeof *layers);
    if (!layers) return 0;
    int64_t stage = -1, in_mode = 0, all = 0;
    if (!nd_layout_plan(&run->model, L, s, layers))
        for (int64_t st = 0; st < s->pp && stage < 0; st++) {
            in_mode = all = 0;
            for (int k = 0; k < ND_LAYER_KINDS; k++) {
                in_mode += layers[st][k][mode];
                for (int r = 0; r < ND_RECOMPUTE_MODES; r++) all += layers[st][k][r];
            }
            if (in_mode < all) stage = st;
        }
    free(layers);
    if (stage < 0) return 0;
    char counts[64];
    list_text(mode == ND_RECOMPUTE_FULL ? L->recompute : L->selective, L->stages > 0 ? L->stages : 1, counts,
              sizeof counts);
    snprintf(
        note, size,
        "%s: its %s recompute counts (%s a stage) leave layers out (stage %lld: %lld of %lld): priced as "
        "%s recompute on every layer; -mppb prices the counts",
        run->source, nd_recompute_name(mode), counts, (long long)stage, (long long)in_mode, (long long)all,
        nd_recompute_name(mode));
    return 1;
}

int nd_plan_from_run(const nd_run *run, const nd_strategy *s, nd_recompute_plan *plan, nd_error *err)
{
    const nd_run_plan *p = &run->plan;
    if (p->stages != s->pp)
        return nd_error_set(err, ND_EINPUT, "%s: recompute_plan has %lld stages but PP=%lld", run->source,
                            (long long)p->stages, (long long)s->pp);
    nd_context ctx;
    nd_device dummy = {0};
    nd_context_init(&ctx, &run->model, &run->train, &dummy, 1, 1, NULL);
    for (int64_t i = 0; i < s->pp; i++) {
        nd_stage_work w;
        nd_stage_work_init(&ctx, s, NULL, i, &w);
        for (int k = 0; k < ND_LAYER_KINDS; k++) {
            int64_t want = w.n[k][0] + w.n[k][1] + w.n[k][2];
            int64_t got = p->layers[i][k][0] + p->layers[i][k][1] + p->layers[i][k][2];
            if (want != got || p->offloaded[i][k] > p->layers[i][k][ND_RECOMPUTE_OFF])
                return nd_error_set(
                    err, ND_EINPUT,
                    "%s: recompute_plan stage %lld: %lld %s layers planned, the stage has %lld "
                    "(offloaded layers must run without recompute)",
                    run->source, (long long)i, (long long)got, nd_layer_kind_name((nd_layer_kind)k),
                    (long long)want);
        }
    }
    plan->stages = p->stages;
    plan->layers = (int64_t(*)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES])p->layers;
    plan->offloaded = (int64_t(*)[ND_LAYER_KINDS])p->offloaded;
    plan->copy_cost_ms_per_gib = p->copy_cost_ms_per_gib;
    return ND_OK;
}
