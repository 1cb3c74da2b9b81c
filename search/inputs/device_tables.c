/*
 * device_tables.c — kernel tables from the measurements engineers already have: a GEMM sweep
 * CSV (precision, m, n, k, TFLOP/s or time), a collectives CSV (op, ranks, bytes, time), the
 * text nccl-tests and hccl_test print (device_tables_tools.c), and the --kernels CSV nd-classify
 * writes from a profiled round. GEMMs
 * become points at their fraction of the device's peak; collectives are fitted, per operation
 * and link tier, to nd's own forms (a fixed time per group size and an efficiency on the link).
 * docs/devices.md §Measured tables.
 */
#include "device_tables.h"
#include "device_tables_internal.h"

#include <csv.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/array.h"
#include "nd/base/text.h"
#include "nd/base/units.h"
#include "nd/costmodel/collective.h"

#define CELLS_MAX 64
#define SHAPE_MAX 1099511627776.0 /* 2^40: far beyond any GEMM dimension */
/* A GEMM measured above its precision's peak by more than this is a unit slip, not a
 * measurement (clocks above base may give a few per cent). */
#define EFFICIENCY_SLACK 1.10

typedef struct cells {
    char text[CELLS_MAX][CELL_CHARS];
    size_t count;
    bool too_many, too_long;
} cells;

static int bad(const reader *r, const char *column, const char *what, const char *value)
{
    return nd_error_set(r->err, ND_EINPUT, "%s:%d: column '%s': %s%s%s%s", r->path, r->line, column, what,
                        value ? " ('" : "", value ? value : "", value ? "')" : "");
}

static void on_field(void *field, size_t len, void *data)
{
    cells *c = data;
    if (c->count >= CELLS_MAX) {
        c->too_many = true;
        return;
    }
    if (len >= CELL_CHARS) c->too_long = true;
    size_t n = len < CELL_CHARS ? len : CELL_CHARS - 1;
    if (field) memcpy(c->text[c->count], field, n);
    c->text[c->count][n] = '\0';
    c->count++;
}

static void on_record(int ch, void *data)
{
    (void)ch;
    (void)data;
}

/* Splits one line (no line break) into cells with libcsv. */
static int split_line(const reader *r, const char *line, size_t len, cells *c)
{
    struct csv_parser p;
    memset(c, 0, sizeof *c);
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    size_t used = csv_parse(&p, line, len, on_field, on_record, c);
    int fini = csv_fini(&p, on_field, on_record, c);
    int csv_err = csv_error(&p);
    csv_free(&p);
    if (used != len || fini != 0)
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: malformed CSV (%s)", r->path, r->line,
                            csv_strerror(csv_err));
    if (c->too_many)
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: more than %d columns", r->path, r->line, CELLS_MAX);
    if (c->too_long)
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: a cell longer than %d characters", r->path, r->line,
                            CELL_CHARS - 1);
    return ND_OK;
}

static bool blank_or_comment(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    return i == len || line[i] == '#';
}

static int column_of(const cells *header, const char *name)
{
    for (size_t i = 0; i < header->count; i++)
        if (!strcmp(header->text[i], name)) return (int)i;
    return -1;
}

static int number_at(const reader *r, const cells *header, const cells *row, int col, double lo, double hi,
                     double *out)
{
    const char *name = header->text[col];
    if ((size_t)col >= row->count || !row->text[col][0]) return bad(r, name, "is empty", NULL);
    if (nd_parse_double(row->text[col], out) || !isfinite(*out))
        return bad(r, name, "is not a number", row->text[col]);
    if (*out < lo || *out > hi) {
        char what[96];
        snprintf(what, sizeof what, "must be in [%g, %g]", lo, hi);
        return bad(r, name, what, row->text[col]);
    }
    return ND_OK;
}

/* ---- GEMMs ---------------------------------------------------------------------------------- */

