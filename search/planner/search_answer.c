/*
 * search_answer.c — what nd-search answers, as a planner acts on it: the ranking folded into
 * distinct choices (rows that differ only in OP are one choice, and rows that differ only in
 * VPP within ND_FOLD_STEP_SHARE of each other), each with its interval, odds and whether it
 * can be told apart from #1; each row's plan in words; and what the answer assumed
 * (calibration, the switches that decide it, the memory margin, what nd cannot represent, what
 * the round never exercised).
 */
#include "nd/planner/search_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/array.h"
#include "nd/base/units.h"

/* ---- folding ---------------------------------------------------------------------------- */

/* Whether two rows are one layout but for the knobs that tune it without changing how the
 * devices are split: OP (and the ZERO that follows it), and with `vpp` also VPP (and the
 * schedule and split that follow it). Every other dimension (formats.h's table, so a dimension
 * added there counts), the recompute mode and its per-layer choice must agree. A row's layout
 * is its key: those values in order, so comparing keys is a total order. */
#define LAYOUT_KEY_MAX (ND_DIMS + 2)

typedef struct sort_row {
    const nd_ranked *row;
    size_t rank; /* 0-based */
    int64_t key[LAYOUT_KEY_MAX];
    int keys;
} sort_row;

/* The key of a row, made once before sorting (the comparator runs n log n times). */
static void layout_key(sort_row *r, bool vpp)
{
    r->keys = 0;
    for (int d = 0; d < ND_DIMS; d++) {
        if (d == ND_DIM_OP || d == ND_DIM_ZERO || (vpp && d == ND_DIM_VPP)) continue;
        r->key[r->keys++] = nd_strategy_dim(&r->row->s, (nd_dim)d);
    }
    r->key[r->keys++] = r->row->s.recompute;
    r->key[r->keys++] = r->row->per_layer;
}

static int layout_compare(const sort_row *a, const sort_row *b)
{
    for (int i = 0; i < a->keys; i++)
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i] ? -1 : 1;
    return 0;
}

