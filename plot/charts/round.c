/* A profiling round beside its estimates: the parity and parts plots that nd-compare
 * draws and nd-plot draws again from its estimates CSV. Both fill an nd_plot_round, so
 * which panels appear, which table sits under the bars and how a round of step times
 * only is drawn are decided here once. */
#include "plot_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

#define CELL_MAX 24

/* Whether fold f can be a panel: the round has its column and some row measured and
 * estimated it above 0 (a part nobody spent time on is a dot at the origin). */
static bool fold_drawable(const nd_plot_round *r, nd_fold f)
{
    if (!r->fold_measured[f]) return false;
    for (size_t i = 0; i < r->n; i++)
        if (r->measured[f * r->n + i] > 0 && r->estimated[f * r->n + i] > 0) return true;
    return false;
}

static bool pairs(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; a && b && i < n; i++)
        if (isfinite(a[i]) && a[i] > 0 && isfinite(b[i]) && b[i] > 0) return true;
    return false;
}

int nd_plot_round_parity(const char *base, const nd_plot_round *r, const nd_plot_options *opt, nd_error *err)
{
    size_t n = r->n, k = 0;
    nd_plot_parity_panel panels[2 + ND_FOLDS];
    double *none = calloc(3 * n + 1, sizeof *none), *mem_m = none + n, *mem_e = mem_m + n;
    unsigned char *judged = calloc(ND_FOLDS * n + 1, 1);
    if (!none || !judged) {
        free(none);
        free(judged);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        none[i] = NAN;
        mem_m[i] = r->measured_peak_mib ? r->measured_peak_mib[i] / ND_MIB_PER_GIB : NAN;
        mem_e[i] = r->estimated_peak_mib ? r->estimated_peak_mib[i] / ND_MIB_PER_GIB : NAN;
    }
    bool corrected = r->raw_step_ms != NULL;
    /* With ratios the raw estimate is the first series and the corrected one the second. */
    panels[k++] = (nd_plot_parity_panel){"step",
                                         r->measured_step_ms,
                                         corrected ? r->raw_step_ms : r->estimated_step_ms,
                                         corrected ? r->estimated_step_ms : NULL,
                                         "ms",
                                         NULL};
    if (pairs(mem_m, mem_e, n)) /* memory is not corrected by time ratios: one series */
        panels[k++] =
            (nd_plot_parity_panel){"peak memory", mem_m, mem_e, corrected ? none : NULL, "GiB", NULL};
    static const nd_fold order[] = {ND_FOLD_COMP, ND_FOLD_DP, ND_FOLD_MP,  ND_FOLD_EP,
                                    ND_FOLD_CP,   ND_FOLD_PP, ND_FOLD_IDLE};
    for (size_t j = 0; j < ND_ARRAY_LEN(order); j++) {
        nd_fold f = order[j];
        if (!fold_drawable(r, f)) continue;
        const double *est = &r->estimated[f * n], *raw = r->raw ? &r->raw[f * n] : none;
        /* judged as nd-compare's accuracy table judges it: a part of at least
         * ND_PLOT_JUDGED_PART_SHARE of its row's measured step */
        unsigned char *mask = &judged[f * n];
        for (size_t i = 0; i < n; i++)
            mask[i] = r->measured[f * n + i] >= ND_PLOT_JUDGED_PART_SHARE * r->measured_step_ms[i];
        panels[k++] = (nd_plot_parity_panel){
            nd_fold_name(f), &r->measured[f * n], corrected ? raw : est, corrected ? est : NULL, "ms", mask};
    }
    nd_plot_parity p = {n,           r->labels,         k, panels, corrected ? "raw estimate" : "estimate",
                        "corrected", ND_PLOT_SCALE_AUTO};
    int rc = nd_plot_parity_write(base, &p, opt, err);
    free(none);
    free(judged);
    return rc;
}

/* ---- parts: the table under the bars ---------------------------------------------------- */

typedef struct round_table {
    size_t rows;
    const char *names[ND_DIMS_SEARCHED + 3];
    char (*cells)[CELL_MAX]; /* [rows * n] */
    const char **cell_ptrs;  /* [rows * n] */
} round_table;

/* The dimensions worth a line: those not 1 in some row (DP always); SP when on in some row. */
static bool dim_shown(const nd_plot_round *r, int d)
{
    if (d == ND_DIM_DP) return true;
    for (size_t i = 0; i < r->n; i++) {
        int64_t v = r->degrees[i * ND_DIMS_SEARCHED + d];
        if (d == ND_DIM_SP ? v > 0 : v > 1) return true;
    }
    return false;
}

