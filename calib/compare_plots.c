/*
 * compare_plots.c — nd-compare's plots: parity (estimated against measured,
 * the step and each part that any row has) and the measured parts stacked
 * beside the estimated ones, with and without idle.
 */
#include "compare_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/io.h"
#include "nd/plot.h"

typedef struct plot_buffers {
    const char **labels;
    double *measured, *raw, *corrected; /* [ND_FOLDS][count] */
} plot_buffers;

static int buffers_alloc(plot_buffers *b, const nd_compare *c)
{
    size_t n = c->count;
    b->labels = calloc(n, sizeof *b->labels);
    b->measured = calloc(3 * ND_FOLDS * n, sizeof *b->measured);
    if (!b->labels || !b->measured) {
        free(b->labels), free(b->measured);
        return -1;
    }
    b->raw = b->measured + ND_FOLDS * n;
    b->corrected = b->raw + ND_FOLDS * n;
    for (size_t i = 0; i < n; i++) {
        const nd_compare_row *r = &c->rows[i];
        double raw[ND_FOLDS];
        nd_fold_estimate(r->est.raw_parts_ms, raw);
        b->labels[i] = r->label;
        for (int f = 0; f < ND_FOLDS; f++) {
            b->measured[f * n + i] = r->measured[f];
            b->raw[f * n + i] = raw[f];
            b->corrected[f * n + i] = r->estimated[f];
        }
    }
    return 0;
}

static int parity(const char *base, const nd_compare *c, const plot_buffers *b,
                  const nd_plot_options *opt, nd_error *err)
{
    size_t n = c->count, panels = 0;
    nd_plot_parity_panel panel[ND_FOLDS];
    static const nd_fold order[ND_FOLDS] = {ND_FOLD_TOTAL, ND_FOLD_COMP, ND_FOLD_DP, ND_FOLD_MP,
                                            ND_FOLD_EP, ND_FOLD_CP, ND_FOLD_PP, ND_FOLD_IDLE};
    for (int k = 0; k < ND_FOLDS; k++) {
        nd_fold f = order[k];
        bool any = false;
        if (!c->fold_measured[f]) continue;
        for (size_t i = 0; i < n; i++) any |= b->measured[f * n + i] > 0 && b->raw[f * n + i] > 0;
        if (!any) continue;
        panel[panels++] = (nd_plot_parity_panel){
            f == ND_FOLD_TOTAL ? "step" : nd_fold_name(f), &b->measured[f * n], &b->raw[f * n],
            c->corrected ? &b->corrected[f * n] : NULL};
    }
    nd_plot_parity p = {n, b->labels, panels, panel, c->corrected ? "raw estimate" : "estimate",
                        "corrected", ND_PLOT_SCALE_AUTO};
    return nd_plot_parity_write(base, &p, opt, err);
}

static int parts(const char *base, const nd_compare *c, const plot_buffers *b, bool no_idle,
                 const nd_plot_options *opt, nd_error *err)
{
    size_t n = c->count, k = ND_FOLD_TOTAL;
    const char *names[ND_FOLD_TOTAL];
    double *m = malloc(2 * n * k * sizeof *m);
    if (!m) return nd_error_set(err, ND_ENOMEM, "out of memory");
    double *e = m + n * k;
    for (size_t f = 0; f < k; f++) names[f] = nd_fold_name((nd_fold)f);
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < k; f++) {
            m[i * k + f] = b->measured[f * n + i];
            e[i * k + f] = b->corrected[f * n + i];
        }
    nd_plot_parts p = {n, b->labels, k, names, m, e, no_idle ? nd_fold_name(ND_FOLD_IDLE) : NULL};
    int rc = nd_plot_parts_write(base, &p, opt, err);
    free(m);
    return rc;
}

int nd_compare_plots(const char *dir, const char *stem, const nd_compare *c, const nd_plot_options *opt,
                     nd_error *err)
{
    plot_buffers b;
    if (buffers_alloc(&b, c)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    char *parity_name = nd_path_printf("%s/%s_parity", dir, stem);
    char *parts_name = nd_path_printf("%s/%s_parts", dir, stem);
    char *no_idle_name = nd_path_printf("%s/%s_parts_no_idle", dir, stem);
    int rc = parity_name && parts_name && no_idle_name ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = parity(parity_name, c, &b, opt, err);
    bool parts_measured = false;
    for (int f = 0; f < ND_FOLD_TOTAL; f++) parts_measured |= c->fold_measured[f];
    if (!rc && parts_measured) rc = parts(parts_name, c, &b, false, opt, err);
    if (!rc && parts_measured) rc = parts(no_idle_name, c, &b, true, opt, err);
    free(parity_name), free(parts_name), free(no_idle_name);
    free(b.labels);
    free(b.measured);
    return rc;
}
