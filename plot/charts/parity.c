/* Parity plot: estimated against measured, one square panel per quantity. */
#include "plot_internal.h"
#include "nd/base/array.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* Log axis ends at m x 10^k, m among these tenths (1, 1.5, 2, 3, 5, 7): close to the data,
 * so its points are not squeezed into the middle of a decade's worth of empty axis. */
static const int log_tenths[] = {10, 15, 20, 30, 50, 70};
#define LOG_STEPS (ND_ARRAY_LEN(log_tenths))

static double log_step(int i, int e)
{
    return e - 1 >= 0 ? log_tenths[i] * nd_plot_pow10(e - 1) : log_tenths[i] / nd_plot_pow10(1 - e);
}

/* The largest axis end at most x (x > 0). */
static double log_floor(double x)
{
    int e = (int)floor(log10(x));
    for (int i = (int)LOG_STEPS - 1; i >= 0; i--)
        if (log_step(i, e) <= x) return log_step(i, e);
    return nd_plot_pow10(e);
}

/* The smallest axis end at least x (x > 0). */
static double log_ceil(double x)
{
    int e = (int)floor(log10(x));
    for (size_t i = 0; i < LOG_STEPS; i++)
        if (log_step((int)i, e) >= x) return log_step((int)i, e);
    return nd_plot_pow10(e + 1);
}

/* Tics at 1, 2 and 5 x 10^k between lo and hi on both axes, so a log axis shows several
 * numbers. */
