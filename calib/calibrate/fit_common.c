/*
 * fit_common.c — what every fit mode shares: the regressors and corrected steps of a
 * row, weights, held parts, intervals, leave-one-out metrics, the result's storage.
 */
#include "nd/calibrate/fit.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "nd/calibrate/metrics.h"

double nd_fit_regressor(const nd_fit_row *r, nd_ratio_key k)
{
    double x = 0;
    for (int p = 0; p < ND_PARTS; p++)
        if (nd_ratio_key_of_part((nd_part)p) == k) x += r->est[p];
    return x;
}

double nd_fit_corrected(const nd_fit_row *r, const double ratio[ND_RATIO_KEYS], nd_fit_mode mode)
{
    double t = 0;
    for (int p = 0; p < ND_PARTS; p++) {
        if (mode == ND_FIT_SUMS && p == ND_PART_OVERHEAD) continue; /* ND compares with busy */
        t += r->est[p] * ratio[nd_ratio_key_of_part((nd_part)p)];
    }
    return t;
}

double nd_fit_fixed_regressor(const nd_fit_row *r, nd_fixed_cost f)
{
    switch (f) {
    case ND_FIXED_KERNEL: return r->kernels / 1e3; /* KERNEL_US is µs per kernel */
    case ND_FIXED_MICROBATCH: return r->slots;
    default: return 1.0;
    }
}

static int by_label(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t nd_fit_distinct(const nd_fit_row *rows, size_t n)
{
    const char **labels = malloc(n * sizeof *labels);
    if (!labels) return n;
    for (size_t i = 0; i < n; i++) labels[i] = rows[i].label;
    qsort(labels, n, sizeof *labels, by_label);
    size_t d = n ? 1 : 0;
    for (size_t i = 1; i < n; i++) d += strcmp(labels[i - 1], labels[i]) != 0;
    free(labels);
    return d;
}

double nd_fit_predict(const nd_fit_row *r, const nd_fit_result *res)
{
    double t = nd_fit_corrected(r, res->ratio, res->mode);
    for (int k = 0; k < res->shapes; k++)
        if (!nd_shape_key_compare(&res->shape[k].key, &r->shape)) t += res->shape[k].delta * r->mb_work;
    for (int f = 0; res->mode != ND_FIT_SUMS && f < ND_FIXED_COSTS; f++)
        if (res->fixed[f].status == ND_RATIO_FITTED)
            t += res->fixed[f].value * nd_fit_fixed_regressor(r, (nd_fixed_cost)f);
    return t;
}

double nd_fit_weight(const nd_fit_options *o, const nd_fit_row *r)
{
    return o->weights == ND_WEIGHTS_ABSOLUTE ? 1.0 : 1.0 / (r->time_ms * r->time_ms);
}

void nd_fit_hold(nd_fit_result *res, nd_ratio_key k, const char *why)
{
    res->ratio[k] = 1.0;
    res->lo[k] = res->hi[k] = NAN;
    res->status[k] = ND_RATIO_HELD;
    snprintf(res->why[k], sizeof res->why[k], "%s", why);
}

/* 95 % interval from a standard error with dof degrees of freedom (Student's t). */
void nd_fit_interval(nd_fit_result *res, nd_ratio_key k, double se, int dof)
{
    if (dof < 1 || !isfinite(se)) {
        res->lo[k] = res->hi[k] = NAN;
        return;
    }
    double t = gsl_cdf_tdist_Pinv(0.975, (double)dof);
    res->lo[k] = res->ratio[k] - t * se;
    res->hi[k] = res->ratio[k] + t * se;
}

/* Leave-one-out summary of predictions against targets; ranking on rank_ms. */
void nd_fit_loo_metrics(const double *pred, const double *target, const nd_fit_row *rows, size_t n,
                        bool rank_steps, nd_fit_loo *out)
{
    memset(out, 0, sizeof *out);
    double *x = calloc(3 * n + 1, sizeof *x);
    if (!x) {
        out->mape = out->max_abs = out->spearman = out->regret = NAN;
        return;
    }
    double *y = x + n, *rank = y + n;
    size_t m = 0;
    /* Errors compare the prediction with its target; ranking compares it, on the ranking
     * scale, with what ranking measures. */
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pred[i]) || !isfinite(target[i])) continue;
        x[m] = pred[i];
        y[m] = target[i];
        rank[m] = target[i];
        if (rank_steps) {
            x[m] *= rows[i].rank_scale;
            y[m] *= rows[i].rank_scale;
            rank[m] = rows[i].rank_ms;
        }
        m++;
    }
    nd_error_stats e;
    nd_metric_relative_errors(x, y, m, 0, &e);
    out->mape = e.mape;
    out->max_abs = e.max_abs;
    out->n = m;
    out->spearman = nd_metric_spearman(x, y, m);
    out->regret = NAN;
    bool positive = m > 0;
    for (size_t i = 0; i < m; i++) positive &= rank[i] > 0;
    if (positive) out->regret = nd_metric_regret(x, rank, m, NULL, NULL);
    free(x);
}

