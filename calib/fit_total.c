/*
 * fit_total.c — the total mode: only the step is measured (trainer logs), so
 * every exercised ratio is fitted jointly on `time`. A ridge toward 1 (the
 * uncorrected model) keeps the fit stable when the round barely separates two
 * parts; its strength is the one with the smallest exact leave-one-out error,
 * 0 included, so a round that identifies every ratio gets plain least squares, among
 * the strengths that keep every ratio positive.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "lsq.h"

static const nd_ratio_key candidates[] = {
    ND_RATIO_COMPUTE, ND_RATIO_DP_COMM, ND_RATIO_DP_REDUCE, ND_RATIO_MP_COMM, ND_RATIO_EP_COMM,
    ND_RATIO_CP_COMM, ND_RATIO_PP_COMM, ND_RATIO_OPTIMIZER, ND_RATIO_OVERHEAD,
};
#define N_CANDIDATES (sizeof candidates / sizeof candidates[0])

/* The ms a key scales; PP_COMM and BUBBLE are one ratio here (the step cannot split them). */
static double regressor(const nd_fit_row *r, nd_ratio_key k)
{
    double x = nd_fit_regressor(r, k);
    if (k == ND_RATIO_PP_COMM) x += nd_fit_regressor(r, ND_RATIO_BUBBLE);
    return x;
}

typedef struct problem {
    size_t n, p;
    nd_ratio_key key[N_CANDIDATES];
    double *X, *y, *w, *h, *offset;
} problem;

/* Mean squared relative leave-one-out error at ridge strength lambda. */
static double loo_score(const problem *pb, double lambda, nd_lsq_solution *s, nd_error *err)
{
    nd_lsq_problem q = {pb->n, pb->p, pb->X, pb->y, pb->w, lambda, NULL};
    if (nd_lsq_solve(&q, s, pb->h, err)) return INFINITY;
    double score = 0;
    for (size_t i = 0; i < pb->n; i++) {
        double pred = 0;
        for (size_t k = 0; k < pb->p; k++) pred += s->r[k] * pb->X[i * pb->p + k];
        if (pb->h[i] >= 1 - 1e-10) return INFINITY;
        double loo = pb->y[i] - (pb->y[i] - pred) / (1 - pb->h[i]);
        double total = pb->y[i] + pb->offset[i];
        double e = (loo - pb->y[i]) / total;
        score += e * e;
    }
    return score / (double)pb->n;
}

/* A part that never reaches this share of a step moves no step time enough to be told
 * from measurement noise; its ratio is held at 1 rather than guessed. */
#define MIN_SHARE 0.05

static int build(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 problem *pb)
{
    pb->n = n, pb->p = 0;
    for (size_t c = 0; c < N_CANDIDATES; c++) {
        double mx = 0, share = 0;
        for (size_t i = 0; i < n; i++) {
            double x = fabs(regressor(&rows[i], candidates[c]));
            mx = fmax(mx, x);
            share = fmax(share, x / rows[i].time_ms);
        }
        if (mx > 0 && share >= MIN_SHARE) pb->key[pb->p++] = candidates[c];
        else if (mx > 0) nd_fit_hold(res, candidates[c], "under 5 % of every step: the step times cannot fit it");
        else nd_fit_hold(res, candidates[c], "no row of the round exercises it");
    }
    res->status[ND_RATIO_BUBBLE] = ND_RATIO_SHARED;
    res->source[ND_RATIO_BUBBLE] = ND_RATIO_PP_COMM;
    for (size_t i = 0; i < n; i++) {
        pb->offset[i] = 0;
        for (size_t c = 0; c < N_CANDIDATES; c++)
            if (res->status[candidates[c]] == ND_RATIO_HELD) pb->offset[i] += regressor(&rows[i], candidates[c]);
        pb->y[i] = rows[i].time_ms - pb->offset[i];
        pb->w[i] = nd_fit_weight(o, &rows[i]);
        for (size_t k = 0; k < pb->p; k++) pb->X[i * pb->p + k] = regressor(&rows[i], pb->key[k]);
    }
    return 0;
}

static void key_list(const problem *pb, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < pb->p && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "",
                                 nd_ratio_key_name(pb->key[k]));
}

