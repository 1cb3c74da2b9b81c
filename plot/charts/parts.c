/* Parts plot: per strategy, the measured step beside the estimated one, both
 * stacked by part (ND's real-vs-estimate bars), across the image's full width.
 *
 * Above each pair, the estimate's error on the step; under it, instead of a
 * rotated name, a table of what distinguishes the strategies (their degrees and
 * peak memory, ND's table), one row per line with the row names on the left.
 * Parts that are zero or missing in every bar are left out, and the legend is a
 * row across the top. A round that measured only the step draws the measured
 * bar as one grey segment: the estimate's split still shows beside it. */
#include "plot_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PARTS_MAX       256
#define STEP_ONLY_COLOR "#9aa5b1"

typedef struct parts_view {
    size_t keep[PARTS_MAX], n; /* the parts drawn, by index */
    bool step_only;            /* some row has a measured step but no measured part */
    size_t table_rows;
} parts_view;

static bool drawn(double v)
{
    return isfinite(v) && v != 0;
}

static int check_parts(const nd_plot_parts *p, nd_error *err)
{
    size_t cells;
    if (!p || p->n_strategies == 0) return nd_error_set(err, ND_EINPUT, "parts plot: no strategies to draw");
    if (p->n_parts == 0) return nd_error_set(err, ND_EINPUT, "parts plot: no parts to draw");
    if (p->n_parts > PARTS_MAX)
        return nd_error_set(err, ND_EINPUT, "parts plot: %zu parts, at most %d", p->n_parts, PARTS_MAX);
    if (nd_plot_mul_size(p->n_strategies, p->n_parts, &cells))
        return nd_error_set(err, ND_EINPUT, "parts plot: too many strategies");
    if (!p->labels || !p->part_names || !p->estimated_ms || (!p->measured_ms && !p->measured_step_ms))
        return nd_error_set(err, ND_EINPUT,
                            "parts plot: labels, part names, measured or estimated values missing");
    if (p->n_table_rows && (!p->table_row_names || !p->table_cells))
        return nd_error_set(err, ND_EINPUT, "parts plot: table rows without names or cells");
    if (p->omit_part) {
        bool found = false;
        for (size_t k = 0; k < p->n_parts && !found; k++)
            found = p->part_names[k] && strcmp(p->part_names[k], p->omit_part) == 0;
        if (!found)
            return nd_error_set(err, ND_EINPUT, "parts plot: omit_part '%s' is not one of the part names",
                                p->omit_part);
    }
    return ND_OK;
}

static double measured(const nd_plot_parts *p, size_t i, size_t k)
{
    return p->measured_ms ? p->measured_ms[i * p->n_parts + k] : NAN;
}

/* The parts some bar holds, and whether a row is drawn from its measured step alone. */
static int build_view(const nd_plot_parts *p, parts_view *v, nd_error *err)
{
    memset(v, 0, sizeof *v);
    for (size_t k = 0; k < p->n_parts; k++) {
        if (p->omit_part && p->part_names[k] && strcmp(p->part_names[k], p->omit_part) == 0) continue;
        bool any = false;
        for (size_t i = 0; i < p->n_strategies && !any; i++)
            any = drawn(measured(p, i, k)) || drawn(p->estimated_ms[i * p->n_parts + k]);
        if (any) v->keep[v->n++] = k;
    }
    for (size_t i = 0; i < p->n_strategies && p->measured_step_ms; i++) {
        bool parts = false;
        for (size_t j = 0; j < v->n; j++) parts |= isfinite(measured(p, i, v->keep[j]));
        v->step_only |= !parts && isfinite(p->measured_step_ms[i]);
    }
    if (v->n == 0)
        return nd_error_set(err, ND_EINPUT,
                            p->omit_part ? "parts plot: omitting '%s' leaves no part to draw"
                                         : "parts plot: no finite value to draw%s",
                            p->omit_part ? p->omit_part : "");
    v->table_rows = p->n_table_rows;
    return ND_OK;
}

/* Columns: 1 label, 2.. the table cells, then the measured step, the measured parts and the
 * estimated parts. */
