/*
 * classified.c — reading ND's classified CSV with libcsv.
 *
 * The file is fed to libcsv one line at a time so every record knows the line
 * it started on (libcsv itself counts no lines, and skips blank ones).
 */
#include "nd/calibrate/classified.h"

#include <csv.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

#define MAX_COLUMNS    64
#define MAX_ROWS       100000
#define MAX_FILE_BYTES (64u << 20)
#define MAX_MS         1e9          /* a measured time, ms */
#define MAX_MIB        1073741824.0 /* a measured peak, MiB (ND_MEMORY_MIB_MAX) */

/* The column names (formats.h). */
static const nd_classified_format *const col = &nd_classified_csv;

typedef enum {
    COL_DIM,
    COL_TIME,
    COL_MEAS,
    COL_RECOMPUTE,
    COL_STEP_TRAINER,
    COL_DEVICES,
    COL_GBS,
    COL_SEQ,
    COL_PEAK
} col_kind;

typedef struct column {
    col_kind kind;
    nd_dim dim; /* COL_DIM */
    int meas;   /* COL_MEAS */
    char name[32];
} column;

typedef struct parser {
    const char *path;
    nd_classified *out;
    nd_error *err;
    int rc;
    int line, record_line;
    int last_end_line; /* the line that ended the last complete record (0: none yet) */
    bool in_record;
    char **cells;
    size_t ncells, cap;
    column cols[MAX_COLUMNS];
    int ncols;
    bool header_done;
    size_t rows_cap;
} parser;

static int fail(parser *p, const char *fmt, ...) ND_PRINTF(2, 3);

static int fail(parser *p, const char *fmt, ...)
{
    if (p->rc) return p->rc;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->rc = nd_error_set(p->err, ND_EINPUT, "%s:%d: %s", p->path, p->record_line, msg);
    return p->rc;
}

