/* The stacked-bar plots: parts (measured beside estimated), ranking, and
 * memory per pipeline stage.
 *
 * Bars are drawn with boxxyerror from the raw table, each segment spanning
 * below(c, k) .. below(c, k + 1), the running sums computed by gnuplot. This
 * keeps NAME.dat the caller's numbers rather than derived cumulative sums,
 * and lets two stacks stand side by side per row, which gnuplot's histogram
 * styles (one stack per row) cannot do. */
#include "plot_internal.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* One stacked bar per row of $DATA: segment k is column first_col + k,
 * coloured and named by index[k] (k itself when index is NULL); x_mid, x_lo
 * and x_hi are the using-expressions that place the bar. */
typedef struct stack {
    size_t first_col;
    size_t n;
    const size_t *index;
    const char *const *names;
    const char *x_mid, *x_lo, *x_hi;
    bool titled;
} stack;

static void put_stack_functions(FILE *fp)
{
    fputs("# v(c): column c, or 0 when it is not a number (a value not available counts as 0)\n"
          "v(c) = valid(c) ? column(c) : 0\n"
          "# below(c, k): the sum of the k columns from c on, where segment k of a stack starts\n"
          "below(c, k) = sum [j=0:k-1] v(c + j)\n",
          fp);
}

/* The bar plots' shared settings after the title and axis labels. */
/* Tick labels rotated 30 degrees hang left of their bar by about cos(30) x their length:
 * a left margin that wide keeps the first one inside the image. */
static void put_label_margin(FILE *fp, const char *const *labels, size_t n)
{
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        if (labels[i] && strlen(labels[i]) > longest) longest = strlen(labels[i]);
    double chars = 0.87 * (double)longest + 2;
    fprintf(fp, "set lmargin %d\n", chars < 10 ? 10 : chars > 45 ? 45 : (int)chars);
}

static void put_bar_settings(FILE *fp, const char *key_title, size_t n_rows)
{
    /* invert: the legend lists the parts top down as the stacks show them;
     * width 2: gnuplot underestimates long names in cairo and clips them. */
    fputs("set grid ytics\nset key outside right top vertical Left reverse invert width 2", fp);
    if (key_title) fputs(" title ", fp), nd_plot_put_string(fp, key_title);
    fputs("\nset style fill solid 1.0 border rgb '#ffffff'\nset xrange [-0.5:", fp);
    nd_plot_put_number(fp, (double)n_rows - 0.5);
    /* Room above the tallest bar for the M/E marks and the budget line. */
    fputs("]\nset offsets 0, 0, graph 0.06, 0\n", fp);
}

/* `plot` and the clause that only puts the row labels under the bars; every
 * following clause starts with ", \". */
static void put_plot_start(FILE *fp)
{
    fputs("plot $DATA using 0:(NaN):xtic(1) notitle", fp);
}

static void put_stack(FILE *fp, const stack *s)
{
    size_t c = s->first_col;
    for (size_t k = 0; k < s->n; k++) {
        size_t at = s->index ? s->index[k] : k;
        fprintf(
            fp,
            ", \\\n     $DATA using %s:(below(%zu,%zu)):%s:%s:(below(%zu,%zu)):(below(%zu,%zu)) "
            "with boxxyerror fc rgb '%s' ",
            s->x_mid, c, k + 1, s->x_lo, s->x_hi, c, k, c, k + 1, nd_plot_color(at));
        if (s->titled)
            fputs("title ", fp), nd_plot_put_string(fp, s->names[at]);
        else
            fputs("notitle", fp);
    }
}

/* Shared checks of a rows x cols table; names what is wrong in kind's terms. */
static int check_table(const char *kind, size_t rows, const char *rows_what, size_t cols,
                       const char *cols_what, size_t *cells, nd_error *err)
{
    if (rows == 0) return nd_error_set(err, ND_EINPUT, "%s plot: no %s to draw", kind, rows_what);
    if (cols == 0) return nd_error_set(err, ND_EINPUT, "%s plot: no %s to draw", kind, cols_what);
    if (nd_plot_mul_size(rows, cols, cells))
        return nd_error_set(err, ND_EINPUT, "%s plot: too many %s", kind, rows_what);
    return ND_OK;
}

