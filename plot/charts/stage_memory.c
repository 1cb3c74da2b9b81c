/* Memory per pipeline stage: which stage is closest to the budget, and why.
 *
 * One stacked bar per stage, the components in GiB, the budget a dashed line,
 * each bar's share of the budget above it, the layers it offloads to the host
 * above that, and the title naming the strategy and where its peak is.
 * Components zero in every stage are left out. Where the bars are narrower than
 * their labels (16 stages and more), a stage is labelled only when it is the
 * peak or says something its neighbours do not, and never within a label's
 * width of another, so no two labels overlap. */
#include "plot_internal.h"
#include "nd/base/array.h"
#include "nd/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPONENTS_MAX 64

#define LABEL_MAX 48

typedef struct memory_view {
    size_t keep[COMPONENTS_MAX], n;
    char (*tic)[LABEL_MAX], (*share)[LABEL_MAX], (*host)[LABEL_MAX]; /* [n_stages] texts, "" = none */
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

/* Digits of a share of the budget: one just under 100 %, where "100 %" would read as a peak at
 * the budget though it is under it; none elsewhere. */
static int share_digits(double pct)
{
    return pct >= 99.5 && pct < 100 ? 1 : 0;
}

static double stage_total(const nd_plot_stage_memory *p, size_t i, bool firm_only)
{
    double t = 0;
    for (size_t k = 0; k < p->n_components - (firm_only ? p->n_reclaimable : 0); k++) t += cell(p, i, k);
    return t;
}

/* Whether slot i is at least `gap` slots from every kept label. */
static bool slot_free(const bool *keep, size_t n, size_t gap, size_t i)
{
    for (size_t j = i >= gap ? i - gap + 1 : 0; j < n && j < i + gap; j++)
        if (keep[j]) return false;
    return true;
}

/* Which of n labels to keep, so kept labels never overlap (`gap` slots apart): the one at
 * `first` (the peak) always; then each run of equal texts (text[i] as long as text[i + 1]
 * says the same) once, at the first of its slots that is free. keep[i] out. */
static void place_labels(char (*text)[LABEL_MAX], size_t n, size_t first, size_t gap, bool *keep)
{
    for (size_t i = 0; i < n; i++) keep[i] = gap <= 1 && text[i][0]; /* room for every label */
    if (gap <= 1) return;
    if (first < n && text[first][0]) keep[first] = true;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !strcmp(text[b], text[a])) b++;
        bool done = !text[a][0];
        for (size_t i = a; i < b && !done; i++) done = keep[i];
        for (size_t i = a; i < b && !done; i++)
            if (slot_free(keep, n, gap, i)) done = keep[i] = true;
        a = b;
    }
}

/* The slots a label of `chars` characters takes at this width (about 7.2 px a character at
 * 10 pt, and a gap), at least 1. */
static size_t label_slots(const nd_plot_options *opt, size_t n_stages, size_t chars)
{
    int width = opt && opt->width_px > 0 ? opt->width_px : ND_PLOT_WIDTH_DEFAULT;
    double slot_px = 0.88 * width / (double)n_stages, need = 7.2 * (double)chars + 8;
    size_t g = (size_t)ceil(need / slot_px);
    return g < 1 ? 1 : g;
}

/* The labels drawn: every stage's tic and share where the bars are wide enough; else the
 * peak's, the ends' and those that differ from the stage before, as far apart as they need. */
