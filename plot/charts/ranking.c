/* Ranking plot: why the best strategy is first, and whether each fits.
 *
 * Near-identical step times (5,868 ms against 5,915 ms) on an axis from 0 look
 * alike; what separates the candidates is a fraction of a percent in a few
 * parts. So the left panel draws each strategy's step as its difference from
 * #1, in % of #1's step, split into the parts that differ: a part a candidate
 * spends more on than #1 stacks right of 0, one it spends less on stacks left,
 * and a black mark sits at the net difference. Parts equal in every row carry
 * no information here and are left out, so the legend holds only parts that
 * explain an order. The right panel draws each peak memory as a bar against the
 * budget, in GiB, with its % of the budget. Strategies are rows, names on the
 * left where long ones read without rotation. */
#include "plot_internal.h"
#include "nd/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define RANKING_PARTS_MAX 64

typedef struct ranking_view {
    size_t keep[RANKING_PARTS_MAX], n_keep;
    double *step_ms;                /* [n] the sum of the finite parts */
    double best_ms;                 /* step of #1 */
    double lo_pct, hi_pct, net_max; /* extent of the stacks, largest |net| */
    double peak_max_mib;
} ranking_view;

static double part_at(const nd_plot_ranking *p, size_t i, size_t k)
{
    double v = p->parts_ms[i * p->n_parts + k];
    return isfinite(v) ? v : 0;
}

/* The difference of row i's part k from #1's, in % of #1's step. */
static double delta_pct(const nd_plot_ranking *p, const ranking_view *v, size_t i, size_t k)
{
    return v->best_ms > 0 ? 100.0 * (part_at(p, i, k) - part_at(p, 0, k)) / v->best_ms : 0;
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

/* Steps, kept parts and the extents the axes need. */
static void build_view(const nd_plot_ranking *p, ranking_view *v)
{
    for (size_t i = 0; i < p->n_strategies; i++) {
        double s = 0;
        for (size_t k = 0; k < p->n_parts; k++) s += part_at(p, i, k);
        v->step_ms[i] = s;
        if (isfinite(p->peak_mib[i]) && p->peak_mib[i] > v->peak_max_mib) v->peak_max_mib = p->peak_mib[i];
    }
    v->best_ms = v->step_ms[0];
    for (size_t k = 0; k < p->n_parts; k++) {
        bool differs = false;
        for (size_t i = 1; i < p->n_strategies && !differs; i++) differs = delta_pct(p, v, i, k) != 0;
        if (differs) v->keep[v->n_keep++] = k;
    }
    for (size_t i = 0; i < p->n_strategies; i++) {
        double pos = 0, neg = 0;
        for (size_t j = 0; j < v->n_keep; j++) {
            double d = delta_pct(p, v, i, v->keep[j]);
            if (d > 0)
                pos += d;
            else
                neg += d;
        }
        if (pos > v->hi_pct) v->hi_pct = pos;
        if (neg < v->lo_pct) v->lo_pct = neg;
        if (fabs(pos + neg) > v->net_max) v->net_max = fabs(pos + neg);
    }
}

static void put_data(FILE *fp, const nd_plot_ranking *p, const ranking_view *v)
{
    fputs("# nd ranking data: one row per strategy in rank order (best first): its step (ms, the sum of "
          "its parts), peak memory (MiB), then for each part that differs between rows its difference "
          "from #1 in % of #1's step.\n# label step_ms peak_mib",
          fp);
    for (size_t j = 0; j < v->n_keep; j++) {
        fputs(" d:", fp);
        nd_plot_put_word(fp, p->part_names[v->keep[j]]);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < p->n_strategies; i++) {
        nd_plot_put_label(fp, p->labels[i]);
        fputc(' ', fp);
        nd_plot_put_number(fp, v->step_ms[i]);
        fputc(' ', fp);
        nd_plot_put_number(fp, p->peak_mib[i]);
        for (size_t j = 0; j < v->n_keep; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, delta_pct(p, v, i, v->keep[j]));
        }
        fputc('\n', fp);
    }
}

