/*
 * search.c — the strategy search: enumeration, pruning, threads, ranking.
 *
 * Loop order (outer to inner): MP, PP, CP (DP follows), EP, VPP, SP, recompute
 * mode, MBS ascending, OP descending. Memory never falls as MBS grows (activations
 * in flight are MBS x min(MB, stages ahead) = min(batch/DP, MBS x stages ahead)) and
 * never rises as OP grows, so when the most sharded OP does not fit at some MBS,
 * no larger MBS fits either: the rest of that sub-space is counted, not priced.
 */
#include "search_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nd/base/io.h"
#include "nd/base/progress.h"
#include "nd/base/text.h"

int nd_search_dim_from_name(const char *name)
{
    int d = nd_dim_from_name(name);
    return d < ND_DIMS_SEARCHED ? d : -1;
}

void nd_search_space_init(nd_search_space *sp, const nd_train *train)
{
    memset(sp, 0, sizeof *sp);
    sp->vary = ND_DIM_BIT(ND_DIMS_SEARCHED) - 1;
    sp->modes[0] = train->recompute;
    sp->n_modes = 1;
    sp->host_overlap = 0.8;
    sp->max_vpp = 0;
    sp->schedules = nd_framework_profile_of(train->framework)->schedules | 1u << train->schedule;
}

/* ---- the total order of the ranking --------------------------------------- */

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

/* Orders strategies by their degrees and recompute mode. */
static int strategy_compare(const nd_strategy *x, const nd_strategy *y)
{
    int c;
    if ((c = cmp_i64(x->dp, y->dp)) || (c = cmp_i64(x->tp, y->tp)) || (c = cmp_i64(x->pp, y->pp)) ||
        (c = cmp_i64(x->cp, y->cp)) || (c = cmp_i64(x->ep, y->ep)) || (c = cmp_i64(x->op, y->op)) ||
        (c = cmp_i64(x->vpp, y->vpp)) || (c = cmp_i64(x->mbs, y->mbs)) || (c = cmp_i64(x->sp, y->sp)) ||
        (c = cmp_i64(x->schedule, y->schedule)) ||
        (c = cmp_i64(x->first_stage_layers, y->first_stage_layers)) ||
        (c = cmp_i64(x->last_stage_layers, y->last_stage_layers)) ||
        (c = cmp_i64(x->embedding_in_split, y->embedding_in_split)))
        return c;
    return cmp_i64(x->recompute, y->recompute);
}

/* Whether (peak_a, a) needs less memory than (peak_b, b), ties broken by the degrees,
 * so the strategy quoted as needing the least does not depend on -j. */
static bool less_memory(double peak_a, const nd_strategy *a, double peak_b, const nd_strategy *b)
{
    if (peak_a != peak_b) return peak_a < peak_b;
    return isfinite(peak_a) && strategy_compare(a, b) < 0;
}

int nd_ranked_compare(const nd_ranked *a, const nd_ranked *b)
{
    if (a->step_ms != b->step_ms) return a->step_ms < b->step_ms ? -1 : 1;
    int c;
    if ((c = strategy_compare(&a->s, &b->s)) || (c = cmp_i64(a->per_layer, b->per_layer))) return c;
    if (a->peak_mib != b->peak_mib) return a->peak_mib < b->peak_mib ? -1 : 1;
    return cmp_i64(a->offloaded_layers, b->offloaded_layers);
}

static int ranked_qsort(const void *a, const void *b)
{
    return nd_ranked_compare(a, b);
}

/* ---- per-thread work ------------------------------------------------------ */

typedef struct outer_item {
    int64_t tp, pp, cp;
} outer_item;

/* The work a thread takes at once: the layouts [first, end) of one (MP, CP). A layer's
 * costs depend on MP and CP but not on PP, so one thread prices each sharding once, in
 * its own layer cache (threads taking layouts one by one priced 60 % of them twice). */
typedef struct layout_group {
    size_t first, end;
} layout_group;

