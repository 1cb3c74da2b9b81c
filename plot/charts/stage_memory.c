/* Memory per pipeline stage: which stage is closest to the budget, and why.
 *
 * One stacked bar per stage, the components in GiB, the budget a dashed line,
 * each bar's share of the budget above it, and the title naming the strategy
 * and where its peak is. Components zero in every stage are left out. */
#include "plot_internal.h"
#include "nd/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPONENTS_MAX 64

typedef struct memory_view {
    size_t keep[COMPONENTS_MAX], n;
    size_t n_firm; /* of the kept, those before the reclaimable ones */
    size_t peak_stage;
    double peak_mib;        /* the largest stage's firm memory (reclaimable left out) */
    double reclaimable_mib; /* what that stage holds beyond it, given back under pressure */
} memory_view;

static double cell(const nd_plot_stage_memory *p, size_t i, size_t k)
{
    double v = p->component_mib[i * p->n_components + k];
    return isfinite(v) ? v : 0;
}

static int check_memory(const nd_plot_stage_memory *p, nd_error *err)
{
    size_t cells;
    if (!p || p->n_stages == 0) return nd_error_set(err, ND_EINPUT, "stage memory plot: no stages to draw");
    if (p->n_components == 0)
        return nd_error_set(err, ND_EINPUT, "stage memory plot: no memory components to draw");
    if (p->n_components > COMPONENTS_MAX)
        return nd_error_set(err, ND_EINPUT, "stage memory plot: %zu components, at most %d", p->n_components,
                            COMPONENTS_MAX);
    if (p->n_reclaimable >= p->n_components)
        return nd_error_set(err, ND_EINPUT, "stage memory plot: %zu of %zu components reclaimable",
                            p->n_reclaimable, p->n_components);
    if (nd_plot_mul_size(p->n_stages, p->n_components, &cells))
        return nd_error_set(err, ND_EINPUT, "stage memory plot: too many stages");
    if (!p->component_names || !p->component_mib)
        return nd_error_set(err, ND_EINPUT, "stage memory plot: component names or values missing");
    if (!nd_plot_any_finite(p->component_mib, cells))
        return nd_error_set(err, ND_EINPUT, "stage memory plot: no finite value to draw");
    return ND_OK;
}

static void build_view(const nd_plot_stage_memory *p, memory_view *v)
{
    memset(v, 0, sizeof *v);
    size_t firm = p->n_components - p->n_reclaimable;
    for (size_t k = 0; k < p->n_components; k++) {
        bool any = false;
        for (size_t i = 0; i < p->n_stages && !any; i++) any = cell(p, i, k) != 0;
        if (any) {
            v->keep[v->n++] = k;
            v->n_firm += k < firm;
        }
    }
    v->peak_mib = -1;
    for (size_t i = 0; i < p->n_stages; i++) {
        double total = 0, held = 0;
        for (size_t k = 0; k < p->n_components; k++) *(k < firm ? &total : &held) += cell(p, i, k);
        if (total > v->peak_mib) {
            v->peak_mib = total;
            v->peak_stage = i;
            v->reclaimable_mib = held;
        }
    }
}

static void put_data(FILE *fp, const nd_plot_stage_memory *p, const memory_view *v)
{
    fputs("# nd stage memory data: one row per pipeline stage, the memory components that are not 0 in "
          "every stage, in MiB; nan = not available (drawn as 0).\n# stage",
          fp);
    for (size_t j = 0; j < v->n; j++) {
        fputc(' ', fp);
        nd_plot_put_word(fp, p->component_names[v->keep[j]]);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < p->n_stages; i++) {
        if (p->stage_labels)
            nd_plot_put_label(fp, p->stage_labels[i]);
        else
            fprintf(fp, "\"%zu\"", i);
        for (size_t j = 0; j < v->n; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, p->component_mib[i * p->n_components + v->keep[j]]);
        }
        fputc('\n', fp);
    }
}

/* "Memory per stage of DP 8 PP 2: peak 72.9 GiB on stage 0, 91 % of the 80 GiB budget". */
static void default_title(const nd_plot_stage_memory *p, const memory_view *v, char *out, size_t size)
{
    char stage[64];
    if (p->stage_labels && p->stage_labels[v->peak_stage])
        snprintf(stage, sizeof stage, "%s", p->stage_labels[v->peak_stage]);
    else
        snprintf(stage, sizeof stage, "%zu", v->peak_stage);
    /* Two lines (a newline in the title): the strategy, then its peak. */
    int n = snprintf(out, size, "Memory per pipeline stage%s%s\npeak %.1f GiB on stage %s",
                     p->strategy ? " of " : "", p->strategy ? p->strategy : "", v->peak_mib / ND_MIB_PER_GIB,
                     stage);
    if (nd_plot_has_budget(p->budget_mib) && n > 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, ", %.0f %% of the %.4g GiB budget",
                      100 * v->peak_mib / p->budget_mib, p->budget_mib / ND_MIB_PER_GIB);
    if (v->reclaimable_mib > 0 && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, " (+%.1f GiB given back under pressure)",
                 v->reclaimable_mib / ND_MIB_PER_GIB);
}