static void put_data(FILE *fp, const nd_plot_parts *p, const parts_view *v)
{
    fputs("# nd parts data: one row per strategy: its label, the table under its bars, the measured step "
          "(ms; nan: the sum of the measured parts), measured parts, estimated parts (ms; nan = not "
          "available, drawn as 0).\n# label",
          fp);
    for (size_t t = 0; t < v->table_rows; t++) {
        fputs(" table:", fp);
        nd_plot_put_word(fp, p->table_row_names[t]);
    }
    fputs(" measured:step", fp);
    for (int side = 0; side < 2; side++)
        for (size_t j = 0; j < v->n; j++) {
            fputs(side ? " estimated:" : " measured:", fp);
            nd_plot_put_word(fp, p->part_names[v->keep[j]]);
        }
    fputc('\n', fp);
    for (size_t i = 0; i < p->n_strategies; i++) {
        nd_plot_put_label(fp, p->labels[i]);
        for (size_t t = 0; t < v->table_rows; t++) {
            fputc(' ', fp);
            nd_plot_put_label(fp, p->table_cells[t * p->n_strategies + i]);
        }
        fputc(' ', fp);
        nd_plot_put_number(fp, p->measured_step_ms ? p->measured_step_ms[i] : NAN);
        for (size_t j = 0; j < v->n; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, measured(p, i, v->keep[j]));
        }
        for (size_t j = 0; j < v->n; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, p->estimated_ms[i * p->n_parts + v->keep[j]]);
        }
        fputc('\n', fp);
    }
}

/* The x tic labels: the table's cells one per line, or the rotated label without a table. */
static void put_tics(FILE *fp, const nd_plot_parts *p, const parts_view *v)
{
    if (!v->table_rows) {
        fputs("set xtics rotate by 30 right nomirror scale 0\nxtic_text(x) = strcol(1)\n", fp);
        return;
    }
    fputs("set xtics nomirror scale 0\nxtic_text(x) = ", fp);
    for (size_t t = 0; t < v->table_rows; t++) fprintf(fp, "%sstrcol(%zu)", t ? ".\"\\n\"." : "", 2 + t);
    fputs("\n# the table's row names, left of its first column\nset label 1 \"", fp);
    for (size_t t = 0; t < v->table_rows; t++) {
        const char *name = p->table_row_names[t];
        if (t) fputs("\\n", fp);
        for (const char *c = name ? name : ""; *c; c++)
            if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20) fputc(*c, fp);
    }
    fputs("\" at graph 0, graph 0 right offset char -1, char -1 front\n", fp);
}

static void put_bars(FILE *fp, const parts_view *v, size_t first, const char *mid, const char *lo,
                     const char *hi)
{
    for (size_t j = 0; j < v->n; j++)
        fprintf(fp,
                ", \\\n     $DATA using %s:(below(%zu,%zu)):%s:%s:(below(%zu,%zu)):(below(%zu,%zu)) with "
                "boxxyerror fc rgb '%s' notitle",
                mid, first, j + 1, lo, hi, first, j, first, j + 1, nd_plot_color(v->keep[j]));
}

