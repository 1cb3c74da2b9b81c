/* The files nd-classify writes: the round file row (appended atomically), ND's
 * --perf-parts row and ND's --detail table. Values are printed with ND's 3
 * decimals (MiB with 1). Every file goes through nd_outfile (temporary + rename). */
#include "classify_output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "classify_csv.h"
#include "classify_round.h"

static const nd_classify_quantity nd_columns[ND_CQ_CSV_COLUMNS] = {
    ND_CQ_TIME,    ND_CQ_COMP,    ND_CQ_DP_WAIT, ND_CQ_MP_WAIT, ND_CQ_EP_WAIT,      ND_CQ_CP_WAIT,
    ND_CQ_PP_WAIT, ND_CQ_OP_WAIT, ND_CQ_SP_WAIT, ND_CQ_IDLE,    ND_CQ_UNCLASSIFIED, ND_CQ_OPTIMIZER};

/* The number the row holds for q: mean or median, per --stat. */
static double classify_value(const nd_classify_run *run, nd_classify_quantity q)
{
    const nd_classify_stats *s = &run->summary.q[q];
    return run->opts.stat == ND_STAT_MEDIAN ? s->median : s->mean;
}

/* Milliseconds as text: 3 decimals (ND's), more below 0.1 ms so that 3 significant
 * digits remain (0.000412 ms is not 0.000), without trailing zeros past the third
 * decimal (0.086, not 0.0860); never "-0.000"; from 1e15 on the shortest text that reads
 * back (no 300-digit numbers). Non-finite values are never written (callers check). */
void nd_classify_format_ms(double v, char buf[ND_CLASSIFY_MS_TEXT])
{
    double a = fabs(v);
    int decimals = 3;
    if (a >= 1e15) {
        nd_format_double(v, buf);
        return;
    }
    if (a > 0 && a < 0.1) decimals = 2 - (int)floor(log10(a));
    if (decimals > 15) decimals = 15;
    snprintf(buf, ND_CLASSIFY_MS_TEXT, "%.*f", decimals, v);
    size_t n = strlen(buf);
    for (int d = decimals; d > 3 && buf[n - 1] == '0'; d--) buf[--n] = '\0';
    /* "-0.000" says nothing a reader can use. */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
}

static void classify_print_ms(FILE *f, double v, int decimals)
{
    char buf[ND_CLASSIFY_MS_TEXT];
    if (decimals == 3) {
        nd_classify_format_ms(v, buf);
    } else {
        if (fabs(v) >= 1e15)
            nd_format_double(v, buf);
        else
            snprintf(buf, sizeof buf, "%.*f", decimals, v);
        if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
    }
    fputs(buf, f);
}

char *nd_classify_csv_header(const nd_classify_dims *dims, bool nd_only)
{
    size_t cap = 512;
    char *h = malloc(cap);
    if (!h) return NULL;
    h[0] = '\0';
    for (int i = 0; i < dims->count; i++) {
        strcat(h, nd_dim_name(dims->dim[i]));
        strcat(h, ",");
    }
    int n = nd_only ? ND_CQ_ND_COLUMNS : ND_CQ_CSV_COLUMNS;
    for (int i = 0; i < n; i++) {
        strcat(h, nd_classify_quantity_name(nd_columns[i]));
        if (i + 1 < n) strcat(h, ",");
    }
    return h;
}

/* The row the run adds to a round file: its dimensions, then the measured columns. A
 * value nd-compare would refuse (a step that is not positive, a negative part, anything
 * not finite) is refused here instead: nd never writes what nd refuses. */
int nd_classify_round_row_of(const nd_classify_run *run, bool nd_only, round_row *row, nd_error *err)
{
    memset(row, 0, sizeof *row);
    const nd_classify_dims *d = &run->opts.dims;
    char text[ND_CLASSIFY_MS_TEXT];
    int rc = ND_OK;
    for (int i = 0; i < d->count && !rc; i++) {
        snprintf(text, sizeof text, "%lld", (long long)d->value[i]);
        rc = nd_classify_round_row_add(row, nd_dim_name(d->dim[i]), text, err);
    }
    int n = nd_only ? ND_CQ_ND_COLUMNS : ND_CQ_CSV_COLUMNS;
    for (int i = 0; i < n && !rc; i++) {
        double v = classify_value(run, nd_columns[i]);
        const char *name = nd_classify_quantity_name(nd_columns[i]);
        bool bad =
            !isfinite(v) || (nd_columns[i] == ND_CQ_TIME ? v <= 0 : nd_columns[i] != ND_CQ_IDLE && v < -1e-9);
        if (bad)
            return nd_error_set(err, ND_EINPUT,
                                "the row's '%s' would be %g ms, which nd-compare refuses: not written", name,
                                v);
        nd_classify_format_ms(v, text);
        rc = nd_classify_round_row_add(row, name, text, err);
    }
    return rc;
}