static char *trim(char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static int header_column(parser *p, const char *raw, column *c)
{
    char name[64];
    nd_text_copy(name, raw, sizeof name);
    char *n = trim(name);
    memset(c, 0, sizeof *c);
    nd_text_copy(c->name, n, sizeof c->name);
    int d = nd_dim_from_name(n);
    if (d >= 0) {
        c->kind = COL_DIM;
        c->dim = (nd_dim)d;
        return 0;
    }
    for (int m = 0; m < ND_MEAS_COUNT; m++)
        if (nd_text_equal_nocase(n, col->measured[m])) {
            c->kind = COL_MEAS;
            c->meas = m;
            return 0;
        }
    const struct {
        const char *name;
        col_kind kind;
    } others[] = {
        {col->time, COL_TIME},
        {col->recompute, COL_RECOMPUTE},
        {col->step_trainer, COL_STEP_TRAINER},
        {col->devices, COL_DEVICES},
        {col->gbs, COL_GBS},
        {col->seq_len, COL_SEQ},
        {col->peak_mib, COL_PEAK},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(others); i++)
        if (nd_text_equal_nocase(n, others[i].name)) {
            c->kind = others[i].kind;
            return 0;
        }
    char hint_buf[ND_TEXT_HINT_MAX];
    return fail(p, "column '%s' is not one nd reads (%saccepted: %s)", n,
                nd_text_hint(n, col->accepted, hint_buf), col->accepted);
}

static bool same_column(const column *a, const column *b)
{
    if (a->kind != b->kind) return false;
    if (a->kind == COL_DIM) return a->dim == b->dim;
    if (a->kind == COL_MEAS) return a->meas == b->meas;
    return true;
}

static void read_header(parser *p)
{
    if (p->ncells > MAX_COLUMNS) {
        fail(p, "the header has %zu columns; nd reads at most %d", p->ncells, MAX_COLUMNS);
        return;
    }
    bool has_time = false;
    for (size_t i = 0; i < p->ncells && !p->rc; i++) {
        column *c = &p->cols[i];
        if (header_column(p, p->cells[i] ? p->cells[i] : "", c)) return;
        for (size_t j = 0; j < i; j++)
            if (same_column(&p->cols[j], c))
                fail(p, "column '%s' repeats column '%s'", c->name, p->cols[j].name);
        has_time |= c->kind == COL_TIME;
        nd_classified *o = p->out;
        if (c->kind == COL_DIM) {
            o->dims |= ND_DIM_BIT(c->dim);
            o->dim_order[o->dim_count++] = (int)i;
        }
        if (c->kind == COL_MEAS) o->column[c->meas] = true;
        o->has_recompute |= c->kind == COL_RECOMPUTE;
        o->has_step_trainer |= c->kind == COL_STEP_TRAINER;
        o->has_peak |= c->kind == COL_PEAK;
        o->has_devices |= c->kind == COL_DEVICES;
        o->has_gbs |= c->kind == COL_GBS;
        o->has_seq_len |= c->kind == COL_SEQ;
    }
    if (!p->rc && !has_time) fail(p, "no '%s' column: the measured step (ms) is required", col->time);
    p->ncols = (int)p->ncells;
    p->header_done = true;
}

static void read_cell(parser *p, nd_classified_row *r, const column *c, char *cell)
{
    char *v = trim(cell);
    bool blank = !*v;
    double d = NAN;
    int64_t i = 0;
    switch (c->kind) {
    case COL_DIM:
        if (blank) return;
        if (c->dim == ND_DIM_SP) {
            bool sp;
            if (nd_parse_bool(v, &sp))
                fail(p, "column '%s': '%s' is not 0/1 or true/false", nd_dim_name(c->dim), v);
            else {
                r->degree[ND_DIM_SP] = sp;
                r->dims |= ND_DIM_BIT(ND_DIM_SP);
            }
            return;
        }
        if (c->dim == ND_DIM_ZERO && nd_parse_int64(v, 0, 3, &i))
            fail(p, "column '%s': '%s' is not 0, 1, 2 or 3", nd_dim_name(c->dim), v);
        else if (c->dim != ND_DIM_ZERO && nd_parse_int64(v, 1, (int64_t)1 << 20, &i))
            fail(p, "column '%s': '%s' is not a whole number in [1, 1048576]", c->name, v);
        else {
            r->degree[c->dim] = (int32_t)i; /* at most 2^20 */
            r->dims |= ND_DIM_BIT(c->dim);
        }
        return;
    case COL_RECOMPUTE:
        if (blank) return;
        if (nd_text_equal_nocase(v, "auto") || strchr(v, ' ') || strchr(v, '|'))
            fail(p, "column '%s': '%s': the row ran one mode (off, selective or full), not several",
                 col->recompute, v);
        else if (nd_recompute_parse(v, &r->recompute))
            fail(p, "column '%s': '%s' is not a recompute mode (off, selective, full)", col->recompute, v);
        else
            r->has_recompute = true;
        return;
    case COL_DEVICES:
    case COL_GBS:
    case COL_SEQ:
        if (blank) return;
        if (nd_parse_int64(v, 1, (int64_t)1 << 30, &i)) {
            fail(p, "column '%s': '%s' is not a whole number in [1, 1073741824]", c->name, v);
            return;
        }
        if (c->kind == COL_DEVICES)
            r->devices = i;
        else if (c->kind == COL_GBS)
            r->gbs = i;
        else
            r->seq_len = i;
        return;
    default: break;
    }
    /* Numbers in milliseconds or MiB. */
    if (blank) {
        if (c->kind == COL_TIME) fail(p, "column '%s': the measured step is blank", col->time);
        return;
    }
    if (nd_parse_double(v, &d)) {
        fail(p, "column '%s': '%s' is not a number", c->name, v);
        return;
    }
    /* 1e9 ms is 11.6 days for one step; 2^30 MiB a petabyte per device: beyond, a cell is
     * a broken writer, and 1e308 would make every sum and fit infinite. */
    double max = c->kind == COL_PEAK ? MAX_MIB : MAX_MS;
    if (fabs(d) > max) {
        fail(p, "column '%s': '%s' is more than %g %s", c->name, v, max, c->kind == COL_PEAK ? "MiB" : "ms");
        return;
    }
    bool may_be_negative = c->kind == COL_MEAS && c->meas == ND_MEAS_IDLE;
    if (d < 0 && !may_be_negative) {
        fail(p, "column '%s': '%s' is negative", c->name, v);
        return;
    }
    if (c->kind == COL_TIME) {
        if (d <= 0) fail(p, "column '%s': '%s' is not a positive time", col->time, v);
        r->time_ms = d;
    } else if (c->kind == COL_MEAS) {
        r->measured[c->meas] = d;
        r->has[c->meas] = true;
    } else if (c->kind == COL_STEP_TRAINER) {
        if (d <= 0) fail(p, "column '%s': '%s' is not a positive time", col->step_trainer, v);
        r->step_trainer_ms = d;
    } else if (c->kind == COL_PEAK) {
        if (d <= 0) fail(p, "column '%s': '%s' is not a positive size", col->peak_mib, v);
        r->peak_mib = d;
    }
}

static void read_row(parser *p)
{
    if ((int)p->ncells != p->ncols) {
        fail(p, "the row has %zu cells, the header %d", p->ncells, p->ncols);
        return;
    }
    nd_classified *o = p->out;
    if (o->count >= MAX_ROWS) {
        fail(p, "more than %d rows", MAX_ROWS);
        return;
    }
    if (o->count == p->rows_cap) {
        size_t cap = p->rows_cap ? 2 * p->rows_cap : 16;
        nd_classified_row *rows = realloc(o->rows, cap * sizeof *rows);
        if (!rows) {
            p->rc = nd_error_set(p->err, ND_ENOMEM, "out of memory");
            return;
        }
        o->rows = rows;
        p->rows_cap = cap;
    }
    nd_classified_row *r = &o->rows[o->count];
    memset(r, 0, sizeof *r);
    for (int d = 0; d < ND_DIMS; d++) r->degree[d] = d == ND_DIM_SP || d == ND_DIM_ZERO ? 0 : 1;
    r->line = p->record_line;
    r->step_trainer_ms = NAN;
    r->peak_mib = NAN;
    for (int i = 0; i < p->ncols && !p->rc; i++)
        read_cell(p, r, &p->cols[i], p->cells[i] ? p->cells[i] : (char[]){""});
    if (!p->rc) o->count++;
}

static void end_record(int c, void *data)
{
    (void)c;
    parser *p = data;
    if (!p->rc) {
        if (!p->header_done)
            read_header(p);
        else
            read_row(p);
    }
    for (size_t i = 0; i < p->ncells; i++) free(p->cells[i]);
    p->ncells = 0;
    p->in_record = false;
    p->last_end_line = p->line;
}

static void end_field(void *field, size_t len, void *data)
{
    parser *p = data;
    if (!p->in_record) {
        p->record_line = p->line;
        p->in_record = true;
    }
    if (p->rc) return;
    if (p->ncells >= (p->header_done ? MAX_COLUMNS + 1 : 100000)) {
        fail(p, "too many cells in a record (nd reads at most %d columns)", MAX_COLUMNS);
        return;
    }
    if (p->ncells == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 32;
        char **cells = realloc(p->cells, cap * sizeof *cells);
        if (!cells) {
            p->rc = nd_error_set(p->err, ND_ENOMEM, "out of memory");
            return;
        }
        p->cells = cells;
        p->cap = cap;
    }
    char *copy = NULL;
    if (field) {
        copy = malloc(len + 1);
        if (!copy) {
            p->rc = nd_error_set(p->err, ND_ENOMEM, "out of memory");
            return;
        }
        memcpy(copy, field, len);
        copy[len] = '\0';
    }
    p->cells[p->ncells++] = copy;
}

/* The first line at or after `line` (1-based) holding more than spaces. */
static int first_content_line(const char *text, size_t len, int line)
{
    int at = 1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            at++;
            continue;
        }
        if (at >= line && text[i] != ' ' && text[i] != '\r' && text[i] != '\t') return at;
    }
    return line;
}

