/* Ranking plot: which should I run, and how sure is nd?
 *
 * The candidates are distinct choices (the search folds rows that differ only in OP, or in
 * VPP by less than 0.5 %), one row each, best on top, named on the left where long names read
 * without rotation. The left panel puts each step time on one millisecond axis as a point
 * with its interval as a bar, #1's interval shaded across every row: a row whose point sits
 * in the shade and is drawn in amber cannot be told apart from #1, one in grey can (it is
 * slower). A step axis from 0 would hide the differences, a difference axis (ms against #1)
 * would draw 0.001 % as if it mattered; the intervals say at a glance how much the order
 * means. The column right of it says by how much each is behind #1 and which part makes most
 * of it (the parts that differ are in the data), and P(fastest) when the calibration gives
 * odds. The right panel is each peak memory per device against the budget (dashed), the
 * headroom written in the bar; a bar within 5 % of the budget is amber. The legend names every
 * mark, the budget's as a dashed line. */
#include "plot_internal.h"
#include "nd/base/array.h"
#include "nd/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define RANKING_PARTS_MAX 64
#define TEXT_MAX          64

/* Colours: #1, a choice nd cannot tell apart from it, one it can, #1's interval shaded. Gnuplot
 * expressions take them as 0xRRGGBB: &COLOR_X[1] is the colour without its "#". */
#define COLOR_BEST     "#4e79a7"
#define COLOR_TIED     "#e49444"
#define COLOR_APART    "#8c8c8c"
#define COLOR_UNJUDGED "#c9c9c9"
#define COLOR_SHADE    "#dce6f2"
#define COLOR_MEMORY   "#bac2cc"
#define COLOR_TIGHT    "#f1ce63"
#define COLOR_OVER     "#e15759"

typedef struct ranking_view {
    size_t keep[RANKING_PARTS_MAX], n_keep; /* the parts that differ between rows */
    double *step_ms;                        /* [n] the sum of the finite parts */
    double *lo, *hi;                        /* [n] the interval (the step itself when none) */
    char (*line1)[TEXT_MAX], (*line2)[TEXT_MAX], (*line3)[TEXT_MAX];
    int lines; /* lines of text a row has room for (1 to 3) */
    double x_lo, x_hi, peak_max_mib;
} ranking_view;

static double part_at(const nd_plot_ranking *p, size_t i, size_t k)
{
    double v = p->parts_ms[i * p->n_parts + k];
    return isfinite(v) ? v : 0;
}

static int check_ranking(const nd_plot_ranking *p, nd_error *err)
{
    size_t cells;
    if (!p || p->n_strategies == 0)
        return nd_error_set(err, ND_EINPUT, "ranking plot: no strategies to draw");
    if (p->n_parts == 0) return nd_error_set(err, ND_EINPUT, "ranking plot: no parts to draw");
    if (p->n_parts > RANKING_PARTS_MAX)
        return nd_error_set(err, ND_EINPUT, "ranking plot: %zu parts, at most %d", p->n_parts,
                            RANKING_PARTS_MAX);
    if (nd_plot_mul_size(p->n_strategies, p->n_parts, &cells))
        return nd_error_set(err, ND_EINPUT, "ranking plot: too many strategies");
    if (!p->labels || !p->part_names || !p->parts_ms || !p->peak_mib)
        return nd_error_set(err, ND_EINPUT, "ranking plot: labels, part names, parts or peak memory missing");
    if (!nd_plot_any_finite(p->parts_ms, cells))
        return nd_error_set(err, ND_EINPUT, "ranking plot: no finite time value to draw");
    return ND_OK;
}

/* ms with a decimal below 10, whole above: "+0.5 ms", "+53 ms". */
static void put_ms(char *buf, size_t size, double ms)
{
    snprintf(buf, size, fabs(ms) < 10 ? "%+.1f ms" : "%+.0f ms", ms);
}

static bool tied_at(const nd_plot_ranking *p, size_t i)
{
    return i > 0 && p->tied && p->tied[i] == 1;
}

/* 2 for #1, 1 when it cannot be told apart from #1, 0 when it can, 3 when nobody judged
 * (no tied array, or tied < 0: a row beyond the ones the search gave odds for). */
static int status_at(const nd_plot_ranking *p, size_t i)
{
    return i == 0 ? 2 : !p->tied || p->tied[i] < 0 ? 3 : p->tied[i] ? 1 : 0;
}

/* The column's lines of row i: how far behind #1 (or #1's step), the part that makes most of
 * the difference, P(fastest). */
