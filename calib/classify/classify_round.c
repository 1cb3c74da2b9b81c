/* Appending rows to a round file. Several nd-classify runs of one profiling round may
 * append at once (one per strategy, from a job array), so the file is read, extended
 * and renamed under an exclusive lock (nd_path_lock: flock on the file's directory, which
 * creates nothing). Columns are matched by name, not position: the union
 * of the file's columns and the rows' is written, blank where a row has no value. */
#include "classify_round.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify_csv.h"
#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

/* The round file is read whole; nd-compare itself reads 64 MiB. */
#define ROUND_MAX_BYTES ((size_t)1 << 30)

int nd_classify_round_row_add(round_row *r, const char *name, const char *value, nd_error *err)
{
    if (r->n == ROUND_MAX_COLUMNS || strlen(name) >= ROUND_NAME_MAX || strlen(value) >= ROUND_VALUE_MAX)
        return nd_error_set(err, ND_EINPUT, "a round row holds at most %d columns of short texts",
                            ROUND_MAX_COLUMNS);
    nd_text_copy(r->name[r->n], name, ROUND_NAME_MAX);
    nd_text_copy(r->value[r->n], value, ROUND_VALUE_MAX);
    r->n++;
    return ND_OK;
}

/* A header name trimmed of spaces, as nd-compare reads it. */
static void trimmed(const char *s, char *out, size_t size)
{
    while (*s == ' ' || *s == '\t') s++;
    nd_text_copy(out, s, size);
    size_t n = strlen(out);
    while (n && (out[n - 1] == ' ' || out[n - 1] == '\t')) out[--n] = '\0';
}

static bool same_column(const char *a, const char *b)
{
    int da = nd_dim_from_name(a), db = nd_dim_from_name(b);
    if (da >= 0 || db >= 0) return da == db;
    return !strcmp(a, b);
}

typedef struct header {
    char name[ROUND_MAX_COLUMNS][ROUND_NAME_MAX]; /* trimmed, for matching */
    const char *text[ROUND_MAX_COLUMNS];          /* as written (the file's own cells) */
    int origin[ROUND_MAX_COLUMNS];                /* the old column it was, or -1 */
    int n, old_n;
} header;

static int header_find(const header *h, const char *name)
{
    for (int i = 0; i < h->n; i++)
        if (same_column(h->name[i], name)) return i;
    return -1;
}

/* Adds name: a dimension after the last dimension column, anything else at the end. */
static int header_add(header *h, const char *name, const char *path, nd_error *err)
{
    if (h->n == ROUND_MAX_COLUMNS)
        return nd_error_set(err, ND_EINPUT,
                            "%s: adding column '%s' would make more than %d columns (nd-compare's limit)",
                            path, name, ROUND_MAX_COLUMNS);
    int at = h->n;
    if (nd_dim_from_name(name) >= 0) {
        at = 0;
        for (int i = 0; i < h->n; i++)
            if (nd_dim_from_name(h->name[i]) >= 0) at = i + 1;
    }
    memmove(&h->name[at + 1], &h->name[at], (size_t)(h->n - at) * sizeof h->name[0]);
    memmove(&h->text[at + 1], &h->text[at], (size_t)(h->n - at) * sizeof h->text[0]);
    memmove(&h->origin[at + 1], &h->origin[at], (size_t)(h->n - at) * sizeof h->origin[0]);
    nd_text_copy(h->name[at], name, ROUND_NAME_MAX);
    h->text[at] = NULL; /* written from name */
    h->origin[at] = -1;
    h->n++;
    return ND_OK;
}

static int header_of(header *h, const csv_table *old, const char *path, nd_error *err)
{
    memset(h, 0, sizeof *h);
    if (!old) return ND_OK;
    if (old->cols > ROUND_MAX_COLUMNS)
        return nd_error_set(err, ND_EINPUT, "%s:1: more than %d columns", path, ROUND_MAX_COLUMNS);
    bool has_time = false;
    for (size_t c = 0; c < old->cols; c++) {
        const char *cell = old->cells[c] ? old->cells[c] : "";
        trimmed(cell, h->name[c], ROUND_NAME_MAX);
        h->text[c] = cell;
        h->origin[c] = (int)c;
        has_time |= !strcmp(h->name[c], nd_classified_csv.time);
    }
    h->n = h->old_n = (int)old->cols;
    if (!has_time)
        return nd_error_set(err, ND_EINPUT,
                            "%s:1: not a round file: its header has no '%s' column; nd-classify "
                            "appends only to round files (the file is unchanged)",
                            path, nd_classified_csv.time);
    return ND_OK;
}

