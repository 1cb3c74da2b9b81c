/* Recompute potentials: how step time and peak memory move as one more layer
 * after another is recomputed fully, one line per configuration. */
#include "plot_internal.h"
#include "nd/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_recompute(const nd_plot_recompute *plot, nd_error *err)
{
    if (!plot || plot->n_series == 0 || !plot->series)
        return nd_error_set(err, ND_EINPUT, "recompute plot: no configurations to draw");
    bool time = false, memory = false;
    for (size_t i = 0; i < plot->n_series; i++) {
        const nd_plot_recompute_series *s = &plot->series[i];
        const char *label = s->label ? s->label : "";
        if (s->n_steps == 0)
            return nd_error_set(err, ND_EINPUT, "recompute plot: configuration '%s' has no steps", label);
        if (!s->step_ms || !s->peak_mib)
            return nd_error_set(err, ND_EINPUT,
                                "recompute plot: configuration '%s': step times or peak memory "
                                "missing",
                                label);
        time = time || nd_plot_any_finite(s->step_ms, s->n_steps);
        memory = memory || nd_plot_any_finite(s->peak_mib, s->n_steps);
    }
    if (!time) return nd_error_set(err, ND_EINPUT, "recompute plot: no finite step time to draw");
    if (!memory) return nd_error_set(err, ND_EINPUT, "recompute plot: no finite peak memory to draw");
    return ND_OK;
}

/* Series j draws nothing of its own when an earlier one has exactly its numbers: it is
 * named in that one's legend instead ("TOP 1 (= TOP 2)"), so coinciding lines are said to
 * coincide rather than hidden under each other. (close_mib: unused, as same_memory's.) */
static bool same_series(const nd_plot_recompute_series *a, const nd_plot_recompute_series *b,
                        double close_mib)
{
    (void)close_mib;
    if (a->n_steps != b->n_steps) return false;
    for (size_t i = 0; i < a->n_steps; i++)
        if (a->step_ms[i] != b->step_ms[i] || a->peak_mib[i] != b->peak_mib[i]) return false;
    return true;
}

/* Peak memory within close_mib of each other at every step: lines of the memory panel that lie
 * on each other, drawn once and named together, "=" when exactly equal, "~" when close. */
static bool same_memory(const nd_plot_recompute_series *a, const nd_plot_recompute_series *b,
                        double close_mib)
{
    if (a->n_steps != b->n_steps) return false;
    for (size_t i = 0; i < a->n_steps; i++)
        if (a->peak_mib[i] != b->peak_mib[i] && !(fabs(a->peak_mib[i] - b->peak_mib[i]) <= close_mib))
            return false;
    return true;
}

/* The memory panel's "close": MEMORY_CLOSE of its largest peak (the axis' scale). 0.5 % of
 * 75 GiB is 0.38 GiB, about 3 px of a panel 490 px tall, under a point's size. */
#define MEMORY_CLOSE 0.005
static double memory_close_mib(const nd_plot_recompute *plot)
{
    double top = 0;
    for (size_t i = 0; i < plot->n_series; i++)
        for (size_t j = 0; j < plot->series[i].n_steps; j++)
            if (isfinite(plot->series[i].peak_mib[j])) top = fmax(top, plot->series[i].peak_mib[j]);
    return MEMORY_CLOSE * top;
}

/* shown_as[j]: the series whose line stands for j (itself when it is drawn), by `same`. */
static void find_duplicates(const nd_plot_recompute *plot, size_t *shown_as, double close_mib,
                            bool (*same)(const nd_plot_recompute_series *, const nd_plot_recompute_series *,
                                         double))
{
    for (size_t j = 0; j < plot->n_series; j++) {
        shown_as[j] = j;
        for (size_t i = 0; i < j && shown_as[j] == j; i++)
            if (shown_as[i] == i && same(&plot->series[i], &plot->series[j], close_mib)) shown_as[j] = i;
    }
}

/* One block per configuration, separated by two blank lines, so the script
 * selects a configuration with `index i`. */
static void put_data(FILE *fp, const nd_plot_recompute *plot)
{
    fputs("# nd recompute data: one block per configuration (blocks separated by two blank "
          "lines); step 0 is the starting plan, each further step recomputes one more layer "
          "fully; step time in ms, peak memory in MiB.\n"
          "# configuration step step_ms peak_mib\n",
          fp);
    for (size_t i = 0; i < plot->n_series; i++) {
        const nd_plot_recompute_series *s = &plot->series[i];
        if (i) fputs("\n\n", fp);
        for (size_t j = 0; j < s->n_steps; j++) {
            nd_plot_put_label(fp, s->label);
            fprintf(fp, " %zu ", j);
            nd_plot_put_number(fp, s->step_ms[j]);
            fputc(' ', fp);
            nd_plot_put_number(fp, s->peak_mib[j]);
            fputc('\n', fp);
        }
    }
}

