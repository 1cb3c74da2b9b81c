/*
 * fit_suggest.c — nd-fit --suggest K: the strategies to profile next
 * (docs/calibration.md §The next round).
 *
 * The candidates are every strategy nd-search finds for the cluster that fits memory. Two
 * kinds of picks, each with its reason:
 *   - the top candidates of the fitted estimate that the calibration cannot tell apart
 *     from #1 (its odds), while the fit stands: profiling them settles the choice;
 *   - D-optimal picks on the fit's design (its ratio terms and fixed costs, every row
 *     weighted as the fit weighs it): greedily the candidate whose row adds most to
 *     log det of the information matrix M = sum w x x' (+ a 1e-6 ridge on unit columns),
 *     i.e. the largest w x' M^-1 x. After a refusal the picks are D_s-optimal for the terms
 *     the round does not identify: the largest fall of log det of their block of M^-1,
 *     -log(1 - w u_S' V_SS^-1 u_S / (1 + w x' V x)), u = V x, V = M^-1 (the matrix
 *     determinant lemma).
 * Candidates vary only the dimensions the round varies (its columns); the others keep the
 * run's values, so a round of DP, MP and PP is not told to try context parallelism, unless the
 * calibrated search over every dimension picks a #1 that uses one: that #1 comes first.
 */
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/calibrate/fit_suggest.h"
#include "nd/base/io.h"
#include "nd/planner/search_out.h"
#include "nd/base/array.h"

/* The design's columns: the total mode's ratio groups, then the fixed costs. */
static const unsigned ratio_cols[] = {
    1u << ND_RATIO_COMPUTE,
    1u << ND_RATIO_DP_COMM,
    1u << ND_RATIO_DP_REDUCE,
    1u << ND_RATIO_MP_COMM,
    1u << ND_RATIO_EP_COMM,
    1u << ND_RATIO_CP_COMM,
    1u << ND_RATIO_PP_COMM | 1u << ND_RATIO_BUBBLE,
    1u << ND_RATIO_OPTIMIZER,
    1u << ND_RATIO_OVERHEAD,
};
#define N_RATIO_COLS (ND_ARRAY_LEN(ratio_cols))
#define N_COLS       (N_RATIO_COLS + ND_FIXED_COSTS)

static const char *col_name(size_t c)
{
    if (c >= N_RATIO_COLS) return nd_fixed_cost_name((nd_fixed_cost)(c - N_RATIO_COLS));
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (ratio_cols[c] & 1u << k) return nd_ratio_key_name((nd_ratio_key)k);
    return "?";
}

/* A candidate's (or a round row's) regressors: raw ms per ratio column, counts per fixed cost. */
static void regressors(const double raw[ND_PARTS], double kernels, double slots, double x[N_COLS])
{
    memset(x, 0, N_COLS * sizeof *x);
    for (int p = 0; p < ND_PARTS; p++)
        for (size_t c = 0; c < N_RATIO_COLS; c++)
            if (ratio_cols[c] & 1u << nd_ratio_key_of_part((nd_part)p)) x[c] += raw[p];
    x[N_RATIO_COLS + ND_FIXED_KERNEL] = kernels / 1e3;
    x[N_RATIO_COLS + ND_FIXED_MICROBATCH] = slots;
    x[N_RATIO_COLS + ND_FIXED_STEP] = 1;
}

static bool same_strategy(const nd_strategy *a, const nd_strategy *b)
{
    for (int d = 0; d < ND_DIMS; d++)
        if (nd_strategy_dim(a, (nd_dim)d) != nd_strategy_dim(b, (nd_dim)d)) return false;
    return a->recompute == b->recompute;
}

static bool profiled(const nd_suggest_inputs *in, const nd_strategy *s)
{
    for (size_t i = 0; i < in->n_profiled; i++)
        if (same_strategy(&in->profiled[i], s)) return true;
    return false;
}

