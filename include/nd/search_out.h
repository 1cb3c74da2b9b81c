/*
 * search_out.h — what nd-search prints and writes: the summary of the space, the
 * top-k table, the ranking CSV (ND's columns, then nd's), best.yaml (a run file
 * nd-estimate reads back, with HyperParallel's train.yaml keys), summary.json,
 * the ranking and memory plots, and the recompute potentials (-rp).
 */
#ifndef ND_SEARCH_OUT_H
#define ND_SEARCH_OUT_H

#include <stdio.h>
#include "nd/run.h"
#include "nd/search.h"

/* How many strategies were enumerated, refused (by reason), priced, dropped, fitting. */
void nd_search_print_summary(FILE *fp, const nd_search_config *cfg, const nd_search_result *res);

/* The best `top` strategies, each with its parts in ms and % of the step. */
void nd_search_print_table(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t top);

/* Every ranked strategy: rank, DP EP MP CP PP VPP MB MBS SP OP, recompute (with a recompute
 * dimension or -ar), memory_mb, score (ms, corrected with -c), the ten ND parts, OPTIMIZER,
 * OVERHEAD, step_ms, tokens_per_s (per device). Written atomically. */
int nd_search_write_ranking(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            nd_error *err);

/* The winner as a run file: the run's model and training, the cluster, the strategy (and the
 * per-layer plan with -ar), plus a `hyperparallel:` section of train.yaml keys. */
int nd_search_write_best(const char *path, const nd_search_config *cfg, const nd_run *run,
                         const nd_ranked *best, nd_error *err);

/* Counts and timings as JSON. */
int nd_search_write_summary(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            nd_error *err);

/* The winner's memory per stage as CSV (nd_report_memory_csv). */
int nd_search_write_memory(const char *path, const nd_search_config *cfg, const nd_ranked *best, nd_error *err);

/* DIR/ranking (top strategies' parts and peak memory against the budget) and DIR/memory
 * (the winner's memory per stage). */
struct nd_plot_options;
int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                    const struct nd_plot_options *opt, nd_error *err);

/* -rp: for the top configurations, step time and peak memory as each further layer is fully
 * recomputed; DIR/recompute_potentials.csv (ND's columns) and its plot. Needs -ar. */
int nd_search_potentials(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                         size_t top, const struct nd_plot_options *opt, bool plots, nd_error *err);

#endif
