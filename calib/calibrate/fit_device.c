/*
 * fit_device.c — a device's physical parameters fitted to measured steps by nonlinear
 * least squares (GSL multifit_nlinear), the estimate treated as a black box of the device.
 *
 * Residuals, one per measured quantity: (estimated − measured) / the row's measured step,
 * for the step and for every part the row measures (so a classified round constrains
 * compute, each wait and idle directly), plus one per fitted field, prior_weight × (t − t0),
 * the weak pull toward the base device in the transformed coordinate t. Jacobian by
 * forward differences in t. Intervals: the covariance s² (JᵀJ)⁻¹ at the optimum, mapped
 * through the transform (so they stay inside the bounds). Leave-one-out is linearised
 * (e_i / (1 − h_i), h from J); leave-one-model-out refits without each model.
 */
#include "nd/calibrate/fit_device.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/calibrate/compare.h"
#include "nd/costmodel/estimate.h"
#include "nd/base/array.h"

#define P(f, lo, hi, lg, top)                                                                                \
    {                                                                                                        \
#f, offsetof(nd_device, f), lo, hi, lg, top                                                          \
    }
/* Bounds: physically possible values, wide enough that a fit is not held by them; the
 * efficiencies measured at their best (GEMM tables and MAMF, flash-attention benchmarks,
 * STREAM, nccl-tests: docs/devices.md) no higher than the base device states them. */
const nd_device_param_info nd_device_params[] = {
    P(gemm_efficiency, 0.2, 1.0, false, true),
    P(gemm_half_dim, 1, 8192, true, false),
    P(gemm_fixed_us, 0, 50, false, false),
    P(attention_fwd_efficiency, 0.05, 1.0, false, true),
    P(attention_bwd_efficiency, 0.05, 1.0, false, true),
    P(attention_half_seq, 1, 65536, true, false),
    P(hbm_efficiency, 0.2, 1.0, false, true),
    P(kernel_launch_us, 0, 50, false, false),
    P(host_dispatch_us, 0.5, 500, true, false),
    P(host_sync_us, 0, 2000, false, false),
    P(microbatch_host_ms, 0, 50, false, false),
    P(step_host_ms, 0, 2000, false, false),
    P(intra_efficiency, 0.05, 1.0, false, true),
    P(intra_latency_us, 0, 100, false, false),
    P(intra_base_us, 0, 500, false, false),
    P(inter_efficiency, 0.02, 1.0, false, true),
    P(inter_latency_us, 0, 500, false, false),
    P(inter_base_us, 0, 2000, false, false),
};
#undef P
const size_t nd_device_param_count = ND_ARRAY_LEN(nd_device_params);
_Static_assert(ND_ARRAY_LEN(nd_device_params) <= ND_DEVICE_FIT_MAX_PARAMS, "the table fits the result");

void nd_device_fit_options_init(nd_device_fit_options *o)
{
    o->prior_weight = 0.05;
    o->min_effect = 1e-3;
    o->leave_one_model_out = true;
}

/* ---- the transform ---------------------------------------------------------------- */

static double logistic(double t)
{
    return 1.0 / (1.0 + exp(-t));
}

static double to_value(const nd_device_param_info *p, double t)
{
    if (p->log_scale) return exp(log(p->lo) + (log(p->hi) - log(p->lo)) * logistic(t));
    return p->lo + (p->hi - p->lo) * logistic(t);
}

/* The coordinate of value v, kept a thousandth of the range inside the bounds: at a bound
 * the logistic is flat and the fit could not move the field again. */
static double to_coordinate(const nd_device_param_info *p, double v)
{
    double a = p->log_scale ? log(p->lo) : p->lo, b = p->log_scale ? log(p->hi) : p->hi;
    double x = p->log_scale ? log(fmax(v, p->lo)) : v;
    double u = (x - a) / (b - a), margin = 1e-3;
    u = fmin(fmax(u, margin), 1 - margin);
    return log(u / (1 - u));
}

