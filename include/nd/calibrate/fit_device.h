/*
 * fit_device.h — fitting a device's physical parameters to measured steps.
 *
 * The estimate is a black box of the device: a table of fittable fields (their offsets in
 * nd_device, bounds and transform) is searched by nonlinear least squares (GSL
 * multifit_nlinear, trust region, Jacobian by finite differences) on the relative errors of
 * the measured steps, and of the measured parts where a round has them. Bounds hold by
 * reparametrisation: a field v in [lo, hi] is lo + (hi - lo) s(t) (s the logistic function;
 * on log v for fields spanning decades). Only the fields the rows exercise (whose Jacobian
 * column is not negligible) are fitted; a weak pull toward the base device keeps the
 * directions the rows barely determine near where the base put them, and each field's
 * interval says how well the rows determine it. docs/calibration.md §The fitted device.
 */
#ifndef ND_FIT_DEVICE_H
#define ND_FIT_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/costmodel/device.h"
#include "nd/base/error.h"
#include "nd/base/formats.h"
#include "nd/inputs/run.h"
#include "nd/costmodel/strategy.h"

/* One fittable field of nd_device: its device-file name, where it lives, its bounds. */
typedef struct nd_device_param_info {
    const char *name; /* the device file's key, e.g. "gemm_efficiency" */
    size_t offset;    /* offsetof(nd_device, ...) of a double */
    double lo, hi;    /* bounds the fit stays within */
    bool log_scale;   /* fitted on log v (a field spanning decades; lo > 0) */
    bool ceiling;     /* a measured best case: the fit stays at or below the base device's value
                         (ND_FIT_CEILING_SLACK above it), never above its measured ceiling */
} nd_device_param_info;

/* How far above its base value a ceiling field may go: measurement noise, not a new best. */
#define ND_FIT_CEILING_SLACK 1.02

/* The table, in the order the fitted device file lists them. */
extern const nd_device_param_info nd_device_params[];
extern const size_t nd_device_param_count;

#define ND_DEVICE_FIT_MAX_PARAMS 32

/* One measured step and how to price it. */
typedef struct nd_device_fit_row {
    const nd_model *model;
    nd_train train; /* the run's, with the row's sequence length */
    nd_strategy strategy;
    int64_t devices;
    double time_ms;            /* the measured step */
    double measured[ND_FOLDS]; /* measured parts (ms), where has_fold says so */
    bool has_fold[ND_FOLDS];
    int model_index; /* rows of one model share it (leave-one-model-out) */
    char label[96];
} nd_device_fit_row;

typedef struct nd_device_fit_options {
    double prior_weight;      /* residual per unit of transformed distance from the base (0.05:
                                 moving a field by one unit weighs as one step mispriced by 5 %) */
    double min_effect;        /* a field moving no prediction by this fraction is not fitted (1e-3) */
    bool leave_one_model_out; /* refit once per model (when the rows hold several) */
} nd_device_fit_options;

void nd_device_fit_options_init(nd_device_fit_options *o);

typedef struct nd_device_fit_result {
    nd_device device;                       /* the fitted device (the base with the fitted fields) */
    size_t count;                           /* fields fitted */
    size_t param[ND_DEVICE_FIT_MAX_PARAMS]; /* index into nd_device_params */
    double base[ND_DEVICE_FIT_MAX_PARAMS], value[ND_DEVICE_FIT_MAX_PARAMS];
    double lo[ND_DEVICE_FIT_MAX_PARAMS], hi[ND_DEVICE_FIT_MAX_PARAMS]; /* 95 % interval */
    double effect[ND_DEVICE_FIT_MAX_PARAMS];   /* largest relative move of a step when the field
                                                  moves 10 % */
    size_t skipped;                            /* fields left at the base: no row exercises them */
    size_t unpinned_count;                     /* fields the rows move but cannot pin (their 95 %
                                                  interval spans half their range or more): kept
                                                  at the base and the others refitted */
    size_t unpinned[ND_DEVICE_FIT_MAX_PARAMS]; /* their indices into nd_device_params */
    size_t n, models;
    double *base_ms;                                    /* [n] the base device's estimate */
    double *fitted_ms;                                  /* [n] in sample */
    double *loo_ms;                                     /* [n] linearised leave-one-out */
    double *lomo_ms;                                    /* [n] leave-one-model-out (NaN with one model) */
    double base_mape, fitted_mape, loo_mape, lomo_mape; /* of the step, fractions */
    int iterations;
} nd_device_fit_result;

struct nd_compare;
/* The rows of a comparison as device-fit rows of model `model_index` (run: the comparison's
 * run, which must outlive out). out holds cmp->count entries. */
void nd_device_fit_rows(const struct nd_compare *cmp, const nd_run *run, int model_index,
                        nd_device_fit_row *out);

/* Fits. rows and base are not kept. Errors: ND_EINPUT (no row, no field exercised, a row
 * that cannot be priced), ND_ERUNTIME (the solver failed), ND_ENOMEM. */
int nd_device_fit(const nd_device *base, const nd_device_fit_row *rows, size_t n,
                  const nd_device_fit_options *opt, nd_device_fit_result *res, nd_error *err);

void nd_device_fit_result_free(nd_device_fit_result *res);

/* The step (and folded parts, when parts is non-NULL) a device prices for a row. */
int nd_device_fit_price(const nd_device *d, const nd_device_fit_row *row, double *step_ms,
                        double parts[ND_FOLDS], nd_error *err);

#endif
