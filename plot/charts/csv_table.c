/*
 * csv_table.c — a whole CSV file as a header and rows of cell strings.
 *
 * libcsv counts no lines, so the text is fed to it one line at a time and the
 * loader counts them; a record remembers the line it started on. Cells are
 * kept as strings: what a column means, and whether a blank is allowed, is the
 * reader's business, not the table's.
 */
#include "nd/charts/csv_table.h"

#include <csv.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"

/* libcsv's pstate before the first byte of a record (ROW_NOT_BEGUN in
 * libcsv.c). csv.h exposes the field but not the constant; reading it is the
 * only way to learn where a record whose first cell spans lines began. */
#define LIBCSV_ROW_NOT_BEGUN 0

typedef struct loader {
    nd_csv_table *t;
    nd_error *err;
    int rc;
    int line;        /* the line being fed, from 1 */
    int record_line; /* the line the current record started on */
    char **rec;      /* the cells of the record being read (pointers into the arena) */
    size_t n_rec, cap_rec;
    size_t cap_rows;
    size_t used; /* bytes of t->arena written */
} loader;

static int fail(loader *l, int line, const char *fmt, ...) ND_PRINTF(3, 4);

/* Records the first failure only: libcsv keeps calling back after it. */
static int fail(loader *l, int line, const char *fmt, ...)
{
    if (l->rc) return l->rc;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    l->rc = nd_error_set(l->err, ND_EINPUT, "%s:%d: %s", l->t->path, line, msg);
    return l->rc;
}

static int out_of_memory(loader *l)
{
    if (!l->rc) l->rc = nd_error_set(l->err, ND_ENOMEM, "out of memory");
    return l->rc;
}

