/*
 * search.h — enumerate every valid strategy for a cluster and a global batch,
 * drop those that do not fit the memory budget, rank the rest by step time.
 *
 * Dimensions (ND's names): DP, MP, PP, CP, EP, OP, VPP, MB, MBS, SP, plus the
 * recompute mode. DP = devices / (MP x PP x CP) and MB = batch / (DP x MBS) follow
 * from the others. A dimension that does not vary (-l) keeps the run's value; a
 * search config (-s) may restrict any dimension to a list. Layer kinds are
 * priced once per sharding (nd_layer_cache), sub-spaces that cannot fit are
 * skipped, and threads merge deterministically: the ranking is sorted by step
 * time, then by the strategy's degrees, so it does not depend on -j.
 * docs/search.md explains every rule.
 */
#ifndef ND_SEARCH_H
#define ND_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "nd/costmodel/estimate.h"
#include "nd/inputs/run.h"

/* The search varies the first ND_DIMS_SEARCHED dimensions of formats.h's nd_dim (DP .. OP). */

/* The searched dimension a name means (any case; TP = MP), or -1 (also for ETP and ZERO). */
int nd_search_dim_from_name(const char *name);

/* Why a candidate is refused (docs/search.md lists each rule with its reason). */
typedef enum {
    ND_REFUSE_HEADS = 0, /* attention heads or KV heads do not divide over MP */
    ND_REFUSE_WIDTH,     /* MLP or expert width does not divide over MP/ETP */
    ND_REFUSE_LAYERS,    /* layers do not split over PP x VPP */
    ND_REFUSE_EXPERTS,   /* experts do not divide over EP, or EP x ETP over MP x CP x DP */
    ND_REFUSE_SEQUENCE,  /* sequence does not split into 2 x CP chunks */
    ND_REFUSE_SHARDING,  /* OP does not divide DP x CP */
    ND_REFUSE_SCHEDULE,  /* interleaving needs PP >= 2 and MB a multiple of PP */
    ND_REFUSE_BATCH,     /* the global batch does not divide over DP (x MBS) */
    ND_REFUSE_LIST,      /* outside the search config's list */
    ND_REFUSE_ATTENTION, /* context parallelism without a fused attention kernel */
    ND_REFUSE_REASONS
} nd_refusal;

const char *nd_refusal_name(nd_refusal r);

typedef struct nd_search_space {
    unsigned vary;                            /* ND_DIM_BIT of each dimension that varies (-l) */
    const int64_t *allowed[ND_DIMS_SEARCHED]; /* search-config lists, NULL = any value */
    size_t n_allowed[ND_DIMS_SEARCHED];
    nd_recompute modes[ND_RECOMPUTE_MODES]; /* recompute modes to try (--recompute) */
    int n_modes;
    bool per_layer;              /* -ar: a mode per layer by the knapsack */
    unsigned layer_modes;        /* -ar: bit 1 << mode of each mode a layer may take
                                    (-ar --recompute MODES, recompute_modes); 0 = all */
    bool offload;                /* -ao: a stage's first layers offload activations */
    double host_gbps;            /* offload link, GB/s (0 = the device's) */
    double host_overlap;         /* share of the forward the copies may hide in (0.8) */
    double host_cost_ms_per_gib; /* step time each GiB moved costs (0 = free) */
    double sustained_tflops;     /* the forward the copies hide in, as FLOPs at this rate
                                    (ND's --sustained_tflops); 0 = the priced forward */
    int64_t max_vpp;             /* largest VPP tried; 0 = up to the layers a stage holds (ND caps at 4) */
    unsigned schedules;          /* 1 << nd_schedule of each pipeline schedule tried: the framework's
                                    and the run's own (nd_search_space_init) */
    const nd_run_layout *layout; /* -mppb: the config's per-stage recompute counts, a plan
                                    for each candidate (nd_layout_plan); NULL = none */
} nd_search_space;

/* The defaults: every dimension varies, the run's recompute mode, no -ar/-ao, every VPP, the
 * schedules the run's framework runs and the run's own. */
void nd_search_space_init(nd_search_space *sp, const nd_train *train);

