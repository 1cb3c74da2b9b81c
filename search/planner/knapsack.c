/* knapsack.c — the per-layer recompute plan of one stage: how many layers of each kind run
 * in each mode (and are offloaded) for the least time within the stage's memory. */
#include "nd/planner/knapsack.h"

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

/* Counts enumerated in full up to these sizes; beyond, in windows (docs/search.md
 * §Per-layer recompute, "Many layers"), so a stage of 65,536 layers costs what one of a few
 * hundred does. */
#define EXACT_FULL_COUNTS  192 /* the other kind's fully recomputed count: every value */
#define WINDOW             32  /* beyond: this many on each side of each anchor */
#define EXACT_PAIRS_LAYERS 63  /* the enumerated kind: every (selective, full) pair */
#define GRID               32  /* beyond: a grid of this many steps, then refined */

/* Adds [at - WINDOW, at + WINDOW] within [0, n] to list (anchors that are not finite are
 * skipped: a barred mode's 1e30 bytes give no place to look). */
static size_t add_window(int64_t *list, size_t used, double at, int64_t n)
{
    if (!isfinite(at)) return used;
    double lo = fmax(0, floor(at) - WINDOW), hi = fmin((double)n, ceil(at) + WINDOW);
    for (double f = lo; f <= hi; f++) list[used++] = (int64_t)f;
    return used;
}

/* The numbers of fully recomputed layers worth trying for one kind (at most 4 windows
 * plus the ends). The time as a function of that number is linear between the anchors
 * (where selective layers stop being needed, where off layers can no longer be kept, and
 * the ends), up to the rounding of one selective layer, so the optimum lies within a window
 * of an anchor unless the line is flatter than a selective layer's time over WINDOW layers:
 * then what is missed is less than that one layer's time. */
static size_t full_counts(const nd_knapsack_kind *k, const bool allowed[ND_RECOMPUTE_MODES], double cap,
                          int64_t *list)
{
    int64_t n = k->layers;
    if (!allowed[FULL]) {
        list[0] = 0;
        return 1;
    }
    if (n + 1 <= EXACT_FULL_COUNTS) {
        for (int64_t f = 0; f <= n; f++) list[f] = f;
        return (size_t)n + 1;
    }
    const double *a = k->act_bytes;
    size_t used = add_window(list, 0, 0, n);
    used = add_window(list, used, (double)n, n);
    used = add_window(list, used, ((double)n * a[OFF] - cap) / (a[OFF] - a[FULL]), n);
    used = add_window(list, used, ((double)n * a[SEL] - cap) / (a[SEL] - a[FULL]), n);
    return used;
}

/* The fastest counts of one kind whose kept bytes per micro-batch stay within cap, using
 * only the allowed modes. For each number of fully recomputed layers tried the fewest
 * selective ones that fit are taken. Returns 0 or -1. */
static int best_single(const nd_knapsack_kind *k, const bool allowed[ND_RECOMPUTE_MODES], double cap,
                       choice *out)
{
    int64_t n = k->layers;
    int64_t fulls[4 * (2 * WINDOW + 1) + EXACT_FULL_COUNTS];
    size_t n_fulls = full_counts(k, allowed, cap, fulls);
    out->time = INFINITY;
    int64_t best_full = INT64_MAX;
    bool found = false;
    for (size_t i = 0; i < n_fulls; i++) {
        int64_t f = fulls[i];
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
        double time =
            (double)(rest - s) * k->time_ms[OFF] + (double)s * k->time_ms[SEL] + (double)f * k->time_ms[FULL];
        if (!found || better(time, mem, f, out, best_full)) {
            out->n[OFF] = rest - s;
            out->n[SEL] = s;
            out->n[FULL] = f;
            out->time = time;
            out->mem = mem;
            best_full = f;
            found = true;
        }
    }
    return found ? 0 : -1;
}

/* The best plan of one level found so far. */
typedef struct level_best {
    choice a, b;
    double time, mem;
    int64_t full;
} level_best;

/* Kind a with f full and s selective layers (the rest off), and the best counts of kind b
 * for what memory remains: kept in best when better. Returns its time (INFINITY when it does
 * not fit). */