static void row_text(const nd_plot_ranking *p, const ranking_view *v, size_t i)
{
    double best = v->step_ms[0], diff = v->step_ms[i] - best;
    double pf = p->p_fastest ? p->p_fastest[i] : NAN;
    if (isfinite(pf)) snprintf(v->line3[i], TEXT_MAX, "P(fastest) %.0f %%", 100 * pf);
    if (i == 0) {
        snprintf(v->line1[i], TEXT_MAX, "%.1f ms", best);
        snprintf(v->line2[i], TEXT_MAX, "the pick");
        return;
    }
    double pct = best > 0 ? 100 * diff / best : 0;
    int digits = fabs(pct) < 0.1 ? 3 : fabs(pct) < 1 ? 2 : 1;
    char ms[32], part[32];
    put_ms(ms, sizeof ms, diff);
    snprintf(v->line1[i], TEXT_MAX, "%+.*f %%, %s%s", digits, pct, ms, tied_at(p, i) ? ", tied" : "");
    size_t top = 0;
    double most = 0;
    for (size_t k = 0; k < p->n_parts; k++) {
        double d = part_at(p, i, k) - part_at(p, 0, k);
        if (fabs(d) > fabs(most)) {
            most = d;
            top = k;
        }
    }
    put_ms(part, sizeof part, most);
    if (most != 0) snprintf(v->line2[i], TEXT_MAX, "%s %s", p->part_names[top], part);
}

/* Steps, intervals, the parts that differ and the axes' extents. */
static void build_view(const nd_plot_ranking *p, ranking_view *v)
{
    v->x_lo = INFINITY;
    v->x_hi = -INFINITY;
    for (size_t i = 0; i < p->n_strategies; i++) {
        double s = 0;
        for (size_t k = 0; k < p->n_parts; k++) s += part_at(p, i, k);
        v->step_ms[i] = s;
        double lo = p->lo_ms && isfinite(p->lo_ms[i]) ? p->lo_ms[i] : s;
        double hi = p->hi_ms && isfinite(p->hi_ms[i]) ? p->hi_ms[i] : s;
        v->lo[i] = lo < s ? lo : s;
        v->hi[i] = hi > s ? hi : s;
        if (v->lo[i] < v->x_lo) v->x_lo = v->lo[i];
        if (v->hi[i] > v->x_hi) v->x_hi = v->hi[i];
        if (isfinite(p->peak_mib[i]) && p->peak_mib[i] > v->peak_max_mib) v->peak_max_mib = p->peak_mib[i];
    }
    for (size_t k = 0; k < p->n_parts; k++) {
        bool differs = false;
        for (size_t i = 1; i < p->n_strategies && !differs; i++)
            differs = part_at(p, i, k) != part_at(p, 0, k);
        if (differs) v->keep[v->n_keep++] = k;
    }
    for (size_t i = 0; i < p->n_strategies; i++) row_text(p, v, i);
    /* the rows share 64 % of the image's height (700 px by default), a line of text 15 px */
    double row_px = 0.64 * ND_PLOT_HEIGHT_DEFAULT / (double)p->n_strategies;
    v->lines = row_px >= 48 && p->p_fastest ? 3 : row_px >= 32 ? 2 : 1;
}

static void put_data(FILE *fp, const nd_plot_ranking *p, const ranking_view *v)
{
    fputs(
        "# nd ranking data: one row per distinct choice in rank order (best first): its step (ms, the sum of "
        "its parts) and its interval (ms), 2 for #1, 1 when it cannot be told apart from #1, 0 when it "
        "can, 3 when not judged, "
        "P(fastest) (nan: no odds), peak memory (MiB), the lines of text drawn beside it, then for each "
        "part that differs between rows its difference from #1 (ms).\n"
        "# label step_ms lo_ms hi_ms status p_fastest peak_mib text1 text2 text3",
        fp);
    for (size_t j = 0; j < v->n_keep; j++) {
        fputs(" d:", fp);
        nd_plot_put_word(fp, p->part_names[v->keep[j]]);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < p->n_strategies; i++) {
        nd_plot_put_label(fp, p->labels[i]);
        const double nums[] = {
            v->step_ms[i], v->lo[i], v->hi[i], status_at(p, i), p->p_fastest ? p->p_fastest[i] : NAN,
            p->peak_mib[i]};
        for (size_t k = 0; k < ND_ARRAY_LEN(nums); k++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, nums[k]);
        }
        fputc(' ', fp);
        nd_plot_put_label(fp, v->line1[i]);
        fputc(' ', fp);
        nd_plot_put_label(fp, v->line2[i]);
        fputc(' ', fp);
        nd_plot_put_label(fp, v->line3[i]);
        for (size_t j = 0; j < v->n_keep; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, part_at(p, i, v->keep[j]) - part_at(p, 0, v->keep[j]));
        }
        fputc('\n', fp);
    }
}