static int feed(parser *p, struct csv_parser *csv, const char *text, size_t len)
{
    size_t pos = 0;
    p->line = 1;
    while (pos < len && !p->rc) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        if (csv_parse(csv, text + pos, end - pos, end_field, end_record, p) != end - pos) {
            if (!p->in_record) p->record_line = p->line;
            return fail(p, "malformed CSV (%s)", csv_strerror(csv_error(csv)));
        }
        pos = end;
        p->line++;
    }
    if (p->rc) return p->rc;
    if (csv_fini(csv, end_field, end_record, p) != 0) {
        /* The open record began on the first non-blank line after the last complete one. */
        p->record_line = first_content_line(text, len, p->last_end_line + 1);
        return fail(p,
                    "a quoted field is never closed: the record starting here runs to the end of the file "
                    "(%s)",
                    csv_strerror(csv_error(csv)));
    }
    return p->rc;
}

int nd_classified_load(const char *path, nd_classified *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    nd_text_copy(out->path, path, sizeof out->path);
    char *text;
    size_t len;
    int rc = nd_read_file(path, MAX_FILE_BYTES, &text, &len, err);
    if (rc) return rc;
    const char *start = text;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        start += 3;
        len -= 3;
    } /* UTF-8 BOM */
    if (memchr(start, '\0', len))
        rc = nd_error_set(err, ND_EINPUT, "%s: holds a NUL byte: not a CSV text file", path);
    struct csv_parser csv;
    parser p = {.path = path, .out = out, .err = err};
    if (!rc && csv_init(&csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0)
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    else if (!rc) {
        /* libcsv grows a cell by its block size (128 bytes unless set): one 60 MB cell would
         * take half a million reallocations of up to 60 MB each. */
        csv_set_blk_size(&csv, (size_t)1 << 20);
        rc = feed(&p, &csv, start, len);
        csv_free(&csv);
    }
    for (size_t i = 0; i < p.ncells; i++) free(p.cells[i]);
    free(p.cells);
    free(text);
    if (!rc && !p.header_done) rc = nd_error_set(err, ND_EINPUT, "%s: the file is empty", path);
    if (!rc && out->count == 0) rc = nd_error_set(err, ND_EINPUT, "%s: a header but no rows", path);
    if (rc) nd_classified_free(out);
    /* rows grew by doubling: give back what is not used (a 100,000-row round keeps 29 MB
     * rather than 38 MB beside its comparison) */
    nd_classified_row *exact = rc ? NULL : realloc(out->rows, out->count * sizeof *out->rows);
    if (exact) out->rows = exact;
    return rc;
}

