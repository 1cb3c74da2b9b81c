/*
 * plot_cmd_search.c — nd-plot ranking, memory and potentials, from the CSVs
 * of nd-search (ranking.csv, memory.csv, recompute_potentials.csv) and
 * nd-estimate --memory-csv. Labels are built as nd-search builds them
 * ("3: DP 8 MP 4", "TOP 1: DP 32 MB 8"), so a redrawn plot reads the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "plot_cmd_internal.h"

typedef char label_text[ND_PLOT_CMD_LABEL_MAX + 64];

/* ---- ranking ---------------------------------------------------------------- */

#define RANKING_TOP_DEFAULT 10 /* nd-search's -t default */

typedef struct ranking_buf {
    const char **labels;
    label_text *text;
    double *parts, *peak, *lo, *hi, *pf; /* [n * parts], [n] each */
    int *tied;
    size_t *variants; /* [rows] rows folded into each shown row, itself included */
} ranking_buf;

static int ranking_alloc(ranking_buf *b, size_t n, size_t rows, nd_error *err)
{
    b->labels = calloc(n, sizeof *b->labels);
    b->text = calloc(n, sizeof *b->text);
    b->parts = calloc(n * (ND_PARTS + 4), sizeof *b->parts);
    b->tied = calloc(n, sizeof *b->tied);
    b->variants = calloc(rows, sizeof *b->variants);
    if (!b->labels || !b->text || !b->parts || !b->tied || !b->variants)
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    b->peak = b->parts + n * ND_PARTS;
    b->lo = b->peak + n;
    b->hi = b->lo + n;
    b->pf = b->hi + n;
    return ND_OK;
}

static void ranking_free(ranking_buf *b)
{
    free(b->labels);
    free(b->text);
    free(b->parts);
    free(b->tied);
    free(b->variants);
}

/* The optional columns of nd-search's answer (-1 when absent: an older file, every row shown,
 * no intervals). */
typedef struct answer_cols {
    int folded, lo, hi, tied, pf, headroom, interval;
} answer_cols;

static void find_answer(const nd_csv_table *t, answer_cols *a)
{
    const nd_ranking_format *f = &nd_ranking_csv;
    a->folded = nd_csv_table_find(t, f->folded_into);
    a->lo = nd_csv_table_find(t, f->step_lo_ms);
    a->hi = nd_csv_table_find(t, f->step_hi_ms);
    a->tied = nd_csv_table_find(t, f->tied_with_best);
    a->pf = nd_csv_table_find(t, f->p_fastest);
    a->headroom = nd_csv_table_find(t, f->headroom_mib);
    a->interval = nd_csv_table_find(t, f->interval);
}

static int optional_number(const nd_csv_table *t, size_t i, int col, double *v, nd_error *err)
{
    *v = NAN;
    return col < 0 ? ND_OK : nd_plot_cmd_number(t, i, (size_t)col, v, err);
}

/* Row i of the file as the k-th row drawn. */
static int ranking_row(const nd_csv_table *t, size_t i, size_t k, const size_t *cols, const answer_cols *a,
                       ranking_buf *b, nd_error *err)
{
    const char *rank = nd_csv_table_cell(t, i, cols[0]);
    int64_t r;
    if (!rank || nd_parse_int64(rank, 1, INT64_MAX, &r))
        return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not a whole number >= 1", t->path,
                            t->lines[i], nd_ranking_csv.rank, rank ? rank : "");
    char deg[ND_PLOT_CMD_LABEL_MAX];
    int rc = nd_plot_cmd_degrees(t, i, deg, err);
    if (rc) return rc;
    if (b->variants[i] > 1)
        snprintf(b->text[k], sizeof b->text[k], "#%zu  %s (+%zu)", k + 1, deg, b->variants[i] - 1);
    else
        snprintf(b->text[k], sizeof b->text[k], "#%zu  %s", k + 1, deg);
    b->labels[k] = b->text[k];
    double tied = NAN;
    if (!rc) rc = nd_plot_cmd_size(t, i, cols[1], &b->peak[k], err);
    if (!rc) rc = optional_number(t, i, a->lo, &b->lo[k], err);
    if (!rc) rc = optional_number(t, i, a->hi, &b->hi[k], err);
    if (!rc) rc = optional_number(t, i, a->pf, &b->pf[k], err);
    if (!rc) rc = optional_number(t, i, a->tied, &tied, err);
    b->tied[k] = isnan(tied) ? -1 : tied == 1;
    return rc ? rc : nd_plot_cmd_numbers(t, i, cols + 2, ND_PARTS, &b->parts[k * ND_PARTS], err);
}

/* Which rows are shown (folded_into blank) and how many fold into each; folded_into names the
 * rank of an earlier row. */