static void put_log_tics(FILE *fp, double lo, double hi)
{
    static const int marks[] = {1, 2, 5};
    for (const char *axis = "xy"; *axis; axis++) {
        bool first = true;
        fprintf(fp, "set %ctics (", *axis);
        for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
            for (size_t i = 0; i < ND_ARRAY_LEN(marks); i++) {
                double t = marks[i] * nd_plot_pow10(e);
                if (t < lo * 0.999 || t > hi * 1.001) continue;
                fputs(first ? "" : ", ", fp);
                nd_plot_put_number(fp, t);
                first = false;
            }
        fputs(")\n", fp);
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

#define PARITY_VALUE_MAX 1e20 /* the largest end nd_plot_nice_ceil gives a linear axis */

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
        return nd_error_set(err, ND_EINPUT, "parity plot: panel '%s': log axes need values > 0, found %g",
                            name, lo);
    /* Ten times from the smallest to the largest value crams all but the largest into a
     * corner of linear axes: log axes spread them by ratio, which is what an error is. */
    r->log =
        plot->scale == ND_PLOT_SCALE_LOG || (plot->scale == ND_PLOT_SCALE_AUTO && lo > 0 && hi / lo >= 10);
    /* the axes' ends are round numbers a little beyond the values: past 10^20 there is none
     * (nd_plot_nice_ceil stops there) and the margins' products overflow toward DBL_MAX */
    if (lo <= hi && fmax(fabs(lo), fabs(hi)) > PARITY_VALUE_MAX)
        return nd_error_set(err, ND_EINPUT, "parity plot: panel '%s': %g is beyond the axes (at most %g)",
                            name, fabs(lo) > fabs(hi) ? lo : hi, PARITY_VALUE_MAX);
    if (r->log) {
        r->lo = log_floor(lo * 0.9);
        r->hi = log_ceil(hi * 1.1);
        return ND_OK;
    }
    r->lo = lo < 0 ? -nd_plot_nice_ceil(-lo * 1.05) : 0;
    r->hi = hi > 0 ? nd_plot_nice_ceil(hi * 1.05) : 0;
    if (r->hi == r->lo) r->hi = 1;
    return ND_OK;
}

static int check_parity(const nd_plot_parity *plot, nd_error *err)
{
    if (!plot || plot->n_points == 0) return nd_error_set(err, ND_EINPUT, "parity plot: no points to draw");
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
                                "parity plot: panel '%s': measured or estimated values missing", name);
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

#define LABELLED_MAX   3    /* points named per panel: the worst */
#define LABELLED_ERROR 0.05 /* ... and only when more than 5 % off */

/* The estimate a panel judges: the corrected one when there is one. */
static double judged(const nd_plot_parity_panel *p, size_t i)
{
    return p->corrected_ms ? p->corrected_ms[i] : p->estimated_ms[i];
}

/* Relative error of point i, or NaN when it has none (a measurement <= 0 or missing) or is not
 * judged (the panel's mask). */
static double rel_error(const nd_plot_parity_panel *p, size_t i)
{
    double m = p->measured_ms[i], e = judged(p, i);
    if (p->judged && !p->judged[i]) return NAN;
    return isfinite(m) && m > 0 && isfinite(e) ? (e - m) / m : NAN;
}

/* Whether point i's label is one of the picked points': a strategy measured twice sits at one
 * place, and its name once is enough. */
static int named_already(const nd_plot_parity *plot, const size_t *picked, size_t n_picked, size_t i)
{
    const char *name = plot->labels[i] ? plot->labels[i] : "";
    for (size_t k = 0; k < n_picked; k++)
        if (!strcmp(name, plot->labels[picked[k]] ? plot->labels[picked[k]] : "")) return 1;
    return 0;
}

/* Marks in show[] the LABELLED_MAX points of the panel with the largest errors above
 * LABELLED_ERROR, one per label, ties to the earlier row, and returns the mean absolute error and the
 * worst signed error (NaN without any). */
static void panel_stats(const nd_plot_parity *plot, const nd_plot_parity_panel *p, unsigned char *show,
                        double *mape, double *worst)
{
    size_t n = plot->n_points, counted = 0;
    double sum = 0;
    *worst = NAN;
    memset(show, 0, n);
    for (size_t i = 0; i < n; i++) {
        double e = rel_error(p, i);
        if (!isfinite(e)) continue;
        sum += fabs(e);
        counted++;
        if (!isfinite(*worst) || fabs(e) > fabs(*worst)) *worst = e;
    }
    *mape = counted ? sum / (double)counted : NAN;
    size_t picked[LABELLED_MAX];
    for (size_t pick = 0; pick < LABELLED_MAX; pick++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            double e = rel_error(p, i);
            if (show[i] || !isfinite(e) || fabs(e) <= LABELLED_ERROR || named_already(plot, picked, pick, i))
                continue;
            if (best == n || fabs(e) > fabs(rel_error(p, best))) best = i;
        }
        if (best == n) break;
        show[best] = (unsigned char)(pick + 1); /* its rank: the labels of close points are staggered */
        picked[pick] = best;
    }
}

/* Columns per panel: measured, estimated, [corrected], named (1: the point is labelled). */
static size_t panel_width(int corrected)
{
    return corrected ? 4 : 3;
}

/* What a reader can tell apart: a panel of a few hundred pixels shows one mark per cell of a
 * GRID x GRID grid over its axes (linear or log); more points in one cell draw over each other.
 * A round of 200,000 rows would otherwise make a 650 MB SVG and half a minute of gnuplot. */
#define GRID      256
#define THIN_FROM 4096 /* below this many points every one is drawn */

/* The cell of value v on an axis, or -1 when v is not drawn. */
static long grid_cell(const axis_range *r, double v)
{
    if (!isfinite(v) || (r->log && v <= 0)) return -1;
    double f = r->log ? (log(v) - log(r->lo)) / (log(r->hi) - log(r->lo)) : (v - r->lo) / (r->hi - r->lo);
    if (!(f >= 0)) f = 0;
    if (f >= 1) f = 0.999999;
    return (long)(f * GRID);
}

/* Marks in keep[] the rows drawn: every row of a small plot; of a large one, the first row to
 * fall in each cell of some panel (estimated or corrected), and every labelled row. The
 * titles' statistics are over every row all the same. Returns the rows kept. */
