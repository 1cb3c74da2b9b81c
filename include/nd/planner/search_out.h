/*
 * search_out.h — what nd-search prints and writes: the summary of the space, the
 * top-k table, the ranking CSV (ND's columns, then nd's), best.yaml (a run file
 * nd-estimate reads back, with HyperParallel's train.yaml keys), summary.json,
 * the ranking and memory plots, and the recompute potentials (-rp).
 */
#ifndef ND_SEARCH_OUT_H
#define ND_SEARCH_OUT_H

#include <stdio.h>
#include "nd/base/error.h"
#include "nd/inputs/run.h"
#include "nd/charts/plot.h"
#include "nd/planner/search.h"
#include "nd/session/fidelity.h" /* ND_UNCALIBRATED_STEP_ERROR */

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

/* The same for the rows res->items[index[0..n-1]] (at most ND_ODDS_MAX), index[0] the one the
 * others are measured against; out's arrays follow index. ND_ENOMEM. */
int nd_search_odds_of(const nd_search_config *cfg, const nd_search_result *res, const size_t *index, size_t n,
                      nd_search_odds *out, nd_error *err);

/* ---- the answer: distinct choices, how sure nd is, what it assumed (search_answer.c) ---- */

/* Rows that differ only in OP (and the ZERO that follows it) are one choice to launch: the
 * fastest, the others the same split of the devices run more slowly. Rows that differ only in
 * VPP (and the schedule and split that follow it) are one when their steps are within this share
 * of each other: far below what any estimate resolves (nd's benchmarked error is percents,
 * docs/benchmarks.md) and below a training step's run-to-run noise, so such a row is not another
 * answer but a variant of one. */
#define ND_FOLD_STEP_SHARE 0.005

/* One distinct choice: a ranked row and the rows folded into it. */
typedef struct nd_search_choice {
    size_t index;             /* the row shown (the fastest of its variants), into res->items */
    size_t variants;          /* rows folded into it, itself included */
    int64_t op_min, op_max;   /* OP over its variants */
    int64_t vpp_min, vpp_max; /* VPP over its variants */
    double lo_ms, hi_ms;      /* the step's interval: 95 % prediction with -c, else +-
                              ND_UNCALIBRATED_STEP_ERROR */
    double p_fastest;         /* with -c and an uncertainty: share of draws in which it is fastest;
                              NaN otherwise */
    double p_faster;          /* ... in which it beats #1 (NaN for #1 and without draws) */
    bool tied;                /* cannot be told apart from #1 (never #1 itself) */
    double headroom_mib;      /* the budget less its peak */
} nd_search_choice;

typedef enum {
    ND_INTERVAL_FITTED = 0,   /* the ratios file's covariance and scatter (-c) */
    ND_INTERVAL_UNCALIBRATED, /* nd's benchmarked uncalibrated error (no -c, or a ratios file
                                 without an uncertainty) */
} nd_interval_kind;

typedef struct nd_search_answer {
    nd_search_choice *choices; /* the first `count` distinct choices, best first (owned) */
    size_t count;
    size_t *layout;      /* [res->count] the 1-based distinct choice each ranked row belongs to
                            (owned) */
    size_t *folded_into; /* [res->count] the 1-based rank of the row it is folded into, 0 for a
                            row that is shown (owned) */
    size_t layouts;      /* distinct choices over every ranked row */
    nd_interval_kind interval;
    size_t draws; /* the odds' draws (0 without) */
} nd_search_answer;

/* Folds the ranking into distinct choices (rows differing only in OP; only in VPP, within
 * ND_FOLD_STEP_SHARE of the row they fold into), keeps the first `top` (1 at least), and gives
 * each its interval, its odds (-c) and whether it can be told apart from #1. ND_ENOMEM; after a failure the
 * answer is empty and safe to free. */
int nd_search_answer_build(const nd_search_config *cfg, const nd_search_result *res, size_t top,
                           nd_search_answer *out, nd_error *err);

void nd_search_answer_free(nd_search_answer *a);

/* A row's recompute and offload plan in words: "recompute selective", "55 off + 7 full,
 * 3 offloaded". */
void nd_search_plan_text(const nd_ranked *r, char *buf, size_t size);

/* The OP and VPP of a choice's variants: "OP 8-64, VPP 2-4: 6 variants", or "no variant". */
void nd_search_variants_text(const nd_search_choice *c, char *buf, size_t size);

#define ND_ASSUMPTIONS_MAX 32

/* One thing the answer rests on: what (a short name) and the text. */
typedef struct nd_search_assumption {
    char what[40];
    char text[480];
} nd_search_assumption;

/* What the answer rests on, printed in the terminal, the report and best.yaml: calibrated
 * or not (and the typical error), the switches that decided it (overlap flags, schedule,
 * memory margin, offload copy cost), what nd cannot represent for this job, each dimension
 * the winner uses that the fitted round never exercised. */
typedef struct nd_search_assumptions {
    nd_search_assumption items[ND_ASSUMPTIONS_MAX];
    size_t count;
} nd_search_assumptions;

/* What the search knew besides its config: the margin and the budget before it, the ratios
 * file's path, the run's notes. Borrowed. */
typedef struct nd_search_facts {
    double device_budget_mib; /* the budget before the margin */
    double margin_mib;        /* kept free below it (0: none) */
    bool margin_stated;       /* -mem gave it; else the framework's default (a stated -M: none) */
    const char *ratios_path;  /* -c, or NULL */
    const char *const *notes; /* the run's and the search config's notes (n_notes) */
    size_t n_notes;
} nd_search_facts;