int nd_fit_result_alloc(nd_fit_result *res, size_t n)
{
    memset(res, 0, sizeof *res);
    res->n = n;
    res->corrected_ms = calloc(n * (5 + 2 * ND_RATIO_KEYS), sizeof(double));
    if (!res->corrected_ms) return -1;
    res->left_out_ms = res->corrected_ms + n;
    res->target_ms = res->left_out_ms + n;
    res->memory_fitted = res->target_ms + n;
    res->memory_left_out = res->memory_fitted + n;
    res->group_target = res->memory_left_out + n;
    res->group_left_out = res->group_target + n * ND_RATIO_KEYS;
    for (size_t i = 0; i < n * ND_RATIO_KEYS; i++) res->group_target[i] = res->group_left_out[i] = NAN;
    for (size_t i = 0; i < n; i++) res->memory_fitted[i] = res->memory_left_out[i] = NAN;
    for (int f = 0; f < ND_FIXED_COSTS; f++)
        res->fixed[f] = (nd_fit_term){0, NAN, NAN, ND_RATIO_HELD, "not fitted", ""};
    for (int m = 0; m < ND_MEM_RATIOS; m++)
        res->memory[m] =
            (nd_fit_term){1, NAN, NAN, ND_RATIO_HELD, "the round measures no peak (peak_mib)", ""};
    res->loo_memory.mape = res->loo_memory.max_abs = res->loo_memory.spearman = res->loo_memory.regret = NAN;
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        res->ratio[k] = 1.0;
        res->lo[k] = res->hi[k] = NAN;
        res->source[k] = -1;
    }
    nd_fit_hold(res, ND_RATIO_FORWARD, "never fitted: calibrates offload only (add it by hand)");
    return 0;
}

void nd_fit_result_free(nd_fit_result *res)
{
    free(res->corrected_ms);
    res->corrected_ms = res->left_out_ms = res->target_ms = res->memory_fitted = res->memory_left_out = NULL;
    res->group_target = res->group_left_out = NULL;
}

/* The peak stage's memory as the fit splits it, for the kind of peak the round measures:
 * static (weights, gradients, optimizer states, and the runtime context when nvidia-smi
 * measured it), activations, transient (working tensors, buffers, and the allocator's
 * share unless torch's allocated peak was measured). */
static void memory_terms(const nd_stage_memory *m, nd_peak_kind kind, nd_fit_row *r)
{
    r->mem_static_mib =
        m->params_mib + m->grads_mib + m->optimizer_mib + (kind == ND_PEAK_DEVICE ? m->context_mib : 0);
    r->mem_activations_mib = m->activations_mib;
    r->mem_transient_mib =
        m->working_mib + m->buffers_mib + (kind == ND_PEAK_ALLOCATED ? 0 : m->allocator_mib);
}

int nd_fit_rows(const nd_compare *cmp, nd_fit_row **rows, nd_error *err)
{
    *rows = calloc(cmp->count, sizeof **rows);
    if (!*rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; i < cmp->count; i++) {
        const nd_compare_row *c = &cmp->rows[i];
        if (!c->peak_memory) {
            free(*rows);
            *rows = NULL;
            return nd_error_set(err, ND_ERUNTIME,
                                "internal: the comparison kept no peak memory "
                                "(nd_compare_inputs.keep_peak_memory)");
        }
        nd_fit_row *r = &(*rows)[i];
        snprintf(r->label, sizeof r->label, "%s", c->label);
        memcpy(r->est, c->est.raw_parts_ms, sizeof r->est);
        for (int m = 0; m < ND_MEAS_COUNT; m++) r->measured[m] = c->row->has[m] ? c->row->measured[m] : 0;
        r->time_ms = c->row->time_ms;
        r->rank_ms = c->rank_cost;
        r->rank_scale = c->rank_cost / c->rank_ms;
        r->idle_ms = nd_classified_idle_ms(c->row);
        r->busy_ms = nd_classified_busy_ms(c->row);
        r->kernels = c->est.kernels_per_step;
        r->slots = c->est.microbatch_slots;
        r->peak_mib = c->row->peak_mib;
        nd_shape_key_of(&c->strategy, &r->shape);
        for (int p = 0; p < ND_PARTS; p++)
            if (nd_shape_parts() & 1u << p) r->mb_work += r->est[p];
        memory_terms(c->peak_memory, cmp->peak, r); /* kept: fit_cmd asks keep_peak_memory */
    }
    return ND_OK;
}

void nd_fit_ratios_of(const nd_fit_result *res, nd_ratios *out)
{
    nd_ratios_init(out);
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        out->value[k] = res->ratio[k];
        out->stated[k] = k != ND_RATIO_FORWARD;
    }
    for (int f = 0; f < ND_FIXED_COSTS; f++) {
        out->fixed[f] = res->fixed[f].value;
        out->fixed_stated[f] = true;
    }
    for (int m = 0; m < ND_MEM_RATIOS; m++) {
        out->memory[m] = res->memory[m].value;
        out->memory_stated[m] = true;
    }
    out->time = res->time_spread;
    out->mem = res->memory_spread;
    out->shapes = res->shapes;
    memcpy(out->shape, res->shape, (size_t)res->shapes * sizeof res->shape[0]);
    out->shape_spread = res->shape_spread;
}