static int precision_of(const reader *r, const char *column, const char *text, nd_gemm_precision *p,
                        double *peak)
{
    const nd_device *d = r->d;
    if (!strcmp(text, "bf16") || !strcmp(text, "fp16") || !strcmp(text, "") || !strcmp(text, "bfloat16") ||
        !strcmp(text, "float16")) {
        *p = ND_GEMM_16BIT;
        *peak = d->peak_tflops;
    } else if (!strncmp(text, "fp8", 3) || !strncmp(text, "float8", 6)) {
        *p = ND_GEMM_FP8;
        *peak = d->fp8_tflops;
    } else if (!strcmp(text, "tf32")) {
        *p = ND_GEMM_TF32;
        *peak = d->tf32_tflops;
    } else if (!strcmp(text, "fp32") || !strcmp(text, "float32") || !strcmp(text, "float")) {
        *p = ND_GEMM_FP32;
        *peak = d->fp32_tflops;
    } else {
        return bad(r, column, "is not a precision nd knows (bf16, fp16, fp8, tf32, fp32)", text);
    }
    if (!(*peak > 0)) return bad(r, column, "names a precision the device has no peak for", text);
    return ND_OK;
}

static int pass_of(const reader *r, const char *column, const char *text, nd_gemm_pass *pass)
{
    static const struct {
        const char *name;
        nd_gemm_pass pass;
    } names[] = {{"", ND_PASS_ANY},
                 {"any", ND_PASS_ANY},
                 {"forward", ND_PASS_FORWARD},
                 {"fwd", ND_PASS_FORWARD},
                 {"TN", ND_PASS_FORWARD},
                 {"input_grad", ND_PASS_INPUT_GRAD},
                 {"dgrad", ND_PASS_INPUT_GRAD},
                 {"NN", ND_PASS_INPUT_GRAD},
                 {"weight_grad", ND_PASS_WEIGHT_GRAD},
                 {"wgrad", ND_PASS_WEIGHT_GRAD},
                 {"NT", ND_PASS_WEIGHT_GRAD}};
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (!strcmp(text, names[i].name)) {
            *pass = names[i].pass;
            return ND_OK;
        }
    return bad(r, column, "is not a pass (forward, input_grad, weight_grad, any; or TN, NN, NT)", text);
}

/* Appends one item of `size` bytes to an array of *count, doubling its room when the count
 * reaches a power of two (the room is then always the next power of two). */
static int add_gemm(const reader *r, nd_gemm_point p)
{
    void *items = r->t->gemm; /* through a void *, not a cast of &gemm (strict aliasing) */
    int rc = nd_tables_append(r, &items, &r->t->gemm_count, sizeof p, &p, "GEMM points");
    r->t->gemm = items;
    return rc;
}

static int add_grouped(const reader *r, nd_grouped_point p)
{
    void *items = r->t->grouped;
    int rc = nd_tables_append(r, &items, &r->t->grouped_count, sizeof p, &p, "grouped GEMM points");
    r->t->grouped = items;
    return rc;
}

/* The fraction of peak a measured GEMM reached, from its TFLOP/s or its time. */
static int efficiency_from(const reader *r, const cells *h, const cells *row, int tflops_col, int time_col,
                           double flops, double peak, double *out)
{
    double tflops;
    int rc;
    bool stated = tflops_col >= 0 && (size_t)tflops_col < row->count && row->text[tflops_col][0];
    if (stated || time_col < 0) {
        if ((rc = number_at(r, h, row, tflops_col, 1e-9, 1e9, &tflops))) return rc;
    } else {
        double us;
        if ((rc = number_at(r, h, row, time_col, 1e-6, 1e12, &us))) return rc;
        tflops = flops / (us * 1e-6) / 1e12;
    }
    *out = tflops / peak;
    if (*out > EFFICIENCY_SLACK) {
        char what[160];
        snprintf(what, sizeof what, "%.4g TFLOP/s is above the device's peak of %.4g for this precision",
                 tflops, peak);
        return bad(r, h->text[stated || time_col < 0 ? tflops_col : time_col], what, NULL);
    }
    return ND_OK;
}

/* A sweep: precision (optional, bf16), pass (optional, any), batch (optional, 1), m, n, k,
 * and tflops or time_us; other columns (a source) are passed over. */