/* Appends one item (at most ND_ASSUMPTIONS_MAX; the text is cut to fit). */
void nd_search_assumptions_add(nd_search_assumptions *a, const char *what, const char *fmt, ...)
    ND_PRINTF(3, 4);

/* The assumptions of an answer: calibration, switches, memory, what nd cannot represent (the
 * search's limits for this model and winner, and the facts' notes), dimensions the round never
 * exercised. The switches' what-ifs are the caller's (nd_search_assumptions_add). */
void nd_search_assumptions_build(const nd_search_config *cfg, const nd_search_result *res,
                                 const nd_search_answer *ans, const nd_search_facts *facts,
                                 nd_search_assumptions *out);

/* The block on fp: "What this answer assumes:" and one line per item, each prefixed. */
void nd_search_print_assumptions(FILE *fp, const nd_search_assumptions *a, const char *prefix);

/* The table of the answer's choices after the ranking: interval, odds, ties, headroom. */
void nd_search_print_answer(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans);

/* How many strategies were enumerated, refused (by reason), priced, dropped, fitting. */
void nd_search_print_summary(FILE *fp, const nd_search_config *cfg, const nd_search_result *res);

/* The best `top` strategies, each with its parts in ms and % of the step. */
void nd_search_print_table(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t top);

/* The first choices of the answer, one per distinct layout: the degrees, the plan, peak,
 * headroom, step, interval, tokens/s, MFU; then the parts, the variants folded into it, how
 * far behind #1 it is and whether it can be told apart. */
void nd_search_print_choices(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                             const nd_search_answer *ans);

/* Every ranked strategy: rank, DP EP MP CP PP VPP MB MBS SP OP, recompute (with a recompute
 * dimension or -ar), memory_mb, score (ms, corrected with -c), the ten ND parts, OPTIMIZER,
 * OVERHEAD, step_ms, tokens_per_s (per device); then the answer: layout, folded_into, plan,
 * offloaded_layers, headroom_mib, step_lo_ms, step_hi_ms, interval, p_fastest and
 * tied_with_best (the choices' rows; blank for the others), mfu. Written atomically. */
int nd_search_write_ranking(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans, nd_error *err);

/* The winner (res->items[0]) as a run file: a comment header with its step, interval, peak and
 * headroom and the answer's assumptions; the run's model and training, the cluster, the
 * strategy (and the per-layer plan, offload included, with -ar), plus a `hyperparallel:`
 * section of train.yaml keys that carries the same recompute and offload plan, so the config
 * launched as written fits as priced. */
int nd_search_write_best(const char *path, const nd_search_config *cfg, const nd_run *run,
                         const nd_search_result *res, const nd_search_answer *ans,
                         const nd_search_assumptions *assumed, nd_error *err);

/* The winner written back into the run's own framework config files in dir (framework.h:
 * resolved.yaml, resolved.toml, ...); their paths go to `written`, one per line. */
int nd_search_write_resolved(const char *dir, const nd_search_config *cfg, const nd_run *run,
                             const nd_ranked *best, char *written, size_t size, nd_error *err);

/* Counts as JSON, the answer's choices and its assumptions (ans, assumed and facts may be
 * NULL). */
int nd_search_write_summary(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                            const nd_search_answer *ans, const nd_search_assumptions *assumed,
                            const nd_search_facts *facts, nd_error *err);

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

/* DIR/ranking (the answer's distinct choices: step and interval against #1's, what sets them
 * apart, the ties, peak memory and headroom against the budget) and DIR/memory (the winner's
 * memory per stage, offloaded layers marked). */
struct nd_plot_options;
int nd_search_plots(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                    const nd_search_answer *ans, const struct nd_plot_options *opt, nd_error *err);

/* -rp: for the answer's first distinct choices (at most 20), step time and peak memory as each
 * further layer is fully recomputed; DIR/recompute_potentials.csv (ND's columns; TOP is the
 * choice's number) and its plot. Needs -ar. */
int nd_search_potentials(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                         const nd_search_answer *ans, const struct nd_plot_options *opt, bool plots,
                         nd_error *err);

/* What the report states about the run besides the search. Borrowed strings; NULL: none. */
typedef struct nd_search_report_inputs {
    const char *run_path, *ratios_path, *search_config, *out_dir;
} nd_search_report_inputs;

/* nd-search's one-page HTML report (--report): summary, what the answer assumes, inputs, the
 * answer's choices (plan, interval, odds, headroom), plots (the SVG copies, or none), what was
 * refused, the notes captured (NULL: none). Written atomically. docs/report.md. */
struct nd_html_capture;
int nd_search_report_html(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                          const nd_search_answer *ans, const nd_search_assumptions *assumed,
                          const nd_search_report_inputs *in, const nd_plot_gallery *plots,
                          struct nd_html_capture *notes, nd_error *err);

struct nd_search_config_file;
/* ND's search-config path (-s), after the ranking: "Parallelism:", each of the config's
 * dimensions: its list, auto, or the fixed value. */
void nd_search_print_config_space(FILE *out, const nd_search_config *cfg,
                                  const struct nd_search_config_file *f);
/* ND's lines after "Resolved strategy written to" (run_nd's _log_activation_checkpoint and
 * its "Optimal strategy: dp= tp= pp= cp= ep= mb_num= recompute= mem=N MB score=%.2e"), the
 * per-layer alternative (ND's recompute_per_layer) when the best is not per layer, then nd's
 * "  dp_shard= dp_replicate= score= ms". */
void nd_search_print_config_result(FILE *out, const nd_search_config *cfg, const nd_search_result *res);

#endif