typedef struct worker {
    const nd_search_config *cfg;
    const outer_item *items;
    const layout_group *groups;
    size_t n_groups;
    atomic_size_t *next; /* shared: the next group to take */
    atomic_size_t *done; /* shared: layouts finished */
    nd_layer_cache *cache;
    nd_ranked *kept;
    size_t count, cap;
    nd_search_stats st;
    int oom;
    nd_progress *progress; /* shared: drawn by whichever thread holds `drawing` */
    atomic_flag *drawing;
} worker;

static int keep(worker *w, const nd_ranked *r)
{
    size_t limit = w->cfg->keep;
    if (limit && w->count == limit) {
        /* Bounded: replace the worst kept when r ranks before it. */
        size_t worst = 0;
        for (size_t i = 1; i < w->count; i++)
            if (nd_ranked_compare(&w->kept[i], &w->kept[worst]) > 0) worst = i;
        if (nd_ranked_compare(r, &w->kept[worst]) < 0) w->kept[worst] = *r;
        return 0;
    }
    if (w->count == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        nd_ranked *k = realloc(w->kept, cap * sizeof *k);
        if (!k) return -1;
        w->kept = k;
        w->cap = cap;
    }
    w->kept[w->count++] = *r;
    return 0;
}

static void note_peak(worker *w, double peak, const nd_strategy *s)
{
    if (less_memory(peak, s, w->st.min_peak_mib, &w->st.min_peak)) {
        w->st.min_peak_mib = peak;
        w->st.min_peak = *s;
    }
}