static double *field(nd_device *d, const nd_device_param_info *p)
{
    return (double *)((char *)d + p->offset);
}

/* Sets a fitted field. The best attention kernel's rate carries the other kernels' a device
 * states (FlashAttention-2's, cuDNN's) by the same factor: a round run on one of them moves the
 * kernel it ran, and the kernels keep their measured ratios. */
static void set_field(nd_device *d, const nd_device_param_info *p, double v)
{
    double *f = field(d, p), was = *f;
    *f = v;
    if (was <= 0) return;
    if (f == &d->attention_fwd_efficiency) {
        d->fa2_fwd_efficiency *= v / was;
        d->cudnn_fwd_efficiency *= v / was;
    } else if (f == &d->attention_bwd_efficiency) {
        d->fa2_bwd_efficiency *= v / was;
        d->cudnn_bwd_efficiency *= v / was;
    }
}

/* ---- pricing ------------------------------------------------------------------------ */

int nd_device_fit_price(const nd_device *d, const nd_device_fit_row *row, double *step_ms,
                        double parts[ND_FOLDS], nd_error *err)
{
    nd_context ctx;
    nd_context_init(&ctx, row->model, &row->train, d, row->devices, 0, NULL);
    nd_estimate est = {0};
    int rc = nd_estimate_strategy(&ctx, &row->strategy, NULL, NULL, &est, err);
    if (rc) return nd_error_prefix(err, "%s", row->label);
    *step_ms = est.raw_step_ms;
    if (parts) nd_fold_estimate(est.raw_parts_ms, parts);
    return ND_OK;
}

void nd_device_fit_rows(const nd_compare *cmp, const nd_run *run, int model_index, nd_device_fit_row *out)
{
    for (size_t i = 0; i < cmp->count; i++) {
        const nd_compare_row *c = &cmp->rows[i];
        nd_device_fit_row *r = &out[i];
        memset(r, 0, sizeof *r);
        r->model = &run->model;
        r->train = run->train;
        r->train.seq_len = c->seq_len;
        r->strategy = c->strategy;
        r->devices = c->devices;
        r->time_ms = c->row->time_ms;
        for (int f = 0; f < ND_FOLD_TOTAL; f++)
            if (cmp->fold_measured[f]) {
                r->measured[f] = c->measured[f];
                r->has_fold[f] = true;
            }
        r->model_index = model_index;
        snprintf(r->label, sizeof r->label, "%s", c->label);
    }
}

/* ---- the problem -------------------------------------------------------------------- */

typedef struct problem {
    const nd_device *base;
    const nd_device_fit_row *rows;
    size_t n;        /* rows */
    const bool *use; /* [n] rows in this fit (NULL: all) */
    size_t p;        /* fitted fields */
    size_t param[ND_DEVICE_FIT_MAX_PARAMS];
    double top[ND_DEVICE_FIT_MAX_PARAMS]; /* param[j]'s ceiling (INFINITY: none) */
    double t0[ND_DEVICE_FIT_MAX_PARAMS];
    double prior_weight;
    size_t residuals; /* data residuals (before the p prior ones) */
    nd_error *err;
    int rc;
} problem;

static size_t row_residuals(const nd_device_fit_row *r)
{
    size_t k = 1;
    for (int f = 0; f < ND_FOLD_TOTAL; f++) k += r->has_fold[f];
    return k;
}

static void device_at(const problem *pb, const gsl_vector *t, nd_device *d)
{
    *d = *pb->base;
    for (size_t j = 0; j < pb->p; j++) {
        const nd_device_param_info *info = &nd_device_params[pb->param[j]];
        set_field(d, info, fmin(to_value(info, gsl_vector_get(t, j)), pb->top[j]));
    }
}

