/* step_trace_time.csv, read and checked (docs/reference/ascend-profiler-formats.md): every
 * header version — with or without Device_id and Preparing, the 2023 lower-case variant,
 * msprof-analyze's cluster file (Type/Index columns, rank rows only). The Ascend path
 * (classify_ascend.c) apportions its rows; the cross-checks (classify_checks.c) set a
 * Chrome trace's device view beside them. A file of its own so that both use it and
 * neither reaches into the other. */
#include "classify_ascend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify_csv.h"
#include "nd/base/text.h"
/* step_trace_time.csv holds a dozen columns and a row per step and rank; the whole table
 * is kept (a cell is an allocation), so its size and width are bounded. */
#define MAX_CSV_BYTES   ((size_t)64 << 20)
#define MAX_CSV_COLUMNS 256

typedef csv_table table;
#define cell       nd_classify_csv_cell
#define table_free nd_classify_csv_free

static int column_of(const table *t, const char *name)
{
    return nd_classify_csv_column(t, name, 0);
}

/* ---- rows ---------------------------------------------------------------------- */

enum { C_STEP, C_COMPUTING, C_NOT_OVERLAPPED, C_COMMUNICATION, C_FREE, C_STAGE, C_BUBBLE, C_REQ };
static const char *const required[C_REQ] = {
    "Step", "Computing", "Communication(Not Overlapped)", "Communication", "Free", "Stage", "Bubble"};

static int header_check(const char *path, const table *t, int col[C_REQ], nd_error *err)
{
    char missing[512] = "";
    for (int i = 0; i < C_REQ; i++) {
        col[i] = column_of(t, required[i]);
        if (col[i] >= 0 && nd_classify_csv_column(t, required[i], (size_t)col[i] + 1) >= 0)
            return nd_error_set(err, ND_EINPUT, "%s:1: column '%s' appears twice", path, required[i]);
        if (col[i] >= 0) continue;
        if (missing[0]) strncat(missing, ", ", sizeof missing - strlen(missing) - 1);
        strncat(missing, required[i], sizeof missing - strlen(missing) - 1);
    }
    if (missing[0])
        return nd_error_set(err, ND_EINPUT,
                            "%s:1: missing column(s) %s (a step_trace_time.csv "
                            "needs Step, Computing, Communication(Not Overlapped), Communication, "
                            "Free, Stage, Bubble)",
                            path, missing);
    return ND_OK;
}

/* Times in µs: finite, not negative, at most 1e15 µs (31 years): a negative Computing or
 * a Stage of 1e300 is a broken file, not a row to write. */
#define MAX_TIME_US 1e15

static int number(const char *path, const table *t, size_t row, int col, double *out, nd_error *err)
{
    const char *v = cell(t, row, col);
    const char *name = t->cells[col] ? t->cells[col] : "?";
    if (!v || nd_parse_double(v, out) != 0)
        return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is not a number", path,
                            t->row_line[row], name, v ? v : "");
    if (*out < 0)
        return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is negative", path, t->row_line[row],
                            name, v);
    if (*out > MAX_TIME_US)
        return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is more than 1e15 us", path,
                            t->row_line[row], name, v);
    return ND_OK;
}

static int read_row(const char *path, const table *t, size_t row, const int col[C_REQ], ascend_row *r,
                    nd_error *err)
{
    double v[C_REQ];
    for (int i = C_COMPUTING; i < C_REQ; i++) {
        int rc = number(path, t, row, col[i], &v[i], err);
        if (rc) return rc;
    }
    const char *step = cell(t, row, col[C_STEP]);
    r->step_num = -1;
    snprintf(r->step, sizeof r->step, "step%s", step ? step : "");
    if (step && *step) {
        double s;
        if (nd_parse_double(step, &s) != 0 || s < 0 || s > 1e15 || s != (double)(long)s)
            return nd_error_set(err, ND_EINPUT, "%s:%zu: column 'Step': '%s' is not a step number", path,
                                t->row_line[row], step);
        r->step_num = (long)s;
    }
    r->time_ms = v[C_STAGE] / 1000;
    r->comp_ms = v[C_COMPUTING] / 1000;
    r->exposed_ms = v[C_NOT_OVERLAPPED] / 1000;
    r->bubble_ms = v[C_BUBBLE] / 1000;
    r->free_ms = v[C_FREE] / 1000;
    return ND_OK;
}

/* Ranks index a per-rank table (nd_classify_ascend_read's orders), so a rank is bounded: a job of a
 * million devices is beyond any cluster, and a Device_id of 2^31 must not size a table. */
#define MAX_RANK ((1 << 20) - 1)

static int rank_of(const char *path, const table *t, size_t row, int col, int *rank, nd_error *err)
{
    const char *v = cell(t, row, col);
    int64_t r;
    if (v && nd_parse_int64(v, 0, MAX_RANK, &r) == 0) {
        *rank = (int)r;
        return ND_OK;
    }
    return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is not a rank number in [0, %d]", path,
                        t->row_line[row], t->cells[col] ? t->cells[col] : "?", v ? v : "", MAX_RANK);
}

static int rank_of_row(const char *path, const table *t, size_t row, int c_type, int c_index, int c_dev,
                       int *rank, nd_error *err)
{
    *rank = -1;
    if (c_type >= 0 && c_index >= 0) return rank_of(path, t, row, c_index, rank, err);
    if (c_dev >= 0) return rank_of(path, t, row, c_dev, rank, err);
    return ND_OK;
}

int nd_classify_ascend_rows(const char *csv_path, ascend_row **rows_out, size_t *n_out, ascend_file_id *id,
                            nd_error *err)
{
    *rows_out = NULL;
    *n_out = 0;
    table t;
    int rc = nd_classify_csv_read(csv_path, MAX_CSV_BYTES, MAX_CSV_COLUMNS, &t, err), col[C_REQ];
    if (rc) return rc;
    if (id) {
        id->digest = t.digest;
        id->bytes = t.bytes;
    }
    if ((rc = header_check(csv_path, &t, col, err))) {
        table_free(&t);
        return rc;
    }
    int c_dev = column_of(&t, "Device_id"), c_type = column_of(&t, "Type"), c_index = column_of(&t, "Index");
    if (c_type < 0) c_type = column_of(&t, "Type(rank|stage)");
    ascend_row *rows = calloc(t.rows, sizeof *rows);
    size_t n = 0;
    if (!rows) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t row = 1; row < t.rows && !rc; row++) {
        const char *type = cell(&t, row, c_type);
        if (c_type >= 0 && (!type || strcmp(type, "rank"))) continue; /* stage rows: maxima */
        ascend_row *r = &rows[n];
        rc = rank_of_row(csv_path, &t, row, c_type, c_index, c_dev, &r->rank, err);
        if (!rc) rc = read_row(csv_path, &t, row, col, r, err);
        if (!rc) n++;
    }
    table_free(&t);
    if (rc) {
        free(rows);
        return rc;
    }
    *rows_out = rows;
    *n_out = n;
    return ND_OK;
}