static int choose_lambda(problem *pb, const nd_fit_options *o, nd_fit_result *res, nd_lsq_solution *best,
                         nd_error *err)
{
    static const double grid[] = {0, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3};
    nd_lsq_problem q = {pb->n, pb->p, pb->X, pb->y, pb->w, 0, NULL};
    nd_lsq_solution s;
    bool plain_ok = !nd_lsq_solve(&q, &s, NULL, err) && s.rcond > 1e-8;
    char keys[256];
    key_list(pb, keys, sizeof keys);
    if (!plain_ok && !o->allow_fallback)
        return nd_error_set(err, ND_EINPUT,
                            "the round's step times cannot separate %s: profile strategies that "
                            "vary them, measure the parts (a classified round), or pass "
                            "--allow-fallback to shrink the fit toward the uncorrected model", keys);
    /* A fit that pins a ratio at 0 says the part costs nothing, which the estimate contradicts:
     * such strengths are passed over (kept only under --allow-fallback), so a stronger pull
     * toward 1 is taken when the round cannot carry every ratio on its own. */
    double best_score = INFINITY;
    nd_ratio_key pinned = ND_RATIO_KEYS;
    for (size_t g = plain_ok ? 0 : 1; g < sizeof grid / sizeof grid[0]; g++) {
        double score = loo_score(pb, grid[g], &s, err);
        size_t k = 0;
        while (k < pb->p && s.r[k] > 0) k++;
        if (k < pb->p && !o->allow_fallback && isfinite(score)) {
            pinned = pb->key[k];
            continue;
        }
        if (score < best_score * (1 - 1e-9)) best_score = score, *best = s, res->lambda = grid[g];
    }
    if (!isfinite(best_score) && pinned != ND_RATIO_KEYS)
        return nd_error_set(err, ND_EINPUT, "%s fits to 0 on the step times at every ridge strength: the round "
                            "contradicts that part's estimate (--allow-fallback holds it at COMPUTE's ratio)",
                            nd_ratio_key_name(pinned));
    if (!isfinite(best_score))
        return nd_error_set(err, ND_EINPUT, "no leave-one-out estimate of %s exists on this round", keys);
    return ND_OK;
}

int nd_fit_total(const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_fit_result *res,
                 nd_error *err)
{
    problem pb;
    double *buf = malloc(n * (N_CANDIDATES + 4) * sizeof *buf);
    if (!buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    pb.X = buf, pb.y = buf + n * N_CANDIDATES, pb.w = pb.y + n, pb.h = pb.w + n, pb.offset = pb.h + n;
    build(rows, n, o, res, &pb);
    int rc = ND_OK;
    char keys[256];
    key_list(&pb, keys, sizeof keys);
    if (pb.p == 0) rc = nd_error_set(err, ND_EINPUT, "no part of the estimate is exercised by the round");
    else if (n < pb.p + 1)
        rc = nd_error_set(err, ND_EINPUT,
                          "%zu rows cannot fit and check %zu ratios (%s) on the step alone: "
                          "profile at least %zu strategies, or measure the parts", n, pb.p, keys, pb.p + 1);
    if (!rc && o->robust) {
        nd_lsq_problem q = {n, pb.p, pb.X, pb.y, pb.w, 0, NULL};
        if (!(rc = nd_lsq_robust_weights(&q, pb.w, err)))
            for (size_t i = 0; i < n; i++) pb.w[i] = fmax(pb.w[i], 1e-12 * nd_fit_weight(o, &rows[i]));
    }
    nd_lsq_solution s;
    if (!rc) rc = choose_lambda(&pb, o, res, &s, err);
    if (!rc) {
        loo_score(&pb, res->lambda, &s, err); /* leaves the chosen fit's leverages in pb.h */
        for (size_t k = 0; k < pb.p; k++) {
            nd_ratio_key key = pb.key[k];
            res->ratio[key] = s.r[k];
            res->status[key] = ND_RATIO_FITTED;
            snprintf(res->target[key], sizeof res->target[key], "%s", nd_classified_csv.time);
            nd_fit_interval(res, key, s.se[k], s.dof);
            if (s.r[k] <= 0 && !o->allow_fallback)
                rc = nd_error_set(err, ND_EINPUT, "%s fits to 0 on the step times: the round "
                                  "contradicts that part's estimate (--allow-fallback holds it at "
                                  "COMPUTE's ratio)", nd_ratio_key_name(key));
        }
        for (size_t k = 0; !rc && k < pb.p; k++)
            if (res->ratio[pb.key[k]] <= 0) {
                res->ratio[pb.key[k]] = res->ratio[ND_RATIO_COMPUTE];
                res->status[pb.key[k]] = ND_RATIO_FALLBACK;
                res->source[pb.key[k]] = ND_RATIO_COMPUTE;
            }
        res->ratio[ND_RATIO_BUBBLE] = res->ratio[ND_RATIO_PP_COMM];
        res->lo[ND_RATIO_BUBBLE] = res->lo[ND_RATIO_PP_COMM], res->hi[ND_RATIO_BUBBLE] = res->hi[ND_RATIO_PP_COMM];
    }
    for (size_t i = 0; !rc && i < n; i++) {
        double pred = 0;
        for (size_t k = 0; k < pb.p; k++) pred += s.r[k] * pb.X[i * pb.p + k];
        res->corrected_ms[i] = nd_fit_corrected(&rows[i], res->ratio, ND_FIT_TOTAL);
        res->left_out_ms[i] = pb.h[i] < 1 - 1e-10
                                  ? res->corrected_ms[i] - (pb.y[i] - pred) * pb.h[i] / (1 - pb.h[i])
                                  : NAN;
        res->target_ms[i] = rows[i].time_ms;
    }
    free(buf);
    return rc;
}
