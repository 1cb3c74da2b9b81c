/* The Ascend path (reference/nd-calibration.md §3.4): step_trace_time.csv gives each
 * device step's time, compute and exposed communication; communication.json names
 * the operators, whose elapse times share the exposed time out (ND's apportioning:
 * the overlap is assumed spread evenly over the operators). Every header version in
 * reference/ascend-profiler-formats.md is read: with or without Device_id and
 * Preparing, the 2023 lower-case variant, and msprof-analyze's cluster file
 * (Type/Index columns, rank rows only; its cluster_communication.json too). */
#include "classify_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "classify_ascend.h"
#include "classify_csv.h"
#include "classify_output.h"
#include "nd/io.h"
#include "nd/text.h"

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <dir>/<sub>/ASCEND_PROFILER_OUTPUT/step_trace_time.csv, first <sub> in sorted order (ND). */
static char *find_nested(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL, *hit = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char **m = realloc(names, (n + 1) * sizeof *m);
        if (!m) break;
        names = m;
        if ((names[n] = nd_strdup(e->d_name))) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !hit; i++) {
        char *sub = nd_path_join(dir, names[i]);
        char *out = sub ? nd_path_join(sub, "ASCEND_PROFILER_OUTPUT") : NULL;
        char *csv = out ? nd_path_join(out, "step_trace_time.csv") : NULL;
        if (csv && is_file(csv)) hit = csv, csv = NULL;
        free(sub), free(out), free(csv);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return hit;
}

int nd_classify_ascend_find(const char *path, char **csv_out, nd_error *err)
{
    *csv_out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) {
        size_t n = strlen(path);
        if (n < 4 || strcmp(path + n - 4, ".csv")) return 0;
        *csv_out = nd_strdup(path);
        return *csv_out ? 1 : nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    static const char *const tries[] = {
        "step_trace_time.csv", "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
        "cluster_step_trace_time.csv", "cluster_analysis_output/cluster_step_trace_time.csv"};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        char *p = nd_path_join(path, tries[i]);
        if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
        if (is_file(p)) return *csv_out = p, 1;
        free(p);
    }
    *csv_out = find_nested(path);
    return *csv_out != NULL;
}

/* step_trace_time.csv holds a dozen columns and a row per step and rank; the whole table
 * is kept (a cell is an allocation), so its size and width are bounded. */
#define MAX_CSV_BYTES ((size_t)64 << 20)
#define MAX_CSV_COLUMNS 256

typedef csv_table table;
#define cell nd_classify_csv_cell
#define table_free nd_classify_csv_free

static int column_of(const table *t, const char *name)
{
    return nd_classify_csv_column(t, name, 0);
}

/* ---- rows ---------------------------------------------------------------------- */

enum { C_STEP, C_COMPUTING, C_NOT_OVERLAPPED, C_COMMUNICATION, C_FREE, C_STAGE, C_BUBBLE, C_REQ };
static const char *const required[C_REQ] = {
    "Step",  "Computing", "Communication(Not Overlapped)", "Communication", "Free",
    "Stage", "Bubble"};

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
        return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is negative", path,
                            t->row_line[row], name, v);
    if (*out > MAX_TIME_US)
        return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is more than 1e15 us", path,
                            t->row_line[row], name, v);
    return ND_OK;
}

static int read_row(const char *path, const table *t, size_t row, const int col[C_REQ],
                    ascend_row *r, nd_error *err)
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
            return nd_error_set(err, ND_EINPUT, "%s:%zu: column 'Step': '%s' is not a step number",
                                path, t->row_line[row], step);
        r->step_num = (long)s;
    }
    r->time_ms = v[C_STAGE] / 1000, r->comp_ms = v[C_COMPUTING] / 1000;
    r->exposed_ms = v[C_NOT_OVERLAPPED] / 1000, r->bubble_ms = v[C_BUBBLE] / 1000;
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
    if (v && nd_parse_int64(v, 0, MAX_RANK, &r) == 0) return *rank = (int)r, ND_OK;
    return nd_error_set(err, ND_EINPUT, "%s:%zu: column '%s': '%s' is not a rank number in [0, %d]",
                        path, t->row_line[row], t->cells[col] ? t->cells[col] : "?", v ? v : "", MAX_RANK);
}

/* "2-7" or "0, 3, 5-6": the ranks marked in seen (index rank + 1), within size bytes. */
static void rank_list(const bool *seen, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 16 < size; i++) {
        if (!seen[i]) continue;
        size_t j = i;
        while (j + 1 < n && seen[j + 1])
            j++;
        if (j == i) used += (size_t)snprintf(buf + used, size - used, "%s%ld", used ? ", " : "", (long)i - 1);
        else used += (size_t)snprintf(buf + used, size - used, "%s%ld-%ld", used ? ", " : "", (long)i - 1, (long)j - 1);
        i = j;
    }
}

