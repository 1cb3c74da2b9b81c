/* kernel_details.csv (torch_npu's and msprof's ASCEND_PROFILER_OUTPUT): a row per device
 * task with its step ("Step Id"), name, type, core ("Accelerator Core": HCCL for the
 * communication tasks), start and duration in µs. Its rows are the device kernels of a
 * Chrome trace without host events: they go through the same device sweep (compute,
 * exposed communication, the kernel view), one step per Step Id (the whole file without
 * that column) whose window is the span of its tasks — the file holds no step time.
 *
 * The file is streamed twice with libcsv, a line at a time (messages name lines): once for
 * each step's span and the rank, once to feed the tasks. Memory is the parser's and the
 * reorder window's, whatever the file's size. */
#include "classify_kernel_details.h"
#include "classify_fields.h"
#include "classify_json.h"
#include "classify_shapes.h"
#include "classify_trace.h"

#include <csv.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"
#include "nd/base/text.h"

#define KD_LINE  65536 /* a line is fed to libcsv in pieces of this size */
#define KD_FIELD 512   /* the text kept of a cell (names are judged on it) */
#define KD_STEPS 65536 /* distinct Step Ids */

enum { KD_STEP, KD_NAME, KD_TYPE, KD_CORE, KD_START, KD_DUR, KD_DEVICE, KD_IN, KD_OUT, KD_DTYPES, KD_COLS };
static const char *const kd_names[KD_COLS] = {
    "Step Id",      "Name",      "Type",         "Accelerator Core", "Start Time(us)",
    "Duration(us)", "Device_id", "Input Shapes", "Output Shapes",    "Input Data Types"};

typedef struct kd_step {
    long num;
    nd_ns lo, hi;
} kd_step;

typedef struct kd_reader {
    const char *path;
    nd_error *err;
    int rc;
    int col[KD_COLS];                            /* column of each field, -1 absent */
    size_t field, row, line, row_line, last_end; /* last_end: the line the last record ended on */
    char cell[KD_COLS][KD_FIELD];
    size_t cell_len[KD_COLS];
    bool header_done;
    uint64_t digest;
    unsigned long long bytes;
    /* pass 1: the steps and the rank */
    kd_step *steps;
    size_t n_steps;
    int rank;
    /* pass 2: the trace the tasks feed */
    trace_ctx *t;
    size_t unfit, unfit_line;  /* GEMM or attention tasks whose sizes do not fit their op; the first's line */
    char unfit_type[KD_FIELD]; /* ... and its Type */
} kd_reader;

static int fail(kd_reader *k, const char *fmt, ...) ND_PRINTF(2, 3);
static int fail(kd_reader *k, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!k->rc) k->rc = nd_error_set(k->err, ND_EINPUT, "%s:%zu: %s", k->path, k->row_line, msg);
    return k->rc;
}

/* A cell's text, spaces and tabs trimmed (msprof writes "1736413971558972.912\t"). */
static const char *cell_text(const kd_reader *k, int f, size_t *n)
{
    const char *s = k->cell[f];
    size_t len = k->cell_len[f];
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1])) len--;
    *n = len;
    return s;
}

static void header_cell(kd_reader *k, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1])) n--;
    for (int f = 0; f < KD_COLS; f++)
        if (strlen(kd_names[f]) == n && !memcmp(kd_names[f], s, n) && k->col[f] < 0)
            k->col[f] = (int)k->field;
    if (k->col[KD_DEVICE] < 0 && n == 9 && !memcmp(s, "Device ID", 9)) k->col[KD_DEVICE] = (int)k->field;
}

static void on_cell(void *field, size_t len, void *data)
{
    kd_reader *k = data;
    if (k->field == 0) k->row_line = k->line;
    if (!k->header_done) {
        header_cell(k, field ? field : "", field ? len : 0);
    } else {
        for (int f = 0; f < KD_COLS; f++) {
            if (k->col[f] != (int)k->field) continue;
            size_t n = len < KD_FIELD - 1 ? len : KD_FIELD - 1;
            if (n) memcpy(k->cell[f], field, n);
            k->cell[f][n] = '\0';
            k->cell_len[f] = n;
        }
    }
    k->field++;
}

