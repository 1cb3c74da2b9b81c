/* Parity plot: estimated against measured, one square panel per quantity. */
#include "plot_internal.h"

#include <math.h>

/* The script is UTF-8 (`set encoding utf8`); the legend says "±10 %". */
#define PLUS_MINUS "\xc2\xb1"

typedef struct axis_range {
    double lo, hi;
    int log;
} axis_range;

/* Smallest and largest finite values of v[0..n-1] folded into *lo, *hi. */
static void fold_finite(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; v && i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (v[i] < *lo) *lo = v[i];
        if (v[i] > *hi) *hi = v[i];
    }
}

/* One point at least must be drawable: finite x and a finite y. */
static int has_point(const nd_plot_parity_panel *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p->measured_ms[i])) continue;
        if (isfinite(p->estimated_ms[i])) return 1;
        if (p->corrected_ms && isfinite(p->corrected_ms[i])) return 1;
    }
    return 0;
}

/* Equal x and y limits for a panel. Linear axes start at 0 so the eye reads
 * ratios from the origin; log axes run from decade to decade. Limits are
 * round numbers so the script reads well and is easy to check by hand. */
static int panel_range(const nd_plot_parity *plot, const nd_plot_parity_panel *p, axis_range *r,
                       nd_error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    fold_finite(p->measured_ms, plot->n_points, &lo, &hi);
    fold_finite(p->estimated_ms, plot->n_points, &lo, &hi);
    fold_finite(p->corrected_ms, plot->n_points, &lo, &hi);
    const char *name = p->name ? p->name : "";
    if (plot->scale == ND_PLOT_SCALE_LOG && lo <= 0)
        return nd_error_set(err, ND_EINPUT,
                            "parity plot: panel '%s': log axes need values > 0, found %g", name,
                            lo);
    r->log = plot->scale == ND_PLOT_SCALE_LOG ||
             (plot->scale == ND_PLOT_SCALE_AUTO && lo > 0 && hi / lo >= 100);
    if (r->log) {
        int e_lo = (int)floor(log10(lo)), e_hi = (int)ceil(log10(hi));
        if (e_hi <= e_lo) e_hi = e_lo + 1;
        r->lo = nd_plot_pow10(e_lo);
        r->hi = nd_plot_pow10(e_hi);
        return ND_OK;
    }
    r->lo = lo < 0 ? -nd_plot_nice_ceil(-lo * 1.05) : 0;
    r->hi = hi > 0 ? nd_plot_nice_ceil(hi * 1.05) : 0;
    if (r->hi == r->lo) r->hi = 1;
    return ND_OK;
}

static int check_parity(const nd_plot_parity *plot, nd_error *err)
{
    if (!plot || plot->n_points == 0)
        return nd_error_set(err, ND_EINPUT, "parity plot: no points to draw");
    if (plot->n_panels == 0 || !plot->panels)
        return nd_error_set(err, ND_EINPUT, "parity plot: no panels to draw");
    if (!plot->labels) return nd_error_set(err, ND_EINPUT, "parity plot: labels is NULL");
    if (plot->scale != ND_PLOT_SCALE_LINEAR && plot->scale != ND_PLOT_SCALE_LOG &&
        plot->scale != ND_PLOT_SCALE_AUTO)
        return nd_error_set(err, ND_EINPUT, "parity plot: unknown axis scale %d", (int)plot->scale);
    int corrected = plot->panels[0].corrected_ms != NULL;
    for (size_t k = 0; k < plot->n_panels; k++) {
        const nd_plot_parity_panel *p = &plot->panels[k];
        const char *name = p->name ? p->name : "";
        if (!p->measured_ms || !p->estimated_ms)
            return nd_error_set(err, ND_EINPUT,
                                "parity plot: panel '%s': measured or estimated values missing",
                                name);
        if ((p->corrected_ms != NULL) != corrected)
            return nd_error_set(err, ND_EINPUT,
                                "parity plot: panel '%s': corrected estimates must be given in "
                                "every panel or in none",
                                name);
        if (!has_point(p, plot->n_points))
            return nd_error_set(err, ND_EINPUT,
                                "parity plot: panel '%s': no point with finite measured and "
                                "estimated values",
                                name);
    }
    return ND_OK;
}

