/*
 * compare_plots.c — nd-compare's plots: the round set beside its estimates as an
 * nd_plot_round, which the plot library draws as the parity plot and the parts plot
 * with and without idle (nd-plot draws the same from the estimates CSV).
 */
#include "compare_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/charts/plot.h"

typedef struct round_buffers {
    const char **labels, **recompute;
    int64_t *degrees;                                   /* [n * ND_DIMS_SEARCHED] */
    double *measured, *estimated, *raw;                 /* [ND_FOLDS * n] */
    double *m_step, *e_step, *r_step, *m_peak, *e_peak; /* [n] */
} round_buffers;

static void buffers_free(round_buffers *b)
{
    free(b->labels);
    free(b->recompute);
    free(b->degrees);
    free(b->measured);
}

static int buffers_alloc(round_buffers *b, size_t n)
{
    memset(b, 0, sizeof *b);
    b->labels = calloc(n, sizeof *b->labels);
    b->recompute = calloc(n, sizeof *b->recompute);
    b->degrees = calloc(n * ND_DIMS_SEARCHED, sizeof *b->degrees);
    b->measured = calloc(3 * ND_FOLDS * n + 5 * n, sizeof *b->measured);
    if (!b->labels || !b->recompute || !b->degrees || !b->measured) return -1;
    b->estimated = b->measured + ND_FOLDS * n;
    b->raw = b->estimated + ND_FOLDS * n;
    b->m_step = b->raw + ND_FOLDS * n;
    b->e_step = b->m_step + n;
    b->r_step = b->e_step + n;
    b->m_peak = b->r_step + n;
    b->e_peak = b->m_peak + n;
    return 0;
}

static void fill_row(round_buffers *b, const nd_compare *c, size_t i)
{
    size_t n = c->count;
    const nd_compare_row *r = &c->rows[i];
    double raw[ND_FOLDS];
    nd_fold_estimate(r->est.raw_parts_ms, raw);
    b->labels[i] = r->label;
    b->recompute[i] = nd_recompute_name(r->strategy.recompute);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        b->degrees[i * ND_DIMS_SEARCHED + d] = nd_strategy_dim(&r->strategy, (nd_dim)d);
    for (int f = 0; f < ND_FOLDS; f++) {
        b->measured[f * n + i] = r->measured[f];
        b->estimated[f * n + i] = r->estimated[f];
        b->raw[f * n + i] = raw[f];
    }
    b->m_step[i] = r->row->time_ms;
    b->e_step[i] = r->estimated[ND_FOLD_TOTAL];
    b->r_step[i] = raw[ND_FOLD_TOTAL];
    b->m_peak[i] = r->row->peak_mib;
    b->e_peak[i] = r->est.peak_mib;
}

int nd_compare_plots(const char *dir, const char *stem, const nd_compare *c, const nd_plot_options *opt,
                     nd_error *err)
{
    round_buffers b;
    size_t n = c->count;
    int rc = buffers_alloc(&b, n) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    for (size_t i = 0; !rc && i < n; i++) fill_row(&b, c, i);
    nd_plot_round round = {n,
                           b.labels,
                           b.degrees,
                           b.recompute,
                           c->fold_measured,
                           b.measured,
                           b.estimated,
                           c->corrected ? b.raw : NULL,
                           b.m_step,
                           b.e_step,
                           c->corrected ? b.r_step : NULL,
                           b.m_peak,
                           b.e_peak};
    char *parity_name = nd_path_printf("%s/%s_parity", dir, stem);
    char *parts_name = nd_path_printf("%s/%s_parts", dir, stem);
    char *no_idle_name = nd_path_printf("%s/%s_parts_no_idle", dir, stem);
    if (!rc && (!parity_name || !parts_name || !no_idle_name))
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = nd_plot_round_parity(parity_name, &round, opt, err);
    /* The parts plot always: a round of step times only still shows the estimate's split. */
    if (!rc) rc = nd_plot_round_parts(parts_name, &round, false, opt, err);
    bool parts_measured = false;
    for (int f = 0; f < ND_FOLD_TOTAL; f++) parts_measured |= c->fold_measured[f];
    if (!rc && parts_measured && c->fold_measured[ND_FOLD_IDLE])
        rc = nd_plot_round_parts(no_idle_name, &round, true, opt, err);
    free(parity_name);
    free(parts_name);
    free(no_idle_name);
    buffers_free(&b);
    return rc;
}
