/* The kernel view written out: the --kernels CSV (its columns are nd_kernels_csv's,
 * docs/classify.md "--kernels") and the report's kernel section. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "classify_csv.h"
#include "classify_kernels.h"
#include "classify_output.h"
#include "nd/base/formats.h"
#include "nd/base/io.h"

/* Six significant digits, the shortest text that reads back ("390.5", "1024"). */
static void put_num(FILE *f, double v)
{
    char text[64], buf[ND_DOUBLE_TEXT_MAX];
    snprintf(text, sizeof text, "%.6g", v);
    fputs(nd_format_double(strtod(text, NULL), buf), f);
}

static void put_ms(FILE *f, double v)
{
    char buf[ND_CLASSIFY_MS_TEXT];
    nd_classify_format_ms(v, buf);
    fputs(buf, f);
}

/* One row: the cells in column order, NULL (or a negative number) for a blank one. */
typedef struct krow {
    const char *text[ND_KERNELS_COLUMNS];
    double num[ND_KERNELS_COLUMNS];
    bool is_ms[ND_KERNELS_COLUMNS];
} krow;

static void krow_init(krow *r)
{
    for (int i = 0; i < ND_KERNELS_COLUMNS; i++) {
        r->text[i] = NULL;
        r->num[i] = -1;
        r->is_ms[i] = false;
    }
}

static void krow_ms(krow *r, int col, double v)
{
    r->num[col] = v;
    r->is_ms[col] = true;
}

static void krow_write(FILE *f, const krow *r)
{
    for (int i = 0; i < ND_KERNELS_COLUMNS; i++) {
        if (i) fputc(',', f);
        if (r->text[i])
            nd_classify_csv_put(f, r->text[i]);
        else if (r->num[i] >= 0 && isfinite(r->num[i]))
            r->is_ms[i] ? put_ms(f, r->num[i]) : put_num(f, r->num[i]);
    }
    fputc('\n', f);
}

static void class_rows(FILE *f, const nd_classify_kernels *k, double step_ms)
{
    for (int c = 0; c < ND_KC_COUNT; c++) {
        krow r;
        krow_init(&r);
        const char *name = nd_classify_kernel_class_name((nd_classify_kernel_class)c);
        r.text[ND_KCOL_SECTION] = nd_kernels_csv.section_class;
        r.text[ND_KCOL_NAME] = name;
        r.text[ND_KCOL_CLASS] = name;
        krow_ms(&r, ND_KCOL_KERNEL_MS, k->class_ms[c]);
        if (step_ms > 0) r.num[ND_KCOL_STEP_SHARE] = k->class_ms[c] / step_ms;
        krow_write(f, &r);
    }
}

static void collective_rows(FILE *f, const nd_classify_kernels *k, double step_ms)
{
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        if (k->coll_calls[c] <= 0 && k->coll_ms[c] <= 0) continue;
        krow r;
        krow_init(&r);
        r.text[ND_KCOL_SECTION] = nd_kernels_csv.section_collective;
        r.text[ND_KCOL_NAME] = nd_classify_coll_name(c);
        r.text[ND_KCOL_CLASS] = nd_classify_kernel_class_name(ND_KC_COMM);
        r.num[ND_KCOL_CALLS] = k->coll_calls[c];
        krow_ms(&r, ND_KCOL_KERNEL_MS, k->coll_ms[c]);
        if (step_ms > 0) r.num[ND_KCOL_STEP_SHARE] = k->coll_ms[c] / step_ms;
        krow_ms(&r, ND_KCOL_EXPOSED_MS, k->coll_exposed_ms[c]);
        krow_ms(&r, ND_KCOL_OVERLAPPED_MS, fmax(0, k->coll_ms[c] - k->coll_exposed_ms[c]));
        double v;
        if (nd_classify_coll_mib(k, c, &v)) r.num[ND_KCOL_MIB] = v;
        if (nd_classify_coll_algbw(k, c, &v)) r.num[ND_KCOL_ALGBW_GBPS] = v;
        if (nd_classify_coll_busbw(k, c, &v)) r.num[ND_KCOL_BUSBW_GBPS] = v;
        if (k->coll_calls[c] > 0) krow_ms(&r, ND_KCOL_MS_PER_CALL, k->coll_ms[c] / k->coll_calls[c]);
        krow_write(f, &r);
    }
}

