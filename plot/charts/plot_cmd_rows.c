/*
 * plot_cmd_rows.c — what nd-plot's kinds share when reading a CSV: columns by name, a row's
 * numbers, a row's degrees as nd labels strategies, the check that there are rows.
 */
#include "plot_cmd_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"

int nd_plot_cmd_columns(const nd_plot_cmd_input *in, const char *const *names, size_t n, size_t *cols,
                        nd_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int c = nd_csv_table_find(in->t, names[i]);
        if (c < 0)
            return nd_error_set(err, ND_EINPUT, "%s:%d: no column '%s' (the %s plot reads %s)", in->t->path,
                                in->t->header_line, names[i], in->kind, in->source);
        cols[i] = (size_t)c;
    }
    return ND_OK;
}

/* The cell's text for a message: at most 40 bytes, which a number needs. */
static int refuse(const nd_csv_table *t, size_t row, size_t col, const char *why, nd_error *err)
{
    const char *c = nd_csv_table_cell(t, row, col);
    return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%.40s' %s", t->path, t->lines[row],
                        t->header[col], c ? c : "", why);
}

int nd_plot_cmd_number(const nd_csv_table *t, size_t row, size_t col, double *v, nd_error *err)
{
    int rc = nd_csv_table_number(t, row, col, v, err);
    if (rc || !(fabs(*v) > ND_PLOT_CMD_VALUE_MAX)) return rc;
    return refuse(t, row, col, "is beyond 1e12, more than any time (ms) or size (MiB) a run has", err);
}

int nd_plot_cmd_size(const nd_csv_table *t, size_t row, size_t col, double *v, nd_error *err)
{
    int rc = nd_plot_cmd_number(t, row, col, v, err);
    if (rc || !(*v < 0)) return rc;
    return refuse(t, row, col, "is negative (a size or a time is at least 0)", err);
}

int nd_plot_cmd_numbers(const nd_csv_table *t, size_t row, const size_t *cols, size_t n, double *v,
                        nd_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = nd_plot_cmd_number(t, row, cols[i], &v[i], err);
        if (rc) return rc;
    }
    return ND_OK;
}

int nd_plot_cmd_sizes(const nd_csv_table *t, size_t row, const size_t *cols, size_t n, double *v,
                      nd_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = nd_plot_cmd_size(t, row, cols[i], &v[i], err);
        if (rc) return rc;
    }
    return ND_OK;
}

int nd_plot_cmd_need_rows(const nd_plot_cmd_input *in, nd_error *err)
{
    if (in->t->n_rows) return ND_OK;
    return nd_error_set(err, ND_EINPUT, "%s:%d: no rows under the header: nothing to draw", in->t->path,
                        in->t->header_line + 1);
}

/* Row `row`'s cell of dimension d into *v: -1 when the table has no such column or the
 * cell is blank; SP as 0 or 1. */
static int read_degree(const nd_csv_table *t, size_t row, nd_dim d, int64_t *v, nd_error *err)
{
    int col = nd_csv_table_find(t, nd_dim_name(d));
    const char *c = col >= 0 ? nd_csv_table_cell(t, row, (size_t)col) : NULL;
    bool on = false;
    *v = -1;
    if (!c) return ND_OK;
    if (d == ND_DIM_SP) {
        if (nd_parse_bool(c, &on))
            return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not 0/1 or true/false", t->path,
                                t->lines[row], nd_dim_name(d), c);
        *v = on;
    } else if (nd_parse_int64(c, 1, (int64_t)1 << 30, v)) {
        return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not a whole number >= 1", t->path,
                            t->lines[row], t->header[col], c);
    }
    return ND_OK;
}

int nd_plot_cmd_degrees(const nd_csv_table *t, size_t row, char buf[ND_PLOT_CMD_LABEL_MAX], nd_error *err)
{
    /* The degree columns the table has, labelled as nd_strategy_label labels a strategy,
     * so a redrawn plot reads like nd-search's. The flag SP is checked last. */
    int64_t degree[ND_DIMS_SEARCHED];
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        if (d != ND_DIM_SP && read_degree(t, row, (nd_dim)d, &degree[d], err)) return err->code;
    if (read_degree(t, row, ND_DIM_SP, &degree[ND_DIM_SP], err)) return err->code;
    nd_dim_label(degree, buf, ND_PLOT_CMD_LABEL_MAX);
    return ND_OK;
}