static void put_body(FILE *fp, const nd_plot_stage_memory *p, const memory_view *v,
                     const nd_plot_options *opt)
{
    bool budget = nd_plot_has_budget(p->budget_mib);
    char title[320];
    default_title(p, v, title, sizeof title);
    fprintf(
        fp,
        "v(c) = valid(c) ? column(c) : 0\n# below(c, k): where segment k of a stack starts (MiB)\n"
        "below(c, k) = sum [j=0:k-1] v(c + j)\nK = %zu\n# the first F segments must fit; the rest are given "
        "back under pressure\nF = %zu\n",
        v->n, v->n_firm);
    fputs("set multiplot title ", fp);
    nd_plot_put_lines(fp, nd_plot_title(opt, title));
    fprintf(
        fp,
        " font ',12'\nset lmargin at screen 0.09\nset rmargin at screen 0.97\nset tmargin at screen 0.90\n"
        "set bmargin at screen 0.20\nset style fill solid 1.0 border rgb '#ffffff'\nset grid ytics\n"
        "set xlabel 'pipeline stage'\nset ylabel 'memory per device (GiB)'\nset xtics nomirror scale 0\n"
        "set ytics nomirror\nset xrange [-0.5:%zu - 0.5]\nset yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n"
        "unset key\n",
        p->n_stages);
    if (budget) {
        fputs("budget_mib = ", fp);
        nd_plot_put_number(fp, p->budget_mib);
        fputc('\n', fp);
    }
    fputs("plot $DATA using 0:(NaN):xtic(1) notitle", fp);
    for (size_t j = 0; j < v->n; j++)
        fprintf(
            fp,
            ", \\\n     $DATA using 0:(below(2,%zu) / 1024):($0 - 0.35):($0 + 0.35):(below(2,%zu) / 1024):"
            "(below(2,%zu) / 1024) with boxxyerror %sfc rgb '%s' notitle",
            j + 1, j, j + 1, j < v->n_firm ? "" : "fs pattern 4 border rgb '#ffffff' ",
            nd_plot_color(v->keep[j]));
    if (budget)
        fprintf(fp,
                ", \\\n     budget_mib / 1024.0 with lines dt 2 lw 2 lc rgb '%s' notitle"
                ", \\\n     $DATA using 0:(below(2,K) / 1024):(sprintf('%%.0f %%%%', 100 * below(2,F) / "
                "budget_mib)) "
                "with labels offset 0,0.7 notitle\n",
                ND_PLOT_BUDGET_COLOR);
    else
        fputs(", \\\n     $DATA using 0:(below(2,K) / 1024):(sprintf('%.1f', below(2,F) / 1024)) with labels "
              "offset 0,0.7 notitle\n",
              fp);
    const char *names[COMPONENTS_MAX + 1], *colors[COMPONENTS_MAX + 1];
    char budget_name[64];
    size_t n = 0;
    for (size_t j = 0; j < v->n; j++) {
        names[n] = p->component_names[v->keep[j]];
        colors[n++] = nd_plot_color(v->keep[j]);
    }
    if (budget) {
        snprintf(budget_name, sizeof budget_name, "budget %.4g GiB", p->budget_mib / ND_MIB_PER_GIB);
        names[n] = budget_name;
        colors[n++] = ND_PLOT_BUDGET_COLOR;
    }
    nd_plot_put_key_panel(fp, names, colors, n, NULL, 0.09, 0.01, 0.11, opt);
    fputs("unset multiplot\n", fp);
}

/* More stages than a plot has room for bars (nd-search prices 512 at most; a memory CSV may
 * state 600,000): stages in BARS_MAX groups of consecutive ones, each drawn as its fullest
 * stage and labelled with the range it stands for ("120-239"), so the peak and how memory
 * runs along the pipeline stay visible. */
#define BARS_MAX 256

typedef struct binned {
    nd_plot_stage_memory plot;
    double *mib;
    const char **labels;
    char (*text)[48];
} binned;

static void binned_free(binned *b)
{
    free(b->mib);
    free(b->labels);
    free(b->text);
}

static int bin_stages(const nd_plot_stage_memory *p, binned *b, nd_error *err)
{
    size_t bins = BARS_MAX, k = p->n_components;
    memset(b, 0, sizeof *b);
    b->mib = calloc(bins * k, sizeof *b->mib);
    b->labels = calloc(bins, sizeof *b->labels);
    b->text = calloc(bins, sizeof *b->text);
    if (!b->mib || !b->labels || !b->text) {
        binned_free(b);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < bins; j++) {
        size_t lo = j * p->n_stages / bins, hi = (j + 1) * p->n_stages / bins, full = lo;
        double most = -1;
        for (size_t i = lo; i < hi; i++) {
            double total = 0;
            for (size_t c = 0; c < k; c++) total += cell(p, i, c);
            if (total > most) {
                most = total;
                full = i;
            }
        }
        memcpy(&b->mib[j * k], &p->component_mib[full * k], k * sizeof *b->mib);
        if (p->stage_labels)
            snprintf(b->text[j], sizeof b->text[j], "%.20s-%.20s",
                     p->stage_labels[lo] ? p->stage_labels[lo] : "",
                     p->stage_labels[hi - 1] ? p->stage_labels[hi - 1] : "");
        else
            snprintf(b->text[j], sizeof b->text[j], "%zu-%zu", lo, hi - 1);
        b->labels[j] = b->text[j];
    }
    b->plot = *p;
    b->plot.n_stages = bins;
    b->plot.component_mib = b->mib;
    b->plot.stage_labels = b->labels;
    return ND_OK;
}

int nd_plot_stage_memory_write(const char *out_base, const nd_plot_stage_memory *plot,
                               const nd_plot_options *opt, nd_error *err)
{
    int rc = check_memory(plot, err);
    if (rc) return rc;
    if (plot->n_stages > BARS_MAX) {
        binned b;
        if ((rc = bin_stages(plot, &b, err))) return rc;
        rc = nd_plot_stage_memory_write(out_base, &b.plot, opt, err);
        binned_free(&b);
        return rc;
    }
    memory_view v;
    build_view(plot, &v);
    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot, &v);
    put_body(t.body.fp, plot, &v, opt);
    rc = nd_plot_texts_emit(&t, "stage memory", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    return rc;
}