/* The smallest 1, 2 or 5 x 10^k at least x (x > 0): tics a reader counts in. */
static double nice125(double x)
{
    /* the exponent as a double until it is known to be a small whole number (x may be tiny or,
     * from a caller's sum of huge parts, infinite) */
    if (!(x > 0) || !isfinite(x)) return 1;
    double e = floor(log10(x));
    double p = nd_plot_pow10((int)fmax(-300, fmin(300, e)));
    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* x on the decimal grid of tic, as the double nearest to its decimal text (29.9, not
 * 29.900000000000002): a tic's digits, one more. */
static double on_grid(double x, double tic)
{
    if (!(tic > 0) || !isfinite(x)) return x;
    /* 17 digits are all a double has; text holds them after the 309 of DBL_MAX */
    int digits = tic >= 1 ? 0 : (int)fmin(17, ceil(-log10(tic)) + 1);
    char text[400];
    snprintf(text, sizeof text, "%.*f", digits, x);
    return strtod(text, NULL);
}

/* A tic step giving at most `tics` tics over the span (at least 2), and the range's ends on it. */
static void nice_range(double lo, double hi, int tics, double *from, double *to, double *tic)
{
    double span = hi - lo;
    if (!(span > 0)) span = fabs(hi) > 0 ? fabs(hi) * 0.02 : 1;
    *tic = nice125(span / (tics > 2 ? tics : 2));
    *from = on_grid(floor((lo - 0.04 * span) / *tic) * *tic, *tic);
    if (lo >= 0 && *from < 0) *from = 0; /* a step is never below 0 ms: nor is its axis */
    *to = on_grid(ceil((hi + 0.04 * span) / *tic) * *tic, *tic);
}

/* The left panel: points and interval bars, #1's interval shaded; the text column right of it. */
static void put_step_panel(FILE *fp, const nd_plot_ranking *p, const ranking_view *v, double split,
                           const nd_plot_options *opt)
{
    double from, to, tic;
    /* as many tics as their labels fit side by side: about 7 px a digit and a gap of 3 digits */
    int width = opt && opt->width_px > 0 ? opt->width_px : ND_PLOT_WIDTH_DEFAULT;
    char widest[32];
    snprintf(widest, sizeof widest, "%.0f", fabs(v->x_hi) > fabs(v->x_lo) ? v->x_hi : v->x_lo);
    int tics = (int)((0.55 - split) * width / (7.2 * ((double)strlen(widest) + 3)));
    nice_range(v->x_lo, v->x_hi, tics < 5 ? tics : 5, &from, &to, &tic);
    fprintf(fp, "set lmargin at screen %.3f\nset rmargin at screen 0.55\n", split);
    fputs("set title 'step time (ms): the estimate and its interval'\nset xlabel 'ms per step'\n"
          "set format x '%g'\n"
          "set xrange [",
          fp);
    nd_plot_put_number(fp, from);
    fputc(':', fp);
    nd_plot_put_number(fp, to);
    fputs("]\nset xtics ", fp);
    nd_plot_put_number(fp, tic);
    fputs(" nomirror\nunset key\nset grid xtics\n", fp);
    fputs("# #1's interval, across every row: a point inside it is not told apart by the estimate alone\n"
          "set object 1 rect from ",
          fp);
    nd_plot_put_number(fp, v->lo[0]);
    fputs(", graph 0 to ", fp);
    nd_plot_put_number(fp, v->hi[0]);
    fprintf(fp, ", graph 1 behind fc rgb '%s' fs solid 1.0 noborder\n", COLOR_SHADE);
    static const double offsets[3][3] = {{0, 0, 0}, {0.55, -0.55, 0}, {1.0, 0, -1.0}};
    const double *off = offsets[v->lines - 1];
    fprintf(fp,
            "color(s) = s == 2 ? 0x%s : s == 1 ? 0x%s : s == 3 ? 0x%s : 0x%s\n"
            "plot $DATA using 2:0:3:4:(color($5)):ytic(1) with xerrorbars pt 7 ps 1.4 lw 2 lc rgb variable "
            "notitle",
            &COLOR_BEST[1], &COLOR_TIED[1], &COLOR_UNJUDGED[1], &COLOR_APART[1]);
    static const char *const colors[] = {"#202020", "#505050", "#505050"};
    for (int l = 0; l < v->lines; l++) {
        fputs(", \\\n     $DATA using (", fp);
        nd_plot_put_number(fp, to);
        fprintf(fp, "):0:%d with labels left offset char 1,%.2f tc rgb '%s' notitle", 8 + l, off[l],
                colors[l]);
    }
    fputs("\nunset object 1\n", fp);
    (void)p;
}

/* The right panel: peak memory bars against the budget, the headroom inside. */
static void put_memory_panel(FILE *fp, const nd_plot_ranking *p, const ranking_view *v)
{
    bool budget = nd_plot_has_budget(p->budget_mib);
    double top = v->peak_max_mib > p->budget_mib || !budget ? v->peak_max_mib : p->budget_mib;
    double gib = nd_plot_nice_ceil(top > 0 ? top * 1.08 / ND_MIB_PER_GIB : 1), tic = nice125(gib / 5);
    fputs("set lmargin at screen 0.80\nset rmargin at screen 0.97\nunset ytics\nunset grid\nset grid xtics\n"
          "set format x '%g'\nset xlabel 'GiB per device'\nunset key\nset xrange [0:",
          fp);
    nd_plot_put_number(fp, gib);
    fputs("]\nset xtics ", fp);
    nd_plot_put_number(fp, tic);
    fputc('\n', fp);
    if (budget) {
        fputs("budget_mib = ", fp);
        nd_plot_put_number(fp, p->budget_mib);
        fprintf(
            fp,
            "\nset title sprintf('peak memory, budget %%.4g GiB', budget_mib / 1024.0)\n"
            "set arrow 1 from budget_mib / 1024.0, graph 0 to budget_mib / 1024.0, graph 1 nohead dt 2 lw 2 "
            "lc rgb '%s' front\n"
            "# over the budget: red; within 5 %% of it: amber; else grey\n"
            "shade(m) = m > budget_mib ? 0x%s : m > 0.95 * budget_mib ? 0x%s : 0x%s\n"
            "free(m) = m > budget_mib ? sprintf('%%.1f GiB over', (m - budget_mib) / 1024.0) : "
            "sprintf('%%.1f GiB free', (budget_mib - m) / 1024.0)\n",
            ND_PLOT_BUDGET_COLOR, &COLOR_OVER[1], &COLOR_TIGHT[1], &COLOR_MEMORY[1]);
    } else {
        fprintf(fp, "set title 'peak memory'\nshade(m) = 0x%s\nfree(m) = sprintf('%%.1f GiB', m / 1024.0)\n",
                &COLOR_MEMORY[1]);
    }
    fputs("plot $DATA using ($7 / 2048):0:(0):($7 / 1024):($0 - 0.3):($0 + 0.3):(shade($7)) with boxxyerror "
          "fc rgb variable notitle, \\\n"
          "     $DATA using (0):0:(free($7)) with labels left offset char 0.5,0 tc rgb '#202020' notitle\n"
          "unset arrow 1\n",
          fp);
}

/* Whether some row has status st. */
static bool any_status(const nd_plot_ranking *p, int st)
{
    for (size_t i = 0; i < p->n_strategies; i++)
        if (status_at(p, i) == st) return true;
    return false;
}

/* The legend, a panel of its own across the image, naming only what is drawn; the budget's
 * entry is a dashed line, as drawn. */
static void put_key(FILE *fp, const nd_plot_ranking *p, const ranking_view *v)
{
    char interval[96];
    snprintf(interval, sizeof interval, "#1 and %s", p->interval_name ? p->interval_name : "its interval");
    fputs(
        "# the legend\nset lmargin at screen 0.03\nset rmargin at screen 0.97\nset tmargin at screen 0.115\n"
        "set bmargin at screen 0.01\nunset border\nunset tics\nunset grid\nunset title\nunset xlabel\n"
        "unset ylabel\nunset arrow\nunset label\nunset object\nset xrange [0:1]\nset yrange [0:1]\n"
        "set key inside left top horizontal Left reverse samplen 3 width 2 maxrows 2 noopaque nobox\n",
        fp);
    bool folded = false;
    for (size_t i = 0; i < p->n_strategies; i++) folded |= strstr(p->labels[i], " (+") != NULL;
    if (folded) /* a label's "(+N)", as nd-search and nd-plot write it */
        fputs("set label 1 '(+N): N more rows folded in, that differ only in OP or VPP (ranking.csv has "
              "them)' "
              "at graph 1, graph 0.02 right font ',9' tc rgb '#505050'\n",
              fp);
    fputs("plot ", fp);
    fprintf(fp, "NaN with xerrorbars pt 7 ps 1.4 lw 2 lc rgb '%s' title ", COLOR_BEST);
    nd_plot_put_string(fp, interval);
    static const struct {
        int status;
        const char *color, *title;
    } marks[] = {{1, COLOR_TIED, "cannot be told apart from #1"},
                 {0, COLOR_APART, "told apart: slower than #1"},
                 {3, COLOR_UNJUDGED, "not judged (beyond the odds)"}};
    for (size_t k = 0; k < ND_ARRAY_LEN(marks); k++)
        if (any_status(p, marks[k].status))
            fprintf(fp, ", \\\n     NaN with xerrorbars pt 7 ps 1.4 lw 2 lc rgb '%s' title '%s'",
                    marks[k].color, marks[k].title);
    if (v->hi[0] > v->lo[0])
        fprintf(fp, ", \\\n     NaN with boxes fs solid 1.0 fc rgb '%s' title '#1 interval, across the rows'",
                COLOR_SHADE);
    bool budget = nd_plot_has_budget(p->budget_mib), tight = false, over = false;
    for (size_t i = 0; budget && i < p->n_strategies; i++) {
        over |= p->peak_mib[i] > p->budget_mib;
        tight |= p->peak_mib[i] <= p->budget_mib && p->peak_mib[i] > 0.95 * p->budget_mib;
    }
    fprintf(fp, ", \\\n     NaN with boxes fs solid 1.0 fc rgb '%s' title 'peak memory, headroom written'",
            COLOR_MEMORY);
    if (tight)
        fprintf(fp, ", \\\n     NaN with boxes fs solid 1.0 fc rgb '%s' title 'within 5 %% of the budget'",
                COLOR_TIGHT);
    if (over)
        fprintf(fp, ", \\\n     NaN with boxes fs solid 1.0 fc rgb '%s' title 'over the budget'", COLOR_OVER);
    if (budget)
        fprintf(fp, ", \\\n     NaN with lines dt 2 lw 2 lc rgb '%s' title 'memory budget'",
                ND_PLOT_BUDGET_COLOR);
    fputc('\n', fp);
}

int nd_plot_ranking_write(const char *out_base, const nd_plot_ranking *plot, const nd_plot_options *opt,
                          nd_error *err)
{
    int rc = check_ranking(plot, err);
    if (rc) return rc;
    size_t n = plot->n_strategies;
    ranking_view v;
    memset(&v, 0, sizeof v);
    v.step_ms = calloc(3 * n, sizeof *v.step_ms);
    v.line1 = calloc(n, sizeof *v.line1);
    v.line2 = calloc(n, sizeof *v.line2);
    v.line3 = calloc(n, sizeof *v.line3);
    if (!v.step_ms || !v.line1 || !v.line2 || !v.line3) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        goto done;
    }
    v.lo = v.step_ms + n;
    v.hi = v.lo + n;
    build_view(plot, &v);
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto free_texts;
    put_data(t.data.fp, plot, &v);
    FILE *fp = t.body.fp;
    char title[512];
    snprintf(title, sizeof title, "Which to run: the top %zu distinct choices, and how sure nd is%s%s", n,
             plot->subtitle ? "\n" : "", plot->subtitle ? plot->subtitle : "");
    double split = nd_plot_label_margin(plot->labels, n, opt);
    /* more rows than fit at the default height make the image taller (30 px a row) */
    fputs("set multiplot title ", fp);
    nd_plot_put_lines(fp, nd_plot_title(opt, title));
    fprintf(fp,
            " font ',12'\nv(c) = valid(c) ? column(c) : 0\nset style fill solid 1.0 border rgb '#ffffff'\n"
            "set yrange [%zu - 0.5:-0.5]\nset ytics nomirror scale 0\nset tmargin at screen 0.86\n"
            "set bmargin at screen 0.22\n",
            n);
    put_step_panel(fp, plot, &v, split, opt);
    put_memory_panel(fp, plot, &v);
    put_key(fp, plot, &v);
    fputs("unset multiplot\n", fp);
    rc = nd_plot_texts_emit(&t, "ranking", out_base, opt, err);
free_texts:
    nd_plot_texts_free(&t);
done:
    free(v.step_ms);
    free(v.line1);
    free(v.line2);
    free(v.line3);
    return rc;
}