void nd_classified_free(nd_classified *c)
{
    free(c->rows);
    c->rows = NULL;
    c->count = 0;
}

void nd_classified_label(const nd_classified *c, const nd_classified_row *r, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    (void)c;
    /* Every stated dimension in ND's order: DP always, the others when not 1, SP by name
     * when on, ZERO when not 0. */
    for (int d = 0; d < ND_DIMS && used < size; d++) {
        if (!(r->dims & ND_DIM_BIT(d))) continue;
        int64_t v = r->degree[d];
        if (v == 1 && d != ND_DIM_DP) continue;
        if (d == ND_DIM_SP) {
            if (v)
                used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
                                         nd_dim_name(ND_DIM_SP));
            continue;
        }
        if (d == ND_DIM_ZERO && v == 0) continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s %lld", used ? " " : "",
                                 nd_dim_name((nd_dim)d), (long long)v);
    }
    if (r->has_recompute && r->recompute != ND_RECOMPUTE_OFF && used < size)
        snprintf(buf + used, size - used, " %s=%s", col->recompute, nd_recompute_name(r->recompute));
}

void nd_classified_strategy(const nd_classified_row *r, const nd_strategy *base, nd_strategy *out)
{
    *out = *base;
    for (int d = 0; d < ND_DIMS; d++)
        if (r->dims & ND_DIM_BIT(d)) nd_strategy_set_dim(out, (nd_dim)d, r->degree[d]);
    if (r->has_recompute) out->recompute = r->recompute;
}

double nd_classified_busy_ms(const nd_classified_row *r)
{
    double busy = 0;
    for (int m = 0; m < ND_MEAS_COUNT; m++)
        if (m != ND_MEAS_IDLE && m != ND_MEAS_OPTIMIZER && m != ND_MEAS_UNCLASSIFIED && r->has[m])
            busy += r->measured[m];
    return busy;
}

double nd_classified_idle_ms(const nd_classified_row *r)
{
    if (r->has[ND_MEAS_IDLE])
        return r->measured[ND_MEAS_IDLE] +
               (r->has[ND_MEAS_UNCLASSIFIED] ? r->measured[ND_MEAS_UNCLASSIFIED] : 0);
    return r->time_ms - nd_classified_busy_ms(r);
}
