/* classify_csv.h — a small CSV table read whole with libcsv, with the line each record
 * starts on (internal). step_trace_time.csv and the round file nd-classify appends to
 * are read with it. */
#ifndef ND_CLASSIFY_CSV_H
#define ND_CLASSIFY_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "nd/base/error.h"

typedef struct csv_table {
    char **cells;      /* row-major, rows x cols; NULL for an empty cell */
    size_t *row_line;  /* the line each record starts on (1-based) */
    size_t cols, rows; /* rows includes the header */
    uint64_t digest;   /* of the first MiB of the data (duplicate inputs; classify_json.h) */
    size_t bytes;      /* the data's length */
    /* while parsing */
    size_t n_cells, cap, cap_rows, row_fields, max_cols, line, row_start, last_end;
    bool oom, too_wide, ragged;
    size_t ragged_row, ragged_fields;
} csv_table;

/* Parses len bytes of data (a UTF-8 BOM is dropped) into t. Every record must have the
 * header's number of fields and at most max_cols fields; a quoted field must be closed.
 * ND_EINPUT naming path and the line otherwise ("empty" when there is no record). */
int nd_classify_csv_parse(const char *path, const char *data, size_t len, size_t max_cols, csv_table *t,
                          nd_error *err);

/* Reads path (a regular file of at most max_bytes) and parses it. */
int nd_classify_csv_read(const char *path, size_t max_bytes, size_t max_cols, csv_table *t, nd_error *err);

/* The cell at (row, col); NULL when empty or col < 0. */
const char *nd_classify_csv_cell(const csv_table *t, size_t row, int col);

/* The first column at or after `from` whose header, spaces trimmed, is name; -1 if none. */
int nd_classify_csv_column(const csv_table *t, const char *name, size_t from);

void nd_classify_csv_free(csv_table *t);

/* Writes s as one CSV field, quoted when it holds a comma, a quote or a line end (NULL
 * writes nothing: an empty cell). */
void nd_classify_csv_put(FILE *f, const char *s);

#endif
