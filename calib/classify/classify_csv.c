/* A CSV table read whole with libcsv (strict), fed one line at a time so every record
 * knows the line it starts on: messages name lines, not record numbers. */
#include "classify_csv.h"
#include "classify_json.h"

#include <csv.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"

static bool cells_reserve(csv_table *t)
{
    if (t->n_cells < t->cap) return true;
    size_t cap = t->cap ? t->cap * 2 : 256;
    char **c = realloc(t->cells, cap * sizeof *c);
    if (!c) return false;
    t->cells = c;
    t->cap = cap;
    return true;
}

static void cell_cb(void *field, size_t len, void *data)
{
    csv_table *t = data;
    if (t->oom || t->too_wide) return;
    if (t->row_fields == 0) t->row_start = t->line;
    if (t->row_fields == t->max_cols) {
        t->too_wide = true;
        return;
    }
    if (!cells_reserve(t)) {
        t->oom = true;
        return;
    }
    char *v = NULL;
    if (field && !(v = malloc(len + 1))) {
        t->oom = true;
        return;
    }
    if (v) {
        memcpy(v, field, len);
        v[len] = '\0';
    }
    t->cells[t->n_cells++] = v;
    t->row_fields++;
}

static void row_cb(int c, void *data)
{
    (void)c;
    csv_table *t = data;
    if (t->too_wide || t->oom) return; /* the message names the record that was too wide */
    if (t->rows == t->cap_rows) {
        size_t cap = t->cap_rows ? t->cap_rows * 2 : 64;
        size_t *l = realloc(t->row_line, cap * sizeof *l);
        if (!l) {
            t->oom = true;
            return;
        }
        t->row_line = l;
        t->cap_rows = cap;
    }
    if (t->row_fields == 0) t->row_start = t->line;
    t->row_line[t->rows] = t->row_start;
    if (t->rows == 0)
        t->cols = t->row_fields;
    else if (t->row_fields != t->cols && !t->ragged) {
        t->ragged = true;
        t->ragged_row = t->rows;
        t->ragged_fields = t->row_fields;
    }
    t->rows++;
    t->row_fields = 0;
    t->last_end = t->line;
}

/* The line the unfinished record starts on: the first non-blank line after the last
 * complete record (libcsv skips blank lines). */
static size_t open_record_line(const csv_table *t, const char *data, size_t len)
{
    size_t line = 1;
    const char *p = data, *end = data + len;
    for (; p < end && line <= t->last_end; p++) /* to the line after the last record */
        line += *p == '\n';
    while (p < end && (*p == '\n' || *p == '\r')) line += *p++ == '\n';
    return line;
}

void nd_classify_csv_free(csv_table *t)
{
    for (size_t i = 0; i < t->n_cells; i++) free(t->cells[i]);
    free(t->cells);
    free(t->row_line);
    memset(t, 0, sizeof *t);
}

int nd_classify_csv_parse(const char *path, const char *data, size_t len, size_t max_cols, csv_table *t,
                          nd_error *err)
{
    memset(t, 0, sizeof *t);
    t->max_cols = max_cols;
    t->digest = ND_DIGEST_SEED;
    t->bytes = len;
    nd_classify_digest_add(&t->digest, 0, (const unsigned char *)data, len);
    size_t skip = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    csv_set_blk_size(&p, (size_t)1 << 16); /* a long cell grows in 64 KiB steps, not 128 B */
    bool bad = false;
    t->line = 1;
    for (size_t at = skip; at < len && !bad && !t->oom && !t->too_wide; t->line++) {
        const char *nl = memchr(data + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (data + at)) + 1 : len - at;
        bad = csv_parse(&p, data + at, n, cell_cb, row_cb, t) != n;
        at += n;
    }
    t->line--;
    bool open_quote = !bad && !t->oom && !t->too_wide && csv_fini(&p, cell_cb, row_cb, t) != 0;
    csv_free(&p);
    int rc = ND_OK;
    if (t->oom)
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    else if (t->too_wide)
        rc = nd_error_set(err, ND_EINPUT, "%s:%zu: more than %zu columns", path, t->row_start, max_cols);
    else if (bad)
        rc = nd_error_set(err, ND_EINPUT, "%s:%zu: not valid CSV (a quote inside an unquoted field?)", path,
                          t->line);
    else if (open_quote)
        rc = nd_error_set(err, ND_EINPUT, "%s:%zu: a quoted field is never closed", path,
                          open_record_line(t, data + skip, len - skip));
    else if (t->rows == 0)
        rc = nd_error_set(err, ND_EINPUT, "%s: empty file; expected a header", path);
    else if (t->ragged)
        rc = nd_error_set(err, ND_EINPUT, "%s:%zu: %zu fields where the header has %zu", path,
                          t->row_line[t->ragged_row], t->ragged_fields, t->cols);
    if (rc) nd_classify_csv_free(t);
    return rc;
}

int nd_classify_csv_read(const char *path, size_t max_bytes, size_t max_cols, csv_table *t, nd_error *err)
{
    memset(t, 0, sizeof *t);
    char *data;
    size_t len;
    int rc = nd_read_file(path, max_bytes, &data, &len, err);
    if (rc) return rc;
    rc = nd_classify_csv_parse(path, data, len, max_cols, t, err);
    free(data);
    return rc;
}

const char *nd_classify_csv_cell(const csv_table *t, size_t row, int col)
{
    return col < 0 || (size_t)col >= t->cols ? NULL : t->cells[row * t->cols + (size_t)col];
}

int nd_classify_csv_column(const csv_table *t, const char *name, size_t from)
{
    for (size_t c = from; c < t->cols; c++) {
        const char *h = t->cells[c];
        if (!h) continue;
        while (isspace((unsigned char)*h)) h++;
        size_t n = strlen(h);
        while (n && isspace((unsigned char)h[n - 1])) n--;
        if (n == strlen(name) && !strncmp(h, name, n)) return (int)c;
    }
    return -1;
}

void nd_classify_csv_put(FILE *f, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
