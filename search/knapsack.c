#include "nd/knapsack.h"

#include <math.h>
#include <string.h>

enum { OFF = ND_RECOMPUTE_OFF, SEL = ND_RECOMPUTE_SELECTIVE, FULL = ND_RECOMPUTE_FULL };

typedef struct choice {
    int64_t n[ND_RECOMPUTE_MODES];
    double time, mem;
} choice;

/* Is (time, mem, full layers) better than the best so far? */
static bool better(double time, double mem, int64_t full, const choice *best, int64_t best_full)
{
    const double eps = 1e-12;
    if (time < best->time - eps * fabs(best->time)) return true;
    if (time > best->time + eps * fabs(best->time)) return false;
    if (mem < best->mem - eps * fabs(best->mem)) return true;
    if (mem > best->mem + eps * fabs(best->mem)) return false;
    return full < best_full;
}

/* The fastest counts of one kind whose kept bytes per micro-batch stay within cap, using
 * only the allowed modes. For each number of fully recomputed layers the fewest selective
 * ones that fit are taken. Returns 0 or -1. */
static int best_single(const nd_knapsack_kind *k, const bool allowed[ND_RECOMPUTE_MODES], double cap,
                       choice *out)
{
    int64_t n = k->layers;
    out->time = INFINITY;
    int64_t best_full = INT64_MAX;
    bool found = false;
    for (int64_t f = 0; f <= n; f++) {
        if (f && !allowed[FULL]) break;
        int64_t rest = n - f;
        int64_t s_lo = 0, s_hi = allowed[SEL] ? rest : 0;
        if (!allowed[OFF]) s_lo = s_hi; /* every other layer must be selective */
        if (s_lo > s_hi) continue;
        /* kept = rest*off - s*(off - sel) + f*full <= cap */
        double base = (double)rest * k->act_bytes[OFF] + (double)f * k->act_bytes[FULL];
        double saving = k->act_bytes[OFF] - k->act_bytes[SEL];
        int64_t s = s_lo;
        if (base - (double)s * saving > cap) {
            if (saving <= 0) continue;
            double need = ceil((base - cap) / saving - 1e-9);
            if (need > (double)s_hi) continue;
            s = (int64_t)fmax(need, (double)s_lo);
        }
        double mem = base - (double)s * saving;
        if (mem > cap * (1 + 1e-12) + 1e-9) continue;
        double time = (double)(rest - s) * k->time_ms[OFF] + (double)s * k->time_ms[SEL] +
                      (double)f * k->time_ms[FULL];
        if (!found || better(time, mem, f, out, best_full)) {
            out->n[OFF] = rest - s, out->n[SEL] = s, out->n[FULL] = f;
            out->time = time, out->mem = mem;
            best_full = f;
            found = true;
        }
    }
    return found ? 0 : -1;
}

/* Every count of kind a with the allowed modes, and the best counts of kind b for the rest. */
static void solve_level(const nd_knapsack_kind *a, const nd_knapsack_kind *b, const bool allowed_a[ND_RECOMPUTE_MODES],
                        const bool allowed_b[ND_RECOMPUTE_MODES], double inflight, double cap_bytes,
                        choice *best_a, choice *best_b, double *best_time, double *best_mem, int64_t *best_full)
{
    const bool *allowed = allowed_a;
    double cap = cap_bytes / inflight; /* bytes per micro-batch in flight */
    for (int64_t f = 0; f <= a->layers; f++) {
        if (f && !allowed[FULL]) break;
        for (int64_t s = 0; s + f <= a->layers; s++) {
            if (s && !allowed[SEL]) break;
            int64_t o = a->layers - f - s;
            if (o && !allowed[OFF]) continue;
            double mem_a = (double)o * a->act_bytes[OFF] + (double)s * a->act_bytes[SEL] +
                           (double)f * a->act_bytes[FULL];
            if (mem_a > cap * (1 + 1e-12) + 1e-9) continue;
            choice cb;
            if (best_single(b, allowed_b, cap - mem_a, &cb)) continue;
            double time = (double)o * a->time_ms[OFF] + (double)s * a->time_ms[SEL] +
                          (double)f * a->time_ms[FULL] + cb.time;
            double mem = mem_a + cb.mem;
            int64_t full = f + cb.n[FULL];
            choice probe = {.time = *best_time, .mem = *best_mem};
            if (better(time, mem, full, &probe, *best_full)) {
                *best_a = (choice){{o, s, f}, 0, mem_a};
                *best_b = cb;
                *best_time = time, *best_mem = mem, *best_full = full;
            }
        }
    }
}

int nd_knapsack_stage(const nd_knapsack_kind kinds[ND_LAYER_KINDS], double inflight,
                      double budget_bytes, double floor_working,
                      int64_t counts[ND_LAYER_KINDS][ND_RECOMPUTE_MODES], double *time_ms)
{
    /* Enumerate the fewer-layered kind; the other is solved in closed form per full count. */
    int ia = kinds[ND_LAYER_DENSE].layers <= kinds[ND_LAYER_MOE].layers ? ND_LAYER_DENSE : ND_LAYER_MOE;
    int ib = 1 - ia;
    if (inflight <= 0) inflight = 1;
    double best_time = INFINITY, best_mem = INFINITY;
    int64_t best_full = INT64_MAX;
    choice best_a = {{0}, 0, 0}, best_b = {{0}, 0, 0};
    /* The largest transient working set among the modes used: try each possible value. */
    double levels[2 * ND_RECOMPUTE_MODES + 1];
    int n_levels = 0;
    levels[n_levels++] = floor_working;
    for (int k = 0; k < ND_LAYER_KINDS; k++)
        for (int r = 0; r < ND_RECOMPUTE_MODES && kinds[k].layers; r++)
            if (kinds[k].working_bytes[r] > floor_working) levels[n_levels++] = kinds[k].working_bytes[r];
    for (int l = 0; l < n_levels; l++) {
        double level = levels[l];
        /* Each kind may use the modes whose working set stays within the level. */
        bool allowed[ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
        for (int k = 0; k < ND_LAYER_KINDS; k++)
            for (int r = 0; r < ND_RECOMPUTE_MODES; r++) allowed[k][r] = kinds[k].working_bytes[r] <= level;
        double cap = budget_bytes - level;
        if (cap < 0) continue;
        solve_level(&kinds[ia], &kinds[ib], allowed[ia], allowed[ib], inflight, cap, &best_a, &best_b,
                    &best_time, &best_mem, &best_full);
    }
    if (!isfinite(best_time)) return -1;
    memset(counts, 0, sizeof(int64_t) * ND_LAYER_KINDS * ND_RECOMPUTE_MODES);
    memcpy(counts[ia], best_a.n, sizeof best_a.n);
    memcpy(counts[ib], best_b.n, sizeof best_b.n);
    *time_ms = best_time;
    return 0;
}
