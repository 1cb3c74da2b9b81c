/*
 * plot_cmd_compare.c — nd-plot parity and parts, from nd-compare's
 * <stem>_estimates.csv (calib/compare_out.c writes it).
 *
 * The file holds the twelve estimated parts and the measured parts already
 * folded onto the profiler's vocabulary (measured_comp, ...). The estimated
 * parts are folded the same way here, so each panel and each bar compares
 * like with like — the folding nd-compare itself uses (nd_fold_parts,
 * formats.h). The step is `time` (measured) against `score` (estimated).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_cmd_internal.h"

#define FOLDS ND_FOLD_TOTAL /* the parts' folds; the step is drawn from time and score */

/* The estimates file read into columns: value[f * n + i] is fold f of row i. */
typedef struct estimates {
    size_t n;
    const char **labels;
    char (*label_text)[32];     /* "line N" for a row without a label */
    double *time, *score, *raw; /* [n] */
    double *est, *meas;         /* [FOLDS * n] */
    bool has_measured[FOLDS];   /* the column exists and has a value */
    bool corrected;             /* raw_ms differs from score somewhere */
} estimates;

static void estimates_free(estimates *e)
{
    free(e->labels), free(e->label_text), free(e->time);
    memset(e, 0, sizeof *e);
}

static int estimates_alloc(estimates *e, size_t n, nd_error *err)
{
    e->n = n;
    e->labels = calloc(n, sizeof *e->labels);
    e->label_text = calloc(n, sizeof *e->label_text);
    /* One block: time, score, raw, then est and meas of FOLDS each. */
    e->time = calloc((3 + 2 * FOLDS) * n, sizeof *e->time);
    if (!e->labels || !e->label_text || !e->time) {
        estimates_free(e);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    e->score = e->time + n, e->raw = e->score + n;
    e->est = e->raw + n, e->meas = e->est + FOLDS * n;
    return ND_OK;
}

static void fold_parts(estimates *e, size_t i, const double parts[ND_PARTS])
{
    for (size_t f = 0; f < FOLDS; f++) {
        double sum = 0;
        for (size_t p = 0; p < ND_PARTS; p++)
            if (nd_fold_parts((nd_fold)f) & 1u << p) sum += parts[p];
        e->est[f * e->n + i] = sum;
    }
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
        if (col >= 0 && nd_csv_table_number(t, i, (size_t)col, m, err)) return err->code;
        e->has_measured[f] |= isfinite(*m);
    }
    return ND_OK;
}

static int read_row(const nd_plot_cmd_input *in, estimates *e, size_t i, const size_t *cols,
                    nd_error *err)
{
    const nd_csv_table *t = in->t;
    double parts[ND_PARTS];
    int rc;
    if ((rc = nd_csv_table_number_required(t, i, cols[0], &e->time[i], err)) ||
        (rc = nd_csv_table_number_required(t, i, cols[1], &e->score[i], err)) ||
        (rc = nd_plot_cmd_numbers(t, i, cols + 3, ND_PARTS, parts, err)))
        return rc;
    fold_parts(e, i, parts);
    e->labels[i] = nd_csv_table_cell(t, i, cols[2]);
    if (!e->labels[i]) {
        snprintf(e->label_text[i], sizeof e->label_text[i], "line %d", t->lines[i]);
        e->labels[i] = e->label_text[i];
    }
    /* raw_ms: the estimate before the ratios; the same as score without them. */
    int raw = nd_csv_table_find(t, nd_estimates_csv.raw_ms);
    e->raw[i] = e->score[i];
    if (raw >= 0 && (rc = nd_csv_table_number(t, i, (size_t)raw, &e->raw[i], err))) return rc;
    e->corrected |= isfinite(e->raw[i]) && e->raw[i] != e->score[i];
    return read_measured(t, e, i, err);
}

