/* Two plain plots: stacked bars (one per row, parts coloured, the total above each) and
 * horizontal bars (one value per row, its share of the sum beside it). nd-classify draws
 * its per-rank breakdown with the first and its kernel classes with the second. */
#include "plot_internal.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define STACK_PARTS_MAX 64

static double value_at(const double *v, size_t i)
{
    return isfinite(v[i]) ? v[i] : 0;
}

static int check_stacks(const nd_plot_stacks *p, nd_error *err)
{
    size_t cells;
    if (!p || p->n_bars == 0) return nd_error_set(err, ND_EINPUT, "stacked bar plot: no bars to draw");
    if (p->n_parts == 0 || p->n_parts > STACK_PARTS_MAX)
        return nd_error_set(err, ND_EINPUT, "stacked bar plot: %zu parts, 1 to %d", p->n_parts,
                            STACK_PARTS_MAX);
    if (nd_plot_mul_size(p->n_bars, p->n_parts, &cells))
        return nd_error_set(err, ND_EINPUT, "stacked bar plot: too many bars");
    if (!p->labels || !p->part_names || !p->values)
        return nd_error_set(err, ND_EINPUT, "stacked bar plot: labels, part names or values missing");
    if (!nd_plot_any_finite(p->values, cells))
        return nd_error_set(err, ND_EINPUT, "stacked bar plot: no finite value to draw");
    return ND_OK;
}

int nd_plot_stacks_write(const char *out_base, const nd_plot_stacks *plot, const nd_plot_options *opt,
                         nd_error *err)
{
    int rc = check_stacks(plot, err);
    if (rc) return rc;
    size_t keep[STACK_PARTS_MAX], n = 0;
    for (size_t k = 0; k < plot->n_parts; k++) { /* parts 0 in every bar are left out */
        bool any = false;
        for (size_t i = 0; i < plot->n_bars && !any; i++)
            any = value_at(plot->values, i * plot->n_parts + k) != 0;
        if (any) keep[n++] = k;
    }
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    FILE *fp = t.data.fp;
    fputs("# nd stacked bar data: one row per bar, the parts not 0 in every bar (nan = not available, drawn "
          "as 0).\n# label",
          fp);
    for (size_t j = 0; j < n; j++) {
        fputc(' ', fp);
        nd_plot_put_word(fp, plot->part_names[keep[j]]);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < plot->n_bars; i++) {
        nd_plot_put_label(fp, plot->labels[i]);
        for (size_t j = 0; j < n; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, plot->values[i * plot->n_parts + keep[j]]);
        }
        fputc('\n', fp);
    }
    fp = t.body.fp;
    fprintf(fp, "v(c) = valid(c) ? column(c) : 0\nbelow(c, k) = sum [j=0:k-1] v(c + j)\nK = %zu\n", n);
    fputs("set multiplot title ", fp);
    nd_plot_put_lines(fp, nd_plot_title(opt, "Stacked bars"));
    fprintf(
        fp,
        " font ',12'\nset lmargin at screen 0.09\nset rmargin at screen 0.97\nset tmargin at screen 0.88\n"
        "set bmargin at screen 0.22\nset style fill solid 1.0 border rgb '#ffffff'\nset grid ytics\n"
        "set xtics nomirror scale 0%s\nset ytics nomirror\nset xrange [-0.5:%zu - 0.5]\nset yrange [0:*]\n"
        "set offsets 0, 0, graph 0.08, 0\nunset key\nset ylabel ",
        plot->n_bars > 12 ? " rotate by 45 right" : "", plot->n_bars);
    nd_plot_put_string(fp, plot->y_name ? plot->y_name : "");
    fputs("\nset xlabel ", fp);
    nd_plot_put_string(fp, plot->x_name ? plot->x_name : "");
    fputs("\nplot $DATA using 0:(NaN):xtic(1) notitle", fp);
    const char *names[STACK_PARTS_MAX], *colors[STACK_PARTS_MAX];
    for (size_t j = 0; j < n; j++) {
        size_t color = plot->color_index ? plot->color_index[keep[j]] : keep[j];
        names[j] = plot->part_names[keep[j]];
        colors[j] = nd_plot_color(color);
        fprintf(
            fp,
            ", \\\n     $DATA using 0:(below(2,%zu)):($0 - 0.35):($0 + 0.35):(below(2,%zu)):(below(2,%zu)) "
            "with boxxyerror fc rgb '%s' notitle",
            j + 1, j, j + 1, colors[j]);
    }
    fputs(", \\\n     $DATA using 0:(below(2,K)):(sprintf('%.4g', below(2,K))) with labels offset 0,0.7 font "
          "',9' "
          "notitle\n",
          fp);
    nd_plot_put_key_panel(fp, names, colors, n, NULL, 0.09, 0.01, 0.12, opt);
    fputs("unset multiplot\n", fp);
    rc = nd_plot_texts_emit(&t, "stacked bar", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    return rc;
}