static int gemm_row(const reader *r, const cells *h, const cells *row)
{
    int cm = column_of(h, "m"), cn = column_of(h, "n"), ck = column_of(h, "k");
    int cp = column_of(h, "precision"), cpass = column_of(h, "pass"), cb = column_of(h, "batch");
    int ct = column_of(h, "tflops"), cus = column_of(h, "time_us");
    nd_gemm_point p;
    memset(&p, 0, sizeof p);
    double peak, batch = 1;
    int rc;
    if ((rc = precision_of(r, "precision", cp >= 0 && (size_t)cp < row->count ? row->text[cp] : "",
                           &p.precision, &peak)))
        return rc;
    if ((rc = pass_of(r, "pass", cpass >= 0 && (size_t)cpass < row->count ? row->text[cpass] : "", &p.pass)))
        return rc;
    if ((rc = number_at(r, h, row, cm, 1, SHAPE_MAX, &p.m)) ||
        (rc = number_at(r, h, row, cn, 1, SHAPE_MAX, &p.n)) ||
        (rc = number_at(r, h, row, ck, 1, SHAPE_MAX, &p.k)))
        return rc;
    if (cb >= 0 && (rc = number_at(r, h, row, cb, 1, SHAPE_MAX, &batch))) return rc;
    /* a batched GEMM is priced as one of batch x m rows: the work and the efficiency it had */
    p.m *= batch;
    if ((rc = efficiency_from(r, h, row, ct, cus, 2 * p.m * p.n * p.k, peak, &p.efficiency))) return rc;
    return add_gemm(r, p);
}

/* A --kernels shape row: GEMM ops with their sizes and TFLOP/s become points of any pass (the
 * trace does not say which); grouped GEMMs become grouped points of batch experts; attention
 * rows are passed over (the trace does not say whether the mask was causal). */
static int kernels_row(const reader *r, const cells *h, const cells *row, size_t *used)
{
    int cs = column_of(h, "section"), cop = column_of(h, "op"), cdt = column_of(h, "dtype");
    int cb = column_of(h, "batch"), cm = column_of(h, "m"), cn = column_of(h, "n"), ck = column_of(h, "k");
    int ct = column_of(h, "tflops");
    if ((size_t)cs >= row->count || strcmp(row->text[cs], "shape")) return ND_OK;
    const char *op = (size_t)cop < row->count ? row->text[cop] : "";
    bool grouped = !strcmp(op, "aten::_grouped_mm") || !strcmp(op, "GroupedMatmul");
    static const char *const gemms[] = {"aten::mm", "aten::addmm", "aten::linear", "aten::matmul",
                                        "MatMul"}; /* MatMul: Ascend's kernel_details */
    bool plain = false;
    for (size_t i = 0; i < ND_ARRAY_LEN(gemms); i++) plain = plain || !strcmp(op, gemms[i]);
    if (!plain && !grouped) return ND_OK;
    if ((size_t)cm >= row->count || !row->text[cm][0] || (size_t)ct >= row->count || !row->text[ct][0])
        return ND_OK; /* sizes unknown (no record_shapes) */
    double peak, m, n, k, groups = 1, tflops;
    nd_gemm_precision precision;
    int rc;
    if ((rc = precision_of(r, "dtype", (size_t)cdt < row->count ? row->text[cdt] : "", &precision, &peak)))
        return rc;
    if ((rc = number_at(r, h, row, cm, 1, SHAPE_MAX, &m)) ||
        (rc = number_at(r, h, row, cn, 1, SHAPE_MAX, &n)) ||
        (rc = number_at(r, h, row, ck, 1, SHAPE_MAX, &k)) ||
        (rc = number_at(r, h, row, ct, 1e-9, 1e9, &tflops)))
        return rc;
    if (grouped && (rc = number_at(r, h, row, cb, 1, SHAPE_MAX, &groups))) return rc;
    double efficiency = tflops / peak;
    if (efficiency > EFFICIENCY_SLACK)
        return bad(r, "tflops", "is above the device's peak for its dtype", row->text[ct]);
    (*used)++;
    if (grouped) /* --kernels gives the grouped M over all experts */
        return add_grouped(
            r, (nd_grouped_point){groups, m / groups, n, k, efficiency, ND_PASS_ANY, precision, {0}});
    return add_gemm(r, (nd_gemm_point){m, n, k, efficiency, ND_PASS_ANY, precision, {0}});
}

/* ---- collectives ---------------------------------------------------------------------------- */