static bool blank(const char *s)
{
    if (!s) return true;
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

/* A new copy of s without surrounding whitespace. */
static char *trimmed_copy(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

static void take_header(loader *l)
{
    nd_csv_table *t = l->t;
    t->header = calloc(l->n_rec, sizeof *t->header);
    if (!t->header) {
        out_of_memory(l);
        return;
    }
    t->n_cols = l->n_rec;
    t->header_line = l->record_line;
    for (size_t i = 0; i < l->n_rec && !l->rc; i++) {
        t->header[i] = trimmed_copy(l->rec[i] ? l->rec[i] : "");
        if (!t->header[i]) {
            out_of_memory(l);
            return;
        }
        if (!*t->header[i]) fail(l, l->record_line, "column %zu of the header has no name", i + 1);
        for (size_t j = 0; j < i && !l->rc; j++)
            if (strcmp(t->header[j], t->header[i]) == 0)
                fail(l, l->record_line, "column '%s' appears twice (columns %zu and %zu)", t->header[i],
                     j + 1, i + 1);
    }
}

static int grow_rows(loader *l)
{
    nd_csv_table *t = l->t;
    if (t->n_rows < l->cap_rows) return 0;
    if (t->n_rows >= ND_CSV_TABLE_MAX_ROWS)
        return fail(l, l->record_line, "more than %d rows", ND_CSV_TABLE_MAX_ROWS);
    size_t cap = l->cap_rows ? 2 * l->cap_rows : 16;
    char **cells = realloc(t->cells, cap * t->n_cols * sizeof *cells);
    if (cells) t->cells = cells;
    int *lines = realloc(t->lines, cap * sizeof *lines);
    if (lines) t->lines = lines;
    if (!cells || !lines) return out_of_memory(l);
    l->cap_rows = cap;
    return 0;
}

/* The record's cells move into the table; l->rec keeps no pointer to them. */
static void take_row(loader *l)
{
    nd_csv_table *t = l->t;
    if (l->n_rec != t->n_cols) {
        fail(l, l->record_line, "the row has %zu cells, the header %zu", l->n_rec, t->n_cols);
        return;
    }
    if (grow_rows(l)) return;
    memcpy(&t->cells[t->n_rows * t->n_cols], l->rec, l->n_rec * sizeof *l->rec);
    t->lines[t->n_rows++] = l->record_line;
    l->n_rec = 0;
}

static void end_record(int c, void *data)
{
    (void)c;
    loader *l = data;
    if (!l->rc) {
        if (!l->t->header)
            take_header(l);
        else
            take_row(l);
    }
    l->n_rec = 0; /* the cells stay in the arena (a header's or a failed row's: unused) */
}

static void end_field(void *field, size_t len, void *data)
{
    loader *l = data;
    if (l->rc) return;
    if (l->n_rec >= ND_CSV_TABLE_MAX_COLUMNS) {
        fail(l, l->record_line, "more than %d cells in a record", ND_CSV_TABLE_MAX_COLUMNS);
        return;
    }
    if (l->n_rec == l->cap_rec) {
        size_t cap = l->cap_rec ? 2 * l->cap_rec : 32;
        char **rec = realloc(l->rec, cap * sizeof *rec);
        if (!rec) {
            out_of_memory(l);
            return;
        }
        l->rec = rec;
        l->cap_rec = cap;
    }
    char *copy = NULL;
    if (field) { /* the arena holds 2 x the text: a cell (at most the text) and its NUL fit */
        copy = l->t->arena + l->used;
        memcpy(copy, field, len);
        copy[len] = '\0';
        l->used += len + 1;
    }
    l->rec[l->n_rec++] = copy;
}

static int feed(loader *l, struct csv_parser *csv, const char *text, size_t len)
{
    size_t pos = 0;
    for (l->line = 1; pos < len && !l->rc; l->line++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        if (csv->pstate == LIBCSV_ROW_NOT_BEGUN) l->record_line = l->line;
        if (csv_parse(csv, text + pos, end - pos, end_field, end_record, l) != end - pos)
            return fail(l, l->line,
                        "malformed CSV: a quote inside an unquoted cell, or text after a "
                        "closing quote");
        pos = end;
    }
    if (l->rc) return l->rc;
    if (csv_fini(csv, end_field, end_record, l) != 0)
        return fail(l, l->record_line, "malformed CSV: a quoted cell is never closed");
    return l->rc;
}

/* Parses text (BOM already skipped) into l->t. */
static int parse(loader *l, const char *text, size_t len)
{
    if (memchr(text, '\0', len))
        return nd_error_set(l->err, ND_EINPUT, "%s:1: holds a NUL byte: not a CSV text file", l->t->path);
    struct csv_parser csv;
    if (csv_init(&csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0)
        return nd_error_set(l->err, ND_ENOMEM, "out of memory");
    csv_set_blk_size(&csv, (size_t)1 << 20); /* a long cell in 1 MiB steps, not libcsv's 128 B */
    /* Reserved, not touched: only the pages the cells are written to count as memory. */
    if (!(l->t->arena = malloc(2 * len + 2))) {
        csv_free(&csv);
        return nd_error_set(l->err, ND_ENOMEM, "out of memory");
    }
    int rc = feed(l, &csv, text, len);
    csv_free(&csv);
    free(l->rec);
    if (!rc && !l->t->header)
        rc = nd_error_set(l->err, ND_EINPUT, "%s:1: the file is empty: no header row", l->t->path);
    return rc;
}

int nd_csv_table_load(const char *path, nd_csv_table *t, nd_error *err)
{
    memset(t, 0, sizeof *t);
    if (!(t->path = nd_strdup(path ? path : ""))) return nd_error_set(err, ND_ENOMEM, "out of memory");
    char *text;
    size_t len;
    int rc = nd_read_file(path, ND_CSV_TABLE_MAX_BYTES, &text, &len, err);
    if (rc) {
        nd_csv_table_free(t);
        return rc;
    }
    const char *start = text;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        start += 3;
        len -= 3;
    } /* UTF-8 BOM */
    loader l = {.t = t, .err = err};
    rc = parse(&l, start, len);
    free(text);
    if (rc) nd_csv_table_free(t);
    return rc;
}

void nd_csv_table_free(nd_csv_table *t)
{
    if (!t) return;
    for (size_t i = 0; t->header && i < t->n_cols; i++) free(t->header[i]);
    free(t->arena);
    free(t->header);
    free(t->cells);
    free(t->lines);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int nd_csv_table_find(const nd_csv_table *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->header[i], name) == 0) return (int)i;
    return -1;
}

int nd_csv_table_column(const nd_csv_table *t, const char *name, size_t *col, nd_error *err)
{
    int i = nd_csv_table_find(t, name);
    if (i < 0) return nd_error_set(err, ND_EINPUT, "%s:%d: no column '%s'", t->path, t->header_line, name);
    *col = (size_t)i;
    return ND_OK;
}

const char *nd_csv_table_cell(const nd_csv_table *t, size_t row, size_t col)
{
    const char *c = t->cells[row * t->n_cols + col];
    return blank(c) ? NULL : c;
}

/* At most 40 bytes of cell c for a message, control characters (a quoted
 * cell may hold a newline) as spaces, "..." when cut. */
static const char *cell_excerpt(const char *c, char buf[48])
{
    size_t n = 0;
    for (; c[n] && n < 40; n++) buf[n] = (unsigned char)c[n] < 0x20 || c[n] == 0x7f ? ' ' : c[n];
    strcpy(buf + n, c[n] ? "..." : "");
    return buf;
}

/* nd_format_double writes "nan" for a value not available, so nd's own files
 * may hold it; any other non-finite text is refused by nd_parse_double. */
static bool nan_word(const char *c)
{
    while (isspace((unsigned char)*c)) c++;
    for (const char *w = "nan"; *w; w++, c++)
        if (tolower((unsigned char)*c) != *w) return false;
    return blank(c);
}

int nd_csv_table_number(const nd_csv_table *t, size_t row, size_t col, double *out, nd_error *err)
{
    const char *c = nd_csv_table_cell(t, row, col);
    if (!c || nan_word(c)) {
        *out = NAN;
        return ND_OK;
    }
    if (nd_parse_double(c, out) == 0) return ND_OK;
    char buf[48];
    return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not a number", t->path, t->lines[row],
                        t->header[col], cell_excerpt(c, buf));
}

int nd_csv_table_number_required(const nd_csv_table *t, size_t row, size_t col, double *out, nd_error *err)
{
    if (!nd_csv_table_cell(t, row, col))
        return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s' is blank", t->path, t->lines[row],
                            t->header[col]);
    return nd_csv_table_number(t, row, col, out, err);
}