static double elapsed_s(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Any thread may draw, one at a time: a thread stuck on a large layout does not hold the
 * line back, and a thread finding another drawing simply goes on. */
static void progress(worker *w)
{
    if (atomic_flag_test_and_set(w->drawing)) return;
    nd_progress_update(w->progress, (double)atomic_load(w->done));
    atomic_flag_clear(w->drawing);
}

/* Candidates for one (MP, PP, CP, EP, VPP, SP, mode) prefix: MBS ascending, OP descending. */
static int inner(worker *w, nd_strategy base)
{
    const nd_search_config *cfg = w->cfg;
    nd_values mbs, op;
    int64_t dp = base.dp, gbs = cfg->global_batch;
    nd_search_divisors(cfg, ND_DIM_MBS, gbs / dp, gbs / dp, &mbs);
    nd_search_divisors(cfg, ND_DIM_OP, dp * base.cp, dp * base.cp, &op);
    bool over = false; /* a smaller MBS already failed at full sharding */
    for (int i = 0; i < mbs.n; i++) {
        int64_t mb = gbs / (dp * mbs.v[i]);
        for (int j = op.n - 1; j >= 0; j--) {
            nd_strategy s = base;
            s.mbs = mbs.v[i];
            s.mb = mb;
            s.op = op.v[j];
            w->st.enumerated++;
            if (!nd_search_allowed(cfg, ND_DIM_MB, mb)) {
                w->st.refused[ND_REFUSE_LIST]++;
                continue;
            }
            int reason = nd_search_check(cfg, &s);
            if (reason >= 0) {
                w->st.refused[reason]++;
                continue;
            }
            if (over) {
                w->st.dropped_memory++;
                w->st.bounded++;
                continue;
            }
            nd_ranked r;
            double peak = INFINITY;
            w->st.priced++;
            if (nd_search_price(cfg, w->cache, &s, &r, &peak)) {
                w->st.fitting++;
                note_peak(w, peak, &s);
                if (keep(w, &r)) return -1;
            } else {
                w->st.dropped_memory++;
                note_peak(w, peak, &s);
                /* Memory only grows from here on (larger MBS, less sharding). */
                if (j == op.n - 1) over = true;
            }
        }
    }
    return 0;
}

static int outer(worker *w, const outer_item *it)
{
    const nd_search_config *cfg = w->cfg;
    const nd_model *m = cfg->ctx->model;
    int64_t dp = cfg->ctx->devices / (it->tp * it->pp * it->cp);
    if (!nd_search_allowed(cfg, ND_DIM_DP, dp)) {
        w->st.enumerated++;
        w->st.refused[ND_REFUSE_LIST]++;
        return 0;
    }
    if (cfg->global_batch % dp) {
        w->st.enumerated++;
        w->st.refused[ND_REFUSE_BATCH]++;
        return 0;
    }
    nd_values ep;
    if (m->experts)
        nd_search_divisors(cfg, ND_DIM_EP, m->experts, m->experts, &ep);
    else {
        ep.n = 1;
        ep.v[0] = 1;
    }
    nd_pipeline_choice pipes[ND_SEARCH_MAX_PIPELINES];
    int n_pipes = nd_search_pipelines(cfg, it->pp, pipes, ND_SEARCH_MAX_PIPELINES);
    if (!n_pipes) {
        w->st.enumerated++;
        w->st.refused[ND_REFUSE_LAYERS]++;
        return 0;
    }
    for (int e = 0; e < ep.n; e++)
        for (int v = 0; v < n_pipes; v++)
            for (int sp = 0; sp <= (it->tp > 1 ? 1 : 0); sp++) {
                /* Without MP, SP means nothing: the run's SP then does not restrict. */
                if (it->tp > 1 && !nd_search_allowed(cfg, ND_DIM_SP, sp)) continue;
                for (int mode = 0; mode < cfg->space.n_modes; mode++) {
                    nd_strategy s = cfg->base;
                    s.tp = it->tp;
                    s.pp = it->pp;
                    s.cp = it->cp;
                    s.dp = dp;
                    s.ep = ep.v[e];
                    nd_pipeline_choice_apply(&pipes[v], &s);
                    s.sp = sp;
                    s.recompute = cfg->space.modes[mode];
                    s.etp = cfg->base.etp;
                    if (inner(w, s)) return -1;
                }
            }
    return 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    for (;;) {
        size_t g = atomic_fetch_add(w->next, 1);
        if (g >= w->n_groups) break;
        for (size_t i = w->groups[g].first; i < w->groups[g].end; i++) {
            if (outer(w, &w->items[i])) {
                w->oom = 1;
                return NULL;
            }
            atomic_fetch_add(w->done, 1);
            progress(w);
        }
    }
    return NULL;
}

/* The (MP, PP, CP) layouts: every divisor chain of the device count within the bounds. */
static outer_item *layouts(const nd_search_config *cfg, size_t *n)
{
    const nd_model *m = cfg->ctx->model;
    int64_t N = cfg->ctx->devices;
    size_t cap = 64, count = 0;
    outer_item *items = malloc(cap * sizeof *items);
    if (!items) return NULL;
    nd_values tp, pp, cp;
    nd_search_divisors(cfg, ND_DIM_MP, N, m->heads, &tp);
    for (int a = 0; a < tp.n; a++) {
        nd_search_divisors(cfg, ND_DIM_PP, N / tp.v[a], m->layers < ND_MAX_STAGES ? m->layers : ND_MAX_STAGES,
                           &pp);
        for (int b = 0; b < pp.n; b++) {
            nd_search_divisors(cfg, ND_DIM_CP, N / tp.v[a] / pp.v[b], cfg->ctx->train->seq_len / 2, &cp);
            for (int c = 0; c < cp.n; c++) {
                if (nd_strategy_check_cp_heads(tp.v[a], cp.v[c], m, cfg->ctx->train, NULL)) continue;
                if (count == cap) {
                    outer_item *more = realloc(items, 2 * cap * sizeof *items);
                    if (!more) {
                        free(items);
                        return NULL;
                    }
                    items = more;
                    cap *= 2;
                }
                items[count++] = (outer_item){tp.v[a], pp.v[b], cp.v[c]};
            }
        }
    }
    *n = count;
    return items;
}

static int by_mp_cp_pp(const void *a, const void *b)
{
    const outer_item *x = a, *y = b;
    int c;
    if ((c = cmp_i64(x->tp, y->tp)) || (c = cmp_i64(x->cp, y->cp))) return c;
    return cmp_i64(x->pp, y->pp);
}

/* Sorts the layouts by (MP, CP, PP) and returns the runs of one (MP, CP); NULL: no memory. */
static layout_group *group_layouts(outer_item *items, size_t n_items, size_t *n_groups)
{
    qsort(items, n_items, sizeof *items, by_mp_cp_pp);
    layout_group *groups = malloc((n_items ? n_items : 1) * sizeof *groups);
    if (!groups) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < n_items; i++) {
        if (n && items[i].tp == items[i - 1].tp && items[i].cp == items[i - 1].cp)
            groups[n - 1].end = i + 1;
        else
            groups[n++] = (layout_group){i, i + 1};
    }
    *n_groups = n;
    return groups;
}