/* The search's candidates for the cluster, raw (ratios NULL) or corrected. */
static int candidates(const nd_suggest_inputs *in, const nd_ratios *ratios, nd_search_result *out,
                      nd_error *err)
{
    nd_context ctx;
    nd_context_init(&ctx, &in->run->model, &in->run->train, in->device, in->devices, in->budget_mib, ratios);
    nd_search_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.ctx = &ctx;
    cfg.base = in->run->strategy;
    cfg.global_batch = in->global_batch;
    nd_search_space_init(&cfg.space, &in->run->train);
    if (in->vary) cfg.space.vary = in->vary;
    cfg.threads = 1;
    int rc = nd_search_run(&cfg, out, err);
    if (!rc && out->count == 0)
        rc = nd_error_set(err, ND_EINPUT,
                          "no strategy for %lld x %s and a global batch of %lld fits memory: nothing "
                          "to suggest",
                          (long long)in->devices, in->device->name, (long long)in->global_batch);
    return rc;
}

typedef struct design {
    unsigned target;          /* the columns to separate (0: all, plain D-optimality) */
    double M[N_COLS][N_COLS]; /* information matrix on unit columns */
    double scale[N_COLS];     /* column scale */
    bool used[N_COLS];        /* a column some row or candidate exercises */
} design;

static void add_row(design *d, const double x[N_COLS], double w)
{
    for (size_t a = 0; a < N_COLS; a++)
        for (size_t b = 0; b < N_COLS; b++)
            if (d->used[a] && d->used[b]) d->M[a][b] += w * x[a] / d->scale[a] * x[b] / d->scale[b];
}

/* M^-1 (with the ridge) into inv; the unused columns stay 0. Returns the used count. */
static size_t inverse(const design *d, double inv[N_COLS][N_COLS])
{
    size_t idx[N_COLS], m = 0;
    for (size_t c = 0; c < N_COLS; c++)
        if (d->used[c]) idx[m++] = c;
    memset(inv, 0, sizeof(double) * N_COLS * N_COLS);
    gsl_matrix *A = gsl_matrix_alloc(m, m), *I = gsl_matrix_alloc(m, m);
    gsl_permutation *perm = gsl_permutation_alloc(m);
    int sign;
    if (A && I && perm) {
        for (size_t a = 0; a < m; a++)
            for (size_t b = 0; b < m; b++)
                gsl_matrix_set(A, a, b, d->M[idx[a]][idx[b]] + (a == b ? 1e-6 : 0));
        if (!gsl_linalg_LU_decomp(A, perm, &sign) && !gsl_linalg_LU_invert(A, perm, I))
            for (size_t a = 0; a < m; a++)
                for (size_t b = 0; b < m; b++) inv[idx[a]][idx[b]] = gsl_matrix_get(I, a, b);
    }
    gsl_matrix_free(A);
    gsl_matrix_free(I);
    gsl_permutation_free(perm);
    return m;
}

/* The D-optimal gain w x' V x, or with target columns the D_s gain on their block; Vss_inv
 * is the inverse of V's target block (used only with a target). */
static double gain(double inv[N_COLS][N_COLS], const design *d, const double x[N_COLS], double w,
                   unsigned target, double Vss_inv[N_COLS][N_COLS])
{
    double z[N_COLS] = {0}, u[N_COLS] = {0}, q = 0;
    for (size_t a = 0; a < N_COLS; a++) z[a] = d->used[a] ? x[a] / d->scale[a] : 0;
    for (size_t a = 0; a < N_COLS; a++)
        for (size_t b = 0; b < N_COLS; b++) u[a] += inv[a][b] * z[b];
    for (size_t a = 0; a < N_COLS; a++) q += z[a] * u[a];
    if (!target) return w * q;
    double s = 0;
    for (size_t a = 0; a < N_COLS; a++)
        for (size_t b = 0; b < N_COLS; b++)
            if (target & 1u << a && target & 1u << b) s += u[a] * Vss_inv[a][b] * u[b];
    double f = 1 - w * s / (1 + w * q);
    return f > 1e-300 ? -log(f) : 700;
}

