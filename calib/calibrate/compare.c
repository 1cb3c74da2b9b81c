/*
 * compare.c — estimate each measured row and compute the metrics.
 */
#include "nd/calibrate/compare.h"

#include <stdio.h>
#include "nd/base/progress.h"
#include "nd/inputs/layout.h"
#include "nd/charts/plot.h" /* ND_PLOT_JUDGED_PART_SHARE: the table and the plots judge alike */

#include <math.h>
#include <stdlib.h>
#include <string.h>

void nd_fold_estimate(const double p[ND_PARTS], double out[ND_FOLDS])
{
    for (int f = 0; f < ND_FOLDS; f++) {
        unsigned parts = nd_fold_parts((nd_fold)f);
        out[f] = 0;
        for (int i = 0; i < ND_PARTS; i++)
            if (parts & 1u << i) out[f] += p[i];
    }
}

static double has_or_zero(const nd_classified_row *r, nd_measured m)
{
    return r->has[m] ? r->measured[m] : 0.0;
}

/* Folds a measured row (absent columns count 0). */
static void nd_fold_measured(const nd_classified_row *r, double out[ND_FOLDS])
{
    out[ND_FOLD_COMP] = has_or_zero(r, ND_MEAS_COMP);
    out[ND_FOLD_DP] = has_or_zero(r, ND_MEAS_DP_WAIT) + has_or_zero(r, ND_MEAS_OP_WAIT);
    out[ND_FOLD_MP] = has_or_zero(r, ND_MEAS_MP_WAIT) + has_or_zero(r, ND_MEAS_SP_WAIT);
    out[ND_FOLD_EP] = has_or_zero(r, ND_MEAS_EP_WAIT);
    out[ND_FOLD_CP] = has_or_zero(r, ND_MEAS_CP_WAIT);
    out[ND_FOLD_PP] = has_or_zero(r, ND_MEAS_PP_WAIT);
    out[ND_FOLD_IDLE] = nd_classified_idle_ms(r);
    out[ND_FOLD_TOTAL] = r->time_ms;
}

/* The estimate's peak of the kind measured, and with -c the prediction intervals (peak: the
 * estimate's peak stage). */
static void peaks_and_intervals(const nd_compare_inputs *in, nd_compare_row *cr, const nd_stage_memory *peak)
{
    cr->peak_est_mib = nd_estimate_peak_of(&cr->est, in->peak);
    cr->step_halfwidth_ms = cr->peak_halfwidth_mib = NAN;
    if (!in->ratios) return;
    cr->step_halfwidth_ms = nd_prediction_step_halfwidth_ms(in->ratios, &cr->strategy, &cr->est);
    cr->peak_halfwidth_mib = nd_prediction_peak_halfwidth_mib(in->ratios, peak, in->peak, cr->peak_est_mib);
}

/* Every row's label in one pool: measured first, then written, so the pool never moves. */
static int make_labels(const nd_classified *round, nd_compare *out, nd_error *err)
{
    char buf[128];
    size_t total = 0;
    for (size_t i = 0; i < round->count; i++) {
        nd_classified_label(round, &round->rows[i], buf, sizeof buf);
        total += strlen(buf) + 1;
    }
    char *w = out->labels = malloc(total ? total : 1);
    if (!w) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; i < round->count; i++) {
        nd_classified_label(round, &round->rows[i], buf, sizeof buf);
        size_t n = strlen(buf) + 1;
        memcpy(w, buf, n);
        out->rows[i].label = w;
        w += n;
    }
    return ND_OK;
}

/* What a row's strategy is before its columns: ND's default for each of ND's dimensions the
 * round has no column for (docs/reference/nd-calibration.md §1: every degree 1), not the run
 * file's strategy. SP defaults off: ND's default (true) changes nothing in ND, whose cost
 * model runs SP whenever MP > 1 (a weakness), and would misprice a round run without it.
 * What ND's dimensions do not cover stays the run's: ZeRO, the schedule, recompute. */
static void nd_row_base(const nd_strategy *run, nd_strategy *out)
{
    nd_strategy_init(out);
    out->zero = run->zero;
    out->schedule = run->schedule == ND_SCHEDULE_INTERLEAVED ? ND_SCHEDULE_1F1B : run->schedule;
    out->recompute = run->recompute;
}