/* The ND CSV rows need the degrees: --dims, a strategy file or the traces' own. */
static int need_dims(const nd_classify_run *run, nd_error *err)
{
    if (run->opts.has_dims) return ND_OK;
    return nd_error_set(err, ND_EUSAGE,
                        "--dims is required to write an ND CSV: the inputs do not state the "
                        "degrees (no distributedInfo naming its process groups)");
}

int nd_classify_csv_write(const nd_classify_run *run, const char *path, bool nd_only, nd_error *err)
{
    if (!run->finished) return nd_error_set(err, ND_EINPUT, "internal: run not finished");
    if (need_dims(run, err)) return err->code;
    round_row row;
    int rc = nd_classify_round_row_of(run, nd_only, &row, err);
    return rc ? rc : nd_classify_round_append(path, &row, 1, err);
}

const char *nd_classify_perf_part_name(int i)
{
    /* ND's ten parts, TOTAL, nd's OPTIMIZER part, then what ND's debug.csv adds */
    static const char *const extra[] = {
        "TOTAL", NULL, "OTHER_COMPUTE", "UNSPLIT_COMPUTE", "UNCLASSIFIED_COMM", "IDLE"};
    if (i < ND_ND_PARTS) return nd_part_name((nd_part)i);
    if (i == ND_ND_PARTS + 1) return nd_part_name(ND_PART_OPTIMIZER);
    return i < PERF_PARTS ? extra[i - ND_ND_PARTS] : "?";
}

int nd_classify_perf_parts_write(const nd_classify_run *run, const char *path, nd_error *err)
{
    if (need_dims(run, err)) return err->code;
    double v[PERF_PARTS];
    nd_classify_perf_parts(run, v);
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    const nd_classify_dims *d = &run->opts.dims;
    for (int i = 0; i < d->count; i++) fprintf(out.fp, "%s,", nd_dim_name(d->dim[i]));
    for (int i = 0; i < PERF_PARTS; i++)
        fprintf(out.fp, "%s%c", nd_classify_perf_part_name(i), i + 1 < PERF_PARTS ? ',' : '\n');
    for (int i = 0; i < d->count; i++) fprintf(out.fp, "%lld,", (long long)d->value[i]);
    for (int i = 0; i < PERF_PARTS; i++) {
        classify_print_ms(out.fp, v[i], 3);
        fputc(i + 1 < PERF_PARTS ? ',' : '\n', out.fp);
    }
    return nd_outfile_commit(&out, err);
}

/* ND §3.5 with today's DP_REDUCE: op_wait -> DP_COMM, dp_wait -> DP_REDUCE (as the
 * ratio fit pairs them). All but TOTAL add up to TOTAL for the mean. */
void nd_classify_perf_parts(const nd_classify_run *run, double v[PERF_PARTS])
{
#define V(q) classify_value(run, q)
    double vals[PERF_PARTS] = {V(ND_CQ_COMP_FW),      V(ND_CQ_COMP_BW),
                               V(ND_CQ_COMP_REC),     V(ND_CQ_OP_WAIT),
                               V(ND_CQ_DP_WAIT),      V(ND_CQ_MP_WAIT) + V(ND_CQ_SP_WAIT),
                               V(ND_CQ_EP_WAIT),      V(ND_CQ_CP_WAIT),
                               V(ND_CQ_PP_WAIT),      0,
                               V(ND_CQ_TIME),         V(ND_CQ_COMP_OPT),
                               V(ND_CQ_COMP_OTHER),   V(ND_CQ_COMP_UNSPLIT),
                               V(ND_CQ_UNCLASSIFIED), V(ND_CQ_IDLE)};
#undef V
    memcpy(v, vals, sizeof vals);
}

static int cmp_site(const void *a, const void *b)
{
    const nd_classify_site *x = a, *y = b;
    int c = strcmp(nd_classify_quantity_name(x->column), nd_classify_quantity_name(y->column));
    return c ? c : strcmp(x->label, y->label);
}

static const nd_classify_site *site_of(const nd_classify_sample *s, const nd_classify_site *k)
{
    for (size_t i = 0; i < s->n_sites; i++)
        if (s->sites[i].column == k->column && !strcmp(s->sites[i].label, k->label)) return &s->sites[i];
    return NULL;
}

