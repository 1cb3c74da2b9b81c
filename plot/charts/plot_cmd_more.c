/*
 * plot_cmd_more.c — nd-plot ratios and loo (nd-fit -o's <stem>_ratios.csv and <stem>_loo.csv)
 * and ranks and kernels (nd-classify's --detail and --kernels files), so that nd-plot draws
 * again every plot an nd program draws. Columns are read by the names formats.h gives them
 * (nd_fit_plot_csv, nd_kernels_csv) and, for the --detail file, by the part names nd-classify
 * writes there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/array.h"
#include "plot_cmd_internal.h"

/* ---- ratios (nd-fit) ---------------------------------------------------------- */

int nd_plot_cmd_ratios(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const nd_fit_plot_format *f = &nd_fit_plot_csv;
    const char *names[] = {f->ratio, f->value, f->lo, f->hi, f->status, f->note};
    size_t cols[ND_ARRAY_LEN(names)], n = in->t->n_rows;
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, ND_ARRAY_LEN(names), cols, err);
    if (rc) return rc;
    const char **keys = calloc(n, sizeof *keys), **notes = calloc(n, sizeof *notes);
    double *v = calloc(3 * n, sizeof *v);
    bool *fitted = calloc(n, sizeof *fitted);
    rc = keys && notes && v && fitted ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const char *key = nd_csv_table_cell(in->t, i, cols[0]), *st = nd_csv_table_cell(in->t, i, cols[4]);
        const char *note = nd_csv_table_cell(in->t, i, cols[5]);
        keys[i] = key ? key : "";
        notes[i] = note ? note : "";
        fitted[i] = st && !strcmp(st, "fitted");
        rc = nd_plot_cmd_numbers(in->t, i, cols + 1, 3, &v[3 * i], err);
    }
    /* the table is row-major (value, lo, hi of each ratio); the plot wants a column each */
    double *vals = calloc(3 * n, sizeof *vals);
    if (!rc && !vals) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t j = 0; j < 3; j++) vals[j * n + i] = v[3 * i + j];
    if (!rc) {
        nd_plot_options o = in->opt;
        if (!o.title) o.title = "Fitted ratios (measured / estimated), with 95 % intervals";
        nd_plot_intervals p = {n, keys, vals, vals + n, vals + 2 * n, fitted, notes, NULL};
        rc = nd_plot_intervals_write(base, &p, &o, err);
    }
    free(keys);
    free(notes);
    free(v);
    free(vals);
    free(fitted);
    return rc;
}

/* ---- loo (nd-fit) ------------------------------------------------------------------ */

/* Whether header name is "<panel><suffix>"; the panel's name's length into *len. */
static bool has_suffix(const char *name, const char *suffix, size_t *len)
{
    size_t n = strlen(name), s = strlen(suffix);
    if (n <= s || strcmp(name + n - s, suffix)) return false;
    *len = n - s;
    return true;
}

#define LOO_PANELS_MAX 32