/* A task's start and duration (µs) as ns. */
static int task_times(kd_reader *k, nd_ns *ts, nd_ns *dur)
{
    size_t n;
    const char *s = cell_text(k, KD_START, &n);
    if (nd_classify_us_to_ns(s, n, ts) || *ts < 0)
        return fail(k, "column 'Start Time(us)': '%.*s' is not a time in microseconds", (int)n, s);
    s = cell_text(k, KD_DUR, &n);
    if (nd_classify_us_to_ns(s, n, dur) || *dur < 0)
        return fail(k, "column 'Duration(us)': '%.*s' is not a duration in microseconds", (int)n, s);
    return ND_OK;
}

/* The task's step number: its Step Id, 0 without the column or for a blank one. */
static int task_step(kd_reader *k, long *num)
{
    *num = 0;
    if (k->col[KD_STEP] < 0) return ND_OK;
    size_t n;
    const char *s = cell_text(k, KD_STEP, &n);
    if (!n || (n == 3 && !memcmp(s, "N/A", 3))) return ND_OK;
    int64_t v = nd_classify_text_int(s, n);
    bool digits = true;
    for (size_t i = 0; i < n; i++) digits &= isdigit((unsigned char)s[i]) != 0;
    if (!digits || v < 0 || v > (int64_t)1 << 40)
        return fail(k, "column 'Step Id': '%.*s' is not a step number", (int)n, s);
    *num = (long)v;
    return ND_OK;
}

static int span_add(kd_reader *k, long num, nd_ns ts, nd_ns end)
{
    for (size_t i = 0; i < k->n_steps; i++) {
        kd_step *s = &k->steps[i];
        if (s->num != num) continue;
        if (ts < s->lo) s->lo = ts;
        if (end > s->hi) s->hi = end;
        return ND_OK;
    }
    if (k->n_steps == KD_STEPS) return fail(k, "more than %d distinct Step Ids", KD_STEPS);
    kd_step *n = realloc(k->steps, (k->n_steps + 1) * sizeof *n);
    if (!n) return k->rc = nd_error_set(k->err, ND_ENOMEM, "out of memory");
    k->steps = n;
    k->steps[k->n_steps++] = (kd_step){num, ts, end};
    return ND_OK;
}

/* The features of a task: a task on the HCCL core is communication whatever its name. */
static uint32_t task_features(kd_reader *k)
{
    size_t n, c;
    const char *name = cell_text(k, KD_NAME, &n);
    uint32_t feat = nd_classify_name_features(name, n);
    const char *core = k->col[KD_CORE] >= 0 ? cell_text(k, KD_CORE, &c) : "";
    if (k->col[KD_CORE] < 0) c = 0;
    if (!(c == 4 && !memcmp(core, "HCCL", 4)) || (feat & F_COMM_KERNEL)) return feat;
    feat &= ~((0xfu << F_COLL_SHIFT) | (0xfu << F_KCLASS_SHIFT));
    return feat | F_COMM_KERNEL | ((uint32_t)nd_classify_coll_from_text(name, n) << F_COLL_SHIFT) |
           ((uint32_t)ND_KC_COMM << F_KCLASS_SHIFT);
}

/* A GEMM's or attention's sizes from the row's own shapes (its Type says which op): its
 * index in the trace's shape table + 1, or 0 (another kernel, sizes that do not fit). */