static int count_variants(const nd_csv_table *t, const answer_cols *a, size_t *variants, nd_error *err)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        const char *into = a->folded < 0 ? NULL : nd_csv_table_cell(t, i, (size_t)a->folded);
        int64_t r;
        if (!into) {
            variants[i]++;
            continue;
        }
        if (nd_parse_int64(into, 1, (int64_t)i, &r))
            return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not the rank of an earlier row",
                                t->path, t->lines[i], nd_ranking_csv.folded_into, into);
        variants[r - 1]++;
    }
    return ND_OK;
}

/* The first -t distinct choices in file order (nd-search writes them best first): the rows it
 * shows, the rows folded into them counted. The budget is -M's, else the first row's peak plus
 * its headroom. */
int nd_plot_cmd_ranking(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const char *names[2 + ND_PARTS] = {nd_ranking_csv.rank, nd_ranking_csv.memory_mb};
    size_t cols[2 + ND_PARTS];
    memcpy(names + 2, nd_part_names, sizeof nd_part_names);
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, 2 + ND_PARTS, cols, err);
    if (rc) return rc;
    const nd_csv_table *t = in->t;
    answer_cols a;
    find_answer(t, &a);
    /* by default the choices the search judged (tied_with_best stated), else nd-search's -t default */
    size_t judged = 0;
    for (size_t i = 0; a.tied >= 0 && a.folded >= 0 && i < t->n_rows; i++)
        judged += nd_csv_table_cell(t, i, (size_t)a.tied) != NULL;
    size_t top = in->top ? in->top : judged ? judged : RANKING_TOP_DEFAULT;
    size_t n = top < t->n_rows ? top : t->n_rows;
    ranking_buf b = {0};
    rc = ranking_alloc(&b, n, t->n_rows, err);
    if (!rc) rc = count_variants(t, &a, b.variants, err);
    size_t k = 0, shown = 0;
    for (size_t i = 0; !rc && i < t->n_rows; i++) {
        if (!b.variants[i]) continue;
        shown++;
        if (k < n) rc = ranking_row(t, i, k++, cols, &a, &b, err);
    }
    double budget = in->budget_mib, headroom = NAN;
    if (!rc && !isfinite(budget) && a.headroom >= 0 &&
        !(rc = nd_plot_cmd_number(t, 0, (size_t)a.headroom, &headroom, err)) && isfinite(headroom))
        budget = b.peak[0] + headroom;
    if (!rc) {
        const char *kind = a.interval >= 0 ? nd_csv_table_cell(t, 0, (size_t)a.interval) : NULL;
        char subtitle[256], interval[64];
        const char *slash = strrchr(t->path, '/');
        snprintf(subtitle, sizeof subtitle, "%zu of %zu distinct choices in %.80s%s%s", k, shown,
                 slash ? slash + 1 : t->path, kind ? ", " : "", kind ? kind : "");
        snprintf(interval, sizeof interval, "its %s interval", kind ? kind : "");
        nd_plot_ranking p = {k,
                             b.labels,
                             ND_PARTS,
                             nd_part_names,
                             b.parts,
                             b.peak,
                             budget,
                             a.lo >= 0 ? b.lo : NULL,
                             a.hi >= 0 ? b.hi : NULL,
                             a.tied >= 0 ? b.tied : NULL,
                             a.pf >= 0 ? b.pf : NULL,
                             kind ? interval : NULL,
                             subtitle};
        rc = nd_plot_ranking_write(base, &p, &in->opt, err);
    }
    ranking_free(&b);
    return rc;
}

/* ---- memory per stage --------------------------------------------------------- */

#define COMPONENTS ND_MEMORY_COMPONENTS

/* The budget in the file (budget_mib, the same in every row), unless --budget. */
static int memory_budget(const nd_plot_cmd_input *in, double *budget, nd_error *err)
{
    int col = nd_csv_table_find(in->t, nd_memory_csv.budget_mib);
    *budget = in->budget_mib;
    if (isfinite(*budget) || col < 0) return ND_OK;
    return nd_plot_cmd_size(in->t, 0, (size_t)col, budget, err);
}

int nd_plot_cmd_memory(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    /* The columns nd_report_memory_csv writes, named as nd-search's memory plot names them. */
    const nd_memory_format *f = &nd_memory_csv;
    size_t cols[COMPONENTS], n = in->t->n_rows;
    /* held_mib (the last) came later: a file without it held nothing */
    int held = nd_csv_table_find(in->t, f->component[COMPONENTS - 1]);
    size_t read = held >= 0 ? COMPONENTS : COMPONENTS - 1;
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, f->component, read, cols, err);
    if (rc) return rc;
    int stage = nd_csv_table_find(in->t, f->stage);
    const char **labels = calloc(n, sizeof *labels);
    double *v = calloc(n * COMPONENTS, sizeof *v), budget;
    rc = labels && v ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const char *s = stage >= 0 ? nd_csv_table_cell(in->t, i, (size_t)stage) : NULL;
        labels[i] = s ? s : "";
        rc = nd_plot_cmd_sizes(in->t, i, cols, read, &v[i * COMPONENTS], err);
    }
    if (!rc) rc = memory_budget(in, &budget, err);
    if (!rc) {
        nd_plot_stage_memory p = {n,    stage >= 0 ? labels : NULL, COMPONENTS, f->title, v, budget,
                                  NULL, ND_MEMORY_RECLAIMABLE,      NULL};
        rc = nd_plot_stage_memory_write(base, &p, &in->opt, err);
    }
    free(labels);
    free(v);
    return rc;
}