static int residuals(const gsl_vector *t, void *data, gsl_vector *f)
{
    problem *pb = data;
    nd_device d;
    device_at(pb, t, &d);
    size_t k = 0;
    for (size_t i = 0; i < pb->n; i++) {
        const nd_device_fit_row *r = &pb->rows[i];
        if (pb->use && !pb->use[i]) continue;
        double step = 0, parts[ND_FOLDS];
        if (nd_device_fit_price(&d, r, &step, parts, pb->err)) {
            pb->rc = pb->err->code;
            return GSL_EBADFUNC;
        }
        gsl_vector_set(f, k++, (step - r->time_ms) / r->time_ms);
        for (int fo = 0; fo < ND_FOLD_TOTAL; fo++)
            if (r->has_fold[fo]) gsl_vector_set(f, k++, (parts[fo] - r->measured[fo]) / r->time_ms);
    }
    for (size_t j = 0; j < pb->p; j++)
        gsl_vector_set(f, k++, pb->prior_weight * (gsl_vector_get(t, j) - pb->t0[j]));
    return GSL_SUCCESS;
}

/* Forward differences in t: the estimate has kinks (max of host and device time, the
 * straggler stage), so a step of 1e-3 in t (a few hundred-thousandths of the range)
 * rather than the round-off optimum. */
static int jacobian(const gsl_vector *t, void *data, gsl_matrix *J)
{
    problem *pb = data;
    size_t m = J->size1;
    gsl_vector *f0 = gsl_vector_alloc(m), *f1 = gsl_vector_alloc(m), *tt = gsl_vector_alloc(t->size);
    int rc = (!f0 || !f1 || !tt) ? GSL_ENOMEM : residuals(t, data, f0);
    for (size_t j = 0; !rc && j < pb->p; j++) {
        const double h = 1e-3;
        gsl_vector_memcpy(tt, t);
        gsl_vector_set(tt, j, gsl_vector_get(t, j) + h);
        if ((rc = residuals(tt, data, f1))) break;
        for (size_t i = 0; i < m; i++)
            gsl_matrix_set(J, i, j, (gsl_vector_get(f1, i) - gsl_vector_get(f0, i)) / h);
    }
    gsl_vector_free(f0);
    gsl_vector_free(f1);
    gsl_vector_free(tt);
    return rc;
}

/* ---- which fields the rows exercise ------------------------------------------------- */

/* Largest relative move of any row's step or measured part when the field moves a tenth
 * of its range (a factor 1.5 on a log scale). */
/* Largest relative move of any row's step when the field moves by a tenth of its value (a
 * hundredth of its range when it is 0): what "the rows exercise it" means. */
/* Field q's ceiling: its base value (a measured best case) with the slack of noise. Values
 * above are held at it (a flat stretch the solver does not climb), so that the base keeps
 * the transform's full range below it. */
static double ceiling_of(const nd_device *base, size_t q)
{
    const nd_device_param_info *b = &nd_device_params[q];
    if (!b->ceiling) return INFINITY;
    double top = *field((nd_device *)base, b) * ND_FIT_CEILING_SLACK;
    /* the GEMM curve and the attention rates are isolated benchmarks' best: a round may show
     * its cluster sustains more of them than the base's training share, never more than the
     * benchmarks measured */
    double share = 0;
    if (b->offset == offsetof(nd_device, gemm_efficiency)) share = base->gemm_training_share;
    if (b->offset == offsetof(nd_device, attention_fwd_efficiency) ||
        b->offset == offsetof(nd_device, attention_bwd_efficiency))
        share = base->attention_training_share;
    if (share > 0) top /= share;
    return top;
}

static int effect_of(const problem *pb, size_t param, const double *base_step, double *effect)
{
    const nd_device_param_info *info = &nd_device_params[param];
    nd_device d = *pb->base;
    double v = *field(&d, info);
    double moved = v != 0 ? v * 1.1 : v + 0.01 * (info->hi - info->lo);
    if (moved > info->hi) moved = v * 0.9;
    set_field(&d, info, moved);
    *effect = 0;
    for (size_t i = 0; i < pb->n; i++) {
        double step = 0;
        if (nd_device_fit_price(&d, &pb->rows[i], &step, NULL, pb->err)) return pb->err->code;
        *effect = fmax(*effect, fabs(step - base_step[i]) / pb->rows[i].time_ms);
    }
    return ND_OK;
}

