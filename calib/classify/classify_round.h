/* classify_round.h — appending rows to a round file (the classified CSV) safely
 * (internal). */
#ifndef ND_CLASSIFY_ROUND_H
#define ND_CLASSIFY_ROUND_H

#include <stddef.h>
#include "nd/base/error.h"

/* nd-compare reads at most 64 columns; a round file never grows past them. */
#define ROUND_MAX_COLUMNS 64
#define ROUND_NAME_MAX    32
#define ROUND_VALUE_MAX   64

/* One row: column names (a dimension, time, comp, ..., peak_mib) and their texts. */
typedef struct round_row {
    int n;
    char name[ROUND_MAX_COLUMNS][ROUND_NAME_MAX];
    char value[ROUND_MAX_COLUMNS][ROUND_VALUE_MAX];
} round_row;

/* Adds a column to a row; ND_EINPUT when the row is full or the texts too long. */
int nd_classify_round_row_add(round_row *r, const char *name, const char *value, nd_error *err);

/* Appends rows to the round file at path, creating it when absent, under an exclusive
 * flock so concurrent runs never lose a row. Columns are matched by name (a dimension
 * by any spelling: TP is MP), so the order of --dims does not matter; a column the file
 * lacks is added (a dimension beside the others, anything else at the end) and the
 * earlier rows get a blank cell there. A file that is not a well-formed round file (an
 * unterminated quote, a record with the wrong number of cells, no 'time' column) is
 * refused with ND_EINPUT naming the line, and left as it was. Written atomically. */
int nd_classify_round_append(const char *path, const round_row *rows, size_t n_rows, nd_error *err);

#endif