/* ---- recompute potentials ------------------------------------------------------ */

/* Rows of one configuration (one TOP value) are together, steps 0, 1, 2, ...
 * in order, as nd-search writes them; the plot's x is the step number. */
typedef struct potentials {
    size_t n_series;
    nd_plot_recompute_series *series; /* [rows] at most */
    label_text *labels;               /* [rows] */
    int64_t *tops;                    /* [rows] the TOP of each series */
    double *step_ms, *peak_mib;       /* [rows], the series' runs point into them */
} potentials;

static int whole_cell(const nd_csv_table *t, size_t i, size_t col, int64_t min, int64_t *v, nd_error *err)
{
    const char *c = nd_csv_table_cell(t, i, col);
    if (c && nd_parse_int64(c, min, INT64_MAX, v) == 0) return ND_OK;
    return nd_error_set(err, ND_EINPUT, "%s:%d: column '%s': '%s' is not a whole number >= %lld", t->path,
                        t->lines[i], t->header[col], c ? c : "", (long long)min);
}

/* Starts a series for row i (TOP top), or refuses a TOP seen before. */
static int start_series(const nd_csv_table *t, size_t i, int64_t top, potentials *p, nd_error *err)
{
    for (size_t s = 0; s < p->n_series; s++)
        if (p->tops[s] == top)
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: %s %lld appears again after other configurations: the "
                                "rows of one configuration must be together",
                                t->path, t->lines[i], nd_potentials_csv.top, (long long)top);
    char deg[ND_PLOT_CMD_LABEL_MAX];
    int rc = nd_plot_cmd_degrees(t, i, deg, err);
    if (rc) return rc;
    size_t s = p->n_series++;
    p->tops[s] = top;
    snprintf(p->labels[s], sizeof p->labels[s], "%s %lld: %s", nd_potentials_csv.top, (long long)top, deg);
    p->series[s] = (nd_plot_recompute_series){p->labels[s], 0, &p->step_ms[i], &p->peak_mib[i]};
    return ND_OK;
}

/* cols: TOP, step, score, memory_mb. Stops after `limit` configurations. */
static int potentials_read(const nd_csv_table *t, const size_t *cols, size_t limit, potentials *p,
                           nd_error *err)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        int64_t top, step;
        int rc;
        if ((rc = whole_cell(t, i, cols[0], 1, &top, err)) || (rc = whole_cell(t, i, cols[1], 0, &step, err)))
            return rc;
        bool same = p->n_series && p->tops[p->n_series - 1] == top;
        if (!same && p->n_series == limit) break;
        if (!same && (rc = start_series(t, i, top, p, err))) return rc;
        nd_plot_recompute_series *s = &p->series[p->n_series - 1];
        if (step != (int64_t)s->n_steps)
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: column '%s': %lld, expected %zu (%s %lld's steps "
                                "count 0, 1, 2, ... in order)",
                                t->path, t->lines[i], nd_potentials_csv.step, (long long)step, s->n_steps,
                                nd_potentials_csv.top, (long long)top);
        if ((rc = nd_plot_cmd_size(t, i, cols[2], &p->step_ms[i], err)) ||
            (rc = nd_plot_cmd_size(t, i, cols[3], &p->peak_mib[i], err)))
            return rc;
        s->n_steps++;
    }
    return ND_OK;
}

int nd_plot_cmd_potentials(const char *base, const nd_plot_cmd_input *in, nd_error *err)
{
    const nd_potentials_format *f = &nd_potentials_csv;
    const char *const names[] = {f->top, f->step, f->score, f->memory_mb};
    size_t cols[4], n = in->t->n_rows;
    int rc = nd_plot_cmd_need_rows(in, err);
    if (!rc) rc = nd_plot_cmd_columns(in, names, 4, cols, err);
    if (rc) return rc;
    potentials p = {0};
    p.series = calloc(n, sizeof *p.series);
    p.labels = calloc(n, sizeof *p.labels);
    p.tops = calloc(n, sizeof *p.tops);
    p.step_ms = calloc(2 * n, sizeof *p.step_ms);
    rc = p.series && p.labels && p.tops && p.step_ms ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        p.peak_mib = p.step_ms + n;
        rc = potentials_read(in->t, cols, in->top ? in->top : n, &p, err);
    }
    if (!rc) {
        nd_plot_recompute r = {p.n_series, p.series, in->budget_mib};
        rc = nd_plot_recompute_write(base, &r, &in->opt, err);
    }
    free(p.series);
    free(p.labels);
    free(p.tops);
    free(p.step_ms);
    return rc;
}