static int price_row(const nd_compare_inputs *in, const nd_classified *round, nd_compare_row *cr,
                     nd_error *err)
{
    const nd_classified_row *r = cr->row;
    const nd_run *run = in->run;
    nd_strategy base;
    nd_row_base(&run->strategy, &base);
    nd_classified_strategy(r, &base, &cr->strategy);
    nd_strategy *s = &cr->strategy;
    /* -mppb: the config's stage layers (FIRST/LAST) hold at its own PP */
    if (in->layout && s->pp == run->strategy.pp && s->vpp == 1 && !s->first_stage_layers &&
        !s->last_stage_layers) {
        s->first_stage_layers = run->strategy.first_stage_layers;
        s->last_stage_layers = run->strategy.last_stage_layers;
    }
    cr->devices = nd_strategy_devices(s);
    if (cr->devices < 0) /* degrees of 2^20 each: the product would overflow */
        return nd_error_set(err, ND_EINPUT,
                            "%s:%d: DP*MP*PP*CP = %lld*%lld*%lld*%lld is more than %.0f "
                            "devices",
                            round->path, r->line, (long long)s->dp, (long long)s->tp, (long long)s->pp,
                            (long long)s->cp, ND_STRATEGY_DEVICES_MAX);
    int64_t gbs = cr->gbs = s->dp * s->mb * s->mbs; /* three degrees of 2^20: fits int64 */
    if (r->devices && r->devices != cr->devices)
        return nd_error_set(err, ND_EINPUT, "%s:%d: column 'devices' says %lld but DP*MP*PP*CP = %lld",
                            round->path, r->line, (long long)r->devices, (long long)cr->devices);
    if (r->gbs && r->gbs != gbs)
        return nd_error_set(err, ND_EINPUT, "%s:%d: column 'gbs' says %lld but DP*MB*MBS = %lld", round->path,
                            r->line, (long long)r->gbs, (long long)gbs);
    nd_train train = run->train;
    if (r->seq_len) train.seq_len = r->seq_len;
    cr->seq_len = train.seq_len;
    int rc = nd_strategy_check(s, &run->model, cr->devices, gbs, train.seq_len, err);
    if (rc) return nd_error_prefix(err, "%s:%d: this row's strategy cannot be priced", round->path, r->line);
    nd_context ctx;
    nd_context_init(&ctx, &run->model, &train, in->device, cr->devices, in->budget_mib, in->ratios);
    nd_stage_memory *stages = calloc((size_t)s->pp, sizeof *stages);
    if (!stages) return nd_error_set(err, ND_ENOMEM, "out of memory");
    cr->est.stage_memory = stages;
    cr->est.stage_time = NULL;
    /* -mppb: the config's counts rescaled to the row's stages (ND's manual balance) */
    int64_t(*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] =
        in->layout ? calloc((size_t)s->pp, sizeof *layers) : NULL;
    nd_recompute_plan plan = {s->pp, layers, NULL, 0};
    bool planned = layers && !nd_layout_plan(&run->model, in->layout, s, layers);
    rc = nd_estimate_strategy(&ctx, s, NULL, planned ? &plan : NULL, &cr->est, err);
    free(layers);
    nd_stage_memory peak = rc ? (nd_stage_memory){0} : stages[cr->est.peak_stage];
    if (cr->peak_memory) *cr->peak_memory = peak;
    cr->est.stage_memory = NULL;
    free(stages);
    if (rc) return rc;
    peaks_and_intervals(in, cr, &peak);
    nd_fold_measured(r, cr->measured);
    nd_fold_estimate(cr->est.parts_ms, cr->estimated);
    cr->rank_ms = isnan(r->step_trainer_ms) ? r->time_ms : r->step_trainer_ms;
    return ND_OK;
}

static int by_rank(const void *a, const void *b)
{
    const nd_compare_row *p = a, *q = b;
    if (p->rank_cost != q->rank_cost) return p->rank_cost < q->rank_cost ? -1 : 1;
    return p->row->line - q->row->line;
}

/* Strategies of one cluster and batch rank by step time; a round mixing cluster sizes or
 * batches ranks by device-time per sequence (ms x devices / sequences), which is what a
 * faster strategy saves when it is scaled to the planned cluster. */