/* The inverse of V's block on the target columns, into out (other entries 0). */
static void block_inverse(double V[N_COLS][N_COLS], unsigned target, double out[N_COLS][N_COLS])
{
    size_t idx[N_COLS], m = 0;
    memset(out, 0, sizeof(double) * N_COLS * N_COLS);
    for (size_t c = 0; c < N_COLS; c++)
        if (target & 1u << c) idx[m++] = c;
    if (!m) return;
    gsl_matrix *A = gsl_matrix_alloc(m, m), *I = gsl_matrix_alloc(m, m);
    gsl_permutation *perm = gsl_permutation_alloc(m);
    int sign;
    if (A && I && perm) {
        for (size_t a = 0; a < m; a++)
            for (size_t b = 0; b < m; b++) gsl_matrix_set(A, a, b, V[idx[a]][idx[b]]);
        if (!gsl_linalg_LU_decomp(A, perm, &sign) && !gsl_linalg_LU_invert(A, perm, I))
            for (size_t a = 0; a < m; a++)
                for (size_t b = 0; b < m; b++) out[idx[a]][idx[b]] = gsl_matrix_get(I, a, b);
    }
    gsl_matrix_free(A);
    gsl_matrix_free(I);
    gsl_permutation_free(perm);
}

/* "separates MP_COMM, PP_COMM (variance /12, /3)": the terms whose variance falls most. */
static void reason(double before[N_COLS][N_COLS], double after[N_COLS][N_COLS], const design *d, double g,
                   char *buf, size_t size)
{
    size_t best[3] = {N_COLS, N_COLS, N_COLS};
    double fall[N_COLS] = {0};
    for (size_t c = 0; c < N_COLS; c++) {
        if (!d->used[c] || after[c][c] <= 0 || (d->target && !(d->target & 1u << c))) continue;
        fall[c] = before[c][c] / after[c][c];
        for (int r = 0; r < 3; r++)
            if (best[r] == N_COLS || fall[c] > fall[best[r]]) {
                for (int s = 2; s > r; s--) best[s] = best[s - 1];
                best[r] = c;
                break;
            }
    }
    size_t used = (size_t)snprintf(buf, size, "%s (log det +%.2f): narrows",
                                   d->target ? "D_s-optimal" : "D-optimal", d->target ? g : log1p(g));
    for (int r = 0; r < 3 && best[r] < N_COLS && fall[best[r]] > 1.05 && used < size; r++)
        used += (size_t)snprintf(buf + used, size - used, "%s %s (variance / %.3g)", r ? "," : "",
                                 col_name(best[r]), fall[best[r]]);
    if (best[0] == N_COLS || fall[best[0]] <= 1.05) snprintf(buf + used, size - used, " every term a little");
}

/* The round's rows as the design's starting information. */
static void start_design(const nd_suggest_inputs *in, const nd_search_result *cand, design *d)
{
    memset(d, 0, sizeof *d);
    double x[N_COLS];
    for (size_t c = 0; c < N_COLS; c++) d->scale[c] = 0;
    for (size_t i = 0; i < in->n + cand->count; i++) {
        if (i < in->n)
            regressors(in->rows[i].est, in->rows[i].kernels, in->rows[i].slots, x);
        else
            regressors(cand->items[i - in->n].raw_parts_ms, cand->items[i - in->n].kernels_per_step,
                       cand->items[i - in->n].microbatch_slots, x);
        double step = 0;
        for (size_t c = 0; c < N_RATIO_COLS; c++) step += x[c];
        for (size_t c = 0; c < N_COLS && step > 0; c++) d->scale[c] = fmax(d->scale[c], fabs(x[c]) / step);
    }
    /* A column's unit: its largest share of a step. */
    for (size_t c = 0; c < N_COLS; c++) d->used[c] = d->scale[c] > 0 && !(c >= N_RATIO_COLS && in->no_fixed);
    for (size_t i = 0; i < in->n; i++) {
        regressors(in->rows[i].est, in->rows[i].kernels, in->rows[i].slots, x);
        add_row(d, x, 1.0 / (in->rows[i].time_ms * in->rows[i].time_ms));
    }
}