static int32_t own_shape(kd_reader *k)
{
    if (k->col[KD_TYPE] < 0 || k->col[KD_IN] < 0 || k->col[KD_OUT] < 0) return 0;
    nd_classify_npu_row row;
    row.type = cell_text(k, KD_TYPE, &row.type_len);
    row.inputs = cell_text(k, KD_IN, &row.inputs_len);
    row.outputs = cell_text(k, KD_OUT, &row.outputs_len);
    row.dtypes = "";
    row.dtypes_len = 0;
    if (k->col[KD_DTYPES] >= 0) row.dtypes = cell_text(k, KD_DTYPES, &row.dtypes_len);
    shape_key key;
    double flops;
    if (!nd_classify_npu_shape_of(&row, &key, &flops)) {
        if (nd_classify_npu_has_shape(row.type, row.type_len) && k->unfit++ == 0) {
            k->unfit_line = k->row_line;
            snprintf(k->unfit_type, sizeof k->unfit_type, "%.*s", (int)row.type_len, row.type);
        }
        return 0;
    }
    int i = nd_classify_shape_intern(&k->t->shapes, &key);
    return i >= 0 ? i + 1 : 0;
}

static int feed_task(kd_reader *k, nd_ns ts, nd_ns dur)
{
    trace_rec r = {.ts = ts, .dur = dur, .feat = task_features(k), .group = -1, .cat = CAT_KERNEL};
    if (!(r.feat & F_COMM_KERNEL)) r.own_shape = own_shape(k);
    if (r.feat & F_COMM_KERNEL) {
        comm_group g = {.kind = F_COLL(r.feat)};
        int i = nd_classify_group_table_intern(&k->t->groups, &g);
        if (i < 0) return k->rc = nd_error_set(k->err, ND_ENOMEM, "out of memory");
        r.group = i;
    }
    trace_extra x = {.device = true, .summary = -1, .link_group = -1};
    k->t->offset = k->row_line;
    return k->rc = nd_classify_trace_event(k->t, 0, &r, NULL, &x, k->err);
}

static void device_of(kd_reader *k)
{
    if (k->col[KD_DEVICE] < 0 || k->rank >= 0) return;
    size_t n;
    const char *s = cell_text(k, KD_DEVICE, &n);
    int64_t v = nd_classify_text_int(s, n);
    if (n && v >= 0 && v < (1 << 20)) k->rank = (int)v;
}

static void on_row(int c, void *data)
{
    (void)c;
    kd_reader *k = data;
    size_t fields = k->field;
    k->field = 0;
    k->last_end = k->line;
    if (k->rc || fields == 0) return;
    if (!k->header_done) {
        k->header_done = true;
        char missing[96] = "";
        static const int need[] = {KD_NAME, KD_START, KD_DUR};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
            if (k->col[need[i]] < 0)
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                         missing[0] ? ", " : "", kd_names[need[i]]);
        if (missing[0])
            fail(k,
                 "missing column(s) %s (a kernel_details.csv needs Name, Start Time(us), "
                 "Duration(us))",
                 missing);
        return;
    }
    k->row++;
    nd_ns ts, dur;
    long num;
    if (!task_times(k, &ts, &dur) && !task_step(k, &num)) {
        if (!k->t) {
            device_of(k);
            span_add(k, num, ts, ts + dur);
        } else
            feed_task(k, ts, dur);
    }
    for (int f = 0; f < KD_COLS; f++) /* a row without a cell leaves it blank, not the last row's */
    {
        k->cell_len[f] = 0;
        k->cell[f][0] = '\0';
    }
}