static void rank_costs(nd_compare *c)
{
    for (size_t i = 1; i < c->count; i++)
        if (c->rows[i].devices != c->rows[0].devices || c->rows[i].gbs != c->rows[0].gbs)
            c->normalized = true;
    for (size_t i = 0; i < c->count; i++) {
        nd_compare_row *r = &c->rows[i];
        double scale = c->normalized ? (double)r->devices / (double)r->gbs : 1.0;
        r->rank_cost = r->rank_ms * scale;
        r->est_cost = r->est.step_ms * scale;
    }
}

/* ND's Euclidean distance of shares (docs/reference/nd-calibration.md §4.3): each measured part's
 * share of the measured step against its share of the estimated step. */
static void share_distances(nd_compare *c)
{
    memset(c->share_distance, 0, sizeof c->share_distance);
    for (size_t i = 0; i < c->count; i++) {
        const nd_compare_row *r = &c->rows[i];
        double m = r->measured[ND_FOLD_TOTAL], e = r->est.step_ms, sq = 0;
        for (int f = 0; f < ND_FOLD_IDLE; f++) { /* ND's six parts: it prices no idle */
            if (!c->fold_measured[f]) continue;
            double d = (m > 0 ? r->measured[f] / m : 0) - (e > 0 ? r->estimated[f] / e : 0);
            c->share_distance[f] += fabs(d) / (double)c->count;
            sq += d * d;
        }
        c->share_distance[ND_FOLD_TOTAL] += sqrt(sq) / (double)c->count;
    }
}

/* A part is measured when the round has any of the columns it folds. */
static void measured_folds(const nd_classified *round, bool out[ND_FOLDS])
{
    const bool *col = round->column;
    out[ND_FOLD_COMP] = col[ND_MEAS_COMP];
    out[ND_FOLD_DP] = col[ND_MEAS_DP_WAIT] || col[ND_MEAS_OP_WAIT];
    out[ND_FOLD_MP] = col[ND_MEAS_MP_WAIT] || col[ND_MEAS_SP_WAIT];
    out[ND_FOLD_EP] = col[ND_MEAS_EP_WAIT];
    out[ND_FOLD_CP] = col[ND_MEAS_CP_WAIT];
    out[ND_FOLD_PP] = col[ND_MEAS_PP_WAIT];
    out[ND_FOLD_IDLE] = col[ND_MEAS_IDLE] || col[ND_MEAS_COMP];
    out[ND_FOLD_TOTAL] = true;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Strategies the round ran (rows with one label are one strategy measured again). Sorts the
 * labels, not copies of the rows: 8 bytes a row, not 768 (100,000 rows: 77 MB). */
static size_t distinct_strategies(const nd_compare *c)
{
    const char **labels = malloc((c->count ? c->count : 1) * sizeof *labels);
    if (!labels) return c->count;
    for (size_t i = 0; i < c->count; i++) labels[i] = c->rows[i].label;
    qsort(labels, c->count, sizeof *labels, by_text);
    size_t d = c->count ? 1 : 0;
    for (size_t i = 1; i < c->count; i++) d += strcmp(labels[i - 1], labels[i]) != 0;
    free(labels);
    return d;
}

static void fold_metrics(nd_compare *c, double *x, double *y)
{
    /* A correlation over one or two strategies is +-1 or undefined whatever the estimate:
     * not a number to read (nd-fit's rule, ND_FIT_MIN_DISTINCT). */
    bool ranks = distinct_strategies(c) >= 3;
    for (int f = 0; f < ND_FOLDS; f++) {
        for (size_t i = 0; i < c->count; i++) {
            x[i] = c->rows[i].estimated[f];
            y[i] = c->rows[i].measured[f];
        }
        nd_compare_metrics *m = &c->fold[f];
        m->pearson = ranks ? nd_metric_pearson(x, y, c->count) : NAN;
        m->spearman = ranks ? nd_metric_spearman(x, y, c->count) : NAN;
        /* A part below 0.5 % of its own row's step is noise to divide by: left out. */
        for (size_t i = 0; i < c->count && f != ND_FOLD_TOTAL; i++)
            if (y[i] < ND_PLOT_JUDGED_PART_SHARE * c->rows[i].measured[ND_FOLD_TOTAL]) y[i] = NAN;
        nd_metric_relative_errors(x, y, c->count, 0, &m->errors);
    }
}

static void memory_metrics(nd_compare *c, double *x, double *y, double budget_mib)
{
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++) {
        const nd_compare_row *r = &c->rows[i];
        if (isnan(r->row->peak_mib)) continue;
        x[n] = r->peak_est_mib;
        y[n] = r->row->peak_mib;
        n++;
        if (r->est.fits && r->row->peak_mib > budget_mib) c->fits_but_measured_over++;
    }
    c->memory_rows = n;
    c->memory.pearson = nd_metric_pearson(x, y, n);
    c->memory.spearman = nd_metric_spearman(x, y, n);
    nd_metric_relative_errors(x, y, n, 0, &c->memory.errors);
}

