/*
 * search_internal.h — pieces of the search shared by its files (search/search*.c).
 */
#ifndef ND_SEARCH_INTERNAL_H
#define ND_SEARCH_INTERNAL_H

#include "nd/costmodel/layer_cache.h"
#include "nd/planner/search.h"

#define ND_SEARCH_MAX_VALUES 256

/* Values one dimension takes: the candidates, filtered by -l and the search config. */
typedef struct nd_values {
    int64_t v[ND_SEARCH_MAX_VALUES];
    int n;
} nd_values;

/* Whether dimension d may take v: the run's value when d does not vary (-l), else any
 * value in the search config's list (or any value when it has none). */
bool nd_search_allowed(const nd_search_config *cfg, nd_dim d, int64_t v);

/* Divisors of n in ascending order, at most `limit`, kept when the dimension may take them. */
void nd_search_divisors(const nd_search_config *cfg, nd_dim d, int64_t n, int64_t limit, nd_values *out);

/* The values lo .. hi the dimension may take. */
void nd_search_range(const nd_search_config *cfg, nd_dim d, int64_t lo, int64_t hi, nd_values *out);

/* The reason a fully specified candidate is invalid, or -1 when it is valid; fills the
 * derived settings of s (ETP, ZeRO level, schedule, uneven first/last stages). */
int nd_search_check(const nd_search_config *cfg, nd_strategy *s);

/* Prices s (with the knapsack when -ar). Returns 1 if it fits (r filled), 0 if it does not,
 * and fills *peak_mib with the peak that decided. */
int nd_search_price(const nd_search_config *cfg, nd_layer_cache *cache, nd_strategy *s, nd_ranked *r,
                    double *peak_mib);

/* The explanation when no candidate is valid. */
int nd_search_explain_none(const nd_search_config *cfg, const nd_search_stats *st, nd_error *err);

/* A ranked strategy priced again with its per-stage memory and times (and its per-layer
 * plan under -ar): for the memory CSV and plot, and the winners' memory intervals. The
 * caller frees with nd_priced_stages_free. */
typedef struct nd_priced_stages {
    nd_stage_memory *mem;
    nd_stage_time *tm;
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES];
    int64_t (*off)[ND_LAYER_KINDS];
    nd_recompute_plan plan;
    nd_estimate est;
} nd_priced_stages;

int nd_search_price_stages(const nd_search_config *cfg, const nd_ranked *r, nd_priced_stages *p,
                           nd_error *err);
void nd_priced_stages_free(nd_priced_stages *p);

/* Half-width of the 95 % prediction interval of r's peak under the ratios' memory
 * calibration, MiB: NaN without -c or without memory ratios. */
double nd_search_peak_halfwidth_mib(const nd_search_config *cfg, const nd_ranked *r);

/* The layers of the plan in another mode than main, as JSON ranges ("a-z": "mode") appended
 * to json at used; returns the new length. */
size_t nd_search_layer_ranges(const nd_context *ctx, const nd_strategy *s, const nd_recompute_plan *plan,
                              nd_recompute main, char *json, size_t size, size_t used);

#endif