static void put_data(FILE *fp, const nd_plot_parity *plot, int corrected)
{
    fputs("# nd parity data: one row per strategy, times in ms, nan = not available.\n# label", fp);
    for (size_t k = 0; k < plot->n_panels; k++) {
        const char *name = plot->panels[k].name;
        fputc(' ', fp), nd_plot_put_word(fp, name), fputs(":measured ", fp);
        nd_plot_put_word(fp, name), fputs(":estimated", fp);
        if (corrected) fputc(' ', fp), nd_plot_put_word(fp, name), fputs(":corrected", fp);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < plot->n_points; i++) {
        nd_plot_put_label(fp, plot->labels[i]);
        for (size_t k = 0; k < plot->n_panels; k++) {
            const nd_plot_parity_panel *p = &plot->panels[k];
            fputc(' ', fp), nd_plot_put_number(fp, p->measured_ms[i]);
            fputc(' ', fp), nd_plot_put_number(fp, p->estimated_ms[i]);
            if (corrected) fputc(' ', fp), nd_plot_put_number(fp, p->corrected_ms[i]);
        }
        fputc('\n', fp);
    }
}

/* One panel's commands. Columns of its data: m (measured), m + 1 (estimated),
 * m + 2 (corrected). */
static void put_panel(FILE *fp, const nd_plot_parity *plot, size_t k, const axis_range *r,
                      int corrected)
{
    const nd_plot_parity_panel *p = &plot->panels[k];
    size_t m = 2 + k * (corrected ? 3 : 2), e = m + 1, c = m + 2;
    fprintf(fp, "# Panel %zu of %zu\nset title ", k + 1, plot->n_panels);
    nd_plot_put_string(fp, p->name);
    fputs("\nset xlabel 'measured (ms)'\nset ylabel 'estimated (ms)'\n", fp);
    fputs(r->log ? "set logscale xy\n" : "unset logscale\n", fp);
    for (int axis = 0; axis < 2; axis++) {
        fprintf(fp, "set %crange [", axis ? 'y' : 'x');
        nd_plot_put_number(fp, r->lo);
        fputc(':', fp);
        nd_plot_put_number(fp, r->hi);
        fputs("]\n", fp);
    }
    /* The band is filled between 0.9 x and 1.1 x over the sampled x range
     * ('+'); on log axes both edges are straight lines too. */
    fputs("plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 "
          "noborder title '" PLUS_MINUS "10 %', \\\n"
          "     x with lines lc rgb '#404040' dt 2 title 'y = x', \\\n",
          fp);
    if (corrected)
        fprintf(fp,
                "     $DATA using %zu:%zu:(0):($%zu-$%zu) with vectors nohead lc rgb '#b0b0b0' "
                "notitle, \\\n",
                m, e, c, e);
    fprintf(fp, "     $DATA using %zu:%zu with points pt 7 ps 1 lc rgb '%s' title ", m, e,
            nd_plot_color(0));
    nd_plot_put_string(fp, plot->estimated_name ? plot->estimated_name : "estimated");
    fputs(", \\\n", fp);
    if (corrected) {
        fprintf(fp, "     $DATA using %zu:%zu with points pt 9 ps 1.2 lc rgb '%s' title ", m, c,
                nd_plot_color(2));
        nd_plot_put_string(fp, plot->corrected_name ? plot->corrected_name : "corrected");
        fputs(", \\\n", fp);
    }
    fprintf(fp,
            "     $DATA using %zu:%zu:1 with labels left offset char 0.6,0.4 font ',8' "
            "notitle\n",
            m, corrected ? c : e);
}

int nd_plot_parity_write(const char *out_base, const nd_plot_parity *plot,
                         const nd_plot_options *opt, nd_error *err)
{
    int rc = check_parity(plot, err);
    if (rc) return rc;
    int corrected = plot->panels[0].corrected_ms != NULL;
    size_t cols = 1;
    while (cols * cols < plot->n_panels)
        cols++;
    size_t rows = (plot->n_panels + cols - 1) / cols;

    nd_plot_text data = {0}, body = {0};
    if ((rc = nd_plot_text_open(&data, err)) || (rc = nd_plot_text_open(&body, err))) goto done;
    put_data(data.fp, plot, corrected);
    fprintf(body.fp, "set multiplot layout %zu,%zu title ", rows, cols);
    nd_plot_put_string(body.fp, nd_plot_title(opt, "Estimated against measured time"));
    fputs("\nset grid\nset size square\nset key top left opaque box Left reverse\n", body.fp);
    for (size_t k = 0; k < plot->n_panels; k++) {
        axis_range r = {0, 1, 0};
        if ((rc = panel_range(plot, &plot->panels[k], &r, err))) goto done;
        put_panel(body.fp, plot, k, &r, corrected);
        if (k == 0 && plot->n_panels > 1) fputs("unset key\n", body.fp);
    }
    fputs("unset multiplot\n", body.fp);
    if ((rc = nd_plot_text_finish(&data, err)) || (rc = nd_plot_text_finish(&body, err))) goto done;
    nd_plot_job job = {"parity", data.buf, body.buf};
    rc = nd_plot_emit(out_base, opt, &job, err);
done:
    nd_plot_text_free(&data);
    nd_plot_text_free(&body);
    return rc;
}