static int build_labels(const nd_plot_stage_memory *p, memory_view *v, const nd_plot_options *opt,
                        nd_error *err)
{
    size_t n = p->n_stages, longest = 1;
    v->tic = calloc(n, sizeof *v->tic);
    v->share = calloc(n, sizeof *v->share);
    v->host = calloc(n, sizeof *v->host);
    bool *keep = calloc(n, sizeof *keep);
    if (!v->tic || !v->share || !v->host || !keep) {
        free(keep);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    bool budget = nd_plot_has_budget(p->budget_mib);
    for (size_t i = 0; i < n; i++) {
        double firm = stage_total(p, i, true);
        if (budget)
            snprintf(v->share[i], LABEL_MAX, "%.*f %%", share_digits(100 * firm / p->budget_mib),
                     100 * firm / p->budget_mib);
        else
            snprintf(v->share[i], LABEL_MAX, "%.1f", firm / ND_MIB_PER_GIB);
        if (p->stage_labels)
            snprintf(v->tic[i], LABEL_MAX, "%.40s", p->stage_labels[i] ? p->stage_labels[i] : "");
        else
            snprintf(v->tic[i], LABEL_MAX, "%zu", i);
        if (strlen(v->tic[i]) > longest) longest = strlen(v->tic[i]);
        if (p->offloaded_layers && p->offloaded_layers[i] > 0)
            snprintf(v->host[i], LABEL_MAX, "%lld on host", (long long)p->offloaded_layers[i]);
    }
    /* shares: the peak's, and each run of equal shares once; then the offloaded layers, above */
    place_labels(v->share, n, v->peak_stage, label_slots(opt, n, 5), keep);
    for (size_t i = 0; i < n; i++)
        if (!keep[i]) v->share[i][0] = '\0';
    place_labels(v->host, n, n, label_slots(opt, n, 11), keep);
    for (size_t i = 0; i < n; i++)
        if (!keep[i]) v->host[i][0] = '\0';
    /* tics: every stage that has room, the ends and the peak first (each tic its own run) */
    size_t gap = label_slots(opt, n, longest);
    for (size_t i = 0; i < n; i++) keep[i] = false;
    const size_t must[] = {0, n - 1, v->peak_stage};
    for (size_t k = 0; k < ND_ARRAY_LEN(must); k++)
        if (slot_free(keep, n, gap, must[k]) || k == 0) keep[must[k]] = true;
    for (size_t i = 0; i < n; i++)
        if (!keep[i] && slot_free(keep, n, gap, i)) keep[i] = true;
    for (size_t i = 0; i < n; i++)
        if (!keep[i]) v->tic[i][0] = '\0';
    free(keep);
    return ND_OK;
}

static void view_free(memory_view *v)
{
    free(v->tic);
    free(v->share);
    free(v->host);
}

static void put_data(FILE *fp, const nd_plot_stage_memory *p, const memory_view *v)
{
    fputs(
        "# nd stage memory data: one row per pipeline stage, the memory components that are not 0 in "
        "every stage, in MiB (nan = not available, drawn as 0), then the labels drawn: the stage's tic, its "
        "share of the budget, its offloaded layers (\"\" = none, or no room).\n# stage",
        fp);
    for (size_t j = 0; j < v->n; j++) {
        fputc(' ', fp);
        nd_plot_put_word(fp, p->component_names[v->keep[j]]);
    }
    fputs(" tic share host\n", fp);
    for (size_t i = 0; i < p->n_stages; i++) {
        if (p->stage_labels)
            nd_plot_put_label(fp, p->stage_labels[i]);
        else
            fprintf(fp, "\"%zu\"", i);
        for (size_t j = 0; j < v->n; j++) {
            fputc(' ', fp);
            nd_plot_put_number(fp, p->component_mib[i * p->n_components + v->keep[j]]);
        }
        fputc(' ', fp);
        nd_plot_put_label(fp, v->tic[i]);
        fputc(' ', fp);
        nd_plot_put_label(fp, v->share[i]);
        fputc(' ', fp);
        nd_plot_put_label(fp, v->host[i]);
        fputc('\n', fp);
    }
}

/* "Memory per stage of DP 8 PP 2: peak 72.9 GiB on stage 0, 91 % of the 80 GiB budget, 7.1 GiB free". */
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
    if (nd_plot_has_budget(p->budget_mib) && n > 0 && (size_t)n < size) {
        /* The headroom too, in MiB under 1 GiB (share_digits: a peak just under reads "99.6 %"). */
        double pct = 100 * v->peak_mib / p->budget_mib, free_mib = p->budget_mib - v->peak_mib;
        n += snprintf(out + n, size - (size_t)n, ", %.*f %% of the %.4g GiB budget", share_digits(pct), pct,
                      p->budget_mib / ND_MIB_PER_GIB);
        if (n > 0 && (size_t)n < size && free_mib >= 0) {
            if (free_mib < ND_MIB_PER_GIB)
                n += snprintf(out + n, size - (size_t)n, ", %.0f MiB free", free_mib);
            else
                n += snprintf(out + n, size - (size_t)n, ", %.1f GiB free", free_mib / ND_MIB_PER_GIB);
        }
    }
    if (v->reclaimable_mib > 0 && n > 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, " (+%.1f GiB given back under pressure)",
                      v->reclaimable_mib / ND_MIB_PER_GIB);
    long long host = 0;
    for (size_t i = 0; p->offloaded_layers && i < p->n_stages; i++) host += p->offloaded_layers[i];
    if (host && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, "; %lld layer%s keep%s %s activations on the host", host,
                 host == 1 ? "" : "s", host == 1 ? "s" : "", host == 1 ? "its" : "their");
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
        "set ytics nomirror\nset xrange [-0.5:%zu - 0.5]\nset yrange [0:*]\nset offsets 0, 0, graph 0.14, 0\n"
        "unset key\n",
        p->n_stages);
    if (budget) {
        fputs("budget_mib = ", fp);
        nd_plot_put_number(fp, p->budget_mib);
        fputc('\n', fp);
    }
    int tic = 2 + (int)v->n; /* the label columns after the components */
    fprintf(fp, "plot $DATA using 0:(NaN):xtic(%d) notitle", tic);
    for (size_t j = 0; j < v->n; j++)
        fprintf(
            fp,
            ", \\\n     $DATA using 0:(below(2,%zu) / 1024):($0 - 0.35):($0 + 0.35):(below(2,%zu) / 1024):"
            "(below(2,%zu) / 1024) with boxxyerror %sfc rgb '%s' notitle",
            j + 1, j, j + 1, j < v->n_firm ? "" : "fs pattern 4 border rgb '#ffffff' ",
            nd_plot_color(v->keep[j]));
    if (budget)
        fprintf(fp, ", \\\n     budget_mib / 1024.0 with lines dt 2 lw 2 lc rgb '%s' notitle",
                ND_PLOT_BUDGET_COLOR);
    fprintf(
        fp,
        ", \\\n     $DATA using 0:(below(2,K) / 1024):%d with labels offset 0,0.7 notitle"
        ", \\\n     $DATA using 0:(below(2,K) / 1024):%d with labels offset 0,1.8 tc rgb '#4e79a7' notitle\n",
        tic + 1, tic + 2);
    const char *names[COMPONENTS_MAX], *colors[COMPONENTS_MAX];
    char budget_name[64];
    size_t n = 0;
    for (size_t j = 0; j < v->n; j++) {
        names[n] = p->component_names[v->keep[j]];
        colors[n++] = nd_plot_color(v->keep[j]);
    }
    if (budget) snprintf(budget_name, sizeof budget_name, "budget %.4g GiB", p->budget_mib / ND_MIB_PER_GIB);
    nd_plot_put_key_panel_line(fp, names, colors, n, NULL, budget ? budget_name : NULL, 0.09, 0.01, 0.11,
                               opt);
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
    b->plot.offloaded_layers = NULL; /* counted per stage, not per group: the title's total goes */
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
    if ((rc = build_labels(plot, &v, opt, err)) || (rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot, &v);
    put_body(t.body.fp, plot, &v, opt);
    rc = nd_plot_texts_emit(&t, "stage memory", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    view_free(&v);
    return rc;
}