/* The legend text of drawn series i: its label, and those it stands for. */
static void series_title(const nd_plot_recompute *plot, const size_t *shown_as, size_t i, bool short_name,
                         char *out, size_t size)
{
    const char *own = plot->series[i].label ? plot->series[i].label : "";
    size_t used =
        (size_t)snprintf(out, size, "%.*s", short_name ? (int)strcspn(own, ":") : (int)strlen(own), own);
    bool first = true;
    for (size_t j = i + 1; j < plot->n_series && used < size; j++) {
        if (shown_as[j] != i) continue;
        /* Only the name before ':' of the others ("TOP 2"), the degrees being the same line's. */
        const char *label = plot->series[j].label ? plot->series[j].label : "";
        int len = (int)strcspn(label, ":");
        const char *sep =
            first ? (same_memory(&plot->series[i], &plot->series[j], 0) ? " (= " : " (~ ") : ", ";
        if (!first && !same_memory(&plot->series[i], &plot->series[j], 0)) sep = ", ~ ";
        used += (size_t)snprintf(out + used, size - used, "%s%.*s", sep, len, label);
        first = false;
    }
    if (!first && used < size) snprintf(out + used, size - used, ")");
}

/* The lines of one panel (column 3: step time in ms, 4: peak memory, drawn in GiB). Beyond
 * the palette's 16 colours the point shape changes, so lines stay distinct. The first
 * configuration is drawn last, thicker, so a line close to it never hides it; the key is
 * inverted to list it first all the same. */
static void put_lines(FILE *fp, const nd_plot_recompute *plot, const size_t *shown_as, int column,
                      bool short_titles)
{
    static const int shapes[] = {7, 5, 9, 11};
    fputs("plot ", fp);
    bool first = true;
    for (size_t k = plot->n_series; k-- > 0;) {
        size_t i = k;
        if (shown_as[i] != i) continue;
        if (!first) fputs(", \\\n     ", fp);
        first = false;
        fprintf(fp, "$DATA index %zu using 2:%s with linespoints pt %d ps %s lw %s lc rgb '%s' ", i,
                column == 3 ? "3" : "($4 / 1024)", shapes[(i / 16) % 4], i == 0 ? "1.2" : "0.8",
                i == 0 ? "3" : "1.5", nd_plot_color(i));
        char title[512];
        series_title(plot, shown_as, i, short_titles, title, sizeof title);
        fputs("title ", fp);
        nd_plot_put_string(fp, title);
    }
}

/* What the budget does to the configurations, in words under the panels: it never binds
 * (every step fits), or from which step each configuration fits. */
static void put_budget_note(FILE *fp, const nd_plot_recompute *plot, const size_t *shown_as)
{
    char note[640];
    size_t used = 0;
    bool binds = false;
    double cost_ms = 0, saved_mib = 0;
    size_t counted = 0;
    for (size_t i = 0; i < plot->n_series; i++) {
        const nd_plot_recompute_series *s = &plot->series[i];
        size_t last = s->n_steps - 1;
        for (size_t j = 0; j < s->n_steps; j++) binds |= s->peak_mib[j] > plot->budget_mib;
        if (last > 0 && isfinite(s->step_ms[last]) && isfinite(s->step_ms[0]) && isfinite(s->peak_mib[0]) &&
            isfinite(s->peak_mib[last])) {
            cost_ms += (s->step_ms[last] - s->step_ms[0]) / (double)last;
            saved_mib += (s->peak_mib[0] - s->peak_mib[last]) / (double)last;
            counted++;
        }
    }
    if (!binds) {
        used = (size_t)snprintf(note, sizeof note,
                                "The %.4g GiB budget never binds: all fit at every step, so "
                                "more recompute only costs time",
                                plot->budget_mib / ND_MIB_PER_GIB);
        if (counted)
            snprintf(note + used, sizeof note - used, " (%+.1f ms a layer for %.2f GiB, on average)",
                     cost_ms / (double)counted, saved_mib / (double)counted / 1024);
    } else {
        used = (size_t)snprintf(note, sizeof note,
                                "Fits the %.4g GiB budget:", plot->budget_mib / ND_MIB_PER_GIB);
        bool first = true;
        for (size_t i = 0; i < plot->n_series && used < sizeof note; i++) {
            if (shown_as[i] != i) continue;
            const nd_plot_recompute_series *s = &plot->series[i];
            size_t j = 0;
            while (j < s->n_steps && !(s->peak_mib[j] <= plot->budget_mib)) j++;
            const char *label = s->label ? s->label : "";
            int len = (int)strcspn(label, ":");
            if (j < s->n_steps)
                used += (size_t)snprintf(note + used, sizeof note - used, "%s %.*s from %s%zu",
                                         first ? "" : ",", len, label, first ? "step " : "", j);
            else
                used += (size_t)snprintf(note + used, sizeof note - used, "%s %.*s never", first ? "" : ",",
                                         len, label);
            first = false;
        }
    }
    fputs("set label 2 ", fp);
    nd_plot_put_string(fp, note);
    fputs(" at screen 0.5, screen 0.925 center tc rgb '#c00000'\n", fp);
}

