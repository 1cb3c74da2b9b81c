/*
 * layout.h — a run's own per-stage plan applied to a strategy: the recompute_plan a run file
 * states (as nd-search -ar writes it into best.yaml) and ND's -mppb reading of what a
 * framework config states per pipeline stage (layers and recompute counts).
 */
#ifndef ND_INPUTS_LAYOUT_H
#define ND_INPUTS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/costmodel/estimate.h"
#include "nd/inputs/run.h"

/* The run file's recompute_plan as a plan for strategy s; ND_EINPUT when it does not match
 * s's stages and layers. plan points into run. */
int nd_plan_from_run(const nd_run *run, const nd_strategy *s, nd_recompute_plan *plan, nd_error *err);

/* ND's -mppb (layout.c): whether the config states per-stage layers or recompute. */
bool nd_layout_stated(const nd_run_layout *L);

/* The config's per-stage layers as the run strategy's FIRST/LAST, when its PP is the
 * config's and the middle stages are equal. Returns 1 when set, else 0 with why in note
 * ("" when there is nothing to say). */
int nd_layout_strategy(nd_run *run, char *note, size_t size);

/* The config's per-stage recompute counts as a plan for s (s->pp stages into layers): each
 * stage's first `recompute` layers fully recomputed, up to its `selective` count
 * selectively, the rest not; at another PP each count keeps its share of the stage.
 * Returns 0, or -1 when the config states no counts. */
int nd_layout_plan(const nd_model *m, const nd_run_layout *L, const nd_strategy *s,
                   int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]);

/* Without -mppb the run's recompute mode is every layer's: when the config's own counts leave
 * layers of a stage out of that mode (Megatron's --recompute-num-layers 12 of 16, MindFormers'
 * recompute: [7, 7] of 14), a note in `note` saying so and what -mppb prices; returns 1 then,
 * else 0 with note "". */
int nd_layout_partial_note(const nd_run *run, char *note, size_t size);

#endif