int nd_plot_cmd_loo(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const nd_fit_plot_format *f = &nd_fit_plot_csv;
    const nd_csv_table *t = in->t;
    size_t label, n = t->n_rows, k = 0;
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, &f->label, 1, &label, err);
    if (rc) return rc;
    /* the panels: every "<name>:measured" column with its ":fitted" and ":left_out" */
    char names[LOO_PANELS_MAX][64];
    size_t cols[LOO_PANELS_MAX][3];
    for (size_t c = 0; c < t->n_cols && k < LOO_PANELS_MAX; c++) {
        size_t len;
        if (!has_suffix(t->header[c], f->measured, &len) || len >= sizeof names[k]) continue;
        snprintf(names[k], sizeof names[k], "%.*s", (int)len, t->header[c]);
        char fitted[96], left[96];
        snprintf(fitted, sizeof fitted, "%s%s", names[k], f->fitted);
        snprintf(left, sizeof left, "%s%s", names[k], f->left_out);
        const char *want[] = {t->header[c], fitted, left};
        if ((rc = nd_plot_cmd_columns(in, want, 3, cols[k], err))) return rc;
        k++;
    }
    if (!k)
        return nd_error_set(err, ND_EINPUT, "%s:%d: no '<panel>%s' column (the loo plot reads %s)", t->path,
                            t->header_line, f->measured, in->source);
    const char **labels = calloc(n, sizeof *labels);
    double *v = calloc(3 * k * n, sizeof *v);
    rc = labels && v ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const char *l = nd_csv_table_cell(t, i, label);
        labels[i] = l ? l : "";
        for (size_t p = 0; !rc && p < k; p++)
            for (int j = 0; !rc && j < 3; j++)
                rc = nd_plot_cmd_number(t, i, cols[p][j], &v[(3 * p + j) * n + i], err);
    }
    nd_plot_parity_panel panels[LOO_PANELS_MAX];
    for (size_t p = 0; p < k; p++)
        panels[p] = (nd_plot_parity_panel){names[p], v + 3 * p * n, v + (3 * p + 1) * n, v + (3 * p + 2) * n,
                                           "ms",     NULL};
    if (!rc) {
        nd_plot_options o = in->opt;
        if (!o.title) o.title = "Leave-one-out: each strategy predicted by ratios fitted on the others";
        nd_plot_parity p = {n, labels, k, panels, "fitted on every row", "left out", ND_PLOT_SCALE_AUTO};
        rc = nd_plot_parity_write(base, &p, &o, err);
    }
    free(labels);
    free(v);
    return rc;
}

/* ---- ranks and kernels (nd-classify) ---------------------------------------------- */

/* The parts of a rank's bar as nd-classify's --detail file names them, with the palette colour
 * its own plot gives each (nd-compare's folds' where one exists); comp is the sum of the
 * comp_* columns. */
static const struct {
    const char *name;
    size_t color;
} rank_parts[] = {{"comp", 0},    {"dp_wait", 1}, {"op_wait", 8}, {"mp_wait", 2},       {"sp_wait", 10},
                  {"ep_wait", 3}, {"cp_wait", 4}, {"pp_wait", 5}, {"unclassified", 15}, {"idle", 6}};
#define RANK_PARTS ND_ARRAY_LEN(rank_parts)

static const char *const comp_columns[] = {"comp_fw",  "comp_bw",    "comp_rec",
                                           "comp_opt", "comp_other", "comp_unsplit"};

/* The mean of each (input, rank)'s kept rank-steps (warmup 0), in the file's order of ranks. */
typedef struct rank_bar {
    const char *rank, *input;
    size_t steps;
    double sum[RANK_PARTS];
} rank_bar;

static int rank_row(const nd_csv_table *t, size_t i, const int *cols, const int *comp, double *parts,
                    nd_error *err)
{
    for (size_t p = 0; p < RANK_PARTS; p++) {
        parts[p] = 0;
        if (p == 0) {
            for (size_t c = 0; c < ND_ARRAY_LEN(comp_columns); c++) {
                double v;
                if (comp[c] < 0) continue;
                int rc = nd_plot_cmd_number(t, i, (size_t)comp[c], &v, err);
                if (rc) return rc;
                if (isfinite(v)) parts[0] += v;
            }
            continue;
        }
        if (cols[p] < 0) continue;
        double v;
        int rc = nd_plot_cmd_number(t, i, (size_t)cols[p], &v, err);
        if (rc) return rc;
        if (isfinite(v)) parts[p] = v;
    }
    return ND_OK;
}