static double try_counts(const nd_knapsack_kind *a, const nd_knapsack_kind *b,
                         const bool allowed_a[ND_RECOMPUTE_MODES], const bool allowed_b[ND_RECOMPUTE_MODES],
                         double cap, int64_t f, int64_t s, level_best *best)
{
    int64_t o = a->layers - f - s;
    if (f < 0 || s < 0 || o < 0 || (f && !allowed_a[FULL]) || (s && !allowed_a[SEL]) ||
        (o && !allowed_a[OFF]))
        return INFINITY;
    double mem_a =
        (double)o * a->act_bytes[OFF] + (double)s * a->act_bytes[SEL] + (double)f * a->act_bytes[FULL];
    if (mem_a > cap * (1 + 1e-12) + 1e-9) return INFINITY;
    choice cb;
    if (best_single(b, allowed_b, cap - mem_a, &cb)) return INFINITY;
    double time =
        (double)o * a->time_ms[OFF] + (double)s * a->time_ms[SEL] + (double)f * a->time_ms[FULL] + cb.time;
    double mem = mem_a + cb.mem;
    int64_t full = f + cb.n[FULL];
    choice probe = {.time = best->time, .mem = best->mem};
    if (better(time, mem, full, &probe, best->full)) {
        best->a = (choice){{o, s, f}, 0, mem_a};
        best->b = cb;
        best->time = time;
        best->mem = mem;
        best->full = full;
    }
    return time;
}

/* Every count of kind a with the allowed modes, and the best counts of kind b for the rest.
 * Above EXACT_PAIRS_LAYERS layers of kind a, a grid of (full, selective) counts and then a
 * pattern search around the best point, halving its step down to one layer. */
static void solve_level(const nd_knapsack_kind *a, const nd_knapsack_kind *b,
                        const bool allowed_a[ND_RECOMPUTE_MODES], const bool allowed_b[ND_RECOMPUTE_MODES],
                        double inflight, double cap_bytes, level_best *best)
{
    double cap = cap_bytes / inflight; /* bytes per micro-batch in flight */
    int64_t n = a->layers;
    if (n <= EXACT_PAIRS_LAYERS) {
        for (int64_t f = 0; f <= n; f++)
            for (int64_t s = 0; s + f <= n; s++) try_counts(a, b, allowed_a, allowed_b, cap, f, s, best);
        return;
    }
    int64_t step = n / GRID > 1 ? n / GRID : 1, bf = -1, bs = -1;
    double bt = INFINITY;
    for (int64_t f = 0; f <= n; f = f + step > n && f < n ? n : f + step)
        for (int64_t s = 0; s + f <= n; s = s + step > n - f && s < n - f ? n - f : s + step) {
            double t = try_counts(a, b, allowed_a, allowed_b, cap, f, s, best);
            if (t < bt) {
                bt = t;
                bf = f;
                bs = s;
            }
        }
    for (; bf >= 0 && step >= 1; step /= 2) {
        bool moved = true;
        while (moved) {
            moved = false;
            for (int df = -1; df <= 1; df++)
                for (int ds = -1; ds <= 1; ds++) {
                    double t =
                        try_counts(a, b, allowed_a, allowed_b, cap, bf + df * step, bs + ds * step, best);
                    if (t < bt * (1 - 1e-12)) {
                        bt = t;
                        bf += df * step;
                        bs += ds * step;
                        moved = true;
                    }
                }
        }
    }
}

int nd_knapsack_stage(const nd_knapsack_kind kinds[ND_LAYER_KINDS], double inflight, double budget_bytes,
                      double floor_working, int64_t counts[ND_LAYER_KINDS][ND_RECOMPUTE_MODES],
                      double *time_ms)
{
    /* Enumerate the fewer-layered kind; the other is solved in closed form per full count. */
    int ia = kinds[ND_LAYER_DENSE].layers <= kinds[ND_LAYER_MOE].layers ? ND_LAYER_DENSE : ND_LAYER_MOE;
    int ib = 1 - ia;
    if (inflight <= 0) inflight = 1;
    level_best best = {{{0}, 0, 0}, {{0}, 0, 0}, INFINITY, INFINITY, INT64_MAX};
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
        solve_level(&kinds[ia], &kinds[ib], allowed[ia], allowed[ib], inflight, cap, &best);
    }
    if (!isfinite(best.time)) return -1;
    memset(counts, 0, sizeof(int64_t) * ND_LAYER_KINDS * ND_RECOMPUTE_MODES);
    memcpy(counts[ia], best.a.n, sizeof best.a.n);
    memcpy(counts[ib], best.b.n, sizeof best.b.n);
    *time_ms = best.time;
    return 0;
}