/* op, ranks, bytes, time_us, and nodes (optional, 1): one measured call. */
static int coll_row(const reader *r, const cells *h, const cells *row, coll_points *pts)
{
    int co = column_of(h, "op"), cr = column_of(h, "ranks"), cbytes = column_of(h, "bytes");
    int ct = column_of(h, "time_us"), cnodes = column_of(h, "nodes");
    coll_point p = {0};
    const char *op = (size_t)co < row->count ? row->text[co] : "";
    if ((p.op = nd_tables_op_of(op)) < 0)
        return bad(r, "op", "is not a collective (all_reduce, reduce_scatter, all_gather, all_to_all, p2p)",
                   op);
    double nodes = 1;
    int rc;
    if ((rc = number_at(r, h, row, cr, 2, 1 << 24, &p.ranks)) ||
        (rc = number_at(r, h, row, cbytes, 1, SHAPE_MAX, &p.bytes)) ||
        (rc = number_at(r, h, row, ct, 1e-3, 1e12, &p.time_us)))
        return rc;
    if (cnodes >= 0 && (rc = number_at(r, h, row, cnodes, 1, p.ranks, &nodes))) return rc;
    if (p.ranks != floor(p.ranks) || nodes != floor(nodes) || fmod(p.ranks, nodes) != 0)
        return bad(r, "nodes", "must divide ranks (whole numbers)",
                   (size_t)cnodes < row->count ? row->text[cnodes] : "1");
    p.tier = nodes > 1 ? ND_TIER_INTER : ND_TIER_INTRA;
    p.per_node = p.ranks / nodes;
    return nd_tables_add_coll(r, pts, p);
}

/* The bandwidth part of a call at efficiency 1 on its tier, no latency: what nd's collective
 * form gives on a device whose only finite limit is the measured tier (ms). */
static double ideal_ms(const nd_device *d, const coll_point *p)
{
    nd_device ideal = *d;
    ideal.tables = NULL;
    ideal.intra_efficiency = ideal.inter_efficiency = 1;
    ideal.intra_latency_us = ideal.inter_latency_us = ideal.intra_base_us = ideal.inter_base_us = 0;
    ideal.devices_per_node = (int)p->per_node;
    ideal.intra_link_gbps = 0; /* a table's rate is one figure for every group size */
    if (p->tier == ND_TIER_INTER)
        ideal.intra_gbps = 1e12; /* the fabric never binds: the NIC share is measured */
    nd_group g = {(int64_t)p->ranks, 1};
    return nd_collective_ms(&ideal, (nd_collective)p->op, g, p->bytes);
}

/* Sums of one group size's calls, weighted by 1/t^2 (relative errors). */
typedef struct size_sums {
    int ranks;
    double w, x, y, xx, xy;
} size_sums;

/* Fits time = fixed(n) + c(n) ideal(n, bytes) to every call of one operation and tier by
 * weighted least squares (weights 1/t^2, so small and large messages count alike): each group
 * size its own fixed time and rate (NCCL's bus bandwidth differs by group size: 197 GB/s at 2
 * A100s, 229 at 8 in vTrain's table), and a pooled rate for sizes not measured. A size measured
 * at one message length only keeps the pooled rate and takes the fixed time that fits it. */
static void fit_one(const nd_device *d, const coll_points *pts, int op, int tier, nd_collective_rate *out)
{
    size_sums s[ND_FIXED_BY_SIZE_MAX];
    int n_sizes = 0;
    for (size_t i = 0; i < pts->count; i++) {
        const coll_point *p = &pts->items[i];
        if (p->op != op || p->tier != tier) continue;
        int at = 0;
        while (at < n_sizes && s[at].ranks != (int)p->ranks) at++;
        if (at == n_sizes) {
            if (n_sizes == ND_FIXED_BY_SIZE_MAX) continue;
            s[n_sizes++] = (size_sums){(int)p->ranks, 0, 0, 0, 0, 0};
        }
        double w = 1 / (p->time_us * p->time_us), x = ideal_ms(d, p) * 1e3;
        s[at].w += w;
        s[at].x += w * x;
        s[at].y += w * p->time_us;
        s[at].xx += w * x * x;
        s[at].xy += w * x * p->time_us;
    }
    if (!n_sizes) return;
    double num = 0, den = 0, c_of[ND_FIXED_BY_SIZE_MAX];
    for (int i = 0; i < n_sizes; i++) {
        double sxx = s[i].xx - s[i].x * s[i].x / s[i].w, sxy = s[i].xy - s[i].x * s[i].y / s[i].w;
        c_of[i] = sxx > 1e-12 * s[i].xx && sxy > 0 ? sxy / sxx : 0;
        num += sxy;
        den += sxx;
    }
    double link = tier == ND_TIER_INTER ? d->inter_gbps : d->intra_gbps;
    double eff = tier == ND_TIER_INTER ? d->inter_efficiency : d->intra_efficiency;
    /* no size measured at two message lengths: the link's own efficiency stays */
    double pooled = den > 0 && num > 0 ? num / den : 1 / eff;
    memset(out, 0, sizeof *out);
    out->stated = true;
    out->gbps = link / pooled; /* efficiency 1 on the measured rate: nd multiplies the two */
    out->efficiency = 1;
    out->scale = 1;
    out->offset = -1;
    double fixed_sum = 0;
    for (int i = 0; i < n_sizes; i++) {
        double c = c_of[i] > 0 ? c_of[i] : pooled;
        out->sizes[i] = s[i].ranks;
        out->gbps_by_size[i] = c_of[i] > 0 ? link / c : 0;
        out->fixed_by_size_us[i] = fmax(0, (s[i].y - c * s[i].x) / s[i].w);
        fixed_sum += out->fixed_by_size_us[i];
    }
    out->sizes_count = n_sizes;
    out->fixed_us = fixed_sum / n_sizes; /* a group size not measured: the mean */
}