static int choose_fields(problem *pb, const nd_device_fit_options *o, nd_device_fit_result *res)
{
    double *base_step = malloc(pb->n * sizeof *base_step);
    if (!base_step) return nd_error_set(pb->err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    for (size_t i = 0; i < pb->n && !rc; i++)
        rc = nd_device_fit_price(pb->base, &pb->rows[i], &base_step[i], NULL, pb->err);
    pb->p = 0;
    for (size_t q = 0; q < nd_device_param_count && !rc; q++) {
        double effect;
        if ((rc = effect_of(pb, q, base_step, &effect))) break;
        if (effect < o->min_effect) {
            res->skipped++;
            continue;
        }
        pb->top[pb->p] = ceiling_of(pb->base, q);
        const nd_device_param_info *info = &nd_device_params[q];
        res->param[pb->p] = q;
        res->effect[pb->p] = effect;
        res->base[pb->p] = *field((nd_device *)pb->base, info);
        pb->param[pb->p] = q;
        pb->t0[pb->p] = to_coordinate(info, res->base[pb->p]);
        pb->p++;
    }
    free(base_step);
    res->count = pb->p;
    if (!rc && pb->p == 0)
        rc = nd_error_set(pb->err, ND_EINPUT,
                          "no field of device %s moves any estimate by %g %%: nothing to fit", pb->base->name,
                          100 * o->min_effect);
    return rc;
}

/* ---- solving ------------------------------------------------------------------------- */

static size_t data_residuals(const problem *pb)
{
    size_t m = 0;
    for (size_t i = 0; i < pb->n; i++)
        if (!pb->use || pb->use[i]) m += row_residuals(&pb->rows[i]);
    return m;
}

/* Runs the trust-region solver from t0; leaves the optimum in t and, when J is non-NULL,
 * the Jacobian there. */
static int solve(problem *pb, gsl_vector *t, gsl_matrix *J, int *iterations)
{
    pb->residuals = data_residuals(pb);
    size_t m = pb->residuals + pb->p;
    gsl_multifit_nlinear_fdf fdf = {residuals, jacobian, NULL, m, pb->p, pb, 0, 0, 0};
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, m, pb->p);
    if (!w) return nd_error_set(pb->err, ND_ENOMEM, "out of memory");
    gsl_vector_view t0 = gsl_vector_view_array(pb->t0, pb->p);
    pb->rc = ND_OK;
    int info, status = gsl_multifit_nlinear_init(&t0.vector, &fdf, w);
    if (!status) status = gsl_multifit_nlinear_driver(100, 1e-8, 1e-8, 1e-10, NULL, NULL, &info, w);
    int rc = pb->rc;
    if (!rc && status && status != GSL_EMAXITER && status != GSL_ENOPROG)
        rc = nd_error_set(pb->err, ND_ERUNTIME, "the device fit failed: %s", gsl_strerror(status));
    if (!rc) {
        gsl_vector_memcpy(t, gsl_multifit_nlinear_position(w));
        if (J) gsl_matrix_memcpy(J, gsl_multifit_nlinear_jac(w));
        if (iterations) *iterations = (int)gsl_multifit_nlinear_niter(w);
    }
    gsl_multifit_nlinear_free(w);
    return rc;
}

/* Prices every row at t into out. */
static int predict(const problem *pb, const gsl_vector *t, double *out)
{
    nd_device d;
    device_at(pb, t, &d);
    for (size_t i = 0; i < pb->n; i++)
        if (nd_device_fit_price(&d, &pb->rows[i], &out[i], NULL, pb->err)) return pb->err->code;
    return ND_OK;
}

static double mape(const nd_device_fit_row *rows, const double *pred, size_t n)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(pred[i])) {
            s += fabs(pred[i] / rows[i].time_ms - 1);
            k++;
        }
    return k ? s / (double)k : NAN;
}

