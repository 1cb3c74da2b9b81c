/*
 * search_out.h — what nd-search prints and writes: the summary of the space, the
 * top-k table, the ranking CSV (ND's columns, then nd's), best.yaml (a run file
 * nd-estimate reads back, with HyperParallel's train.yaml keys), summary.json,
 * the ranking and memory plots, and the recompute potentials (-rp).
 */
#ifndef ND_SEARCH_OUT_H
#define ND_SEARCH_OUT_H

#include <stdio.h>
#include "nd/inputs/run.h"
#include "nd/charts/plot.h"
#include "nd/planner/search.h"

#define ND_ODDS_MAX 64

/* How sure the calibration is of the top candidates (-c with a ratios file that carries its
 * uncertainty; count 0 otherwise). */
typedef struct nd_search_odds {
    size_t count, draws;
    double half[ND_ODDS_MAX];               /* half-width of each step's 95 % interval, ms */
    double p_fastest[ND_ODDS_MAX];          /* share of draws in which it is fastest */
    double p_faster_than_best[ND_ODDS_MAX]; /* ... in which it beats #1 (NaN for #1) */
    bool tied[ND_ODDS_MAX];                 /* faster than #1 in at least 5 % of the draws */
} nd_search_odds;

/* The odds of the first `top` (at most ND_ODDS_MAX) ranked strategies, by fixed-seed sampling
 * (search_odds.c). ND_ENOMEM. */
int nd_search_odds_compute(const nd_search_config *cfg, const nd_search_result *res, size_t top,
                           nd_search_odds *out, nd_error *err);

/* Their table: step, 95 % interval, P(fastest), share of draws faster than #1, and a mark
 * for those the calibration cannot tell apart from #1. Nothing when odds->count is 0. */
void nd_search_print_odds(FILE *fp, const nd_search_result *res, const nd_search_odds *odds);

/* How many strategies were enumerated, refused (by reason), priced, dropped, fitting. */
void nd_search_print_summary(FILE *fp, const nd_search_config *cfg, const nd_search_result *res);

/* The best `top` strategies, each with its parts in ms and % of the step. */
void nd_search_print_table(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t top);

/* Every ranked strategy: rank, DP EP MP CP PP VPP MB MBS SP OP, recompute (with a recompute
 * dimension or -ar), memory_mb, score (ms, corrected with -c), the ten ND parts, OPTIMIZER,
 * OVERHEAD, step_ms, tokens_per_s (per device); with -c and an uncertainty, step_lo_ms and
 * step_hi_ms (every row) and p_fastest, tied_with_best (the odds' rows; blank after).
 * odds may be NULL. Written atomically. */
int nd_search_write_ranking(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_odds *odds, nd_error *err);

/* The winner as a run file: the run's model and training, the cluster, the strategy (and the
 * per-layer plan with -ar), plus a `hyperparallel:` section of train.yaml keys. */
int nd_search_write_best(const char *path, const nd_search_config *cfg, const nd_run *run,
                         const nd_ranked *best, nd_error *err);

/* The winner written back into the run's own framework config files in dir (framework.h:
 * resolved.yaml, resolved.toml, ...); their paths go to `written`, one per line. */
int nd_search_write_resolved(const char *dir, const nd_search_config *cfg, const nd_run *run,
                             const nd_ranked *best, char *written, size_t size, nd_error *err);

/* Counts and timings as JSON, and the odds when they exist (odds may be NULL). */
int nd_search_write_summary(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_odds *odds, nd_error *err);

/* ND's debug files in dir (-v 2 and above, with -o): debug.csv, a row per ranked strategy
 * (rank, ND's dimensions, recompute, ND's ten parts, TOTAL = the step, MEMORY = the peak,
 * then OPTIMIZER and OVERHEAD), and debug_mem.csv, a row per stage of each (memory by
 * component, MiB; the stage's times per micro-batch, ms); the first `count` strategies. */
int nd_search_write_debug(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                          size_t count, nd_error *err);

/* ND's exhaustive additions (-e E, -ee F, -eee N as counts[0..2]): for each dimension of dims
 * in order, the best ranked strategies beyond the first `top` in which it exceeds 1: with
 * F >= E, F of them; else max(F, E - how many of the top have it above 1); -eee N, N distinct
 * ones per dimension (a shortfall warned on diag). Fills out (indices into res, rank order,
 * at most cap) and returns how many. */
size_t nd_search_exhaustive(const nd_search_result *res, size_t top, const nd_dim *dims, int n_dims,
                            const int counts[3], size_t *out, size_t cap, FILE *diag);

/* Rows of the table for the strategies res->items[index[i]], with their global ranks, under
 * `heading`. */
void nd_search_print_rows(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                          const size_t *index, size_t n, const char *heading);

/* -k K: the pipeline balancer's description of the K-th ranked strategy (0 = the best), as
 * ND's to_ppb: dir/<name>_nd_to_ppb_<K>.json (docs/search.md). The path written goes to
 * path. ND_EUSAGE when fewer than K + 1 strategies were ranked. */
int nd_search_write_ppb(const char *dir, const char *name, const nd_search_config *cfg,
                        const nd_search_result *res, size_t k, char *path, size_t size, nd_error *err);

/* -v 3: the dimensions searched and the values the others keep. */
void nd_search_print_space(FILE *fp, const nd_search_config *cfg);

/* -v 5 and 6: the first `count` strategies' stages: memory by component, or times. */
void nd_search_print_stages(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t count,
                            bool times);

/* The winner's memory per stage as CSV (nd_report_memory_csv). */
int nd_search_write_memory(const char *path, const nd_search_config *cfg, const nd_ranked *best,
                           nd_error *err);

/* DIR/ranking (top strategies' parts and peak memory against the budget) and DIR/memory
 * (the winner's memory per stage). */
struct nd_plot_options;
int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res, size_t top,
                    const struct nd_plot_options *opt, nd_error *err);

/* -rp: for the top configurations, step time and peak memory as each further layer is fully
 * recomputed; DIR/recompute_potentials.csv (ND's columns) and its plot. Needs -ar. */
int nd_search_potentials(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                         size_t top, const struct nd_plot_options *opt, bool plots, nd_error *err);

/* What the report states about the run besides the search. Borrowed strings; NULL: none. */
typedef struct nd_search_report_inputs {
    const char *run_path, *ratios_path, *search_config, *out_dir;
} nd_search_report_inputs;

/* nd-search's one-page HTML report (--report): summary, inputs, the first `top` strategies
 * (with the odds when given), plots (the SVG copies, or none), what was refused, the notes
 * captured (NULL: none). Written atomically. docs/report.md. */
struct nd_html_capture;
int nd_search_report_html(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                          size_t top, const nd_search_odds *odds, const nd_search_report_inputs *in,
                          const nd_plot_gallery *plots, struct nd_html_capture *notes, nd_error *err);

struct nd_search_config_file;
/* ND's search-config path (-s), after the ranking: "Parallelism:" (each of the config's
 * dimensions: its list, auto, or the fixed value), "Optimal strategy:" in ND's result keys
 * (dp, tp, pp, cp, ep, micro_batch_num, dp_shard, dp_replicate, activation_checkpoint,
 * memory_estimate_mb, score), the per-layer ranges and offloaded activations when the best
 * has them, and the per-layer alternative (ND's recompute_per_layer) when it has not. */
void nd_search_print_config_result(FILE *out, const nd_search_config *cfg,
                                   const struct nd_search_config_file *f, const nd_search_result *res);

#endif