static void fit_collectives(const nd_device *d, const coll_points *pts, nd_kernel_tables *t)
{
    for (int tier = 0; tier < ND_LINK_TIERS; tier++)
        for (int op = 0; op < ND_COLLECTIVES; op++) fit_one(d, pts, op, tier, &t->collective[tier][op]);
}

/* ---- the CSV kinds -------------------------------------------------------------------------- */

typedef enum { KIND_NONE, KIND_GEMM, KIND_COLLECTIVES, KIND_KERNELS } csv_kind;

static csv_kind kind_of(const cells *h)
{
    bool mnk = column_of(h, "m") >= 0 && column_of(h, "n") >= 0 && column_of(h, "k") >= 0;
    if (column_of(h, "section") >= 0 && mnk && column_of(h, "tflops") >= 0) return KIND_KERNELS;
    if (column_of(h, "op") >= 0 && column_of(h, "ranks") >= 0 && column_of(h, "bytes") >= 0 &&
        column_of(h, "time_us") >= 0)
        return KIND_COLLECTIVES;
    if (mnk && (column_of(h, "tflops") >= 0 || column_of(h, "time_us") >= 0)) return KIND_GEMM;
    return KIND_NONE;
}

static int read_csv(reader *r, const char *text, size_t len, coll_points *pts)
{
    size_t at = 0, line_len, kernels_used = 0;
    const char *line;
    cells header, row;
    csv_kind kind = KIND_NONE;
    int rc = ND_OK;
    for (r->line = 1; !rc && nd_tables_next_line(text, len, &at, &line, &line_len); r->line++) {
        if (blank_or_comment(line, line_len)) continue;
        if ((rc = split_line(r, line, line_len, kind == KIND_NONE ? &header : &row))) break;
        if (kind == KIND_NONE) {
            if ((kind = kind_of(&header)) == KIND_NONE)
                return nd_error_set(
                    r->err, ND_EINPUT,
                    "%s:%d: not a kernel table nd reads: a GEMM sweep (m,n,k,tflops or time_us), "
                    "collectives (op,ranks,bytes,time_us), nd-classify --kernels, or nccl-tests "
                    "output (docs/devices.md)",
                    r->path, r->line);
            continue;
        }
        if (kind == KIND_GEMM)
            rc = gemm_row(r, &header, &row);
        else if (kind == KIND_COLLECTIVES)
            rc = coll_row(r, &header, &row, pts);
        else
            rc = kernels_row(r, &header, &row, &kernels_used);
    }
    if (rc) return rc;
    if (kind == KIND_NONE) return nd_error_set(r->err, ND_EINPUT, "%s:1: an empty kernel table", r->path);
    if (kind == KIND_KERNELS && !kernels_used)
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:1: no GEMM shape rows with sizes and TFLOP/s (profile with record_shapes=True)", r->path);
    return ND_OK;
}

int nd_kernel_tables_read_measured(const char *path, const char *text, size_t len, const nd_device *d,
                                   nd_kernel_tables *t, nd_error *err)
{
    reader r = {path, d, t, err, 1};
    coll_points pts = {NULL, 0};
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;
        len -= 3;
    }
    if (memchr(text, '\0', len))
        return nd_error_set(err, ND_EINPUT, "%s: holds a NUL byte: not a text table", path);
    int rc = nd_tables_is_nccl_tests(text, len)  ? nd_tables_read_nccl_tests(&r, text, len, &pts)
             : nd_tables_is_hccl_test(text, len) ? nd_tables_read_hccl_test(&r, text, len, &pts)
                                                 : read_csv(&r, text, len, &pts);
    if (!rc) fit_collectives(d, &pts, t);
    free(pts.items);
    return rc;
}