/* The left panel: stacks of differences, a mark at the net, its text. */
static void put_delta_panel(FILE *fp, const ranking_view *v, double split)
{
    double span = v->hi_pct - v->lo_pct;
    if (!(span > 0)) span = 1;
    /* Digits enough for the largest difference to show two significant figures. */
    int digits = v->net_max < 1 ? 2 : v->net_max < 10 ? 1 : 0;
    fprintf(fp, "K = %zu\nbest_ms = ", v->n_keep);
    nd_plot_put_number(fp, v->best_ms);
    fputs("\n# pos(k), neg(k): where segment k of the right (slower) and left (faster) stacks starts\n"
          "pos(k) = sum [j=0:k-1] (v(4 + j) > 0 ? v(4 + j) : 0)\n"
          "neg(k) = sum [j=0:k-1] (v(4 + j) < 0 ? v(4 + j) : 0)\n"
          "lo(k) = v(4 + k) >= 0 ? pos(k) : neg(k + 1)\n"
          "hi(k) = v(4 + k) >= 0 ? pos(k + 1) : neg(k)\n"
          "net(x) = sum [j=0:K-1] v(4 + j)\n",
          fp);
    /* The net difference is written right of the panel, a column of its own that no bar reaches. */
    fprintf(fp, "set lmargin at screen %.3f\nset rmargin at screen 0.595\n", split);
    fputs("set title ", fp);
    char title[160];
    snprintf(title, sizeof title, "step time against #1 (%.1f ms), by part", v->best_ms);
    nd_plot_put_string(fp, title);
    fputs(
        "\nset xlabel 'slower than #1 (%)'\nset yzeroaxis lt 1 lw 1.5 lc rgb '#404040'\nset format x '%+g'\n"
        "xmin = ",
        fp);
    nd_plot_put_number(fp, v->lo_pct - 0.04 * span);
    fputs("\nxmax = ", fp);
    nd_plot_put_number(fp, v->hi_pct + 0.04 * span);
    fputs("\nset xrange [xmin:xmax]\nunset key\nset xtics ", fp);
    nd_plot_put_number(fp, nd_plot_nice_ceil(span / 5)); /* five or six tics: readable in a narrow panel */
    fputc('\n', fp);
    fputs("plot $DATA using (0):0:ytic(1) with points pt -1 notitle", fp);
    for (size_t j = 0; j < v->n_keep; j++) {
        fprintf(
            fp,
            ", \\\n     $DATA using ((lo(%zu) + hi(%zu)) / 2):0:(lo(%zu)):(hi(%zu)):($0 - 0.32):($0 + 0.32) "
            "with boxxyerror fc rgb '%s' notitle",
            j, j, j, j, nd_plot_color(v->keep[j]));
    }
    fputs(", \\\n     $DATA using (net(0)):0 with points pt 9 ps 1.3 lc rgb '#000000' notitle", fp);
    fprintf(fp,
            ", \\\n     $DATA using (xmax):0:($0 == 0 ? sprintf('%%.1f ms', $2) : "
            "sprintf('%%+.%df %%%%, %%+.0f ms', net(0), $2 - best_ms)) with labels left offset char 1,0 "
            "notitle\n",
            digits);
}

