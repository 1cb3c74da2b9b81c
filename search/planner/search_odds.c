/*
 * search_odds.c — how sure a calibration is of the ranking's top (nd-search -c with a
 * ratios file that carries its uncertainty, docs/calibration.md §Uncertainty carried to
 * decisions).
 *
 * Each draw samples what the fit does not know: the fitted terms from their covariance
 * (shared by every candidate), each layer shape's correction from its standard error (the
 * spread between shapes for one the round did not profile) and the scatter of a strategy
 * around the fitted estimate (residual_sd x its step), both shared by the candidates of one
 * layer shape. Candidates of one shape run the same kernels per micro-batch (parts.h), so
 * what the fit misses about them it misses alike: two rows that differ only in OP or MB are
 * told apart by their real difference, not by two independent draws of the same error (which
 * made P(fastest) near uniform). Candidates of different shapes scatter independently. A
 * candidate's probability of being fastest is the share of draws in which its step is the
 * smallest; one that is faster than #1 in at least 5 % of the draws cannot be told apart
 * from #1. The generator (splitmix64, Box-Muller) has a fixed seed, so the output is
 * byte-identical run to run and thread count to thread count.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nd/planner/search_out.h"

#define ND_ODDS_DRAWS 10000
#define ND_ODDS_TIED  0.05

typedef struct rng {
    uint64_t state;
    bool has_spare;
    double spare;
} rng;

static uint64_t next_u64(rng *g)
{
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A standard normal (Box-Muller on two uniforms in (0, 1]). */
static double normal(rng *g)
{
    if (g->has_spare) {
        g->has_spare = false;
        return g->spare;
    }
    double u = ((double)(next_u64(g) >> 11) + 1.0) / 9007199254740992.0;
    double v = (double)(next_u64(g) >> 11) / 9007199254740992.0;
    double r = sqrt(-2.0 * log(u));
    g->spare = r * sin(2.0 * 3.14159265358979323846 * v);
    g->has_spare = true;
    return r * cos(2.0 * 3.14159265358979323846 * v);
}

/* Lower-triangular L with L L' = C (Cholesky); a direction with no variance gets 0. */
static void cholesky(const nd_spread *s, double L[ND_SPREAD_MAX_TERMS][ND_SPREAD_MAX_TERMS])
{
    int n = s->terms;
    memset(L, 0, sizeof(double) * ND_SPREAD_MAX_TERMS * ND_SPREAD_MAX_TERMS);
    for (int j = 0; j < n; j++) {
        double d = s->cov[j][j];
        for (int k = 0; k < j; k++) d -= L[j][k] * L[j][k];
        L[j][j] = d > 1e-300 ? sqrt(d) : 0;
        for (int i = j + 1; i < n; i++) {
            double v = s->cov[i][j];
            for (int k = 0; k < j; k++) v -= L[i][k] * L[j][k];
            L[i][j] = L[j][j] > 0 ? v / L[j][j] : 0;
        }
    }
}

/* What each fitted term scales in a candidate (the raw ms of its keys, or the fixed cost's
 * count), and the raw ms a shape correction scales. */
static void regressors(const nd_spread *s, const nd_ranked *r, double x[ND_SPREAD_MAX_TERMS], double *work)
{
    const double count[ND_FIXED_COSTS] = {r->kernels_per_step / 1e3, r->microbatch_slots, 1.0};
    *work = 0;
    for (int p = 0; p < ND_PARTS; p++)
        if (nd_shape_parts() & 1u << p) *work += r->raw_parts_ms[p];
    for (int t = 0; t < s->terms; t++) {
        x[t] = 0;
        if (s->fixed[t] >= 0) {
            x[t] = count[s->fixed[t]];
            continue;
        }
        for (int p = 0; p < ND_PARTS; p++)
            if (s->scales[t] & 1u << nd_ratio_key_of_part((nd_part)p)) x[t] += r->raw_parts_ms[p];
    }
}