int nd_plot_bars_write(const char *out_base, const nd_plot_bars *plot, const nd_plot_options *opt,
                       nd_error *err)
{
    if (!plot || plot->n == 0) return nd_error_set(err, ND_EINPUT, "bar plot: no bars to draw");
    if (!plot->labels || !plot->values)
        return nd_error_set(err, ND_EINPUT, "bar plot: labels or values missing");
    if (!nd_plot_any_finite(plot->values, plot->n))
        return nd_error_set(err, ND_EINPUT, "bar plot: no finite value to draw");
    double total = 0, top = 0;
    for (size_t i = 0; i < plot->n; i++) {
        total += value_at(plot->values, i);
        if (value_at(plot->values, i) > top) top = value_at(plot->values, i);
    }
    nd_plot_texts t = {0};
    int rc;
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    fputs("# nd bar data: one row per bar, top to bottom: its value (nan = not available).\n# label value\n",
          t.data.fp);
    for (size_t i = 0; i < plot->n; i++) {
        nd_plot_put_label(t.data.fp, plot->labels[i]);
        fputc(' ', t.data.fp);
        nd_plot_put_number(t.data.fp, plot->values[i]);
        fputc('\n', t.data.fp);
    }
    FILE *fp = t.body.fp;
    fputs("set title ", fp);
    nd_plot_put_lines(fp, nd_plot_title(opt, "Bars"));
    fprintf(fp,
            " font ',12'\nset lmargin at screen %.3f\nset rmargin at screen 0.74\nset style fill solid 1.0\n"
            "set yrange [%zu - 0.5:-0.5]\nset ytics nomirror scale 0\nset grid xtics\nunset key\nxmax = ",
            nd_plot_label_margin(plot->labels, plot->n, opt), plot->n);
    nd_plot_put_number(fp, nd_plot_nice_ceil(top > 0 ? top * 1.02 : 1));
    fputs("\nset xrange [0:xmax]\ntotal = ", fp);
    nd_plot_put_number(fp, total > 0 ? total : 1);
    /* The share beside each bar is of the bars' sum, which is not always what a reader compares
     * it with (nd-classify's kernel classes: of the kernel time, where its CSV's shares are of
     * the step): the axis says which. */
    char xlabel[256];
    snprintf(xlabel, sizeof xlabel, "%s%seach share is of the sum of the bars (%.4g)",
             plot->x_name ? plot->x_name : "", plot->x_name ? "; " : "", total);
    fputs("\nset xlabel ", fp);
    nd_plot_put_string(fp, xlabel);
    fprintf(
        fp,
        "\nplot $DATA using ($2 / 2):0:(0):($2):($0 - 0.32):($0 + 0.32):ytic(1) with boxxyerror fc rgb '%s' "
        "notitle, \\\n"
        "     $DATA using (xmax):0:(sprintf('%%.4g (%%.0f %%%% of the sum)', $2, 100 * $2 / total)) "
        "with labels left offset char 1,0 notitle\n",
        nd_plot_color(plot->color_index));
    rc = nd_plot_texts_emit(&t, "bar", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    return rc;
}