static size_t thin_points(const nd_plot_parity *plot, const axis_range *ranges, const unsigned char *show,
                          unsigned char *keep, unsigned char *seen)
{
    size_t n = plot->n_points, kept = 0;
    for (size_t i = 0; i < n; i++) keep[i] = n < THIN_FROM;
    if (n < THIN_FROM) return n;
    for (size_t k = 0; k < plot->n_panels; k++) {
        const nd_plot_parity_panel *p = &plot->panels[k];
        memset(seen, 0, (size_t)2 * GRID * GRID);
        for (size_t i = 0; i < n; i++) {
            long x = grid_cell(&ranges[k], p->measured_ms[i]);
            for (int which = 0; which < 2 && x >= 0; which++) {
                const double *y_ms = which ? p->corrected_ms : p->estimated_ms;
                long y = y_ms ? grid_cell(&ranges[k], y_ms[i]) : -1;
                if (y < 0) continue;
                unsigned char *cell = &seen[(size_t)which * GRID * GRID + (size_t)x * GRID + (size_t)y];
                if (!*cell) {
                    *cell = 1;
                    keep[i] = 1;
                }
            }
            if (show[k * n + i]) keep[i] = 1;
        }
    }
    for (size_t i = 0; i < n; i++) kept += keep[i];
    return kept;
}

static void put_data(FILE *fp, const nd_plot_parity *plot, int corrected, const unsigned char *show,
                     const unsigned char *keep, size_t kept)
{
    if (kept < plot->n_points)
        fprintf(fp,
                "# %zu of %zu rows: the others fall on a grid cell (1/%d of an axis) a row above "
                "already marks, in every panel\n",
                kept, plot->n_points, GRID);
    fputs("# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the "
          "panel's unit, nan = not available, then the point's rank among the panel's three worst errors "
          "above 5 % (0: not labelled).\n# label",
          fp);
    for (size_t k = 0; k < plot->n_panels; k++) {
        const char *name = plot->panels[k].name;
        fputc(' ', fp);
        nd_plot_put_word(fp, name);
        fputs(":measured ", fp);
        nd_plot_put_word(fp, name);
        fputs(":estimated", fp);
        if (corrected) {
            fputc(' ', fp);
            nd_plot_put_word(fp, name);
            fputs(":corrected", fp);
        }
        fputc(' ', fp);
        nd_plot_put_word(fp, name);
        fputs(":labelled", fp);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < plot->n_points; i++) {
        if (!keep[i]) continue;
        nd_plot_put_label(fp, plot->labels[i]);
        for (size_t k = 0; k < plot->n_panels; k++) {
            const nd_plot_parity_panel *p = &plot->panels[k];
            fputc(' ', fp);
            nd_plot_put_number(fp, p->measured_ms[i]);
            fputc(' ', fp);
            nd_plot_put_number(fp, p->estimated_ms[i]);
            if (corrected) {
                fputc(' ', fp);
                nd_plot_put_number(fp, p->corrected_ms[i]);
            }
            fprintf(fp, " %d", show[k * plot->n_points + i]);
        }
        fputc('\n', fp);
    }
}

/* A labelled point's label as drawn: where, which side of the point, and the text (cut with
 * "..." when no side of it has room for the whole). */
typedef struct point_label {
    double x, y;
    double gy;   /* the label's height, a fraction of the plot area (graph coordinates) */
    bool left;   /* the label ends at the point (right-aligned) */
    bool leader; /* moved off its point's height: a thin line joins them */
    char text[160];
} point_label;

/* Moves the labels apart vertically so no two are closer than gap (graph fraction) and all stay
 * within [gap / 2, 1 - gap / 2]: upwards from the lowest, then back down from the top. */