static void detail_header(FILE *f, const nd_classify_site *sites, size_t n)
{
    static const nd_classify_quantity cols[] = {
        ND_CQ_TIME,     ND_CQ_COMP_FW,    ND_CQ_COMP_BW,      ND_CQ_COMP_REC,
        ND_CQ_COMP_OPT, ND_CQ_COMP_OTHER, ND_CQ_COMP_UNSPLIT, ND_CQ_DP_WAIT,
        ND_CQ_MP_WAIT,  ND_CQ_EP_WAIT,    ND_CQ_CP_WAIT,      ND_CQ_PP_WAIT,
        ND_CQ_OP_WAIT,  ND_CQ_SP_WAIT,    ND_CQ_UNCLASSIFIED, ND_CQ_IDLE};
    fputs("rank,step", f);
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        fprintf(f, ",%s", nd_classify_quantity_name(cols[i]));
    fputs(",comm_kernel_ms,overlap_pct", f);
    static const char *what[] = {"ms", "calls", "waits", "MiB"};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            char name[256];
            snprintf(name, sizeof name, "%s:%s %s", nd_classify_quantity_name(sites[i].column),
                     sites[i].label, what[k]);
            fputc(',', f);
            nd_classify_csv_put(f, name);
        }
    fputs(",view,input,warmup\n", f);
}

static void detail_row(FILE *f, const nd_classify_run *run, const nd_classify_sample *s,
                       const nd_classify_site *sites, size_t n)
{
    static const nd_classify_quantity cols[] = {
        ND_CQ_TIME,     ND_CQ_COMP_FW,    ND_CQ_COMP_BW,      ND_CQ_COMP_REC,
        ND_CQ_COMP_OPT, ND_CQ_COMP_OTHER, ND_CQ_COMP_UNSPLIT, ND_CQ_DP_WAIT,
        ND_CQ_MP_WAIT,  ND_CQ_EP_WAIT,    ND_CQ_CP_WAIT,      ND_CQ_PP_WAIT,
        ND_CQ_OP_WAIT,  ND_CQ_SP_WAIT,    ND_CQ_UNCLASSIFIED, ND_CQ_IDLE};
    fprintf(f, "%d,", s->rank);
    nd_classify_csv_put(f, s->step);
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        fputc(',', f);
        classify_print_ms(f, s->q[cols[i]], 3);
    }
    fputc(',', f);
    if (s->kernels) classify_print_ms(f, s->comm_ms, 3);
    fputc(',', f);
    if (s->comm_ms > 0) fprintf(f, "%.1f", 100 * s->overlapped_ms / s->comm_ms); /* blank: no communication */
    for (size_t i = 0; i < n; i++) {
        const nd_classify_site *x = site_of(s, &sites[i]);
        fputc(',', f);
        classify_print_ms(f, x ? x->ms : 0, 3);
        fprintf(f, ",%g,%g,", x ? x->calls : 0, x ? x->waits : 0);
        classify_print_ms(f, x ? x->bytes / 1048576.0 : 0, 1);
    }
    fprintf(f, ",%s,", nd_classify_view_name((nd_classify_view)s->view[ND_CQ_COMP]));
    nd_classify_csv_put(f, s->input);
    fprintf(f, ",%d\n", s->step_order < run->opts.skip_steps);
}

int nd_classify_detail_write(const nd_classify_run *run, const char *path, nd_error *err)
{
    /* Every site seen in any step, warm-up steps included. */
    nd_classify_site *sites = NULL;
    size_t n = 0;
    for (size_t i = 0; i < run->n_samples; i++)
        for (size_t k = 0; k < run->samples[i].n_sites; k++) {
            const nd_classify_site *x = &run->samples[i].sites[k];
            bool seen = false;
            for (size_t j = 0; j < n && !seen; j++)
                seen = sites[j].column == x->column && !strcmp(sites[j].label, x->label);
            if (seen) continue;
            nd_classify_site *m = realloc(sites, (n + 1) * sizeof *m);
            if (!m) {
                free(sites);
                return nd_error_set(err, ND_ENOMEM, "out of memory");
            }
            sites = m;
            sites[n++] = *x; /* labels borrowed from the samples */
        }
    if (n) qsort(sites, n, sizeof *sites, cmp_site);
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (!rc) {
        detail_header(out.fp, sites, n);
        for (size_t i = 0; i < run->n_samples; i++) detail_row(out.fp, run, &run->samples[i], sites, n);
        rc = nd_outfile_commit(&out, err);
    }
    free(sites);
    return rc;
}