int nd_search_odds_compute(const nd_search_config *cfg, const nd_search_result *res, size_t top,
                           nd_search_odds *out, nd_error *err)
{
    size_t n = top < res->count ? top : res->count, index[ND_ODDS_MAX];
    if (n > ND_ODDS_MAX) n = ND_ODDS_MAX;
    for (size_t j = 0; j < n; j++) index[j] = j;
    return nd_search_odds_of(cfg, res, index, n, out, err);
}

int nd_search_odds_of(const nd_search_config *cfg, const nd_search_result *res, const size_t *index, size_t n,
                      nd_search_odds *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    const nd_ratios *r = cfg->ctx->ratios;
    if (!r || r->time.terms == 0 || res->count == 0 || n == 0) return ND_OK;
    if (n > ND_ODDS_MAX) n = ND_ODDS_MAX;
    double(*x)[ND_SPREAD_MAX_TERMS] = calloc(n, sizeof *x);
    double *work = calloc(5 * n, sizeof *work);
    int *group = calloc(n, sizeof *group);
    if (!x || !work || !group) {
        free(x);
        free(work);
        free(group);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    double *step = work + n, *shape_sd = step + n, *draw = shape_sd + n, *faster = draw + n;
    size_t wins[ND_ODDS_MAX] = {0}, groups = 0;
    for (size_t j = 0; j < n; j++) {
        const nd_ranked *c = &res->items[index[j]];
        regressors(&r->time, c, x[j], &work[j]);
        /* Candidates of one shape share its draws. */
        nd_shape_key k;
        nd_shape_key_of(&c->s, &k);
        group[j] = -1;
        for (size_t i = 0; i < j && group[j] < 0; i++) {
            nd_shape_key ki;
            nd_shape_key_of(&res->items[index[i]].s, &ki);
            if (!nd_shape_key_compare(&k, &ki)) group[j] = group[i];
        }
        if (group[j] < 0) {
            const nd_shape_ratio *known = nd_ratios_shape(r, &c->s);
            shape_sd[groups] = r->shapes ? (known ? known->se : r->shape_spread) : 0;
            group[j] = (int)groups++;
        }
        out->half[j] = nd_ratios_step_halfwidth_ms(r, &c->s, c->raw_parts_ms, c->kernels_per_step,
                                                   c->microbatch_slots, c->step_ms);
        step[j] = c->step_ms;
    }
    double L[ND_SPREAD_MAX_TERMS][ND_SPREAD_MAX_TERMS];
    cholesky(&r->time, L);
    rng g = {0x6E642D6F646473ull, false, 0}; /* "nd-odds" */
    for (int d = 0; d < ND_ODDS_DRAWS; d++) {
        double u[ND_SPREAD_MAX_TERMS], z[ND_SPREAD_MAX_TERMS] = {0}, shape[ND_ODDS_MAX], scatter[ND_ODDS_MAX];
        for (int t = 0; t < r->time.terms; t++) u[t] = normal(&g);
        for (int t = 0; t < r->time.terms; t++)
            for (int k = 0; k <= t; k++) z[t] += L[t][k] * u[k];
        for (size_t q = 0; q < groups; q++) {
            shape[q] = shape_sd[q] * normal(&g);
            scatter[q] = r->time.residual_sd * normal(&g);
        }
        size_t best = 0;
        for (size_t j = 0; j < n; j++) {
            double v = step[j] + work[j] * shape[group[j]] + step[j] * scatter[group[j]];
            for (int t = 0; t < r->time.terms; t++) v += z[t] * x[j][t];
            draw[j] = v;
            if (v < draw[best]) best = j;
        }
        wins[best]++;
        for (size_t j = 1; j < n; j++) faster[j] += draw[j] < draw[0];
    }
    out->count = n;
    out->draws = ND_ODDS_DRAWS;
    for (size_t j = 0; j < n; j++) {
        out->p_fastest[j] = (double)wins[j] / ND_ODDS_DRAWS;
        out->p_faster_than_best[j] = j ? faster[j] / ND_ODDS_DRAWS : NAN;
        out->tied[j] = j && out->p_faster_than_best[j] >= ND_ODDS_TIED;
    }
    free(x);
    free(work);
    free(group);
    return ND_OK;
}