static int sort_rows(const void *pa, const void *pb)
{
    const sort_row *a = pa, *b = pb;
    int c = layout_compare(a, b);
    if (c) return c;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* One pass: rows[0..m-1] (shown rows so far) sorted by layout; within one layout, a row folds
 * into the layout's last shown row when `any` or when its step is within the share of that
 * row's; folded_into[i] then names that row (1-based), else i stays shown. */
static void fold_pass(const nd_search_result *res, sort_row *rows, size_t m, bool vpp, bool any,
                      size_t *folded_into)
{
    for (size_t k = 0; k < m; k++) layout_key(&rows[k], vpp);
    qsort(rows, m, sizeof *rows, sort_rows);
    size_t shown = 0;
    for (size_t k = 0; k < m; k++) {
        size_t i = rows[k].rank;
        bool same = k > 0 && layout_compare(&rows[k - 1], &rows[k]) == 0;
        if (same && (any || res->items[i].step_ms <= res->items[shown].step_ms * (1 + ND_FOLD_STEP_SHARE)))
            folded_into[i] = shown + 1;
        else
            shown = i;
    }
}

/* folded_into[i]: the 1-based rank of the row row i folds into (0: shown). Rows that differ
 * only in OP are one choice whatever their steps: the fastest is shown, the others run the same
 * split of the devices more slowly. Then shown rows that differ only in VPP fold when within
 * ND_FOLD_STEP_SHARE of the one they fold into (VPP changes the schedule: a larger gap is
 * another choice). A row folded into a row that folds in turn names the last one. */
static int fold_rows(const nd_search_result *res, size_t *folded_into)
{
    size_t n = res->count, m = 0;
    sort_row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return -1;
    for (size_t i = 0; i < n; i++) {
        rows[i] = (sort_row){.row = &res->items[i], .rank = i};
        folded_into[i] = 0;
    }
    fold_pass(res, rows, n, false, true, folded_into);
    for (size_t i = 0; i < n; i++)
        if (!folded_into[i]) rows[m++] = (sort_row){.row = &res->items[i], .rank = i};
    fold_pass(res, rows, m, true, false, folded_into);
    for (size_t i = 0; i < n; i++) /* a representative folds before its rows: rank order */
        if (folded_into[i] && folded_into[folded_into[i] - 1])
            folded_into[i] = folded_into[folded_into[i] - 1];
    free(rows);
    return 0;
}

/* ---- intervals and odds ----------------------------------------------------------------- */

static bool fitted_interval(const nd_search_config *cfg)
{
    return cfg->ctx->ratios && cfg->ctx->ratios->time.terms > 0;
}

static void interval_of(const nd_search_config *cfg, const nd_ranked *r, double *lo, double *hi)
{
    double half = r->step_ms * ND_UNCALIBRATED_STEP_ERROR;
    if (fitted_interval(cfg)) {
        double h = nd_ratios_step_halfwidth_ms(cfg->ctx->ratios, &r->s, r->raw_parts_ms, r->kernels_per_step,
                                               r->microbatch_slots, r->step_ms);
        if (isfinite(h)) half = h;
    }
    *lo = fmax(0, r->step_ms - half); /* a step is never shorter than 0, whatever the spread says */
    *hi = r->step_ms + half;
}

/* The odds of the choices (with a fitted interval): P(fastest), P(faster than #1), ties. */
static int choices_odds(const nd_search_config *cfg, const nd_search_result *res, nd_search_answer *a,
                        nd_error *err)
{
    size_t n = a->count < ND_ODDS_MAX ? a->count : ND_ODDS_MAX, index[ND_ODDS_MAX];
    for (size_t j = 0; j < n; j++) index[j] = a->choices[j].index;
    nd_search_odds odds;
    int rc = nd_search_odds_of(cfg, res, index, n, &odds, err);
    if (rc || !odds.count) return rc;
    a->draws = odds.draws;
    for (size_t j = 0; j < odds.count; j++) {
        a->choices[j].p_fastest = odds.p_fastest[j];
        a->choices[j].p_faster = odds.p_faster_than_best[j];
        a->choices[j].tied = odds.tied[j];
    }
    return ND_OK;
}

void nd_search_answer_free(nd_search_answer *a)
{
    free(a->choices);
    free(a->layout);
    free(a->folded_into);
    memset(a, 0, sizeof *a);
}

int nd_search_answer_build(const nd_search_config *cfg, const nd_search_result *res, size_t top,
                           nd_search_answer *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = res->count;
    out->interval = fitted_interval(cfg) ? ND_INTERVAL_FITTED : ND_INTERVAL_UNCALIBRATED;
    if (!n) return ND_OK;
    out->layout = calloc(n, sizeof *out->layout);
    out->folded_into = calloc(n, sizeof *out->folded_into);
    if (!out->layout || !out->folded_into || fold_rows(res, out->folded_into)) {
        nd_search_answer_free(out);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        out->layout[i] = out->folded_into[i] ? out->layout[out->folded_into[i] - 1] : ++out->layouts;
    if (top < 1) top = 1;
    size_t k = top < out->layouts ? top : out->layouts;
    out->choices = calloc(k, sizeof *out->choices);
    if (!out->choices) {
        nd_search_answer_free(out);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t l = out->layout[i] - 1;
        if (l >= k) continue;
        nd_search_choice *c = &out->choices[l];
        const nd_ranked *r = &res->items[i];
        if (!out->folded_into[i]) {
            *c = (nd_search_choice){.index = i,
                                    .op_min = r->s.op,
                                    .op_max = r->s.op,
                                    .vpp_min = r->s.vpp,
                                    .vpp_max = r->s.vpp,
                                    .p_fastest = NAN,
                                    .p_faster = NAN,
                                    .headroom_mib = cfg->ctx->budget_mib - r->peak_mib};
            interval_of(cfg, r, &c->lo_ms, &c->hi_ms);
            out->count++;
        }
        c->variants++;
        if (r->s.op < c->op_min) c->op_min = r->s.op;
        if (r->s.op > c->op_max) c->op_max = r->s.op;
        if (r->s.vpp < c->vpp_min) c->vpp_min = r->s.vpp;
        if (r->s.vpp > c->vpp_max) c->vpp_max = r->s.vpp;
    }
    if (out->interval == ND_INTERVAL_FITTED) {
        int rc = choices_odds(cfg, res, out, err);
        if (rc) {
            nd_search_answer_free(out);
            return rc;
        }
    } else { /* within #1's interval: nd's own error does not separate them */
        double best = res->items[out->choices[0].index].step_ms;
        for (size_t j = 1; j < out->count; j++)
            out->choices[j].tied =
                res->items[out->choices[j].index].step_ms <= best * (1 + ND_UNCALIBRATED_STEP_ERROR);
    }
    return ND_OK;
}

/* ---- words -------------------------------------------------------------------------------- */

void nd_search_plan_text(const nd_ranked *r, char *buf, size_t size)
{
    if (!r->per_layer) {
        snprintf(buf, size, "recompute %s", nd_recompute_name(r->s.recompute));
        return;
    }
    static const char *const modes[ND_RECOMPUTE_MODES] = {"off", "selective", "full"};
    size_t used = 0;
    int parts = 0;
    int64_t total = 0;
    for (int m = 0; m < ND_RECOMPUTE_MODES; m++) total += r->layers_by_mode[m];
    buf[0] = '\0';
    for (int m = 0; m < ND_RECOMPUTE_MODES && used < size; m++) {
        if (!r->layers_by_mode[m]) continue;
        if (r->layers_by_mode[m] == total)
            used += (size_t)snprintf(buf + used, size - used, "all %lld %s", (long long)total, modes[m]);
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%lld %s", parts ? " + " : "",
                                     (long long)r->layers_by_mode[m], modes[m]);
        parts++;
    }
    if (r->offloaded_layers && used < size)
        snprintf(buf + used, size - used, "; %lld offloaded", (long long)r->offloaded_layers);
}

void nd_search_variants_text(const nd_search_choice *c, char *buf, size_t size)
{
    char op[48] = "", vpp[48] = "";
    if (c->op_min != c->op_max)
        snprintf(op, sizeof op, "OP %lld-%lld", (long long)c->op_min, (long long)c->op_max);
    if (c->vpp_min != c->vpp_max)
        snprintf(vpp, sizeof vpp, "VPP %lld-%lld", (long long)c->vpp_min, (long long)c->vpp_max);
    if (c->variants <= 1)
        snprintf(buf, size, "no variant");
    else
        snprintf(buf, size, "%s%s%s: %zu variants", op, op[0] && vpp[0] ? ", " : "", vpp, c->variants);
}

/* ---- assumptions -------------------------------------------------------------------------- */

void nd_search_assumptions_add(nd_search_assumptions *a, const char *what, const char *fmt, ...)
{
    if (a->count >= ND_ASSUMPTIONS_MAX) return;
    nd_search_assumption *it = &a->items[a->count++];
    snprintf(it->what, sizeof it->what, "%s", what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->text, sizeof it->text, fmt, ap);
    va_end(ap);
}

/* Whether the ratios fitted key k (a term of their time spread scales it); without a spread,
 * whether the file states it away from 1. */
static bool ratio_fitted(const nd_ratios *r, nd_ratio_key k)
{
    if (r->time.terms > 0) {
        for (int t = 0; t < r->time.terms; t++)
            if (r->time.fixed[t] < 0 && r->time.scales[t] & 1u << k) return true;
        return false;
    }
    return r->stated[k] && r->value[k] != 1.0;
}

static void calibration(const nd_search_config *cfg, const nd_search_result *res, const nd_search_answer *ans,
                        const nd_search_facts *f, nd_search_assumptions *out)
{
    const nd_ranked *b = &res->items[ans->choices[0].index];
    double share = (ans->choices[0].hi_ms - b->step_ms) / b->step_ms;
    if (cfg->ctx->ratios && ans->interval == ND_INTERVAL_FITTED)
        nd_search_assumptions_add(out, "calibration",
                                  "calibrated by %s (-c): #1's 95 %% prediction interval is +-%.0f %% (the "
                                  "fit's covariance and scatter); rows of one layer shape share the "
                                  "corrections' draws",
                                  f->ratios_path ? f->ratios_path : "the ratios file", 100 * share);
    else if (cfg->ctx->ratios)
        nd_search_assumptions_add(out, "calibration",
                                  "corrected by %s (-c), which states no uncertainty: the intervals are nd's "
                                  "uncalibrated error, +-%.1f %% (docs/benchmarks.md)",
                                  f->ratios_path ? f->ratios_path : "the ratios file",
                                  100 * ND_UNCALIBRATED_STEP_ERROR);
    else
        nd_search_assumptions_add(out, "calibration",
                                  "uncalibrated%s%s%s: on the real runs nd was benchmarked against, its step "
                                  "estimates were off by %.0f to %.0f %% on average per set, mostly too fast "
                                  "(docs/benchmarks.md); every interval here is +-%.1f %%. Profile the "
                                  "top choices and fit (nd-fit --suggest) before trusting the order",
                                  f->ratios_path ? " (-c " : "", f->ratios_path ? f->ratios_path : "",
                                  f->ratios_path ? " not found: proceeding without it, as ND)" : "",
                                  100 * ND_UNCALIBRATED_STEP_ERROR_LOW, 100 * ND_UNCALIBRATED_STEP_ERROR,
                                  100 * ND_UNCALIBRATED_STEP_ERROR);
    if (!cfg->ctx->ratios && cfg->ctx->device->rates_caveat)
        nd_search_assumptions_add(out, "device", "%s: %s (docs/benchmarks.md)", cfg->ctx->device->name,
                                  cfg->ctx->device->rates_caveat);
    const char *caveat = cfg->ctx->ratios ? NULL : nd_estimate_strategy_caveat(cfg->ctx, &b->s);
    if (caveat) nd_search_assumptions_add(out, "strategy", "#1: %s (docs/benchmarks.md)", caveat);
    size_t tied = 0;
    for (size_t j = 1; j < ans->count; j++) tied += ans->choices[j].tied;
    if (ans->count > 1)
        nd_search_assumptions_add(
            out, "closeness", "%zu of the %zu choices after #1 cannot be told apart from #1 %s", tied,
            ans->count - 1,
            ans->interval == ND_INTERVAL_FITTED ? "(faster than #1 in at least 5 % of the draws)"
                                                : "(within #1's interval)");
    if (!cfg->ctx->ratios && b->mfu > 0)
        nd_search_assumptions_add(out, "MFU",
                                  "#1's MFU %.1f %% is uncalibrated: with a step %.1f %% longer (the "
                                  "benchmarked error) it would be %.1f %%",
                                  100 * b->mfu, 100 * ND_UNCALIBRATED_STEP_ERROR,
                                  100 * b->mfu / (1 + ND_UNCALIBRATED_STEP_ERROR));
}

static void switches(const nd_search_config *cfg, const nd_search_result *res, const nd_search_answer *ans,
                     const nd_search_facts *f, nd_search_assumptions *out)
{
    const nd_train *t = cfg->ctx->train;
    const nd_ranked *b = &res->items[ans->choices[0].index];
    nd_search_assumptions_add(
        out, "overlap",
        "tp_comm_overlap %s, ep_comm_overlap %s, overlap_grad_reduce %s, "
        "overlap_param_gather %s (the run's train keys, else the framework's; --set KEY=true|false)",
        nd_train_tp_comm_overlap(t) ? "true" : "false", t->ep_comm_overlap ? "true" : "false",
        t->overlap_grad_reduce ? "true" : "false", t->overlap_param_gather ? "true" : "false");
    nd_search_assumptions_add(
        out, "attention", "%s (%s; --set attention_kernel=fa3|cudnn|fa2|triton|unfused)",
        nd_train_attention_text(t),
        t->attention_kernel == ND_ATTENTION_AUTO && t->flash_attention ? "the framework's" : "the run's");
    nd_search_assumptions_add(out, "schedule", "%s for #1 (the run's %s; VPP > 1 runs interleaved)",
                              nd_schedule_name(b->s.schedule), nd_schedule_name(t->schedule));
    double free_mib = f->device_budget_mib - b->peak_mib;
    /* where the margin comes from: -mem, the default (a share of the device, which the session
     * takes from the cost model), or none under a stated budget */
    char source[200];
    double capacity = cfg->ctx->device ? nd_device_capacity_mib(cfg->ctx->device) : 0;
    if (f->margin_stated)
        snprintf(source, sizeof source, "-mem");
    else if (f->margin_mib > 0 && capacity > 0)
        snprintf(
            source, sizeof source,
            "by default %.0f %% of the device's %.0f MiB, what the allocator leaves%s; -mem SIZE sets it, "
            "-mem 0 drops it",
            100 * f->margin_mib / capacity, capacity,
            nd_train_expandable_segments(t) ? " with expandable segments" : "");
    else if (f->margin_mib > 0)
        snprintf(source, sizeof source,
                 "by default what the allocator leaves; -mem SIZE sets it, -mem 0 drops it");
    else
        snprintf(source, sizeof source, "none: a stated budget -M is its own margin; -mem SIZE adds one");
    nd_search_assumptions_add(
        out, "memory",
        "a strategy fits when its peak stays under %.0f MiB: the %.0f MiB budget less a "
        "margin of %.0f MiB (%s); #1 peaks at %.0f MiB, %.0f MiB of headroom "
        "(%.0f MiB free on the device's budget)",
        cfg->ctx->budget_mib, f->device_budget_mib, f->margin_mib, source, b->peak_mib,
        ans->choices[0].headroom_mib, free_mib);
    if (cfg->space.offload)
        nd_search_assumptions_add(
            out, "offload",
            "activations a stage offloads cost %.3g ms per GiB moved (--host_link_cost%s), "
            "hidden in %.0f %% of the remaining forward (--host_link_overlap)",
            cfg->space.host_cost_ms_per_gib,
            cfg->space.host_cost_ms_per_gib > 0 ? "" : "; 0: copies are free", 100 * cfg->space.host_overlap);
    else
        nd_search_assumptions_add(out, "offload", "no activation offload (-ao not given)");
}

/* What nd does not price for this job: the search's limits that bear on this model and winner;
 * then, apart, how the run and its search config were read (their notes). */
static void limits(const nd_search_config *cfg, const nd_search_result *res, const nd_search_answer *ans,
                   const nd_search_facts *f, nd_search_assumptions *out)
{
    const nd_model *m = cfg->ctx->model;
    const nd_ranked *b = &res->items[ans->choices[0].index];
    const char *what = "not represented";
    if (b->s.pp > 1) {
        char names[256];
        size_t used = 0;
        for (int sc = 0; sc < ND_SCHEDULES && used < sizeof names; sc++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", sc ? ", " : "",
                                     nd_schedule_name((nd_schedule)sc));
        nd_search_assumptions_add(
            out, what,
            "pipeline stages rebalanced by time (only the split's layers are placed), and "
            "schedules other than the ones nd prices (%s)",
            names);
    }
    if (m->attention == ND_ATTN_MHA && m->kv_heads < m->heads)
        nd_search_assumptions_add(
            out, what,
            "KV-head replication: MP must divide the %lld KV heads, so MP above %lld is "
            "not tried",
            (long long)m->kv_heads, (long long)m->kv_heads);
    if (m->experts > 0)
        nd_search_assumptions_add(out, what,
                                  "expert tensor parallelism as a search dimension (ETP is the "
                                  "run's; 0 follows MP)");
    if (cfg->space.per_layer)
        nd_search_assumptions_add(out, what,
                                  "a candidate that fits only with offload: -ar plans candidates that fit "
                                  "fully recomputed%s",
                                  cfg->space.offload ? "; offload is planned at VPP 1 only" : "");
    for (size_t i = 0; i < f->n_notes; i++) nd_search_assumptions_add(out, "read as", "%s", f->notes[i]);
}

/* Each dimension #1 uses whose communication the fitted round never exercised. */
static void unprofiled(const nd_search_config *cfg, const nd_search_result *res, const nd_search_answer *ans,
                       nd_search_assumptions *out)
{
    const nd_ratios *r = cfg->ctx->ratios;
    if (!r) return;
    const nd_ranked *b = &res->items[ans->choices[0].index];
    static const struct {
        nd_dim dim;
        nd_ratio_key key;
    } dims[] = {{ND_DIM_MP, ND_RATIO_MP_COMM},
                {ND_DIM_CP, ND_RATIO_CP_COMM},
                {ND_DIM_EP, ND_RATIO_EP_COMM},
                {ND_DIM_PP, ND_RATIO_PP_COMM},
                {ND_DIM_VPP, ND_RATIO_BUBBLE}};
    for (size_t i = 0; i < ND_ARRAY_LEN(dims); i++) {
        int64_t v = nd_strategy_dim(&b->s, dims[i].dim);
        if (v <= 1 || ratio_fitted(r, dims[i].key)) continue;
        nd_search_assumptions_add(out, "not profiled",
                                  "#1 uses %s %lld, but the fitted round never exercised it (%s held at %g): "
                                  "profile a row with %s > 1 (nd-fit --suggest proposes one)",
                                  nd_dim_name(dims[i].dim), (long long)v, nd_ratio_key_name(dims[i].key),
                                  r->value[dims[i].key], nd_dim_name(dims[i].dim));
    }
    if (r->shapes > 0 && !nd_ratios_shape(r, &b->s))
        nd_search_assumptions_add(
            out, "not profiled",
            "#1's layer sharding (MP %lld, CP %lld, EP %lld, MBS %lld) is not among the "
            "round's shapes: its correction is the spread between the profiled ones",
            (long long)b->s.tp, (long long)b->s.cp, (long long)b->s.ep, (long long)b->s.mbs);
}

void nd_search_assumptions_build(const nd_search_config *cfg, const nd_search_result *res,
                                 const nd_search_answer *ans, const nd_search_facts *facts,
                                 nd_search_assumptions *out)
{
    memset(out, 0, sizeof *out);
    if (!ans->count) return;
    calibration(cfg, res, ans, facts, out);
    switches(cfg, res, ans, facts, out);
    limits(cfg, res, ans, facts, out);
    unprofiled(cfg, res, ans, out);
}

void nd_search_print_assumptions(FILE *fp, const nd_search_assumptions *a, const char *prefix)
{
    if (!a->count) return;
    fprintf(fp, "%sWhat this answer assumes:\n", prefix);
    for (size_t i = 0; i < a->count; i++)
        fprintf(fp, "%s  %-16s %s\n", prefix, a->items[i].what, a->items[i].text);
}

void nd_search_print_answer(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans)
{
    if (!ans->count) return;
    bool fitted = ans->interval == ND_INTERVAL_FITTED;
    if (fitted)
        fprintf(
            fp,
            "\nHow sure nd is (the ratios file's uncertainty, %zu draws, fixed seed; rows of one layer shape "
            "share the draws):\n",
            ans->draws);
    else
        fprintf(fp,
                "\nHow sure nd is (uncalibrated: +-%.1f %%, nd's benchmarked error, docs/benchmarks.md):\n",
                100 * ND_UNCALIBRATED_STEP_ERROR);
    fprintf(fp, "%5s %11s %27s %11s %15s %10s\n", "#", "step ms",
            fitted ? "95 % interval, ms" : "interval, ms", "P(fastest)", "faster than #1", "headroom");
    for (size_t j = 0; j < ans->count; j++) {
        const nd_search_choice *c = &ans->choices[j];
        const nd_ranked *r = &res->items[c->index];
        char p[16] = "-", faster[16] = "-";
        if (isfinite(c->p_fastest)) snprintf(p, sizeof p, "%.1f %%", 100 * c->p_fastest);
        if (isfinite(c->p_faster)) snprintf(faster, sizeof faster, "%.1f %%", 100 * c->p_faster);
        fprintf(fp, "%5zu %11.2f %12.2f to %11.2f %11s %15s %7.0f MiB%s\n", j + 1, r->step_ms, c->lo_ms,
                c->hi_ms, p, faster, c->headroom_mib, c->tied ? "   cannot be told apart from #1" : "");
    }
    (void)cfg;
}