/* Per rank (index rank + 1): rows seen (for warm-up dropping) and whether a row had
 * exposed communication that communication.json does not account for. */
typedef struct rank_book {
    int *orders;
    bool *unmatched;
    size_t n;
    double unmatched_ms;
    size_t unmatched_rows, zero_rows;
} rank_book;

static int book_grow(rank_book *b, int rank)
{
    if ((size_t)(rank + 1) < b->n) return 0;
    size_t n = (size_t)(rank + 1) * 2 + 8;
    int *o = realloc(b->orders, n * sizeof *o);
    if (o) b->orders = o;
    bool *u = o ? realloc(b->unmatched, n * sizeof *u) : NULL;
    if (!u) return -1;
    b->unmatched = u;
    memset(o + b->n, 0, (n - b->n) * sizeof *o);
    memset(u + b->n, 0, (n - b->n) * sizeof *u);
    b->n = n;
    return 0;
}

static void warn_unmatched(nd_classify_run *run, const ascend_comm *comm, const char *csv_path,
                           const rank_book *b)
{
    if (!b->unmatched_rows) return;
    char ranks[256], ms[ND_CLASSIFY_MS_TEXT];
    rank_list(b->unmatched, b->n, ranks, sizeof ranks);
    nd_classify_format_ms(b->unmatched_ms / (double)b->unmatched_rows, ms);
    const char *who = b->unmatched[0] ? "some steps" : "rank(s) ";
    if (comm->present)
        nd_classify_run_warn(run,
                 "%s holds no operators for %s%s: their exposed communication (%s ms per "
                 "rank-step over %zu rank-steps) is charged to unclassified, not placed in a "
                 "dimension",
                 comm->path, who, b->unmatched[0] ? "" : ranks, ms, b->unmatched_rows);
    else
        nd_classify_run_warn(run,
                 "%s: no communication.json beside it: the exposed communication (%s ms per rank-step "
                 "over %zu rank-steps) is charged to unclassified, not placed in a dimension",
                 csv_path, ms, b->unmatched_rows);
}

static int rank_of_row(const char *path, const table *t, size_t row, int c_type, int c_index,
                       int c_dev, int *rank, nd_error *err)
{
    *rank = -1;
    if (c_type >= 0 && c_index >= 0) return rank_of(path, t, row, c_index, rank, err);
    if (c_dev >= 0) return rank_of(path, t, row, c_dev, rank, err);
    return ND_OK;
}

int nd_classify_ascend_rows(const char *csv_path, ascend_row **rows_out, size_t *n_out, ascend_file_id *id,
                            nd_error *err)
{
    *rows_out = NULL, *n_out = 0;
    table t;
    int rc = nd_classify_csv_read(csv_path, MAX_CSV_BYTES, MAX_CSV_COLUMNS, &t, err), col[C_REQ];
    if (rc) return rc;
    if (id) id->digest = t.digest, id->bytes = t.bytes;
    if ((rc = header_check(csv_path, &t, col, err))) return table_free(&t), rc;
    int c_dev = column_of(&t, "Device_id"), c_type = column_of(&t, "Type"),
        c_index = column_of(&t, "Index");
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
    if (rc) return free(rows), rc;
    *rows_out = rows, *n_out = n;
    return ND_OK;
}

int nd_classify_ascend_read(nd_classify_run *run, const char *csv_path, nd_error *err)
{
    ascend_row *rows;
    size_t n;
    ascend_file_id id;
    int rc = nd_classify_ascend_rows(csv_path, &rows, &n, &id, err);
    if (rc) return rc;
    /* the same file twice (a directory and its step_trace_time.csv): read once */
    if ((rc = nd_classify_run_input_check(run, csv_path, -1, id.digest, id.bytes, err)))
        return free(rows), rc < 0 ? rc : ND_OK;
    ascend_comm comm;
    rc = nd_classify_ascend_comm_load(run, csv_path, &comm, err);
    rank_book b = {0};
    for (size_t i = 0; i < n && !rc; i++) {
        ascend_row *r = &rows[i];
        if (book_grow(&b, r->rank)) {
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            break;
        }
        r->order = b.orders[r->rank + 1]++;
        if (r->time_ms <= 0) { /* a step of no length: no row nd-compare would refuse */
            b.zero_rows++;
            continue;
        }
        bool unmatched = false;
        rc = nd_classify_ascend_sample(run, csv_path, &comm, r, &unmatched, err);
        if (unmatched) b.unmatched[r->rank + 1] = true, b.unmatched_ms += r->exposed_ms, b.unmatched_rows++;
    }
    if (!rc) warn_unmatched(run, &comm, csv_path, &b);
    if (!rc && b.zero_rows)
        nd_classify_run_warn(run, "%s: %zu row(s) with a Stage of 0 skipped (a step of no length)",
                             csv_path, b.zero_rows);
    free(b.orders), free(b.unmatched);
    nd_classify_ascend_comm_free(&comm);
    free(rows);
    return rc;
}
