/* Interval plot: fitted ratios with their 95 % intervals, one row per ratio.
 *
 * The question it answers: which corrections did the round pin down, and how far
 * from 1 are they? A point at the ratio, a bar over its interval, a dashed line
 * at 1 (no correction). Ratios the fit did not estimate (held at 1, shared with
 * another, a fallback) are hollow and grey, their reason written beside them, so
 * a reader does not take them for measurements. Intervals beyond the axis are
 * cut at its edge, where an arrow says they go on. */
#include "plot_internal.h"
#include "nd/base/array.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define AXIS_LO_MIN -1.0 /* the axis never runs further than this ... */
#define AXIS_HI_MAX 4.0  /* ... or this: a wider interval says "not determined" anyway */

static int check_intervals(const nd_plot_intervals *p, nd_error *err)
{
    if (!p || p->n == 0) return nd_error_set(err, ND_EINPUT, "interval plot: no values to draw");
    if (!p->names || !p->value || !p->lo || !p->hi || !p->estimated)
        return nd_error_set(err, ND_EINPUT, "interval plot: names, values, intervals or flags missing");
    if (!nd_plot_any_finite(p->value, p->n))
        return nd_error_set(err, ND_EINPUT, "interval plot: no finite value to draw");
    return ND_OK;
}

/* The x axis: 0 .. 2 at least, widened to the values and intervals within the limits. */
static void axis_range(const nd_plot_intervals *p, double *lo, double *hi)
{
    *lo = 0;
    *hi = 2;
    for (size_t i = 0; i < p->n; i++) {
        const double v[] = {p->value[i], p->lo[i], p->hi[i]};
        for (size_t k = 0; k < ND_ARRAY_LEN(v); k++) {
            if (!isfinite(v[k])) continue;
            if (v[k] < *lo) *lo = v[k] < AXIS_LO_MIN ? AXIS_LO_MIN : v[k];
            if (v[k] > *hi) *hi = v[k] > AXIS_HI_MAX ? AXIS_HI_MAX : v[k];
        }
    }
    double pad = 0.04 * (*hi - *lo);
    *lo -= pad;
    *hi += pad;
}

static void put_data(FILE *fp, const nd_plot_intervals *p)
{
    fputs("# nd interval data: one row per value, top to bottom: the value, its 95 % interval (nan: none), "
          "1 when estimated (0: held, shared or a fallback, drawn hollow), and a note.\n"
          "# name value lo hi estimated note\n",
          fp);
    for (size_t i = 0; i < p->n; i++) {
        nd_plot_put_label(fp, p->names[i]);
        fputc(' ', fp);
        nd_plot_put_number(fp, p->value[i]);
        fputc(' ', fp);
        nd_plot_put_number(fp, p->lo[i]);
        fputc(' ', fp);
        nd_plot_put_number(fp, p->hi[i]);
        fprintf(fp, " %d ", p->estimated[i] ? 1 : 0);
        nd_plot_put_label(fp, p->notes && p->notes[i] ? p->notes[i] : "");
        fputc('\n', fp);
    }
}

static void put_body(FILE *fp, const nd_plot_intervals *p, const nd_plot_options *opt)
{
    double lo, hi;
    axis_range(p, &lo, &hi);
    double left = nd_plot_label_margin(p->names, p->n, opt);
    fputs("set title ", fp);
    nd_plot_put_lines(fp, nd_plot_title(opt, "Fitted ratios (measured / estimated) with 95 % intervals"));
    fprintf(
        fp,
        " font ',12'\nset lmargin at screen %.3f\nset rmargin at screen 0.58\nset tmargin 4\nset bmargin 4\n"
        "set yrange [%zu - 0.5:-0.5]\nset ytics nomirror scale 0\nset grid xtics\nunset key\n"
        "set xlabel ",
        left, p->n);
    nd_plot_put_string(fp, p->axis_name ? p->axis_name : "ratio (1 = the estimate needs no correction)");
    fputs("\nxmin = ", fp);
    nd_plot_put_number(fp, lo);
    fputs("\nxmax = ", fp);
    nd_plot_put_number(fp, hi);
    fputs("\nset xrange [xmin:xmax]\n"
          "cut(x) = x < xmin ? xmin : x > xmax ? xmax : x\n"
          "set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2 lw 1.5 lc rgb '#404040' back\n"
          "plot $DATA using (1):0:ytic(1) with points pt -1 notitle, \\\n"
          "     $DATA using (cut($3)):0:(cut($4) - cut($3)):(0) with vectors nohead lw 3 lc rgb '#8fb2d3' "
          "notitle, \\\n"
          "     $DATA using (valid(3) && $3 < xmin ? xmin : NaN):0:(-0.02 * (xmax - xmin)):(0) with vectors "
          "head filled size screen 0.008,30 lc rgb '#8fb2d3' notitle, \\\n"
          "     $DATA using (valid(4) && $4 > xmax ? xmax : NaN):0:(0.02 * (xmax - xmin)):(0) with vectors "
          "head filled size screen 0.008,30 lc rgb '#8fb2d3' notitle, \\\n",
          fp);
    fprintf(
        fp,
        "     $DATA using ($5 > 0 ? cut($2) : NaN):0 with points pt 7 ps 1.4 lc rgb '%s' notitle, \\\n"
        "     $DATA using ($5 > 0 ? NaN : cut($2)):0 with points pt 6 ps 1.4 lc rgb '#8a8a8a' notitle, \\\n"
        "     $DATA using (xmax):0:(sprintf('%%.3f  %%s', $2, strcol(6))) with labels left offset char 1.5,0 "
        "notitle\n",
        nd_plot_color(0));
}

int nd_plot_intervals_write(const char *out_base, const nd_plot_intervals *plot, const nd_plot_options *opt,
                            nd_error *err)
{
    int rc = check_intervals(plot, err);
    if (rc) return rc;
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot);
    put_body(t.body.fp, plot, opt);
    rc = nd_plot_texts_emit(&t, "interval", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    return rc;
}