/* Intervals and the linearised leave-one-out from the Jacobian at the optimum. */
static int uncertainty(const problem *pb, const gsl_vector *t, const gsl_matrix *J, nd_device_fit_result *res)
{
    size_t m = J->size1, p = pb->p;
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    gsl_vector *f = gsl_vector_alloc(m);
    if (!cov || !f) {
        gsl_matrix_free(cov);
        gsl_vector_free(f);
        return nd_error_set(pb->err, ND_ENOMEM, "out of memory");
    }
    residuals(t, (void *)pb, f);
    double rss = 0;
    for (size_t i = 0; i < pb->residuals; i++) rss += gsl_vector_get(f, i) * gsl_vector_get(f, i);
    int dof = (int)pb->residuals - (int)p;
    double s2 = dof > 0 ? rss / dof : NAN, tq = dof > 0 ? gsl_cdf_tdist_Pinv(0.975, dof) : NAN;
    gsl_multifit_nlinear_covar(J, 0.0, cov); /* (JᵀJ)⁻¹, prior rows included */
    for (size_t j = 0; j < p; j++) {
        const nd_device_param_info *info = &nd_device_params[pb->param[j]];
        double tj = gsl_vector_get(t, j), half = tq * sqrt(gsl_matrix_get(cov, j, j) * s2);
        res->value[j] = fmin(to_value(info, tj), pb->top[j]);
        res->lo[j] = isfinite(half) ? fmin(to_value(info, tj - half), pb->top[j]) : NAN;
        res->hi[j] = isfinite(half) ? fmin(to_value(info, tj + half), pb->top[j]) : NAN;
    }
    /* h_i of the step's residual: J_i (JᵀJ)⁻¹ J_iᵀ. */
    size_t k = 0;
    for (size_t i = 0; i < pb->n; i++) {
        double h = 0;
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < p; b++)
                h += gsl_matrix_get(J, k, a) * gsl_matrix_get(cov, a, b) * gsl_matrix_get(J, k, b);
        double e = gsl_vector_get(f, k);
        res->loo_ms[i] = h < 1 - 1e-10 ? pb->rows[i].time_ms * (1 + e / (1 - h)) : NAN;
        k += row_residuals(&pb->rows[i]);
    }
    gsl_matrix_free(cov);
    gsl_vector_free(f);
    return ND_OK;
}

/* Refits without each model and predicts its rows. */
static int leave_one_model_out(problem *pb, nd_device_fit_result *res)
{
    bool *use = malloc(pb->n * sizeof *use);
    double *pred = malloc(pb->n * sizeof *pred);
    gsl_vector *t = gsl_vector_alloc(pb->p);
    int rc = (!use || !pred || !t) ? nd_error_set(pb->err, ND_ENOMEM, "out of memory") : ND_OK;
    for (size_t model = 0; !rc && model < res->models; model++) {
        for (size_t i = 0; i < pb->n; i++) use[i] = (size_t)pb->rows[i].model_index != model;
        pb->use = use;
        if (!(rc = solve(pb, t, NULL, NULL)) && !(rc = predict(pb, t, pred)))
            for (size_t i = 0; i < pb->n; i++)
                if (!use[i]) res->lomo_ms[i] = pred[i];
    }
    pb->use = NULL;
    free(use);
    free(pred);
    gsl_vector_free(t);
    return rc;
}

/* Whether field j's interval pins it: finite and narrower than half its range (on its
 * scale). A field the rows move only together with another (a GEMM rate against a fixed
 * cost, a link rate against its latency) has a wide one and would end at a bound. */
static bool pinned(const nd_device_param_info *b, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) return false;
    if (b->log_scale) return log(hi / lo) < 0.5 * log(b->hi / b->lo);
    return hi - lo < 0.5 * (b->hi - b->lo);
}

/* Keeps the unpinned fields at the base: drops them from the problem and lists them in res.
 * True when any was dropped (the rest are to be refitted). */