/* The right panel: peak memory bars against the budget, % of the budget inside. */
static void put_memory_panel(FILE *fp, const nd_plot_ranking *p, const ranking_view *v)
{
    bool budget = nd_plot_has_budget(p->budget_mib);
    double top = v->peak_max_mib > p->budget_mib || !budget ? v->peak_max_mib : p->budget_mib;
    fputs("set lmargin at screen 0.74\nset rmargin at screen 0.97\nset xtics autofreq\nunset ytics\nunset "
          "yzeroaxis\n"
          "set format x '%g'\nset xlabel 'GiB'\nunset key\nset xrange [0:",
          fp);
    nd_plot_put_number(fp, nd_plot_nice_ceil(top > 0 ? top * 1.05 / ND_MIB_PER_GIB : 1));
    fputs("]\n", fp);
    if (budget) {
        fputs("budget_mib = ", fp);
        nd_plot_put_number(fp, p->budget_mib);
        fprintf(
            fp,
            "\nset title sprintf('peak memory, budget %%.4g GiB', budget_mib / 1024.0)\n"
            "set arrow 1 from budget_mib / 1024.0, graph 0 to budget_mib / 1024.0, graph 1 nohead dt 2 lw 2 "
            "lc rgb '%s' front\n"
            "# over the budget: red; within 5 %% of it: amber; else grey\n"
            "shade(m) = m > budget_mib ? 0xe15759 : m > 0.95 * budget_mib ? 0xf1ce63 : 0xbac2cc\n",
            ND_PLOT_BUDGET_COLOR);
    } else {
        fputs("set title 'peak memory'\nshade(m) = 0xbac2cc\n", fp);
    }
    fputs(
        "plot $DATA using ($3 / 2048):0:(0):($3 / 1024):($0 - 0.32):($0 + 0.32):(shade($3)) with boxxyerror "
        "fc rgb variable notitle",
        fp);
    if (budget)
        fputs(", \\\n     $DATA using ($3 / 1024):0:(sprintf('%.0f %%', 100 * $3 / budget_mib)) with labels "
              "right "
              "offset char -0.5,0 tc rgb '#202020' notitle",
              fp);
    else
        fputs(", \\\n     $DATA using ($3 / 1024):0:(sprintf('%.1f', $3 / 1024)) with labels right "
              "offset char -0.5,0 tc rgb '#202020' notitle",
              fp);
    fputs("\nunset arrow 1\n", fp);
}

int nd_plot_ranking_write(const char *out_base, const nd_plot_ranking *plot, const nd_plot_options *opt,
                          nd_error *err)
{
    int rc = check_ranking(plot, err);
    if (rc) return rc;
    ranking_view v;
    memset(&v, 0, sizeof v);
    v.step_ms = calloc(plot->n_strategies, sizeof *v.step_ms);
    if (!v.step_ms) return nd_error_set(err, ND_ENOMEM, "out of memory");
    build_view(plot, &v);
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot, &v);
    FILE *fp = t.body.fp;
    char title[160];
    snprintf(title, sizeof title, "Top %zu strategies: what separates them from #1, and their memory",
             plot->n_strategies);
    double split = nd_plot_label_margin(plot->labels, plot->n_strategies, opt);
    fputs("set multiplot title ", fp);
    nd_plot_put_string(fp, nd_plot_title(opt, title));
    fprintf(fp,
            " font ',12'\nv(c) = valid(c) ? column(c) : 0\nset style fill solid 1.0 border rgb '#ffffff'\n"
            "set yrange [%zu - 0.5:-0.5]\nset ytics nomirror scale 0\nset grid xtics\n"
            "set tmargin at screen 0.90\nset bmargin at screen 0.20\n",
            plot->n_strategies);
    put_delta_panel(fp, &v, split);
    put_memory_panel(fp, plot, &v);
    const char *names[RANKING_PARTS_MAX], *colors[RANKING_PARTS_MAX];
    for (size_t j = 0; j < v.n_keep; j++) {
        names[j] = plot->part_names[v.keep[j]];
        colors[j] = nd_plot_color(v.keep[j]);
    }
    nd_plot_put_key_panel(fp, names, colors, v.n_keep, "net", 0.03, 0.01, 0.125, opt);
    fputs("unset multiplot\n", fp);
    rc = nd_plot_texts_emit(&t, "ranking", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    free(v.step_ms);
    return rc;
}