static void add_row(round_table *t, size_t n, const char *name)
{
    t->names[t->rows] = name;
    for (size_t i = 0; i < n; i++) t->cell_ptrs[t->rows * n + i] = t->cells[t->rows * n + i];
    t->rows++;
}

static void gib_row(round_table *t, size_t n, const char *name, const double *mib)
{
    size_t row = t->rows;
    add_row(t, n, name);
    for (size_t i = 0; i < n; i++)
        if (isfinite(mib[i])) snprintf(t->cells[row * n + i], CELL_MAX, "%.1f", mib[i] / ND_MIB_PER_GIB);
}

/* ND's table: the degrees that tell the rows apart, recompute, then the peak memory. */
static int build_table(const nd_plot_round *r, round_table *t, nd_error *err)
{
    size_t n = r->n, max_rows = ND_DIMS_SEARCHED + 3;
    memset(t, 0, sizeof *t);
    t->cells = calloc(max_rows * n, sizeof *t->cells);
    t->cell_ptrs = calloc(max_rows * n, sizeof *t->cell_ptrs);
    if (!t->cells || !t->cell_ptrs) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int d = 0; r->degrees && d < ND_DIMS_SEARCHED; d++) {
        if (!dim_shown(r, d)) continue;
        size_t row = t->rows;
        add_row(t, n, nd_dim_name((nd_dim)d));
        for (size_t i = 0; i < n; i++) {
            int64_t v = r->degrees[i * ND_DIMS_SEARCHED + d];
            if (d == ND_DIM_SP)
                snprintf(t->cells[row * n + i], CELL_MAX, "%s", v > 0 ? "on" : "off");
            else if (v > 0)
                snprintf(t->cells[row * n + i], CELL_MAX, "%lld", (long long)v);
        }
    }
    bool recompute = false;
    for (size_t i = 0; r->recompute && i < n; i++) recompute |= r->recompute[i] && *r->recompute[i];
    if (recompute) {
        size_t row = t->rows;
        add_row(t, n, "recompute");
        for (size_t i = 0; i < n; i++)
            snprintf(t->cells[row * n + i], CELL_MAX, "%s", r->recompute[i] ? r->recompute[i] : "");
    }
    if (r->estimated_peak_mib && nd_plot_any_finite(r->estimated_peak_mib, n))
        gib_row(t, n, "peak GiB", r->estimated_peak_mib);
    if (r->measured_peak_mib && nd_plot_any_finite(r->measured_peak_mib, n))
        gib_row(t, n, "measured GiB", r->measured_peak_mib);
    return ND_OK;
}

int nd_plot_round_parts(const char *base, const nd_plot_round *r, bool no_idle, const nd_plot_options *opt,
                        nd_error *err)
{
    size_t n = r->n, k = ND_FOLD_TOTAL;
    const char *names[ND_FOLD_TOTAL];
    bool any_measured = false;
    round_table t;
    int rc = build_table(r, &t, err);
    double *m = rc ? NULL : malloc((2 * n * k + 1) * sizeof *m);
    if (!rc && !m) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        double *e = m + n * k;
        for (size_t f = 0; f < k; f++) {
            names[f] = nd_fold_name((nd_fold)f);
            any_measured |= r->fold_measured[f];
        }
        for (size_t i = 0; i < n; i++)
            for (size_t f = 0; f < k; f++) {
                double v = r->measured[f * n + i];
                /* A part the round did not measure counts 0 beside those it did. */
                m[i * k + f] = r->fold_measured[f] && isfinite(v) ? v : any_measured ? 0 : NAN;
                e[i * k + f] = r->estimated[f * n + i];
            }
        /* Without idle the bars no longer sum to the measured step: the step is theirs. */
        nd_plot_parts p = {n,
                           r->labels,
                           k,
                           names,
                           m,
                           e,
                           no_idle ? nd_fold_name(ND_FOLD_IDLE) : NULL,
                           no_idle ? NULL : r->measured_step_ms,
                           t.rows,
                           t.names,
                           t.cell_ptrs,
                           0};
        rc = nd_plot_parts_write(base, &p, opt, err);
    }
    free(m);
    free(t.cells);
    free(t.cell_ptrs);
    return rc;
}