static bool drop_unpinned(problem *pb, nd_device_fit_result *res)
{
    size_t kept = 0;
    for (size_t j = 0; j < pb->p; j++) {
        if (!pinned(&nd_device_params[pb->param[j]], res->lo[j], res->hi[j])) {
            res->unpinned[res->unpinned_count++] = pb->param[j];
            continue;
        }
        pb->param[kept] = pb->param[j];
        pb->top[kept] = pb->top[j];
        pb->t0[kept] = pb->t0[j];
        res->param[kept] = res->param[j];
        res->effect[kept] = res->effect[j];
        res->base[kept] = res->base[j];
        kept++;
    }
    bool dropped = kept < pb->p;
    pb->p = res->count = kept;
    return dropped;
}

/* Fits the fields; leaves t at the optimum and the intervals in res. */
static int fit_fields(problem *pb, nd_device_fit_result *res, gsl_vector **t_out)
{
    gsl_vector *t = gsl_vector_alloc(pb->p);
    gsl_matrix *J = t ? gsl_matrix_alloc(data_residuals(pb) + pb->p, pb->p) : NULL;
    int rc = (!t || !J) ? nd_error_set(pb->err, ND_ENOMEM, "out of memory") : ND_OK;
    if (!rc) rc = solve(pb, t, J, &res->iterations);
    if (!rc) rc = uncertainty(pb, t, J, res);
    gsl_matrix_free(J);
    *t_out = t;
    return rc;
}

int nd_device_fit(const nd_device *base, const nd_device_fit_row *rows, size_t n,
                  const nd_device_fit_options *opt, nd_device_fit_result *res, nd_error *err)
{
    memset(res, 0, sizeof *res);
    if (n == 0) return nd_error_set(err, ND_EINPUT, "no measured step to fit the device on");
    res->n = n;
    res->base_ms = calloc(4 * n, sizeof *res->base_ms);
    if (!res->base_ms) return nd_error_set(err, ND_ENOMEM, "out of memory");
    res->fitted_ms = res->base_ms + n;
    res->loo_ms = res->fitted_ms + n;
    res->lomo_ms = res->loo_ms + n;
    for (size_t i = 0; i < n; i++) {
        res->lomo_ms[i] = NAN;
        if ((size_t)rows[i].model_index + 1 > res->models) res->models = (size_t)rows[i].model_index + 1;
    }
    problem pb = {.base = base, .rows = rows, .n = n, .prior_weight = opt->prior_weight, .err = err};
    int rc = choose_fields(&pb, opt, res);
    gsl_vector *t = NULL;
    for (size_t i = 0; !rc && i < n; i++)
        rc = nd_device_fit_price(base, &rows[i], &res->base_ms[i], NULL, err);
    if (!rc) rc = fit_fields(&pb, res, &t);
    if (!rc && drop_unpinned(&pb, res)) {
        gsl_vector_free(t);
        t = NULL;
        rc = pb.p ? fit_fields(&pb, res, &t)
                  : nd_error_set(err, ND_EINPUT, "the rows pin no field of device %s: nothing to fit",
                                 base->name);
    }
    if (!rc) rc = predict(&pb, t, res->fitted_ms);
    if (!rc) {
        device_at(&pb, t, &res->device);
        if (opt->leave_one_model_out && res->models > 1) rc = leave_one_model_out(&pb, res);
    }
    if (!rc) {
        res->base_mape = mape(rows, res->base_ms, n);
        res->fitted_mape = mape(rows, res->fitted_ms, n);
        res->loo_mape = mape(rows, res->loo_ms, n);
        res->lomo_mape = res->models > 1 ? mape(rows, res->lomo_ms, n) : NAN;
    }
    gsl_vector_free(t);
    if (rc) nd_device_fit_result_free(res);
    return rc;
}

void nd_device_fit_result_free(nd_device_fit_result *res)
{
    free(res->base_ms);
    res->base_ms = NULL;
}