static void spread_labels(point_label *l, int n, double gap)
{
    int order[LABELLED_MAX], m = 0;
    for (int i = 0; i < n; i++)
        if (l[i].text[0]) order[m++] = i;
    for (int i = 1; i < m; i++) /* insertion sort by height; ties keep rank order */
        for (int j = i; j > 0 && l[order[j]].gy < l[order[j - 1]].gy; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double floor_at = gap / 2;
    for (int i = 0; i < m; i++) {
        point_label *a = &l[order[i]];
        if (a->gy < floor_at) a->gy = floor_at;
        floor_at = a->gy + gap;
    }
    double ceil_at = 1 - gap / 2;
    for (int i = m - 1; i >= 0; i--) {
        point_label *a = &l[order[i]];
        if (a->gy > ceil_at) a->gy = ceil_at;
        ceil_at = a->gy - gap;
    }
}

/* The labels of panel k (LABELLED_MAX at most, by rank): right of the point, unless the panel's
 * cell has no room there and more on the left; cut to the side's room when neither holds it. A
 * label may run into the empty gap right of its panel, never out of its cell, and on the left
 * never over the axis (its tick labels); labels are kept a line apart and inside the plot area,
 * with a leader line to a point they had to leave (spread_labels). Panels sit in a grid of
 * cols x rows cells; a square panel's plot area is about 0.7 of the smaller of a cell's sides,
 * centred; a character at 8 pt is about 6 px (5.6 on average, more for capitals). */
static void panel_labels(const nd_plot_parity *plot, size_t k, const axis_range *r, size_t cols, size_t rows,
                         const nd_plot_options *opt, const unsigned char *show, point_label *out)
{
    int width = opt && opt->width_px > 0 ? opt->width_px : ND_PLOT_WIDTH_DEFAULT;
    int height = opt && opt->height_px > 0 ? opt->height_px : ND_PLOT_HEIGHT_DEFAULT;
    if (rows > 2 && height == ND_PLOT_HEIGHT_DEFAULT) height = 330 * (int)rows;
    double cell_w = (double)width / (double)cols, side = 0.7 * fmin(cell_w, (double)height / (double)rows);
    const nd_plot_parity_panel *p = &plot->panels[k];
    for (int rank = 0; rank < LABELLED_MAX; rank++) out[rank].text[0] = '\0';
    for (size_t i = 0; i < plot->n_points; i++) {
        int rank = show[k * plot->n_points + i];
        double x = p->measured_ms[i], y = judged(p, i);
        if (!rank || !isfinite(x) || !isfinite(y)) continue;
        point_label *l = &out[rank - 1];
        double f = r->log ? (log(x) - log(r->lo)) / (log(r->hi) - log(r->lo)) : (x - r->lo) / (r->hi - r->lo);
        double margin = (cell_w - side) / 2, at = margin + f * side; /* within the cell, px */
        double room_right = cell_w - at - 8, room_left = f * side - 8;
        const char *name = plot->labels[i] ? plot->labels[i] : "";
        double need = 6.0 * (double)strlen(name) + 8;
        l->x = x;
        l->y = y;
        l->gy = r->log ? (log(y) - log(r->lo)) / (log(r->hi) - log(r->lo)) : (y - r->lo) / (r->hi - r->lo);
        l->left = need > room_right && room_left > room_right;
        /* a point off the axes (a caller's value beyond them) has room beyond any label: the
         * characters are counted in a double and capped at the buffer before they become a size */
        double room = l->left ? room_left : room_right, chars = room > 8 ? (room - 8) / 6.0 : 1;
        size_t fit = chars < (double)sizeof l->text ? (size_t)chars : sizeof l->text, n = strlen(name);
        if (n <= fit)
            snprintf(l->text, sizeof l->text, "%s", name);
        else
            snprintf(l->text, sizeof l->text, "%.*s...", (int)(fit > 3 ? fit - 3 : 1), name);
    }
    double at[LABELLED_MAX];
    for (int rank = 0; rank < LABELLED_MAX; rank++) at[rank] = out[rank].gy;
    spread_labels(out, LABELLED_MAX, 13.0 / side); /* an 8 pt line is about 11 px */
    for (int rank = 0; rank < LABELLED_MAX; rank++)
        out[rank].leader = out[rank].text[0] && fabs(out[rank].gy - at[rank]) * side > 6;
}

/* "step: MAPE 5.7 %, worst -9.6 %"; a panel whose points are all too small to judge says so. */
static void put_panel_title(FILE *fp, const nd_plot_parity *plot, const nd_plot_parity_panel *p, double mape,
                            double worst)
{
    char title[200];
    if (isfinite(mape))
        snprintf(title, sizeof title, "%s: MAPE %.1f %%, worst %+.1f %%", p->name ? p->name : "", 100 * mape,
                 100 * worst);
    else if (p->judged && plot->n_points)
        snprintf(title, sizeof title, "%s: not judged (< %.1f %% of step)", p->name ? p->name : "",
                 100 * ND_PLOT_JUDGED_PART_SHARE);
    else
        snprintf(title, sizeof title, "%s", p->name ? p->name : "");
    fputs("set title ", fp);
    nd_plot_put_string(fp, title);
    fputc('\n', fp);
}

/* One panel's commands. Columns of its data: m (measured), m + 1 (estimated),
 * m + 2 (corrected), then whether the point is labelled. */
static void put_panel(FILE *fp, const nd_plot_parity *plot, size_t k, const axis_range *r, int corrected,
                      double mape, double worst, const point_label *labels)
{
    const nd_plot_parity_panel *p = &plot->panels[k];
    size_t m = 2 + k * panel_width(corrected), e = m + 1, c = m + 2;
    const char *unit = p->unit ? p->unit : "ms";
    fprintf(fp, "# Panel %zu of %zu\n", k + 1, plot->n_panels);
    put_panel_title(fp, plot, p, mape, worst);
    /* panels of one plot may differ in their axes (a panel with a 0 stays linear): each says which */
    fprintf(fp, "set xlabel 'measured (%s), %s axes'\nset ylabel 'estimated (%s)'\n", unit,
            r->log ? "log" : "linear", unit);
    if (r->log) {
        fputs("set logscale xy\n", fp);
        put_log_tics(fp, r->lo, r->hi);
    } else {
        /* Four or five tics a side: small panels crowd gnuplot's default into one another. */
        double step = nd_plot_nice_ceil((r->hi - r->lo) / 4);
        fputs("unset logscale\nset xtics ", fp);
        nd_plot_put_number(fp, step);
        fputs("\nset ytics ", fp);
        nd_plot_put_number(fp, step);
        fputc('\n', fp);
    }
    for (int axis = 0; axis < 2; axis++) {
        fprintf(fp, "set %crange [", axis ? 'y' : 'x');
        nd_plot_put_number(fp, r->lo);
        fputc(':', fp);
        nd_plot_put_number(fp, r->hi);
        fputs("]\n", fp);
    }
    /* The worst three points' labels, each on the side of its point that has room, a line apart
     * (panel_labels); a label moved off its point's height has a leader line to it. */
    for (int rank = 0; rank < LABELLED_MAX; rank++) {
        const point_label *l = &labels[rank];
        if (!l->text[0]) continue;
        fprintf(fp, "set label %d ", 10 + rank);
        nd_plot_put_string(fp, l->text);
        fputs(" at first ", fp);
        nd_plot_put_number(fp, l->x);
        fputs(", graph ", fp);
        nd_plot_put_number(fp, l->gy);
        fprintf(fp, " %s offset char %s,0 font ',8' front\n", l->left ? "right" : "left",
                l->left ? "-0.6" : "0.6");
        if (l->leader) {
            fprintf(fp, "set arrow %d from first ", 10 + rank);
            nd_plot_put_number(fp, l->x);
            fputs(", graph ", fp);
            nd_plot_put_number(fp, l->gy);
            fputs(" to first ", fp);
            nd_plot_put_number(fp, l->x);
            fputs(", first ", fp);
            nd_plot_put_number(fp, l->y);
            fputs(" nohead lc rgb '#909090' lw 0.5 front\n", fp);
        }
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
    /* The second set is open triangles over filled dots: where the two coincide (a left-out
     * prediction as good as the fit) both stay visible. */
    fprintf(fp, "     $DATA using %zu:%zu with points pt 7 ps 1 lc rgb '%s' title ", m, e, nd_plot_color(0));
    nd_plot_put_string(fp, plot->estimated_name ? plot->estimated_name : "estimated");
    if (corrected) {
        fprintf(fp, ", \\\n     $DATA using %zu:%zu with points pt 8 ps 1.5 lw 1.5 lc rgb '%s' title ", m, c,
                nd_plot_color(2));
        nd_plot_put_string(fp, plot->corrected_name ? plot->corrected_name : "corrected");
    }
    fputs("\nunset label\nunset arrow\n", fp);
}

int nd_plot_parity_write(const char *out_base, const nd_plot_parity *plot, const nd_plot_options *opt,
                         nd_error *err)
{
    int rc = check_parity(plot, err);
    if (rc) return rc;
    int corrected = plot->panels[0].corrected_ms != NULL;
    size_t cols = 1, cells;
    while (cols * cols < plot->n_panels) cols++;
    size_t rows = (plot->n_panels + cols - 1) / cols;
    if (nd_plot_mul_size(plot->n_panels, plot->n_points, &cells))
        return nd_error_set(err, ND_EINPUT, "parity plot: too many points");
    unsigned char *show = calloc(cells, 1), *keep = calloc(plot->n_points, 1);
    unsigned char *seen = calloc((size_t)2 * GRID * GRID, 1);
    double *mape = calloc(2 * plot->n_panels, sizeof *mape), *worst = mape ? mape + plot->n_panels : NULL;
    axis_range *ranges = calloc(plot->n_panels, sizeof *ranges);
    nd_plot_texts t = {0};
    if (!show || !keep || !seen || !mape || !ranges) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < plot->n_panels; k++) {
        panel_stats(plot, &plot->panels[k], show + k * plot->n_points, &mape[k], &worst[k]);
        ranges[k] = (axis_range){0, 1, 0};
        if ((rc = panel_range(plot, &plot->panels[k], &ranges[k], err))) goto done;
    }
    size_t kept = thin_points(plot, ranges, show, keep, seen);
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot, corrected, show, keep, kept);
    /* More than two rows of square panels: a taller image, unless the caller chose a size. */
    nd_plot_options o;
    if (opt)
        o = *opt;
    else
        nd_plot_options_init(&o);
    if (rows > 2 && (o.height_px == 0 || o.height_px == ND_PLOT_HEIGHT_DEFAULT) &&
        (o.width_px == 0 || o.width_px == ND_PLOT_WIDTH_DEFAULT))
        o.height_px = 330 * (int)rows;
    fprintf(t.body.fp, "set multiplot layout %zu,%zu title ", rows, cols);
    nd_plot_put_string(t.body.fp, nd_plot_title(opt, "Estimated against measured"));
    fputs(" font ',12'\nset grid\nset size square\nset key top left opaque box Left reverse\n", t.body.fp);
    for (size_t k = 0; k < plot->n_panels; k++) {
        point_label labels[LABELLED_MAX];
        panel_labels(plot, k, &ranges[k], cols, rows, &o, show, labels);
        put_panel(t.body.fp, plot, k, &ranges[k], corrected, mape[k], worst[k], labels);
        if (k == 0 && plot->n_panels > 1) fputs("unset key\n", t.body.fp);
    }
    fputs("unset multiplot\n", t.body.fp);
    rc = nd_plot_texts_emit(&t, "parity", out_base, &o, err);
done:
    nd_plot_texts_free(&t);
    free(show);
    free(keep);
    free(seen);
    free(mape);
    free(ranges);
    return rc;
}
