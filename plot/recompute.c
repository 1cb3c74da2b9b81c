/* Recompute potentials: how step time and peak memory move as one more layer
 * after another is recomputed fully, one line per configuration. */
#include "plot_internal.h"

#include <math.h>
#include <stdbool.h>

static int check_recompute(const nd_plot_recompute *plot, nd_error *err)
{
    if (!plot || plot->n_series == 0 || !plot->series)
        return nd_error_set(err, ND_EINPUT, "recompute plot: no configurations to draw");
    bool time = false, memory = false;
    for (size_t i = 0; i < plot->n_series; i++) {
        const nd_plot_recompute_series *s = &plot->series[i];
        const char *label = s->label ? s->label : "";
        if (s->n_steps == 0)
            return nd_error_set(err, ND_EINPUT, "recompute plot: configuration '%s' has no steps",
                                label);
        if (!s->step_ms || !s->peak_mib)
            return nd_error_set(err, ND_EINPUT,
                                "recompute plot: configuration '%s': step times or peak memory "
                                "missing",
                                label);
        time = time || nd_plot_any_finite(s->step_ms, s->n_steps);
        memory = memory || nd_plot_any_finite(s->peak_mib, s->n_steps);
    }
    if (!time) return nd_error_set(err, ND_EINPUT, "recompute plot: no finite step time to draw");
    if (!memory)
        return nd_error_set(err, ND_EINPUT, "recompute plot: no finite peak memory to draw");
    return ND_OK;
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

/* The lines of one panel (column 3: step time, 4: peak memory). Beyond the
 * palette's 16 colours the point shape changes, so lines stay distinct. */
static void put_lines(FILE *fp, const nd_plot_recompute *plot, int column, bool titled)
{
    static const int shapes[] = {7, 5, 9, 11};
    fputs("plot ", fp);
    for (size_t i = 0; i < plot->n_series; i++) {
        if (i) fputs(", \\\n     ", fp);
        fprintf(fp, "$DATA index %zu using 2:%d with linespoints pt %d lw 2 lc rgb '%s' ", i,
                column, shapes[(i / 16) % 4], nd_plot_color(i));
        if (titled)
            fputs("title ", fp), nd_plot_put_string(fp, plot->series[i].label);
        else
            fputs("notitle", fp);
    }
}

int nd_plot_recompute_write(const char *out_base, const nd_plot_recompute *plot,
                            const nd_plot_options *opt, nd_error *err)
{
    int rc = check_recompute(plot, err);
    if (rc) return rc;
    size_t last_step = 0;
    for (size_t i = 0; i < plot->n_series; i++)
        if (plot->series[i].n_steps - 1 > last_step) last_step = plot->series[i].n_steps - 1;
    /* One tick per step up to 10 steps, then about ten ticks, all whole. */
    size_t tick = last_step <= 10 ? 1 : (last_step + 9) / 10;
    bool budget = nd_plot_has_budget(plot->budget_mib);

    nd_plot_text data = {0}, body = {0};
    if ((rc = nd_plot_text_open(&data, err)) || (rc = nd_plot_text_open(&body, err))) goto done;
    put_data(data.fp, plot);
    FILE *fp = body.fp;
    fputs("set multiplot layout 1,2 title ", fp);
    nd_plot_put_string(fp, nd_plot_title(opt, "Recompute potentials: one more fully recomputed "
                                              "layer per step"));
    /* A fixed x range, half a step beyond the ends, so the budget line (a
     * function, sampled over the x range) spans the whole panel. */
    fputs("\nset grid\nset xlabel 'layers switched to full recompute (step)'\nset xrange [-0.5:",
          fp);
    nd_plot_put_number(fp, (double)last_step + 0.5);
    fprintf(fp,
            "]\nset offsets 0, 0, graph 0.05, graph 0.05\nset xtics 0, %zu\n"
            "set key top left opaque box Left reverse\n"
            "set title 'step time'\nset ylabel 'step time (ms)'\n",
            tick);
    put_lines(fp, plot, 3, true);
    fputs("\nset title 'peak memory'\nset ylabel 'peak memory (MiB)'\n", fp);
    fputs(budget ? "set key bottom left opaque box Left reverse\n" : "unset key\n", fp);
    put_lines(fp, plot, 4, false);
    if (budget) {
        /* The configurations are named in the left panel's legend; this one
         * only explains the dashed line. */
        nd_plot_put_budget(fp, plot->budget_mib, "", "");
    }
    fputs("\nunset multiplot\n", fp);
    if ((rc = nd_plot_text_finish(&data, err)) || (rc = nd_plot_text_finish(&body, err))) goto done;
    nd_plot_job job = {"recompute", data.buf, body.buf};
    rc = nd_plot_emit(out_base, opt, &job, err);
done:
    nd_plot_text_free(&data);
    nd_plot_text_free(&body);
    return rc;
}