static void shape_rows(FILE *f, const nd_classify_kernels *k, double step_ms)
{
    for (size_t i = 0; i < k->n_shapes; i++) {
        const nd_classify_shape *x = &k->shapes[i];
        krow r;
        krow_init(&r);
        r.text[ND_KCOL_SECTION] = nd_kernels_csv.section_shape;
        r.text[ND_KCOL_NAME] = x->label;
        r.text[ND_KCOL_CLASS] = nd_classify_kernel_class_name(x->cls);
        r.text[ND_KCOL_OP] = x->op;
        r.text[ND_KCOL_DTYPE] = x->dtype;
        r.num[ND_KCOL_CALLS] = x->calls;
        krow_ms(&r, ND_KCOL_KERNEL_MS, x->ms);
        if (step_ms > 0) r.num[ND_KCOL_STEP_SHARE] = x->ms / step_ms;
        const int64_t dims[] = {x->batch, x->m, x->n, x->k, x->heads, x->seq_q, x->seq_kv, x->head_dim};
        for (int d = 0; d < 8; d++)
            if (dims[d] > 0) r.num[ND_KCOL_BATCH + d] = (double)dims[d];
        if (x->calls > 0) {
            krow_ms(&r, ND_KCOL_MS_PER_CALL, x->ms / x->calls);
            r.num[ND_KCOL_GFLOP_PER_CALL] = x->flops / x->calls / 1e9;
        }
        if (x->ms > 0) r.num[ND_KCOL_TFLOPS] = x->flops / (x->ms * 1e-3) / 1e12;
        krow_write(f, &r);
    }
}

int nd_classify_kernels_write(const nd_classify_run *run, const char *path, nd_error *err)
{
    if (!run->finished) return nd_error_set(err, ND_EINPUT, "internal: run not finished");
    if (run->summary.n_kernel_samples == 0)
        return nd_error_set(err, ND_EINPUT,
                            "--kernels: no rank-step has a device view (the inputs hold no "
                            "device kernels, or --view host)");
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    for (int i = 0; i < ND_KERNELS_COLUMNS; i++)
        fprintf(out.fp, "%s%c", nd_kernels_csv.column[i], i + 1 < ND_KERNELS_COLUMNS ? ',' : '\n');
    const nd_classify_kernels *k = &run->summary.kernels;
    double step_ms = run->summary.q[ND_CQ_TIME].mean;
    class_rows(out.fp, k, step_ms);
    collective_rows(out.fp, k, step_ms);
    shape_rows(out.fp, k, step_ms);
    return nd_outfile_commit(&out, err);
}

/* The report's section: classes by time, collectives, the ten busiest shapes. */
void nd_classify_kernels_report(const nd_classify_run *run, FILE *f)
{
    const nd_classify_summary *m = &run->summary;
    const nd_classify_kernels *k = &m->kernels;
    if (!m->n_kernel_samples) return;
    double step = m->q[ND_CQ_TIME].mean;
    fprintf(f,
            "Kernels, ms per step (device view, mean of %zu rank-steps; kernels overlap, so "
            "classes need not add up to the step)\n",
            m->n_kernel_samples);
    for (int c = 0; c < ND_KC_COUNT; c++)
        if (k->class_ms[c] > 0)
            fprintf(f, "  %-20s %10.3f %6.1f %%\n",
                    nd_classify_kernel_class_name((nd_classify_kernel_class)c), k->class_ms[c],
                    step > 0 ? 100 * k->class_ms[c] / step : 0);
    bool head = false;
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        if (k->coll_calls[c] <= 0 && k->coll_ms[c] <= 0) continue;
        if (!head)
            fprintf(f, "  %-20s %10s %8s %10s %10s %10s %9s\n", "collective", "calls", "MiB", "kernel ms",
                    "exposed", "overlap", "busbw GB/s");
        head = true;
        double mib, bus;
        fprintf(f, "  %-20s %10.2f ", nd_classify_coll_name(c), k->coll_calls[c]);
        if (nd_classify_coll_mib(k, c, &mib))
            fprintf(f, "%8.1f", mib);
        else
            fprintf(f, "%8s", "?");
        fprintf(f, " %10.3f %10.3f %10.3f ", k->coll_ms[c], k->coll_exposed_ms[c],
                fmax(0, k->coll_ms[c] - k->coll_exposed_ms[c]));
        if (nd_classify_coll_busbw(k, c, &bus))
            fprintf(f, "%9.1f\n", bus);
        else
            fprintf(f, "%9s\n", "?");
    }
    for (size_t i = 0; i < k->n_shapes && i < 10; i++) {
        const nd_classify_shape *x = &k->shapes[i];
        if (i == 0) fprintf(f, "  %-48s %8s %10s %8s\n", "GEMM / attention shape", "calls", "ms", "TFLOP/s");
        fprintf(f, "  %-48s %8.2f %10.3f %8.1f\n", x->label, x->calls, x->ms,
                x->ms > 0 ? x->flops / (x->ms * 1e-3) / 1e12 : 0);
    }
    if (k->n_shapes > 10) fprintf(f, "  ... %zu more shapes in --kernels\n", k->n_shapes - 10);
}