/* One priced strategy. */
typedef struct nd_ranked {
    nd_strategy s;
    double parts_ms[ND_PARTS];
    double raw_parts_ms[ND_PARTS];
    double step_ms, peak_mib, tokens_per_s_per_device, mfu;
    double kernels_per_step, microbatch_slots;  /* what a calibration's fixed costs multiply */
    bool per_layer;                             /* its recompute modes were chosen per layer (-ar) */
    int64_t layers_by_mode[ND_RECOMPUTE_MODES]; /* with -ar: body layers in each mode */
    int64_t offloaded_layers;
} nd_ranked;

typedef struct nd_search_stats {
    uint64_t enumerated;                 /* candidate tuples considered */
    uint64_t refused[ND_REFUSE_REASONS]; /* by the first rule they break */
    uint64_t priced;                     /* valid, memory estimated */
    uint64_t dropped_memory;             /* valid but over the budget (priced, or known from a bound) */
    uint64_t bounded;                    /* of those, known over budget without pricing */
    uint64_t fitting;
    double min_peak_mib;  /* the least memory any valid strategy needs */
    nd_strategy min_peak; /* ... and that strategy */
    double seconds;
} nd_search_stats;

typedef struct nd_search_result {
    nd_ranked *items; /* fitting strategies, best first (all of them, or the top k) */
    size_t count;
    nd_search_stats stats;
} nd_search_result;

typedef struct nd_search_config {
    const nd_context *ctx; /* model, training, device, devices, budget, ratios */
    nd_strategy base;      /* the run's strategy: values of the dimensions that do not vary */
    int64_t global_batch;  /* sequences per step */
    nd_search_space space;
    size_t keep;    /* 0: keep every fitting strategy; else the best `keep` */
    int threads;    /* >= 1 */
    FILE *progress; /* NULL: none; else a line per 10 %, or redrawn on a terminal */
} nd_search_config;

/* Runs the search. The result is sorted; the caller frees it with nd_search_result_free.
 * ND_EINPUT when no strategy is valid for the cluster and batch (the message explains
 * why and lists the reachable global batches), ND_ENOMEM. An empty ranking because
 * nothing fits is not an error here: stats.min_peak_mib says what the least needs. */
int nd_search_run(const nd_search_config *cfg, nd_search_result *out, nd_error *err);

void nd_search_result_free(nd_search_result *r);

/* Orders two ranked strategies: step time, then the degrees (the total order of the ranking). */
int nd_ranked_compare(const nd_ranked *a, const nd_ranked *b);

struct nd_search_config_file;
/* Applies a search config (search_config.h) to a search space and base strategy (before
 * command-line overrides): fixed values, candidate lists, recompute modes, schedule. */
void nd_search_config_apply(const struct nd_search_config_file *f, nd_search_space *space, nd_strategy *base);

/* The per-layer recompute plan of a ranked strategy (-ar), recomputed deterministically:
 * plan->layers must hold s.pp stages. Returns 0, or -1 when it has none. */
int nd_search_plan(const nd_search_config *cfg, const nd_ranked *r, nd_recompute_plan *plan);

/* One way to run PP stages: a schedule, its VPP and how the layers split (split.h). */
typedef struct nd_pipeline_choice {
    nd_schedule schedule;
    int64_t vpp, first_stage_layers, last_stage_layers;
    bool embedding_in_split, loss_in_split;
    const struct nd_pipeline_layout *layout;
} nd_pipeline_choice;

#define ND_SEARCH_MAX_PIPELINES 512

/* The pipeline choices a search tries for PP stages: every schedule of the search space with
 * every VPP it may take, each with the splits its framework can run — the run's own split at
 * the run's PP and VPP, else the even split, the embedding and loss counted (Megatron), and
 * where neither divides the uneven first/last split. Returns how many (0: none splits). */
int nd_search_pipelines(const nd_search_config *cfg, int64_t pp, nd_pipeline_choice *out, int max);

/* Sets s's schedule, VPP and split from c. */
void nd_pipeline_choice_apply(const nd_pipeline_choice *c, nd_strategy *s);

#endif