int nd_compare_round(const nd_compare_inputs *in, const nd_classified *round, nd_compare *out, nd_error *err)
{
    return nd_compare_round_progress(in, round, out, NULL, "", err);
}

int nd_compare_round_progress(const nd_compare_inputs *in, const nd_classified *round, nd_compare *out,
                              FILE *progress, const char *program, nd_error *err)
{
    memset(out, 0, sizeof *out);
    out->rows = calloc(round->count, sizeof *out->rows);
    if (in->keep_peak_memory) out->peak_memories = calloc(round->count, sizeof *out->peak_memories);
    if (!out->rows || (in->keep_peak_memory && !out->peak_memories)) {
        nd_compare_free(out);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    out->count = round->count;
    out->corrected = in->ratios != NULL;
    out->peak = in->peak;
    int rc = make_labels(round, out, err);
    if (rc) {
        nd_compare_free(out);
        return rc;
    }
    /* A round of 100,000 rows takes seconds to price: say how far it is. */
    char what[64];
    snprintf(what, sizeof what, "%s%spricing the round", program, *program ? ": " : "");
    nd_progress bar;
    nd_progress_begin(&bar, progress, what, "rows", (double)round->count);
    size_t kept = 0;
    for (size_t i = 0; i < round->count; i++) {
        if (i % 256 == 0) nd_progress_update(&bar, (double)i);
        nd_compare_row *cr = &out->rows[kept];
        const char *label = out->rows[i].label;
        memset(cr, 0, sizeof *cr);
        cr->row = &round->rows[i];
        cr->label = label;
        cr->peak_memory = out->peak_memories ? &out->peak_memories[kept] : NULL;
        rc = price_row(in, round, cr, err);
        if (rc == ND_EINPUT && cr->est.stages == 0 && strstr(err->message, "cannot be priced")) {
            /* ND leaves out a row it cannot cost; the first reason is kept to say so */
            if (!out->skipped++)
                snprintf(out->skip_note, sizeof out->skip_note,
                         "ND cannot cost %s, left out of the comparison: %s", label, err->message);
            rc = ND_OK;
            continue;
        }
        if (rc) {
            nd_compare_free(out);
            return rc;
        }
        out->trainer_steps += !isnan(round->rows[i].step_trainer_ms);
        kept++;
    }
    nd_progress_end(&bar);
    out->count = kept;
    if (!kept) {
        rc = nd_error_set(err, ND_EINPUT, "ND cannot cost any configuration of %s: %s", round->path,
                          strstr(out->skip_note, ": ") + 2);
        nd_compare_free(out);
        return rc;
    }
    rank_costs(out);
    measured_folds(round, out->fold_measured);
    share_distances(out);
    qsort(out->rows, out->count, sizeof *out->rows, by_rank);
    double *x = malloc(2 * out->count * sizeof *x);
    if (!x) {
        nd_compare_free(out);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    double *y = x + out->count;
    fold_metrics(out, x, y);
    for (size_t i = 0; i < out->count; i++) {
        x[i] = out->rows[i].est_cost;
        y[i] = out->rows[i].rank_cost;
    }
    out->top_k = nd_metric_top_k(x, y, out->count);
    out->regret = nd_metric_regret(x, y, out->count, &out->pick, &out->fastest);
    memory_metrics(out, x, y, in->budget_mib);
    free(x);
    return ND_OK;
}

void nd_compare_print_skips(FILE *diag, const nd_compare *c)
{
    if (!c->skipped || !diag) return;
    fprintf(diag, "note: %s\n", c->skip_note);
    if (c->skipped > 1)
        fprintf(diag, "note: %zu more rows left out for the same kind of reason\n", c->skipped - 1);
}

void nd_compare_free(nd_compare *c)
{
    free(c->rows);
    free(c->labels);
    free(c->peak_memories);
    c->rows = NULL;
    c->labels = NULL;
    c->peak_memories = NULL;
    c->count = 0;
}
