/*
 * knapsack.h — choosing a recompute mode per layer on one pipeline stage (-ar):
 * the fastest assignment whose activations fit the stage's memory.
 *
 * Layers of one kind on a stage are interchangeable, so an assignment is a count
 * of layers per (kind, mode). The solver is exact: for each possible largest
 * transient working set it enumerates the counts of one kind, and for the other
 * the number of fully recomputed layers, taking the fewest selective ones that
 * fit (more would only cost time). docs/search.md §Per-layer recompute.
 */
#ifndef ND_KNAPSACK_H
#define ND_KNAPSACK_H

#include <stdint.h>
#include "nd/costmodel/model.h"
#include "nd/costmodel/strategy.h"

typedef struct nd_knapsack_kind {
    int64_t layers;                           /* layers of this kind on the stage */
    double time_ms[ND_RECOMPUTE_MODES];       /* per layer and micro-batch, each mode */
    double act_bytes[ND_RECOMPUTE_MODES];     /* kept per layer and micro-batch in flight */
    double working_bytes[ND_RECOMPUTE_MODES]; /* transient in the layer's backward */
} nd_knapsack_kind;

/* Minimises sum n[k][r] x time[k][r] subject to
 *   inflight x sum n[k][r] x act[k][r] + max(floor_working, working[k][r] of every mode used)
 *     <= budget_bytes,  sum_r n[k][r] = layers[k].
 * Fills counts and *time_ms. Returns 0, or -1 when nothing fits (not even every layer in
 * its lightest mode). Ties go to less memory, then to fewer fully recomputed layers. */
int nd_knapsack_stage(const nd_knapsack_kind kinds[ND_LAYER_KINDS], double inflight, double budget_bytes,
                      double floor_working, int64_t counts[ND_LAYER_KINDS][ND_RECOMPUTE_MODES],
                      double *time_ms);

#endif
