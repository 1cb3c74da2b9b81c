/*
 * plot_cmd_compare.c — nd-plot parity and parts, from nd-compare's
 * <stem>_estimates.csv (calib/calibrate/compare_out.c writes it).
 *
 * The file holds the twelve estimated parts and the measured parts already
 * folded onto the profiler's vocabulary (measured_comp, ...). The estimated
 * parts are folded the same way here, so each panel and each bar compares
 * like with like — the folding nd-compare itself uses (nd_fold_parts,
 * formats.h). The step is `time` (measured) against `score` (estimated). The
 * rows become an nd_plot_round, which nd-compare's plots are drawn from too.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_cmd_internal.h"

#define FOLDS ND_FOLD_TOTAL /* the parts' folds; the step is drawn from time and score */

/* The estimates file read into columns: value[f * n + i] is fold f of row i. */
typedef struct estimates {
    size_t n;
    const char **labels, **recompute;
    char (*label_text)[32];      /* "line N" for a row without a label */
    int64_t *degrees;            /* [n * ND_DIMS_SEARCHED] */
    double *time, *score, *raw;  /* [n] */
    double *m_peak, *e_peak;     /* [n] */
    double *est, *meas, *none;   /* [ND_FOLDS * n]; none: NaN, the raw parts the file does not keep */
    bool has_measured[ND_FOLDS]; /* the column exists and has a value */
    bool corrected;              /* raw_ms differs from score somewhere */
} estimates;

static void estimates_free(estimates *e)
{
    free(e->labels);
    free(e->recompute);
    free(e->label_text);
    free(e->degrees);
    free(e->time);
    memset(e, 0, sizeof *e);
}

static int estimates_alloc(estimates *e, size_t n, nd_error *err)
{
    e->n = n;
    e->labels = calloc(n, sizeof *e->labels);
    e->recompute = calloc(n, sizeof *e->recompute);
    e->label_text = calloc(n, sizeof *e->label_text);
    e->degrees = calloc(n * ND_DIMS_SEARCHED, sizeof *e->degrees);
    /* One block: time, score, raw, the peaks, then est, meas and none of ND_FOLDS each. */
    e->time = calloc((5 + 3 * ND_FOLDS) * n, sizeof *e->time);
    if (!e->labels || !e->recompute || !e->label_text || !e->degrees || !e->time) {
        estimates_free(e);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    e->score = e->time + n;
    e->raw = e->score + n;
    e->m_peak = e->raw + n;
    e->e_peak = e->m_peak + n;
    e->est = e->e_peak + n;
    e->meas = e->est + ND_FOLDS * n;
    e->none = e->meas + ND_FOLDS * n;
    for (size_t i = 0; i < ND_FOLDS * n; i++) e->none[i] = NAN;
    return ND_OK;
}

static void fold_parts(estimates *e, size_t i, const double parts[ND_PARTS])
{
    for (size_t f = 0; f < ND_FOLDS; f++) {
        double sum = 0;
        for (size_t p = 0; p < ND_PARTS; p++)
            if (nd_fold_parts((nd_fold)f) & 1u << p) sum += parts[p];
        e->est[f * e->n + i] = sum;
    }
    e->est[ND_FOLD_TOTAL * e->n + i] = e->score[i];
}

/* Row i's measured parts; nd-compare leaves a column blank in every row when
 * the round did not measure that part. */
static int read_measured(const nd_csv_table *t, estimates *e, size_t i, nd_error *err)
{
    for (size_t f = 0; f < FOLDS; f++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", nd_estimates_csv.measured_prefix, nd_fold_name((nd_fold)f));
        int col = nd_csv_table_find(t, name);
        double *m = &e->meas[f * e->n + i];
        *m = NAN;
        if (col >= 0 && nd_plot_cmd_number(t, i, (size_t)col, m, err)) return err->code;
        e->has_measured[f] |= isfinite(*m);
    }
    e->meas[ND_FOLD_TOTAL * e->n + i] = e->time[i];
    return ND_OK;
}

/* An optional number column (NaN when the file has no such column or the cell is blank). */
static int optional_number(const nd_csv_table *t, size_t i, const char *name, double *v, nd_error *err)
{
    int col = nd_csv_table_find(t, name);
    *v = NAN;
    return col >= 0 ? nd_plot_cmd_number(t, i, (size_t)col, v, err) : ND_OK;
}

/* optional_number for a peak (MiB), which is never below 0. */
static int optional_size(const nd_csv_table *t, size_t i, const char *name, double *v, nd_error *err)
{
    int col = nd_csv_table_find(t, name);
    *v = NAN;
    return col >= 0 ? nd_plot_cmd_size(t, i, (size_t)col, v, err) : ND_OK;
}

/* A number column that must not be blank (the measured and the estimated step). */
static int required_number(const nd_csv_table *t, size_t i, size_t col, double *v, nd_error *err)
{
    int rc = nd_csv_table_number_required(t, i, col, v, err);
    return rc ? rc : nd_plot_cmd_number(t, i, col, v, err);
}

/* The degrees of row i for the table under the parts bars: 1 where the file has no column. */
static int read_degrees(const nd_csv_table *t, estimates *e, size_t i, nd_error *err)
{
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) {
        double v;
        int rc = optional_number(t, i, nd_dim_name((nd_dim)d), &v, err);
        if (rc) return rc;
        e->degrees[i * ND_DIMS_SEARCHED + d] = isfinite(v) && v >= 0 && v < 1e9 ? (int64_t)v
                                               : d == ND_DIM_SP                 ? 0
                                                                                : 1;
    }
    int col = nd_csv_table_find(t, nd_estimates_csv.recompute);
    e->recompute[i] = col >= 0 ? nd_csv_table_cell(t, i, (size_t)col) : NULL;
    return ND_OK;
}