/* The label of row i ("i" when there are no labels), then the values
 * v[keep[0]], v[keep[1]], ... of that row (v[0..n-1] when keep is NULL). */
static void put_row(FILE *fp, const char *const *labels, size_t i, const double *v,
                    const size_t *keep, size_t n)
{
    if (labels)
        nd_plot_put_label(fp, labels[i]);
    else
        fprintf(fp, "\"%zu\"", i);
    for (size_t k = 0; k < n; k++)
        fputc(' ', fp), nd_plot_put_number(fp, v[keep ? keep[k] : k]);
}

/* Finishes both texts and hands them over. */
static int finish_and_emit(const char *kind, const char *out_base, const nd_plot_options *opt,
                           nd_plot_text *data, nd_plot_text *body, nd_error *err)
{
    int rc;
    if ((rc = nd_plot_text_finish(data, err)) || (rc = nd_plot_text_finish(body, err))) return rc;
    nd_plot_job job = {kind, data->buf, body->buf};
    return nd_plot_emit(out_base, opt, &job, err);
}

/* ---- parts ---------------------------------------------------------------- */

#define PARTS_MAX 256

static int check_parts(const nd_plot_parts *p, size_t *keep, size_t *n_keep, nd_error *err)
{
    size_t cells;
    if (!p) return nd_error_set(err, ND_EINPUT, "parts plot: no strategies to draw");
    int rc = check_table("parts", p->n_strategies, "strategies", p->n_parts, "parts", &cells, err);
    if (rc) return rc;
    if (p->n_parts > PARTS_MAX)
        return nd_error_set(err, ND_EINPUT, "parts plot: %zu parts, at most %d", p->n_parts,
                            PARTS_MAX);
    if (!p->labels || !p->part_names || !p->measured_ms || !p->estimated_ms)
        return nd_error_set(err, ND_EINPUT,
                            "parts plot: labels, part names, measured or estimated values missing");
    *n_keep = 0;
    bool omitted = false;
    for (size_t k = 0; k < p->n_parts; k++) {
        if (p->omit_part && p->part_names[k] && strcmp(p->part_names[k], p->omit_part) == 0)
            omitted = true;
        else
            keep[(*n_keep)++] = k;
    }
    if (p->omit_part && !omitted)
        return nd_error_set(err, ND_EINPUT,
                            "parts plot: omit_part '%s' is not one of the part names",
                            p->omit_part);
    if (*n_keep == 0)
        return nd_error_set(err, ND_EINPUT, "parts plot: omitting '%s' leaves no part to draw",
                            p->omit_part);
    for (size_t i = 0; i < p->n_strategies; i++)
        for (size_t k = 0; k < *n_keep; k++) {
            size_t at = i * p->n_parts + keep[k];
            if (isfinite(p->measured_ms[at]) || isfinite(p->estimated_ms[at])) return ND_OK;
        }
    return nd_error_set(err, ND_EINPUT, "parts plot: no finite value to draw");
}