static int d_optimal(const nd_suggest_inputs *in, const nd_search_result *cand, size_t k, nd_suggestion *out,
                     size_t *count, nd_error *err)
{
    design d;
    start_design(in, cand, &d);
    for (size_t c = 0; c < N_RATIO_COLS; c++)
        if (ratio_cols[c] & in->separate && d.used[c]) d.target |= 1u << c;
    bool *taken = calloc(cand->count, sizeof *taken);
    if (!taken) return nd_error_set(err, ND_ENOMEM, "out of memory");
    double inv[N_COLS][N_COLS], after[N_COLS][N_COLS], Vss_inv[N_COLS][N_COLS], x[N_COLS];
    while (*count < k) {
        inverse(&d, inv);
        block_inverse(inv, d.target, Vss_inv);
        size_t best = cand->count;
        double best_gain = 0;
        for (size_t j = 0; j < cand->count; j++) {
            const nd_ranked *c = &cand->items[j];
            if (taken[j] || profiled(in, &c->s)) continue;
            bool dup = false;
            for (size_t s = 0; s < *count && !dup; s++) dup = same_strategy(&out[s].strategy, &c->s);
            if (dup) continue;
            regressors(c->raw_parts_ms, c->kernels_per_step, c->microbatch_slots, x);
            double g = gain(inv, &d, x, 1.0 / (c->step_ms * c->step_ms), d.target, Vss_inv);
            if (g > best_gain * (1 + 1e-12)) {
                best_gain = g;
                best = j;
            } /* ties: the faster (earlier) one */
        }
        if (best == cand->count) break;
        const nd_ranked *c = &cand->items[best];
        taken[best] = true;
        regressors(c->raw_parts_ms, c->kernels_per_step, c->microbatch_slots, x);
        add_row(&d, x, 1.0 / (c->step_ms * c->step_ms));
        inverse(&d, after);
        nd_suggestion *s = &out[(*count)++];
        s->strategy = c->s;
        s->estimate_ms = c->step_ms;
        reason(inv, after, &d, best_gain, s->reason, sizeof s->reason);
    }
    free(taken);
    return ND_OK;
}

/* The fitted estimate's top candidates the calibration cannot tell apart from #1. */
static int separate_top(const nd_suggest_inputs *in, size_t k, nd_suggestion *out, size_t *count,
                        nd_error *err)
{
    nd_search_result cand;
    int rc = candidates(in, in->ratios, &cand, err);
    if (rc) return rc;
    nd_context ctx;
    nd_context_init(&ctx, &in->run->model, &in->run->train, in->device, in->devices, in->budget_mib,
                    in->ratios);
    nd_search_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.ctx = &ctx;
    nd_search_odds odds;
    rc = nd_search_odds_compute(&cfg, &cand, ND_ODDS_MAX, &odds, err);
    for (size_t j = 0; !rc && j < odds.count && *count < k; j++) {
        if ((j && !odds.tied[j]) || profiled(in, &cand.items[j].s)) continue;
        nd_suggestion *s = &out[(*count)++];
        s->strategy = cand.items[j].s;
        s->estimate_ms = cand.items[j].step_ms;
        if (j == 0)
            snprintf(s->reason, sizeof s->reason, "the calibrated #1 (P(fastest) %.0f %%): never profiled",
                     100 * odds.p_fastest[0]);
        else
            snprintf(s->reason, sizeof s->reason,
                     "calibrated #%zu, faster than #1 in %.0f %% of draws: cannot be "
                     "told apart from it",
                     j + 1, 100 * odds.p_faster_than_best[j]);
    }
    nd_search_result_free(&cand);
    return rc;
}