static int read_row(const nd_plot_cmd_input *in, estimates *e, size_t i, const size_t *cols, nd_error *err)
{
    const nd_csv_table *t = in->t;
    double parts[ND_PARTS];
    int rc;
    if ((rc = required_number(t, i, cols[0], &e->time[i], err)) ||
        (rc = required_number(t, i, cols[1], &e->score[i], err)) ||
        (rc = nd_plot_cmd_numbers(t, i, cols + 3, ND_PARTS, parts, err)))
        return rc;
    fold_parts(e, i, parts);
    e->labels[i] = nd_csv_table_cell(t, i, cols[2]);
    if (!e->labels[i]) {
        snprintf(e->label_text[i], sizeof e->label_text[i], "line %d", t->lines[i]);
        e->labels[i] = e->label_text[i];
    }
    /* raw_ms: the estimate before the ratios; the same as score without them. */
    if ((rc = optional_number(t, i, nd_estimates_csv.raw_ms, &e->raw[i], err))) return rc;
    if (!isfinite(e->raw[i])) e->raw[i] = e->score[i];
    e->corrected |= e->raw[i] != e->score[i];
    if ((rc = optional_size(t, i, nd_estimates_csv.memory_mb, &e->e_peak[i], err)) ||
        (rc = optional_size(t, i, nd_estimates_csv.measured_peak_mib, &e->m_peak[i], err)) ||
        (rc = read_degrees(t, e, i, err)))
        return rc;
    return read_measured(t, e, i, err);
}

static int estimates_read(const nd_plot_cmd_input *in, estimates *e, nd_error *err)
{
    const char *names[3 + ND_PARTS] = {nd_estimates_csv.time, nd_estimates_csv.score, nd_estimates_csv.label};
    size_t cols[3 + ND_PARTS];
    memcpy(names + 3, nd_part_names, sizeof nd_part_names);
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, 3 + ND_PARTS, cols, err);
    if (!rc) rc = estimates_alloc(e, in->t->n_rows, err);
    for (size_t i = 0; !rc && i < in->t->n_rows; i++) rc = read_row(in, e, i, cols, err);
    return rc;
}

/* The rows as nd-compare's plots see them. With corrections the file keeps the raw step
 * (raw_ms) but not the raw parts: part panels show the corrected estimates only. */
static nd_plot_round as_round(const estimates *e)
{
    nd_plot_round r = {e->n,
                       e->labels,
                       e->degrees,
                       e->recompute,
                       e->has_measured,
                       e->meas,
                       e->est,
                       e->corrected ? e->none : NULL,
                       e->time,
                       e->score,
                       e->corrected ? e->raw : NULL,
                       e->m_peak,
                       e->e_peak};
    return r;
}

int nd_plot_cmd_parity(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    estimates e;
    memset(&e, 0, sizeof e);
    int rc = estimates_read(in, &e, err);
    if (!rc) {
        nd_plot_round r = as_round(&e);
        rc = nd_plot_round_parity(base, &r, &in->opt, err);
    }
    estimates_free(&e);
    return rc;
}

/* A round that measured no part still draws: the measured step beside the estimate's split. */
int nd_plot_cmd_parts(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    estimates e;
    memset(&e, 0, sizeof e);
    int rc = estimates_read(in, &e, err);
    bool any = false;
    for (size_t f = 0; !rc && f < FOLDS; f++) any |= e.has_measured[f];
    if (!rc && in->no_idle && !any)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s:%d: --no-idle: the measured_* columns are missing or blank: the round "
                          "measured only the step, which holds its idle time",
                          in->t->path, in->t->header_line);
    if (!rc) {
        nd_plot_round r = as_round(&e);
        rc = nd_plot_round_parts(base, &r, in->no_idle, &in->opt, err);
    }
    estimates_free(&e);
    return rc;
}