static void write_rows(FILE *f, const header *h, const round_row *rows, size_t n, const char *eol)
{
    for (size_t r = 0; r < n; r++) {
        for (int i = 0; i < h->n; i++) {
            if (i) fputc(',', f);
            for (int k = 0; k < rows[r].n; k++)
                if (same_column(rows[r].name[k], h->name[i])) {
                    nd_classify_csv_put(f, rows[r].value[k]);
                    break;
                }
        }
        fputs(eol, f);
    }
}

/* The whole file again: the merged header, the old records spread over it, the rows. */
static void write_merged(FILE *f, const header *h, const csv_table *old, bool bom, const round_row *rows,
                         size_t n, const char *eol)
{
    if (bom) fputs("\xEF\xBB\xBF", f);
    for (int i = 0; i < h->n; i++) {
        if (i) fputc(',', f);
        nd_classify_csv_put(f, h->text[i] ? h->text[i] : h->name[i]);
    }
    fputs(eol, f);
    for (size_t r = 1; old && r < old->rows; r++) {
        for (int i = 0; i < h->n; i++) {
            if (i) fputc(',', f);
            nd_classify_csv_put(f, nd_classify_csv_cell(old, r, h->origin[i]));
        }
        fputs(eol, f);
    }
    write_rows(f, h, rows, n, eol);
}

/* The old round at path (read under the lock) with the rows appended, into out. */
static int append_into(nd_outfile *out, const char *path, const round_row *rows, size_t n, nd_error *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = nd_path_lock_read(path, ROUND_MAX_BYTES, &data, &len, err);
    if (rc) return rc;
    csv_table old;
    bool has_old = len > 0;
    if (has_old && (rc = nd_classify_csv_parse(path, data, len, ROUND_MAX_COLUMNS, &old, err))) {
        free(data);
        return nd_error_prefix(err, "cannot append to the round file (it is unchanged)");
    }
    header h;
    rc = header_of(&h, has_old ? &old : NULL, path, err);
    for (size_t r = 0; r < n && !rc; r++)
        for (int k = 0; k < rows[r].n && !rc; k++)
            if (header_find(&h, rows[r].name[k]) < 0) rc = header_add(&h, rows[r].name[k], path, err);
    if (!rc) {
        const char *nl = has_old ? memchr(data, '\n', len) : NULL;
        const char *eol = nl && nl > data && nl[-1] == '\r' ? "\r\n" : "\n";
        if (has_old && h.n == h.old_n) { /* the same columns: the file as it was, then the rows */
            fwrite(data, 1, len, out->fp);
            if (data[len - 1] != '\n') fputs(eol, out->fp);
            write_rows(out->fp, &h, rows, n, eol);
        } else {
            bool bom = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3);
            write_merged(out->fp, &h, has_old ? &old : NULL, bom, rows, n, eol);
        }
    }
    if (has_old) nd_classify_csv_free(&old);
    free(data);
    return rc;
}

/* The output is opened before the old round is read: a round that is also an input of the
 * run (a trace named as --csv) is refused as such, not parsed as a broken CSV. */
static int append_locked(const char *path, const round_row *rows, size_t n, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    rc = append_into(&out, path, rows, n, err);
    if (rc) {
        nd_outfile_discard(&out);
        return rc;
    }
    return nd_outfile_commit(&out, err);
}

int nd_classify_round_append(const char *path, const round_row *rows, size_t n_rows, nd_error *err)
{
    nd_path_lock lock;
    int rc = nd_path_lock_take(&lock, path, err);
    if (rc) return rc;
    rc = append_locked(path, rows, n_rows, err);
    nd_path_lock_release(&lock);
    return rc;
}