/* The search over every dimension, corrected: when its #1 uses a dimension the round never
 * varied, that #1 is the row to profile (its part of the step, CP_COMM for CP, rests on a ratio
 * the round held at 1). nd-search says the same in its assumptions ("not profiled"). */
static int unexercised(const nd_suggest_inputs *in, size_t k, nd_suggestion *out, size_t *count,
                       nd_error *err)
{
    if (!in->vary || *count >= k) return ND_OK;
    nd_suggest_inputs all = *in;
    all.vary = ND_DIM_BIT(ND_DIMS_SEARCHED) - 1;
    nd_search_result cand;
    int rc = candidates(&all, in->ratios, &cand, err);
    if (rc) return rc;
    const nd_strategy *best = &cand.items[0].s;
    char dims[96] = "";
    size_t used = 0;
    for (int d = 0; d < ND_DIMS_SEARCHED && used < sizeof dims; d++) {
        int64_t v = nd_strategy_dim(best, (nd_dim)d);
        if (in->vary & ND_DIM_BIT(d) || d == ND_DIM_MB || d == ND_DIM_OP || v <= 1) continue;
        used += (size_t)snprintf(dims + used, sizeof dims - used, "%s%s %lld", used ? ", " : "",
                                 nd_dim_name((nd_dim)d), (long long)v);
    }
    if (dims[0] && !profiled(in, best)) {
        nd_suggestion *s = &out[(*count)++];
        s->strategy = *best;
        s->estimate_ms = cand.items[0].step_ms;
        snprintf(s->reason, sizeof s->reason,
                 "the calibrated search's #1 over every dimension uses %s, which this round never varied: "
                 "profile it",
                 dims);
    }
    nd_search_result_free(&cand);
    return ND_OK;
}

int nd_fit_suggest(const nd_suggest_inputs *in, size_t k, nd_suggestion *out, size_t *count, nd_error *err)
{
    *count = 0;
    int rc = ND_OK;
    /* First the dimension the winner needs and the round lacks, then half the picks to settling
     * the top, the rest (at least half) to the design. */
    if (in->ratios && k > 1) rc = unexercised(in, k, out, count, err);
    /* Half the picks may go to settling the top, the rest (at least half) to the design. */
    if (!rc && in->ratios && in->ratios->time.terms) rc = separate_top(in, k / 2, out, count, err);
    nd_search_result cand;
    if (!rc && !(rc = candidates(in, NULL, &cand, err))) {
        rc = d_optimal(in, &cand, k, out, count, err);
        nd_search_result_free(&cand);
    }
    return rc;
}

int nd_fit_suggest_write(const char *path, const nd_suggestion *s, size_t count, nd_error *err)
{
    const nd_run_list_format *col = &nd_run_list_csv;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) fprintf(out.fp, "%s,", nd_dim_name((nd_dim)d));
    fprintf(out.fp, "%s,%s,%s\n", col->recompute, col->estimated_ms, col->reason);
    for (size_t i = 0; i < count; i++) {
        char buf[ND_DOUBLE_TEXT_MAX];
        for (int d = 0; d < ND_DIMS_SEARCHED; d++)
            fprintf(out.fp, "%lld,", (long long)nd_strategy_dim(&s[i].strategy, (nd_dim)d));
        fprintf(out.fp, "%s,%s,\"", nd_recompute_name(s[i].strategy.recompute),
                nd_format_double(s[i].estimate_ms, buf));
        for (const char *p = s[i].reason; *p; p++) fputs(*p == '"' ? "\"\"" : (char[]){*p, 0}, out.fp);
        fputs("\"\n", out.fp);
    }
    return nd_outfile_commit(&out, err);
}
