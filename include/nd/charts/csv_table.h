/*
 * csv_table.h — a whole CSV file in memory: its header and its rows of cell
 * strings, each row knowing the line it started on, so that a reader can say
 * "runs.csv:7: column 'score': 'abc' is not a number".
 *
 * The file is read with libcsv in strict mode (quotes must be balanced and
 * closed, a quote may not appear inside an unquoted cell). A UTF-8 byte order
 * mark is skipped; blank lines are skipped; a quoted cell may span lines (its
 * row then carries the line it started on). The first record is the header:
 * its names are trimmed of surrounding spaces, must not be blank and must not
 * repeat. Names are compared exactly, case included: nd's own files have both
 * `recompute` (the mode) and `RECOMPUTE` (a time part). Every later record must have as many
 * cells as the header.
 *
 * A cell is "blank" when it is empty, quoted empty ("") or only whitespace;
 * nd's writers leave a cell blank for "not available".
 *
 * Ownership: nd_csv_table_load fills a table the caller releases with
 * nd_csv_table_free; every pointer handed out by the lookups points into it.
 *
 * Memory: the cells' text lives in one block reserved at twice the file's size (a cell's
 * text and its NUL can never need more) of which only what is written is touched, so a
 * table holds about the file's size in text plus 8 bytes a cell for the pointers
 * (docs/limits.md).
 *
 * Errors (return value, one line in err naming file and line):
 *   ND_EINPUT   missing or unreadable file, not text, malformed CSV, no header,
 *               a blank or repeated column name, a row with the wrong number
 *               of cells, too many rows or columns; from the lookups: a missing
 *               column, a cell that is not a number
 *   ND_ENOMEM   out of memory
 */
#ifndef ND_CSV_TABLE_H
#define ND_CSV_TABLE_H

#include <stddef.h>

#include "nd/base/error.h"

#define ND_CSV_TABLE_MAX_BYTES   (64u << 20)
#define ND_CSV_TABLE_MAX_COLUMNS 1024
#define ND_CSV_TABLE_MAX_ROWS    1000000

typedef struct nd_csv_table {
    char *path;      /* owned copy of the path, for messages */
    int header_line; /* the line the header started on (1 unless blank lines precede it) */
    size_t n_cols;   /* >= 1 */
    char **header;   /* [n_cols] trimmed column names */
    size_t n_rows;   /* may be 0: a header alone is a valid table */
    char **cells;    /* [n_rows * n_cols], row-major, untrimmed; NULL for an empty cell */
    int *lines;      /* [n_rows] the line each row started on */
    char *arena;     /* every cell's text, NUL after each: one block, not a malloc per cell */
} nd_csv_table;

/* Reads the CSV file at path into t (t is overwritten). On failure t is left
 * empty and safe to free. */
int nd_csv_table_load(const char *path, nd_csv_table *t, nd_error *err);

/* Releases what t owns and empties it; safe on an empty or freed table. */
void nd_csv_table_free(nd_csv_table *t);

/* The index of the column named exactly name, or -1. */
int nd_csv_table_find(const nd_csv_table *t, const char *name);

/* The index of column name into *col, or ND_EINPUT "FILE:LINE: no column 'NAME'"
 * with the header's line. */
int nd_csv_table_column(const nd_csv_table *t, const char *name, size_t *col, nd_error *err);

/* The cell at (row, col), or NULL when it is blank. */
const char *nd_csv_table_cell(const nd_csv_table *t, size_t row, size_t col);

/* The cell at (row, col) as a finite number (nd_parse_double: the whole cell,
 * surrounding spaces allowed) into *out; a blank cell, or the word "nan" that
 * nd writes for a value not available, gives NaN. "inf" is refused.
 * ND_EINPUT "FILE:LINE: column 'X': 'abc' is not a number". */
int nd_csv_table_number(const nd_csv_table *t, size_t row, size_t col, double *out, nd_error *err);

/* As nd_csv_table_number, but a blank cell is an error too:
 * "FILE:LINE: column 'X' is blank". */
int nd_csv_table_number_required(const nd_csv_table *t, size_t row, size_t col, double *out, nd_error *err);

#endif