static void merge_stats(nd_search_stats *into, const nd_search_stats *from)
{
    into->enumerated += from->enumerated;
    for (int r = 0; r < ND_REFUSE_REASONS; r++) into->refused[r] += from->refused[r];
    into->priced += from->priced;
    into->dropped_memory += from->dropped_memory;
    into->bounded += from->bounded;
    into->fitting += from->fitting;
    if (less_memory(from->min_peak_mib, &from->min_peak, into->min_peak_mib, &into->min_peak)) {
        into->min_peak_mib = from->min_peak_mib;
        into->min_peak = from->min_peak;
    }
}

static int gather(worker *ws, int threads, const nd_search_config *cfg, nd_search_result *out, nd_error *err)
{
    size_t total = 0;
    for (int t = 0; t < threads; t++) total += ws[t].count;
    out->items = malloc((total ? total : 1) * sizeof *out->items);
    if (!out->items) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int t = 0; t < threads; t++) {
        if (ws[t].count) /* kept is NULL for a worker that kept nothing */
            memcpy(out->items + out->count, ws[t].kept, ws[t].count * sizeof *out->items);
        out->count += ws[t].count;
        merge_stats(&out->stats, &ws[t].st);
    }
    qsort(out->items, out->count, sizeof *out->items, ranked_qsort);
    if (cfg->keep && out->count > cfg->keep) out->count = cfg->keep;
    return ND_OK;
}

int nd_search_run(const nd_search_config *cfg, nd_search_result *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    out->stats.min_peak_mib = INFINITY;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n_items = 0;
    size_t n_groups = 0;
    outer_item *items = layouts(cfg, &n_items);
    layout_group *groups = items ? group_layouts(items, n_items, &n_groups) : NULL;
    if (!groups) {
        free(items);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int threads = cfg->threads > 0 ? cfg->threads : 1;
    worker *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    atomic_size_t next = 0, done = 0;
    atomic_flag drawing = ATOMIC_FLAG_INIT;
    nd_progress bar;
    nd_progress_begin(&bar, cfg->progress, "nd-search: pricing", "MP x PP x CP layouts", (double)n_items);
    int rc = (!ws || !ids) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    for (int t = 0; !rc && t < threads; t++) {
        ws[t] = (worker){.cfg = cfg,
                         .items = items,
                         .groups = groups,
                         .n_groups = n_groups,
                         .next = &next,
                         .done = &done,
                         .cache = nd_layer_cache_alloc(),
                         .progress = &bar,
                         .drawing = &drawing};
        ws[t].st.min_peak_mib = INFINITY;
        if (!ws[t].cache) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int started = 0;
    sigset_t old_mask; /* workers leave the run's signals to this thread (io.h) */
    nd_signals_block(&old_mask);
    for (int t = 1; !rc && t < threads; t++, started++)
        if (pthread_create(&ids[t], NULL, work, &ws[t])) break;
    nd_signals_restore(&old_mask);
    if (!rc) work(&ws[0]);
    for (int t = 1; t <= started; t++) pthread_join(ids[t], NULL);
    nd_progress_end(&bar);
    for (int t = 0; !rc && t < threads; t++)
        if (ws[t].oom) rc = nd_error_set(err, ND_ENOMEM, "out of memory keeping the ranking (use -t)");
    if (!rc) rc = gather(ws, threads, cfg, out, err);
    for (int t = 0; ws && t < threads; t++) {
        free(ws[t].kept);
        nd_layer_cache_free(ws[t].cache);
    }
    free(ws);
    free(ids);
    free(groups);
    free(items);
    out->stats.seconds = elapsed_s(&t0);
    if (!rc && out->stats.priced == 0) rc = nd_search_explain_none(cfg, &out->stats, err);
    if (rc) nd_search_result_free(out);
    return rc;
}

void nd_search_result_free(nd_search_result *r)
{
    free(r->items);
    r->items = NULL;
    r->count = 0;
}