static void put_body(FILE *fp, const nd_plot_parts *p, const parts_view *v, const nd_plot_options *opt)
{
    size_t m = 2 + v->table_rows, e = m + 1 + v->n; /* measured step, first measured part, first estimated */
    /* Room under the axis: a line per table row (or the rotated labels), then the x label. */
    int height = opt && opt->height_px > 0 ? opt->height_px : ND_PLOT_HEIGHT_DEFAULT;
    double bottom = v->table_rows ? (2.5 + (double)v->table_rows) * 16 / height : 0.26;
    fprintf(fp,
            "v(c) = valid(c) ? column(c) : 0\nbelow(c, k) = sum [j=0:k-1] v(c + j)\n"
            "M = %zu\nE = %zu\nK = %zu\n"
            "# a row's measured step: the measured:step column, else the sum of its measured parts\n"
            "mstep(x) = valid(M) ? column(M) : below(M + 1, K)\n"
            "estep(x) = below(E, K)\n"
            "top(x) = mstep(0) > estep(0) ? mstep(0) : estep(0)\n"
            "err(x) = mstep(0) > 0 ? 100 * (estep(0) - mstep(0)) / mstep(0) : NaN\n",
            m, e, v->n);
    /* The left margin holds the y axis's numbers and label, or the table's row names. */
    double left = v->table_rows ? nd_plot_label_margin(p->table_row_names, v->table_rows, opt) : 0;
    if (left < 0.08) left = 0.08;
    char title[160] = "Time parts per strategy: measured (M) beside estimated (E)";
    if (p->n_rows_total > p->n_strategies)
        snprintf(title + strlen(title), sizeof title - strlen(title), ", the first %zu of %zu rows",
                 p->n_strategies, p->n_rows_total);
    fputs("set multiplot title ", fp);
    nd_plot_put_string(fp, nd_plot_title(opt, title));
    fprintf(
        fp,
        " font ',12'\nset lmargin at screen %.3f\nset rmargin at screen 0.98\nset tmargin at screen 0.83\n"
        "set bmargin at screen %.3f\nset style fill solid 1.0 border rgb '#ffffff'\nset grid ytics\n"
        "set ylabel 'time per step (ms)'\nset ytics nomirror\nset xrange [-0.5:%zu - 0.5]\n"
        "set yrange [0:*]\nset offsets 0, 0, graph 0.12, 0\nunset key\n",
        left, bottom, p->n_strategies);
    put_tics(fp, p, v);
    fputs("plot $DATA using 0:(NaN):xtic(xtic_text(0)) notitle", fp);
    fprintf(
        fp,
        ", \\\n     $DATA using ($0 - 0.2):(mstep(0) / 2):($0 - 0.38):($0 - 0.02):(0):(valid(M) && !valid(M "
        "+ 1) ? "
        "mstep(0) : 0) with boxxyerror fc rgb '%s' notitle",
        STEP_ONLY_COLOR);
    put_bars(fp, v, m + 1, "($0 - 0.2)", "($0 - 0.38)", "($0 - 0.02)");
    put_bars(fp, v, e, "($0 + 0.2)", "($0 + 0.02)", "($0 + 0.38)");
    fputs(
        ", \\\n     $DATA using ($0 - 0.2):(mstep(0)):('M') with labels offset 0,0.6 font ',8' notitle"
        ", \\\n     $DATA using ($0 + 0.2):(estep(0)):('E') with labels offset 0,0.6 font ',8' notitle"
        ", \\\n     $DATA using 0:(top(0)):(sprintf('%+.1f %%', err(0))) with labels offset 0,1.8 notitle\n",
        fp);
    const char *names[PARTS_MAX + 1], *colors[PARTS_MAX + 1];
    size_t n = 0;
    for (size_t j = 0; j < v->n; j++) {
        names[n] = p->part_names[v->keep[j]];
        colors[n++] = nd_plot_color(v->keep[j]);
    }
    /* A round of step times only: the grey measured bar is the step, not split. */
    if (v->step_only) {
        names[n] = "measured step (not split)";
        colors[n++] = STEP_ONLY_COLOR;
    }
    nd_plot_put_key_panel(fp, names, colors, n, NULL, left, 0.845, 0.925, opt);
    fputs("unset multiplot\n", fp);
}

/* Pairs of bars a plot has room for: more are slivers no one reads (12,000 rows took 19 s
 * of gnuplot). The first ones are drawn, in the caller's order (nd-compare's: the fastest
 * measured first); the title says how many there were. */
#define PAIRS_MAX 40

int nd_plot_parts_write(const char *out_base, const nd_plot_parts *plot, const nd_plot_options *opt,
                        nd_error *err)
{
    parts_view v;
    int rc = check_parts(plot, err);
    if (!rc && plot->n_strategies > PAIRS_MAX) {
        nd_plot_parts first = *plot;
        const char **cells =
            plot->n_table_rows ? calloc(plot->n_table_rows * PAIRS_MAX, sizeof *cells) : NULL;
        if (plot->n_table_rows && !cells) return nd_error_set(err, ND_ENOMEM, "out of memory");
        for (size_t t = 0; t < plot->n_table_rows; t++) /* the table is row-major by line */
            for (size_t i = 0; i < PAIRS_MAX; i++)
                cells[t * PAIRS_MAX + i] = plot->table_cells[t * plot->n_strategies + i];
        first.n_strategies = PAIRS_MAX;
        first.table_cells = cells;
        first.n_rows_total =
            plot->n_rows_total > plot->n_strategies ? plot->n_rows_total : plot->n_strategies;
        rc = nd_plot_parts_write(out_base, &first, opt, err);
        free(cells);
        return rc;
    }
    if (!rc) rc = build_view(plot, &v, err);
    if (rc) return rc;
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot, &v);
    put_body(t.body.fp, plot, &v, opt);
    rc = nd_plot_texts_emit(&t, "parts", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    return rc;
}