/* One reading of the file, a line at a time. */
static int read_once(kd_reader *k)
{
    FILE *f = nd_fopen_regular(k->path, k->err);
    if (!f) return k->err->code;
    char *buf = malloc(KD_LINE);
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    k->field = 0;
    k->row = 0;
    k->line = 1;
    k->last_end = 0;
    k->header_done = false;
    k->bytes = 0;
    k->digest = ND_DIGEST_SEED;
    for (int i = 0; i < KD_COLS; i++) k->col[i] = -1;
    if (!buf) k->rc = nd_error_set(k->err, ND_ENOMEM, "out of memory");
    while (!k->rc && fgets(buf, KD_LINE, f)) {
        size_t n = strlen(buf);
        nd_classify_digest_add(&k->digest, k->bytes, (const unsigned char *)buf, n);
        size_t skip = k->bytes == 0 && n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
        k->bytes += n;
        if (csv_parse(&p, buf + skip, n - skip, on_cell, on_row, k) != n - skip && !k->rc)
            fail(k, "not valid CSV (a quote inside an unquoted field?)");
        if (n && buf[n - 1] == '\n') k->line++;
    }
    if (!k->rc && ferror(f)) k->rc = nd_error_set(k->err, ND_EIO, "%s: read error", k->path);
    size_t open_line = k->last_end + 1; /* a record left open by a quote starts after the last */
    if (!k->rc && csv_fini(&p, on_cell, on_row, k) != 0 && !k->rc)
        k->rc = nd_error_set(k->err, ND_EINPUT, "%s:%zu: a quoted field is never closed", k->path, open_line);
    if (!k->rc && !k->header_done)
        k->rc = nd_error_set(k->err, ND_EINPUT, "%s: empty file; expected a header", k->path);
    csv_free(&p);
    free(buf);
    fclose(f);
    return k->rc;
}

static int cmp_step(const void *a, const void *b)
{
    const kd_step *x = a, *y = b;
    return (x->num > y->num) - (x->num < y->num);
}

/* The steps found, as a second reading's presets. */
static int presets_of(const kd_reader *k, preset_step **out)
{
    if (!(*out = calloc(k->n_steps + 1, sizeof **out))) return ND_ENOMEM;
    for (size_t i = 0; i < k->n_steps; i++) {
        preset_step *p = &(*out)[i];
        snprintf(p->name, sizeof p->name, "step%ld", k->steps[i].num);
        p->ts = k->steps[i].lo;
        p->dur = k->steps[i].hi - k->steps[i].lo;
    }
    return ND_OK;
}

int nd_classify_kernel_details_read(nd_classify_run *run, const char *path, nd_error *err)
{
    kd_reader k = {.path = path, .err = err, .rank = -1};
    int rc = read_once(&k);
    if (!rc && k.n_steps == 0) rc = nd_error_set(err, ND_EINPUT, "%s: no task rows", path);
    int seen = 0;
    if (!rc) {
        if (k.rank < 0) k.rank = nd_classify_trace_rank_from_name(path);
        rc = seen = nd_classify_run_input_check(run, path, k.rank, k.digest, k.bytes, err);
    }
    if (seen == 1 || rc) {
        free(k.steps);
        return seen == 1 ? ND_OK : rc;
    }
    qsort(k.steps, k.n_steps, sizeof *k.steps, cmp_step);
    preset_step *presets = NULL;
    trace_ctx t;
    if (nd_classify_trace_ctx_init(&t, run, path) || presets_of(&k, &presets))
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    t.from_csv = true;
    t.rank = k.rank;
    if (!rc) rc = nd_classify_trace_preset(&t, presets, k.n_steps, err);
    k.t = &t;
    k.rc = rc;
    if (!rc) rc = read_once(&k);
    if (!rc) rc = nd_classify_trace_drain(&t, err);
    if (!rc) rc = nd_classify_trace_samples(&t, err);
    if (!rc && k.unfit)
        rc = nd_classify_run_note(
            run,
            "%s: %zu GEMM or attention task(s) state sizes that do not fit their op (the "
            "first at line %zu, %s): their time is in their kernel class, in no shape",
            path, k.unfit, k.unfit_line, k.unfit_type);
    nd_classify_trace_ctx_free(&t);
    free(presets);
    free(k.steps);
    return rc;
}

bool nd_classify_kernel_details_is(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    return !strncmp(base, "kernel_details", 14) && n >= 4 && !strcmp(base + n - 4, ".csv");
}