int nd_plot_cmd_ranks(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const nd_csv_table *t = in->t;
    size_t rank_col, n = t->n_rows;
    const char *rank_name = "rank";
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, &rank_name, 1, &rank_col, err);
    if (rc) return rc;
    int cols[RANK_PARTS], comp[ND_ARRAY_LEN(comp_columns)], warmup = nd_csv_table_find(t, "warmup"),
                                                            input = nd_csv_table_find(t, "input");
    for (size_t p = 0; p < RANK_PARTS; p++) cols[p] = nd_csv_table_find(t, rank_parts[p].name);
    for (size_t c = 0; c < ND_ARRAY_LEN(comp_columns); c++) comp[c] = nd_csv_table_find(t, comp_columns[c]);
    rank_bar *bars = calloc(n, sizeof *bars);
    if (!bars) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t nb = 0, kept = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *w = warmup >= 0 ? nd_csv_table_cell(t, i, (size_t)warmup) : NULL;
        if (w && strcmp(w, "0")) continue;
        const char *r = nd_csv_table_cell(t, i, rank_col),
                   *src = input >= 0 ? nd_csv_table_cell(t, i, (size_t)input) : NULL;
        r = r ? r : "";
        src = src ? src : "";
        size_t b = 0;
        while (b < nb && !(strcmp(bars[b].rank, r) == 0 && strcmp(bars[b].input, src) == 0)) b++;
        if (b == nb) bars[nb++] = (rank_bar){r, src, 0, {0}};
        double parts[RANK_PARTS];
        rc = rank_row(t, i, cols, comp, parts, err);
        for (size_t p = 0; !rc && p < RANK_PARTS; p++) bars[b].sum[p] += parts[p];
        bars[b].steps++;
        kept++;
    }
    if (!rc && !nb)
        rc = nd_error_set(err, ND_EINPUT, "%s: every rank-step is warm-up (warmup 1): nothing to draw",
                          t->path);
    const char **labels = calloc(nb ? nb : 1, sizeof *labels), *names[RANK_PARTS];
    double *v = calloc((nb ? nb : 1) * RANK_PARTS, sizeof *v);
    size_t colors[RANK_PARTS];
    if (!rc && (!labels || !v)) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t b = 0; !rc && b < nb; b++) {
        labels[b] = bars[b].rank;
        for (size_t p = 0; p < RANK_PARTS; p++)
            v[b * RANK_PARTS + p] = bars[b].sum[p] / (double)bars[b].steps;
    }
    for (size_t p = 0; p < RANK_PARTS; p++) {
        names[p] = rank_parts[p].name;
        colors[p] = rank_parts[p].color;
    }
    if (!rc) {
        char title[160];
        snprintf(title, sizeof title,
                 "Step time of each rank, split into ND's parts (mean of %zu rank-steps)", kept);
        nd_plot_options o = in->opt;
        if (!o.title) o.title = title;
        nd_plot_stacks p = {nb, labels, RANK_PARTS, names, v, colors, "rank", "ms per step"};
        rc = nd_plot_stacks_write(base, &p, &o, err);
    }
    free(bars);
    free(labels);
    free(v);
    return rc;
}

int nd_plot_cmd_kernels(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const nd_kernels_format *f = &nd_kernels_csv;
    const char *names[] = {f->column[ND_KCOL_SECTION], f->column[ND_KCOL_NAME], f->column[ND_KCOL_KERNEL_MS]};
    size_t cols[ND_ARRAY_LEN(names)], n = in->t->n_rows;
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, ND_ARRAY_LEN(names), cols, err);
    if (rc) return rc;
    const char **labels = calloc(n, sizeof *labels);
    double *ms = calloc(n, sizeof *ms);
    if (!labels || !ms) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t k = 0;
    /* the classes that took time, the largest first (ties in file order), as nd-classify draws them */
    for (size_t i = 0; !rc && i < n; i++) {
        const char *section = nd_csv_table_cell(in->t, i, cols[0]);
        if (!section || strcmp(section, f->section_class)) continue;
        double v;
        if ((rc = nd_plot_cmd_size(in->t, i, cols[2], &v, err)) || !(v > 0)) continue;
        const char *name = nd_csv_table_cell(in->t, i, cols[1]);
        size_t at = k++;
        while (at > 0 && ms[at - 1] < v) {
            labels[at] = labels[at - 1];
            ms[at] = ms[at - 1];
            at--;
        }
        labels[at] = name ? name : "";
        ms[at] = v;
    }
    if (!rc && !k)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s: no '%s' row with time: nothing to draw (the kernels plot reads %s)",
                          in->t->path, f->section_class, in->source);
    if (!rc) {
        nd_plot_options o = in->opt;
        if (!o.title) o.title = "Device time by kernel class, ms per step";
        nd_plot_bars p = {k, labels, ms, 0, "kernel time per step (ms)"};
        rc = nd_plot_bars_write(base, &p, &o, err);
    }
    free(labels);
    free(ms);
    return rc;
}