static int estimates_read(const nd_plot_cmd_input *in, estimates *e, nd_error *err)
{
    const char *names[3 + ND_PARTS] = {nd_estimates_csv.time, nd_estimates_csv.score,
                                       nd_estimates_csv.label};
    size_t cols[3 + ND_PARTS];
    memcpy(names + 3, nd_part_names, sizeof nd_part_names);
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, 3 + ND_PARTS, cols, err);
    if (!rc) rc = estimates_alloc(e, in->t->n_rows, err);
    for (size_t i = 0; !rc && i < in->t->n_rows; i++)
        rc = read_row(in, e, i, cols, err);
    return rc;
}

/* ---- parity ----------------------------------------------------------------- */

/* Whether fold f can be a panel: some row measured and estimated it above 0
 * (a part nobody spent time on is a dot at the origin; nd-compare skips it). */
static bool fold_drawable(const estimates *e, size_t f)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->meas[f * e->n + i] > 0 && e->est[f * e->n + i] > 0) return true;
    return false;
}

/* With corrections, the file keeps the raw step (raw_ms) but not the raw
 * parts: part panels show the corrected estimates only (their raw series is
 * all NaN, drawn as nothing). */
static int draw_parity(const char *base, const nd_plot_cmd_input *in, const estimates *e,
                       double *none, nd_error *err)
{
    size_t n = e->n, k = 0;
    nd_plot_parity_panel panels[1 + FOLDS];
    for (size_t i = 0; i < n; i++)
        none[i] = NAN;
    panels[k++] = (nd_plot_parity_panel){"step", e->time, e->corrected ? e->raw : e->score,
                                         e->corrected ? e->score : NULL};
    for (size_t f = 0; f < FOLDS; f++) {
        if (!e->has_measured[f] || !fold_drawable(e, f)) continue;
        const double *est = &e->est[f * n];
        panels[k++] = (nd_plot_parity_panel){nd_fold_name((nd_fold)f), &e->meas[f * n],
                                             e->corrected ? none : est, e->corrected ? est : NULL};
    }
    nd_plot_parity p = {
        n,           e->labels,         k, panels, e->corrected ? "raw estimate" : "estimate",
        "corrected", ND_PLOT_SCALE_AUTO};
    return nd_plot_parity_write(base, &p, &in->opt, err);
}

int nd_plot_cmd_parity(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    estimates e;
    memset(&e, 0, sizeof e);
    int rc = estimates_read(in, &e, err);
    double *none = rc ? NULL : calloc(e.n, sizeof *none);
    if (!rc && !none) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = draw_parity(base, in, &e, none, err);
    free(none);
    estimates_free(&e);
    return rc;
}

/* ---- parts ------------------------------------------------------------------ */

/* Measured beside estimated, one row per strategy. A part the round did not
 * measure is 0 in the measured bar, as nd-compare draws it. */
static int draw_parts(const char *base, const nd_plot_cmd_input *in, const estimates *e, double *m,
                      nd_error *err)
{
    size_t n = e->n;
    double *est = m + n * FOLDS;
    const char *names[FOLDS];
    for (size_t f = 0; f < FOLDS; f++) {
        names[f] = nd_fold_name((nd_fold)f);
        for (size_t i = 0; i < n; i++) {
            double v = e->meas[f * n + i];
            m[i * FOLDS + f] = isfinite(v) ? v : 0;
            est[i * FOLDS + f] = e->est[f * n + i];
        }
    }
    nd_plot_parts p = {n, e->labels, FOLDS, names, m, est, in->no_idle ? nd_fold_name(ND_FOLD_IDLE) : NULL};
    return nd_plot_parts_write(base, &p, &in->opt, err);
}

int nd_plot_cmd_parts(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    estimates e;
    memset(&e, 0, sizeof e);
    int rc = estimates_read(in, &e, err);
    bool any = false;
    for (size_t f = 0; !rc && f < FOLDS; f++)
        any |= e.has_measured[f];
    if (!rc && !any)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s:%d: the measured_* columns are missing or blank: the round "
                          "measured no parts, so there is nothing to set beside the estimates "
                          "(the parity plot still draws the step)",
                          in->t->path, in->t->header_line);
    double *m = rc ? NULL : calloc(2 * e.n * FOLDS, sizeof *m);
    if (!rc && !m) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = draw_parts(base, in, &e, m, err);
    free(m);
    estimates_free(&e);
    return rc;
}