int nd_plot_recompute_write(const char *out_base, const nd_plot_recompute *plot, const nd_plot_options *opt,
                            nd_error *err)
{
    int rc = check_recompute(plot, err);
    if (rc) return rc;
    size_t last_step = 0;
    for (size_t i = 0; i < plot->n_series; i++)
        if (plot->series[i].n_steps - 1 > last_step) last_step = plot->series[i].n_steps - 1;
    /* One tick per step up to 10 steps, then about ten ticks, all whole. */
    size_t tick = last_step <= 10 ? 1 : (last_step + 9) / 10;
    bool budget = nd_plot_has_budget(plot->budget_mib);
    size_t *shown_as = calloc(2 * plot->n_series, sizeof *shown_as), *memory_as = shown_as + plot->n_series;
    if (!shown_as) return nd_error_set(err, ND_ENOMEM, "out of memory");
    find_duplicates(plot, shown_as, 0, same_series);
    find_duplicates(plot, memory_as, memory_close_mib(plot), same_memory);

    nd_plot_texts t = {0};
    if ((rc = nd_plot_texts_open(&t, err))) goto done;
    put_data(t.data.fp, plot);
    FILE *fp = t.body.fp;
    fputs("set multiplot layout 1,2 title ", fp);
    nd_plot_put_string(fp, nd_plot_title(opt, "Recompute potentials: one more fully recomputed "
                                              "layer per step"));
    /* A fixed x range, half a step beyond the ends, so the budget line (a
     * function, sampled over the x range) spans the whole panel. */
    fputs(" font ',12'\nset tmargin 5\nset grid\nset xlabel 'layers switched to full recompute (step)'\nset "
          "xrange [-0.5:",
          fp);
    nd_plot_put_number(fp, (double)last_step + 0.5);
    fprintf(fp,
            "]\nset offsets 0, 0, graph 0.05, graph 0.05\nset xtics 0, %zu\n"
            "set key top left opaque box Left reverse invert\n"
            "set title 'step time'\nset ylabel 'step time (ms)'\n",
            tick);
    if (budget) put_budget_note(fp, plot, shown_as);
    put_lines(fp, plot, shown_as, 3, false);
    /* The memory panel names its lines too, short: configurations of the same memory lie on one
     * line, named together ("TOP 1 (= TOP 2, ~ TOP 3)", same_memory). */
    fputs("\nunset label 2\nset title 'peak memory'\nset ylabel 'peak memory per device (GiB)'\n", fp);
    fputs("set key bottom left opaque box Left reverse invert\n", fp);
    put_lines(fp, plot, memory_as, 4, true);
    if (budget) {
        /* The configurations are named in the left panel's legend; this one
         * only explains the dashed line. */
        char title[64];
        snprintf(title, sizeof title, "memory budget, %.4g GiB", plot->budget_mib / ND_MIB_PER_GIB);
        fputs(", \\\n     ", fp);
        nd_plot_put_number(fp, plot->budget_mib / ND_MIB_PER_GIB);
        fprintf(fp, " with lines dt 2 lw 2 lc rgb '%s' title ", ND_PLOT_BUDGET_COLOR);
        nd_plot_put_string(fp, title);
    }
    fputs("\nunset multiplot\n", fp);
    rc = nd_plot_texts_emit(&t, "recompute", out_base, opt, err);
done:
    nd_plot_texts_free(&t);
    free(shown_as);
    return rc;
}