int nd_plot_parts_write(const char *out_base, const nd_plot_parts *plot, const nd_plot_options *opt,
                        nd_error *err)
{
    size_t keep[PARTS_MAX], n = 0;
    int rc = check_parts(plot, keep, &n, err);
    if (rc) return rc;
    nd_plot_text data = {0}, body = {0};
    if ((rc = nd_plot_text_open(&data, err)) || (rc = nd_plot_text_open(&body, err))) goto done;

    FILE *fp = data.fp;
    fputs("# nd parts data: one row per strategy; measured parts, then estimated parts, in ms; "
          "nan = not available (drawn as 0).\n# label",
          fp);
    for (int side = 0; side < 2; side++)
        for (size_t k = 0; k < n; k++)
            fputs(side ? " estimated:" : " measured:", fp),
                nd_plot_put_word(fp, plot->part_names[keep[k]]);
    fputc('\n', fp);
    for (size_t i = 0; i < plot->n_strategies; i++) {
        size_t row = i * plot->n_parts;
        put_row(fp, plot->labels, i, plot->measured_ms + row, keep, n);
        for (size_t k = 0; k < n; k++)
            fputc(' ', fp), nd_plot_put_number(fp, plot->estimated_ms[row + keep[k]]);
        fputc('\n', fp);
    }

    fp = body.fp;
    put_stack_functions(fp);
    fputs("set title ", fp);
    nd_plot_put_string(fp,
                       nd_plot_title(opt, "Time parts per strategy: measured beside estimated"));
    fputs("\nset xlabel 'strategy (left bar M: measured, right bar E: estimated)'\n"
          "set ylabel 'time (ms)'\n",
          fp);
    put_bar_settings(fp, "part", plot->n_strategies);
    fputs("set xtics rotate by 30 right nomirror\nset ytics nomirror\nset xzeroaxis\n", fp);
    put_label_margin(fp, plot->labels, plot->n_strategies);
    put_plot_start(fp);
    /* Measured bars carry the legend; estimated bars reuse its colours. */
    stack m = {2, n, keep, plot->part_names, "($0-0.2)", "($0-0.38)", "($0-0.02)", true};
    stack e = {2 + n, n, keep, plot->part_names, "($0+0.2)", "($0+0.02)", "($0+0.38)", false};
    put_stack(fp, &m);
    put_stack(fp, &e);
    fprintf(fp,
            ", \\\n     $DATA using ($0-0.2):(below(2,%zu)):('M') with labels offset 0,0.7 notitle"
            ", \\\n     $DATA using ($0+0.2):(below(%zu,%zu)):('E') with labels offset 0,0.7 "
            "notitle\n",
            n, 2 + n, n);
    rc = finish_and_emit("parts", out_base, opt, &data, &body, err);
done:
    nd_plot_text_free(&data);
    nd_plot_text_free(&body);
    return rc;
}

/* ---- ranking -------------------------------------------------------------- */

int nd_plot_ranking_write(const char *out_base, const nd_plot_ranking *plot,
                          const nd_plot_options *opt, nd_error *err)
{
    size_t cells;
    if (!plot) return nd_error_set(err, ND_EINPUT, "ranking plot: no strategies to draw");
    int rc = check_table("ranking", plot->n_strategies, "strategies", plot->n_parts, "parts",
                         &cells, err);
    if (rc) return rc;
    if (!plot->labels || !plot->part_names || !plot->parts_ms || !plot->peak_mib)
        return nd_error_set(err, ND_EINPUT,
                            "ranking plot: labels, part names, parts or peak memory missing");
    if (!nd_plot_any_finite(plot->parts_ms, cells))
        return nd_error_set(err, ND_EINPUT, "ranking plot: no finite time value to draw");
    /* gnuplot fails outright ("all points y2 value undefined") without one. */
    if (!nd_plot_any_finite(plot->peak_mib, plot->n_strategies))
        return nd_error_set(err, ND_EINPUT, "ranking plot: no finite peak memory to draw");

    nd_plot_text data = {0}, body = {0};
    if ((rc = nd_plot_text_open(&data, err)) || (rc = nd_plot_text_open(&body, err))) goto done;
    FILE *fp = data.fp;
    fputs("# nd ranking data: one row per strategy in rank order (best first); parts in ms, "
          "peak memory in MiB; nan = not available.\n# label",
          fp);
    for (size_t k = 0; k < plot->n_parts; k++)
        fputc(' ', fp), nd_plot_put_word(fp, plot->part_names[k]);
    fputs(" peak_mib\n", fp);
    for (size_t i = 0; i < plot->n_strategies; i++) {
        put_row(fp, plot->labels, i, plot->parts_ms + i * plot->n_parts, NULL, plot->n_parts);
        fputc(' ', fp), nd_plot_put_number(fp, plot->peak_mib[i]);
        fputc('\n', fp);
    }

    fp = body.fp;
    char title[128];
    snprintf(title, sizeof title, "Top %zu strategies: step time by part and peak memory",
             plot->n_strategies);
    put_stack_functions(fp);
    fputs("set title ", fp);
    nd_plot_put_string(fp, nd_plot_title(opt, title));
    fputs("\nset xlabel 'strategy, in rank order (best first)'\n"
          "set ylabel 'step time (ms), stacked by part'\n"
          "set y2label 'peak memory (MiB)'\n",
          fp);
    put_bar_settings(fp, NULL, plot->n_strategies);
    fputs("set y2range [0:*]\nset xtics rotate by 30 right nomirror\nset ytics nomirror\n"
          "set y2tics\n",
          fp);
    put_label_margin(fp, plot->labels, plot->n_strategies);
    put_plot_start(fp);
    stack s = {2, plot->n_parts, NULL, plot->part_names, "0", "($0-0.35)", "($0+0.35)", true};
    put_stack(fp, &s);
    fprintf(fp,
            ", \\\n     $DATA using 0:%zu axes x1y2 with points pt 7 ps 1.5 lc rgb '#000000' "
            "title 'peak memory (right axis)'",
            2 + plot->n_parts);
    if (nd_plot_has_budget(plot->budget_mib))
        nd_plot_put_budget(fp, plot->budget_mib, " axes x1y2", " (right axis)");
    fputc('\n', fp);
    rc = finish_and_emit("ranking", out_base, opt, &data, &body, err);
done:
    nd_plot_text_free(&data);
    nd_plot_text_free(&body);
    return rc;
}

