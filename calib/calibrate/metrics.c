/* metrics.c — agreement between estimates and measurements: Pearson and Spearman
 * correlation, relative errors, how many of the measured fastest an estimate ranks first
 * (top-k) and what its pick costs against the fastest (regret). */
#include "nd/calibrate/metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

double nd_metric_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2) return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0) return NAN;
    return sxy / sqrt(sxx * syy);
}

typedef struct {
    double v;
    size_t i;
} keyed;

static int by_value(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    if (p->v < q->v) return -1;
    if (p->v > q->v) return 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* 1-based ranks, ties sharing the mean of the ranks they span. */
static int ranks(const double *x, size_t n, double *out)
{
    keyed *k = malloc(n * sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < n; i++) k[i] = (keyed){x[i], i};
    qsort(k, n, sizeof *k, by_value);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && k[j + 1].v == k[i].v) j++;
        double mean = ((double)i + (double)j) / 2.0 + 1.0;
        for (size_t t = i; t <= j; t++) out[k[t].i] = mean;
        i = j + 1;
    }
    free(k);
    return 0;
}

double nd_metric_spearman(const double *x, const double *y, size_t n)
{
    if (n < 2) return NAN;
    double *rx = malloc(2 * n * sizeof *rx);
    if (!rx) return NAN;
    double *ry = rx + n;
    double rho = NAN;
    if (!ranks(x, n, rx) && !ranks(y, n, ry)) rho = nd_metric_pearson(rx, ry, n);
    free(rx);
    return rho;
}

void nd_metric_relative_errors(const double *est, const double *meas, size_t n, double min_meas,
                               nd_error_stats *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (!(meas[i] >= min_meas) || meas[i] <= 0 || !isfinite(est[i])) continue;
        double e = (est[i] - meas[i]) / meas[i];
        out->mape += fabs(e);
        out->bias += e;
        if (fabs(e) > out->max_abs) out->max_abs = fabs(e);
        out->n++;
    }
    if (out->n) {
        out->mape /= (double)out->n;
        out->bias /= (double)out->n;
    } else {
        out->mape = out->bias = out->max_abs = NAN;
    }
}

size_t nd_metric_top_k(const double *est, const double *meas, size_t n)
{
    size_t *order = malloc(n * sizeof *order);
    if (!order) return 0;
    keyed *k = malloc(n * sizeof *k);
    if (!k) {
        free(order);
        return 0;
    }
    for (size_t i = 0; i < n; i++) k[i] = (keyed){meas[i], i};
    qsort(k, n, sizeof *k, by_value);
    for (size_t i = 0; i < n; i++) order[i] = k[i].i;
    free(k);
    size_t agree = 0;
    for (size_t a = 0; a < n; a++) {
        bool lowest = true;
        for (size_t b = a + 1; b < n && lowest; b++)
            if (est[order[b]] < est[order[a]]) lowest = false;
        if (!lowest) break;
        agree++;
    }
    free(order);
    return agree;
}

double nd_metric_regret(const double *est, const double *meas, size_t n, size_t *pick, size_t *fastest)
{
    if (n == 0) return NAN;
    size_t p = 0, f = 0;
    for (size_t i = 1; i < n; i++) {
        if (est[i] < est[p]) p = i;
        if (meas[i] < meas[f]) f = i;
    }
    if (pick) *pick = p;
    if (fastest) *fastest = f;
    return meas[p] / meas[f] - 1.0;
}
