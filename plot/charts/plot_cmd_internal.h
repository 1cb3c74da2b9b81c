/*
 * plot_cmd_internal.h — what nd-plot's kinds share; not public.
 *
 * plot_cmd.c checks the request, loads the CSV and calls one kind; the kinds
 * (plot_cmd_compare.c: parity, parts; plot_cmd_search.c: ranking, memory,
 * potentials; plot_cmd_more.c: ratios, loo, ranks, kernels) turn the table's columns into
 * an nd_plot_* struct and draw it.
 */
#ifndef ND_PLOT_CMD_INTERNAL_H
#define ND_PLOT_CMD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "nd/charts/csv_table.h"
#include "nd/base/error.h"
#include "nd/base/formats.h"
#include "nd/charts/plot.h"

/* A kind's input: the table and the checked flags. */
typedef struct nd_plot_cmd_input {
    const nd_csv_table *t;
    const char *kind;   /* "parity", ... for messages */
    const char *source; /* which file the kind reads, for messages */
    nd_plot_options opt;
    size_t top;        /* -t; 0: not given */
    double budget_mib; /* --budget; NaN: not given */
    bool no_idle;
} nd_plot_cmd_input;

int nd_plot_cmd_parity(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_parts(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_ranking(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_memory(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_potentials(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_ratios(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_loo(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_ranks(const char *base, const nd_plot_cmd_input *in, nd_error *err);
int nd_plot_cmd_kernels(const char *base, const nd_plot_cmd_input *in, nd_error *err);

/* The indices of columns names[0..n-1] into cols. A missing column is
 * ND_EINPUT "FILE:LINE: no column 'X' (the <kind> plot reads <source>)". */
int nd_plot_cmd_columns(const nd_plot_cmd_input *in, const char *const *names, size_t n, size_t *cols,
                        nd_error *err);

/* The largest magnitude nd-plot draws: 10^12 ms is 31.7 years for one step, 10^12 MiB about
 * 1,000 times ND_MEMORY_MIB_MAX (a petabyte per device); no time or size an nd program writes
 * comes near it, and below it every axis's arithmetic (x 1.1 for a margin, a nice round end,
 * pixels per unit) stays far from overflow. docs/plots.md, "What each kind reads". */
#define ND_PLOT_CMD_VALUE_MAX 1e12

/* Row `row`'s number in column col into *v (blank or nan: NaN). A number beyond
 * +-ND_PLOT_CMD_VALUE_MAX is ND_EINPUT "FILE:LINE: column 'X': '1e308' is beyond ...". */
int nd_plot_cmd_number(const nd_csv_table *t, size_t row, size_t col, double *v, nd_error *err);

/* nd_plot_cmd_number for a size or a time that cannot be below 0 (a memory component, a
 * kernel class's ms): a negative one is ND_EINPUT "FILE:LINE: column 'X': '-5' is negative". */
int nd_plot_cmd_size(const nd_csv_table *t, size_t row, size_t col, double *v, nd_error *err);

/* Row `row`'s numbers in columns cols[0..n-1] into v (blank: NaN), by nd_plot_cmd_number;
 * nd_plot_cmd_sizes by nd_plot_cmd_size. */
int nd_plot_cmd_numbers(const nd_csv_table *t, size_t row, const size_t *cols, size_t n, double *v,
                        nd_error *err);
int nd_plot_cmd_sizes(const nd_csv_table *t, size_t row, const size_t *cols, size_t n, double *v,
                      nd_error *err);

/* "DP 8 MP 4 PP 2 SP" from the degree columns that the table has, the way nd
 * labels strategies (DP always, the others when not 1, SP when on). */
#define ND_PLOT_CMD_LABEL_MAX 160
int nd_plot_cmd_degrees(const nd_csv_table *t, size_t row, char buf[ND_PLOT_CMD_LABEL_MAX], nd_error *err);

/* ND_EINPUT "FILE:LINE: no rows under the header" when the table has none. */
int nd_plot_cmd_need_rows(const nd_plot_cmd_input *in, nd_error *err);

#endif