/* ---- memory per pipeline stage ------------------------------------------- */

int nd_plot_stage_memory_write(const char *out_base, const nd_plot_stage_memory *plot,
                               const nd_plot_options *opt, nd_error *err)
{
    size_t cells;
    if (!plot) return nd_error_set(err, ND_EINPUT, "stage memory plot: no stages to draw");
    int rc = check_table("stage memory", plot->n_stages, "stages", plot->n_components,
                         "memory components", &cells, err);
    if (rc) return rc;
    if (!plot->component_names || !plot->component_mib)
        return nd_error_set(err, ND_EINPUT, "stage memory plot: component names or values missing");
    if (!nd_plot_any_finite(plot->component_mib, cells))
        return nd_error_set(err, ND_EINPUT, "stage memory plot: no finite value to draw");

    nd_plot_text data = {0}, body = {0};
    if ((rc = nd_plot_text_open(&data, err)) || (rc = nd_plot_text_open(&body, err))) goto done;
    FILE *fp = data.fp;
    fputs("# nd stage memory data: one row per pipeline stage, memory components in MiB; "
          "nan = not available (drawn as 0).\n# stage",
          fp);
    for (size_t k = 0; k < plot->n_components; k++)
        fputc(' ', fp), nd_plot_put_word(fp, plot->component_names[k]);
    fputc('\n', fp);
    for (size_t i = 0; i < plot->n_stages; i++) {
        put_row(fp, plot->stage_labels, i, plot->component_mib + i * plot->n_components, NULL,
                plot->n_components);
        fputc('\n', fp);
    }

    fp = body.fp;
    bool budget = nd_plot_has_budget(plot->budget_mib);
    put_stack_functions(fp);
    fputs("set title ", fp);
    nd_plot_put_string(fp,
                       nd_plot_title(opt, budget ? "Memory per pipeline stage against the budget"
                                                 : "Memory per pipeline stage"));
    fputs("\nset xlabel 'pipeline stage'\nset ylabel 'memory per device (MiB)'\n", fp);
    put_bar_settings(fp, "component", plot->n_stages);
    fputs("set xtics nomirror\nset ytics nomirror\n", fp);
    put_plot_start(fp);
    stack s = {2,   plot->n_components, NULL,        plot->component_names,
               "0", "($0-0.35)",        "($0+0.35)", true};
    put_stack(fp, &s);
    if (budget) nd_plot_put_budget(fp, plot->budget_mib, "", "");
    fputc('\n', fp);
    rc = finish_and_emit("stage memory", out_base, opt, &data, &body, err);
done:
    nd_plot_text_free(&data);
    nd_plot_text_free(&body);
    return rc;
}
