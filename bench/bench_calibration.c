/*
 * bench_calibration — how well nd's CALIBRATED estimate predicts measured steps it was not
 * fitted on, printed, never asserted (docs/benchmarks.md). The rounds are the real ones in
 * samples/ (the same as bench_fidelity's, which prints the uncalibrated figures):
 *
 *   vTrain, per model: 10-fold held-out MAPE of the step (rows i with i mod 10 = f held out
 *     of fold f, in the comparison's measured order), for three calibrations fitted on the other nine tenths:
 *       ratios   nd-fit --hold auto (ratios and fixed costs on the raw estimate);
 *       device   nd-fit --write_device (the device's physical parameters, nonlinear);
 *       both     the device, then nd-fit --hold auto on its estimates — what
 *                `nd-fit --write_device d.yaml --write_ratios r.json --hold auto` writes.
 *   vTrain, across models: the device fitted on three models predicting the fourth.
 *   vTrain to another cluster: the device fitted on all four predicting Megatron-LM's SC21 weak
 *     scaling on 32-3,072 A100s (sc21.h).
 *   DLPerf: nd-fit --hold auto's exact leave-one-out MAPE of the step and of the peak, and the
 *     device fitted on one node predicting 2 and 4.
 *
 * Usage: bench_calibration [SOURCE_DIR]   (default: the source tree it was built from)
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/calibrate/classified.h"
#include "nd/session/cli.h"
#include "nd/calibrate/compare.h"
#include "nd/calibrate/fit.h"
#include "nd/calibrate/fit_device.h"
#include "nd/costmodel/strategy.h"
#include "nd/base/array.h"
#include "mpt.h"
#include "simumax_runs.h"
#include "sc21.h"

#define FOLDS 10

typedef struct round_data {
    nd_session ses;
    nd_classified round;
    nd_compare cmp;
    nd_fit_row *rows;
} round_data;

static const char *const vtrain[][2] = {
    {"samples/runs/vtrain-gpt-h1024-l12.yaml", "samples/rounds/vtrain-gpt-h1024-l12.csv"},
    {"samples/runs/vtrain-gpt-h1024-l16.yaml", "samples/rounds/vtrain-gpt-h1024-l16.csv"},
    {"samples/runs/vtrain-gpt-h1024-l20.yaml", "samples/rounds/vtrain-gpt-h1024-l20.csv"},
    {"samples/runs/vtrain-gpt-h1024-l24.yaml", "samples/rounds/vtrain-gpt-h1024-l24.csv"},
};
static const char *const dlperf[][2] = {
    {"samples/runs/dlperf-gpt-h1536-l16.yaml", "samples/rounds/dlperf-gpt-h1536-l16.csv"},
    {"samples/runs/dlperf-gpt-h2304-l24.yaml", "samples/rounds/dlperf-gpt-h2304-l24.csv"},
};

static int fail(const nd_error *err)
{
    fprintf(stderr, "bench_calibration: %s\n", err->message);
    return 1;
}

/* Prices the round's rows on `device` (NULL: the session's) into d->cmp and d->rows. */
static int price(round_data *d, const nd_device *device, nd_error *err)
{
    nd_compare_free(&d->cmp);
    free(d->rows);
    d->rows = NULL;
    nd_compare_inputs in = {
        &d->ses.run, device ? device : d->ses.device, d->ses.budget_mib, NULL, ND_PEAK_DEVICE, NULL, true};
    int rc = nd_compare_round(&in, &d->round, &d->cmp, err);
    return rc ? rc : nd_fit_rows(&d->cmp, &d->rows, err);
}

static int load(const char *dir, const char *run, const char *csv, round_data *d, nd_error *err)
{
    char run_path[4096], csv_path[4096];
    snprintf(run_path, sizeof run_path, "%s/%s", dir, run);
    snprintf(csv_path, sizeof csv_path, "%s/%s", dir, csv);
    memset(d, 0, sizeof *d);
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = run_path;
    int rc = nd_session_open(&d->ses, &common, false, stderr, err);
    if (!rc) rc = nd_classified_load(csv_path, &d->round, err);
    return rc ? rc : price(d, NULL, err);
}

static void unload(round_data *d)
{
    free(d->rows);
    nd_compare_free(&d->cmp);
    nd_classified_free(&d->round);
    nd_session_close(&d->ses);
}

static void options(nd_fit_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = ND_FIT_TOTAL;
    o->hold_auto = true;
    o->robust = getenv("ROBUST") != NULL;
}

/* The rows of fold f's training set (held_out false) or its held-out tenth. */
static size_t select_rows(const nd_fit_row *rows, size_t n, int f, bool held_out, nd_fit_row *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (((int)(i % FOLDS) == f) == held_out) out[m++] = rows[i];
    return m;
}

/* Sum of |predicted / measured - 1| over fold f's held-out rows, ratios fitted on the rest. */
static int ratio_fold(const nd_fit_row *rows, size_t n, int f, double *sum, size_t *count, nd_error *err)
{
    nd_fit_row *train = calloc(n, sizeof *train), *test = calloc(n, sizeof *test);
    if (!train || !test) {
        free(train);
        free(test);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    size_t nt = select_rows(rows, n, f, false, train), nh = select_rows(rows, n, f, true, test);
    nd_fit_options o;
    options(&o);
    nd_fit_result res;
    int rc = nd_fit_run(train, nt, &o, &res, err);
    for (size_t i = 0; !rc && i < nh; i++, (*count)++)
        *sum += fabs(nd_fit_predict(&test[i], &res) / test[i].time_ms - 1);
    if (!rc) nd_fit_result_free(&res);
    free(train);
    free(test);
    return rc;
}

/* The device fitted on the rows of `use` (NULL: all). */
static int fit_device(const nd_device *base, const nd_device_fit_row *rows, size_t n, const bool *use,
                      nd_device *out, nd_error *err)
{
    nd_device_fit_row *sub = malloc(n * sizeof *sub);
    if (!sub) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!use || use[i]) sub[m++] = rows[i];
    nd_device_fit_options o;
    nd_device_fit_options_init(&o);
    o.leave_one_model_out = false;
    nd_device_fit_result res;
    int rc = nd_device_fit(base, sub, m, &o, &res, err);
    if (!rc) {
        *out = res.device;
        nd_device_fit_result_free(&res);
    }
    free(sub);
    return rc;
}

typedef struct fold_sums {
    double ratios, device, both;
    size_t n;
} fold_sums;

/* One model's 10-fold figures for the three calibrations. */
static int kfold(round_data *d, fold_sums *s, nd_error *err)
{
    size_t n = d->cmp.count, count = 0;
    nd_device_fit_row *drows = malloc(n * sizeof *drows);
    bool *use = malloc(n * sizeof *use);
    int rc = (!drows || !use) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    if (!rc) nd_device_fit_rows(&d->cmp, &d->ses.run, 0, drows);
    nd_fit_row *raw = NULL;
    if (!rc && !(raw = malloc(n * sizeof *raw))) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) memcpy(raw, d->rows, n * sizeof *raw);
    for (int f = 0; !rc && f < FOLDS; f++) {
        size_t c = 0;
        if ((rc = ratio_fold(raw, n, f, &s->ratios, &c, err))) break;
        for (size_t i = 0; i < n; i++) use[i] = (int)(i % FOLDS) != f;
        nd_device fitted;
        if ((rc = fit_device(d->ses.device, drows, n, use, &fitted, err))) break;
        if ((rc = price(d, &fitted, err))) break;
        for (size_t i = 0; i < n; i++)
            if (!use[i])
                s->device += fabs(
                    d->rows[i].time_ms > 0 ? d->cmp.rows[i].est.raw_step_ms / d->rows[i].time_ms - 1 : 0);
        c = 0;
        rc = ratio_fold(d->rows, n, f, &s->both, &c, err);
        count += c;
    }
    s->n += count;
    free(drows);
    free(use);
    free(raw);
    if (!rc) rc = price(d, NULL, err);
    return rc;
}

/* The device fitted on every vTrain model but one, predicting that one. */
static int across_models(round_data *rounds, size_t models, double *mape, nd_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < models; k++) total += rounds[k].cmp.count;
    nd_device_fit_row *rows = malloc(total * sizeof *rows);
    bool *use = malloc(total * sizeof *use);
    int rc = (!rows || !use) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    for (size_t k = 0, at = 0; !rc && k < models; at += rounds[k].cmp.count, k++)
        nd_device_fit_rows(&rounds[k].cmp, &rounds[k].ses.run, (int)k, rows + at);
    for (size_t k = 0; !rc && k < models; k++) {
        for (size_t i = 0; i < total; i++) use[i] = (size_t)rows[i].model_index != k;
        nd_device fitted;
        if ((rc = fit_device(rounds[0].ses.device, rows, total, use, &fitted, err))) break;
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; !rc && i < total; i++) {
            if (use[i]) continue;
            double step;
            if ((rc = nd_device_fit_price(&fitted, &rows[i], &step, NULL, err))) break;
            sum += fabs(step / rows[i].time_ms - 1);
            n++;
        }
        mape[k] = n ? sum / (double)n : NAN;
    }
    free(rows);
    free(use);
    return rc;
}

/* The device fitted on both DLPerf models' single-node rows (8 GPUs or fewer) predicting their
 * multi-node rows (16 and 32 GPUs over 2 and 4 nodes): whether a node's calibration carries
 * to the cluster. Uncalibrated MAPE on the same rows beside it. */
static int node_transfer(round_data *rounds, size_t models, nd_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < models; k++) total += rounds[k].cmp.count;
    nd_device_fit_row *rows = malloc(total * sizeof *rows);
    bool *use = calloc(total ? total : 1, sizeof *use);
    int rc = (!rows || !use) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    for (size_t k = 0, at = 0; !rc && k < models; at += rounds[k].cmp.count, k++)
        nd_device_fit_rows(&rounds[k].cmp, &rounds[k].ses.run, (int)k, rows + at);
    size_t single = 0;
    for (size_t i = 0; !rc && i < total; i++) {
        use[i] = rows[i].devices <= rounds[0].ses.device->devices_per_node;
        single += use[i];
    }
    nd_device fitted;
    if (!rc) rc = fit_device(rounds[0].ses.device, rows, total, use, &fitted, err);
    double fit_sum = 0, raw_sum = 0;
    size_t n = 0;
    for (size_t i = 0; !rc && i < total; i++) {
        if (use[i]) continue;
        double step, raw;
        if ((rc = nd_device_fit_price(&fitted, &rows[i], &step, NULL, err))) break;
        if ((rc = nd_device_fit_price(rounds[0].ses.device, &rows[i], &raw, NULL, err))) break;
        fit_sum += fabs(step / rows[i].time_ms - 1);
        raw_sum += fabs(raw / rows[i].time_ms - 1);
        n++;
    }
    if (!rc)
        printf("  fitted on %zu single-node rows, predicting %zu multi-node rows: step MAPE %.1f %% "
               "(uncalibrated %.1f %%)\n",
               single, n, 100 * fit_sum / (double)n, 100 * raw_sum / (double)n);
    free(rows);
    free(use);
    return rc;
}

/* Runs of one cluster as device-fit rows: each row's own session (its model and train
 * settings, which the row points into) and strategy. */
typedef struct fit_rows {
    nd_session *sessions;
    nd_device_fit_row *rows;
    size_t n;
} fit_rows;

static void fit_rows_free(fit_rows *m)
{
    for (size_t i = 0; i < m->n; i++) nd_session_close(&m->sessions[i]);
    free(m->sessions);
    free(m->rows);
}

/* Opens the session `common` describes into *s and makes *row of it, its own strategy
 * replaced by `strategy` when given. */
static int session_row(const nd_cli_common *common, const char *strategy, nd_session *s,
                       nd_device_fit_row *row, nd_error *err)
{
    int rc = nd_session_open(s, common, false, stderr, err);
    memset(row, 0, sizeof *row);
    row->strategy = s->run.strategy;
    if (!rc && strategy) rc = nd_strategy_parse(&row->strategy, strategy, err);
    if (!rc)
        rc = nd_strategy_check(&row->strategy, &s->run.model, s->run.devices, s->run.train.global_batch,
                               s->run.train.seq_len, err);
    if (rc) return rc;
    row->model = &s->run.model;
    row->train = s->run.train;
    row->devices = s->run.devices;
    return ND_OK;
}

/* One MPT row's session and fit row; the run file is written into tmp and read at once. */
static int mpt_row(const mpt_run *r, const char *tmp, nd_session *s, nd_device_fit_row *row, nd_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mpt.yaml", tmp);
    if (mpt_write_run(path, r)) return nd_error_set(err, ND_EIO, "cannot write %s", path);
    mpt_flags flags;
    nd_cli_common common;
    mpt_flags_set(r, path, &flags, &common);
    int rc = session_row(&common, flags.strategy, s, row, err);
    remove(path);
    if (rc) return rc;
    row->time_ms = mpt_measured_ms(r);
    snprintf(row->label, sizeof row->label, "%s seq %ld on %ld", r->model, r->seq, r->devices);
    return ND_OK;
}

/* Room for `cap` rows. */
static int fit_rows_alloc(fit_rows *m, size_t cap, nd_error *err)
{
    memset(m, 0, sizeof *m);
    m->sessions = calloc(cap, sizeof *m->sessions);
    m->rows = calloc(cap, sizeof *m->rows);
    return m->sessions && m->rows ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
}

/* Gives the row just made the index of its model among those seen (at most 16). */
static void index_model(fit_rows *m, char (*models)[16], size_t *n_models, const char *model)
{
    size_t k = 0;
    while (k < *n_models && strcmp(models[k], model)) k++;
    if (k == *n_models && *n_models < 16) snprintf(models[(*n_models)++], 16, "%s", model);
    m->rows[m->n++].model_index = (int)k;
}

/* Every row of the MPT table on `device`, each model its own index. */
static int mpt_load(const char *dir, const char *device, fit_rows *m, nd_error *err)
{
    char path[4096], line[512], tmp[64] = "/tmp/nd-bench-mpt-XXXXXX", models[16][16];
    snprintf(path, sizeof path, "%s/" MPT_TABLE, dir);
    int rc = fit_rows_alloc(m, 256, err);
    FILE *fp = rc ? NULL : fopen(path, "r");
    if (!rc && (!fp || !mkdtemp(tmp))) {
        if (fp) fclose(fp);
        return nd_error_set(err, ND_EIO, "cannot read %s or make a temporary directory", path);
    }
    size_t n_models = 0;
    while (!rc && m->n < 256 && fgets(line, sizeof line, fp)) {
        mpt_run r;
        if (mpt_parse(line, &r) || strcmp(r.device, device)) continue;
        if ((rc = mpt_row(&r, tmp, &m->sessions[m->n], &m->rows[m->n], err))) {
            nd_session_close(&m->sessions[m->n]);
            break;
        }
        index_model(m, models, &n_models, r.model);
    }
    if (fp) fclose(fp);
    rmdir(tmp);
    return rc;
}

/* SimuMax's B200 runs (simumax_runs.h) on the built-in B200, each read from the Megatron
 * arguments its launcher passes. */
static int simumax_load(const char *dir, fit_rows *m, nd_error *err)
{
    simumax_run runs[SIMUMAX_RUNS_MAX];
    int n = simumax_runs_read(dir, runs, SIMUMAX_RUNS_MAX);
    char tmp[64] = "/tmp/nd-bench-simumax-XXXXXX", path[96], gbs[32], models[16][16];
    if (n <= 0 || !mkdtemp(tmp))
        return nd_error_set(err, ND_EIO, "cannot read %s/%s", dir, SIMUMAX_RUNS_TABLE);
    snprintf(path, sizeof path, "%s/run.sh", tmp);
    int rc = fit_rows_alloc(m, (size_t)n, err);
    size_t n_models = 0;
    for (int i = 0; !rc && i < n; i++) {
        nd_cli_common common;
        nd_cli_common_init(&common);
        snprintf(gbs, sizeof gbs, "%ld", simumax_runs_global_batch(&runs[i]));
        common.run_path = path;
        common.device = "B200";
        common.devices = "8";
        common.gbs = gbs;
        common.shared.verbosity = 1;
        if (simumax_runs_write_args(path, &runs[i])) rc = nd_error_set(err, ND_EIO, "cannot write %s", path);
        if (!rc && (rc = session_row(&common, NULL, &m->sessions[m->n], &m->rows[m->n], err))) {
            nd_session_close(&m->sessions[m->n]);
            break;
        }
        if (rc) break;
        m->rows[m->n].time_ms = runs[i].real_ms;
        snprintf(m->rows[m->n].label, sizeof m->rows[m->n].label, "%.63s", runs[i].name);
        index_model(m, models, &n_models, runs[i].model);
    }
    remove(path);
    rmdir(tmp);
    return rc;
}

/* The device fitted on the rows `use` marks predicting the others, against the base device:
 * prints what, the step MAPE and bias both ways and the fitted GEMM efficiency. */
static int transfer(const fit_rows *m, const bool *use, const char *fitted_on, const char *predicting,
                    nd_error *err)
{
    nd_device fitted;
    int rc = fit_device(m->sessions[0].device, m->rows, m->n, use, &fitted, err);
    double fit_sum = 0, fit_bias = 0, raw_sum = 0, raw_bias = 0;
    size_t n = 0, fit_n = 0;
    for (size_t i = 0; !rc && i < m->n; i++) {
        if (use[i]) {
            fit_n++;
            continue;
        }
        double step, raw, t = m->rows[i].time_ms;
        if ((rc = nd_device_fit_price(&fitted, &m->rows[i], &step, NULL, err))) break;
        if ((rc = nd_device_fit_price(m->sessions[0].device, &m->rows[i], &raw, NULL, err))) break;
        fit_sum += fabs(step / t - 1);
        fit_bias += step / t - 1;
        raw_sum += fabs(raw / t - 1);
        raw_bias += raw / t - 1;
        n++;
    }
    if (!rc && n)
        printf("  fitted on %zu %s, predicting %zu %s: step MAPE %.1f %%, bias %+.1f %% (uncalibrated "
               "%.1f %%, %+.1f %%); gemm_efficiency %.3f (base %.3f)\n",
               fit_n, fitted_on, n, predicting, 100 * fit_sum / (double)n, 100 * fit_bias / (double)n,
               100 * raw_sum / (double)n, 100 * raw_bias / (double)n, fitted.gemm_efficiency,
               m->sessions[0].device->gemm_efficiency);
    return rc;
}

/* The device fitted on the MPT runs that ran on one 8-GPU H100 node predicting those that ran on
 * 2-8 nodes of the same cluster (MosaicML's, the same stack), against the built-in H100. */
static int mpt_node_transfer(const char *dir, nd_error *err)
{
    fit_rows m;
    int rc = mpt_load(dir, "H100", &m, err);
    bool *use = rc ? NULL : calloc(m.n ? m.n : 1, sizeof *use);
    if (!rc && !use) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t single = 0;
    for (size_t i = 0; !rc && i < m.n; i++) single += use[i] = m.rows[i].devices <= 8;
    if (!rc && !single) rc = nd_error_set(err, ND_EINPUT, "no single-node H100 row in %s", MPT_TABLE);
    if (!rc) rc = transfer(&m, use, "single-node rows", "multi-node rows", err);
    free(use);
    fit_rows_free(&m);
    return rc;
}

/* The built-in B200 fitted on SimuMax's dense Llama 3 70B runs at 4k (one model, TP 1-8, PP 1-2)
 * predicting its other runs: Llama 3 405B, DeepSeek-V2 and V3, and CP at 32k-128k. */
static int simumax_model_transfer(const char *dir, nd_error *err)
{
    fit_rows m;
    int rc = simumax_load(dir, &m, err);
    bool *use = rc ? NULL : calloc(m.n ? m.n : 1, sizeof *use);
    if (!rc && !use) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < m.n; i++)
        use[i] = !strncmp(m.rows[i].label, "llama3_70b", 10) && m.rows[i].train.seq_len == 4096;
    if (!rc) rc = transfer(&m, use, "Llama 3 70B runs at 4k", "other runs (405B, DeepSeek-V2/V3, CP)", err);
    free(use);
    fit_rows_free(&m);
    return rc;
}

/* The runs of one SC21 table nd represents (its ZeRO-3 rows left out: they carry their own
 * caveat) priced on the fitted device and on the built-in A100; prints their step MAPE. */
static int sc21_transfer(const char *dir, const char *table, const char *name, size_t fitted_on,
                         const nd_device *fitted, nd_error *err)
{
    sc21_run runs[SC21_ROWS];
    char tmp[64] = "/tmp/nd-bench-cal-XXXXXX";
    int n = sc21_read(dir, table, runs, SC21_ROWS);
    if (n <= 0 || !mkdtemp(tmp)) return nd_error_set(err, ND_EIO, "cannot read %s", table);
    double fit_sum = 0, raw_sum = 0, fit_bias = 0;
    int priced = 0;
    for (int i = 0; i < n; i++) {
        nd_estimate fit, raw;
        if (sc21_is_zero3(&runs[i])) continue;
        if (sc21_price(&runs[i], tmp, fitted, &fit) || sc21_price(&runs[i], tmp, NULL, &raw)) continue;
        double measured = sc21_measured_ms(&runs[i]);
        fit_sum += fabs(fit.step_ms / measured - 1);
        fit_bias += fit.step_ms / measured - 1;
        raw_sum += fabs(raw.step_ms / measured - 1);
        priced++;
    }
    rmdir(tmp);
    if (!priced) return nd_error_set(err, ND_EIO, "no row of %s priced", table);
    printf("  fitted on %zu vTrain runs, predicting %d runs of %s: step MAPE %.1f %%, bias %+.1f %% "
           "(uncalibrated %.1f %%)\n",
           fitted_on, priced, name, 100 * fit_sum / priced, 100 * fit_bias / priced, 100 * raw_sum / priced);
    return ND_OK;
}

/* The device fitted on all of vTrain's single-node runs (Megatron-DeepSpeed, one 8 x A100 node)
 * predicting Megatron-LM's SC21 runs (another framework, 32 to 3,072 A100s over HDR InfiniBand;
 * sc21.h): whether a calibration carries to another cluster and scale.
 * Uncalibrated MAPE on the same rows beside it. */
static int cluster_transfer(const char *dir, round_data *rounds, size_t models, nd_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < models; k++) total += rounds[k].cmp.count;
    nd_device_fit_row *rows = malloc(total * sizeof *rows);
    if (!rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t k = 0, at = 0; k < models; at += rounds[k].cmp.count, k++)
        nd_device_fit_rows(&rounds[k].cmp, &rounds[k].ses.run, (int)k, rows + at);
    nd_device fitted;
    int rc = fit_device(rounds[0].ses.device, rows, total, NULL, &fitted, err);
    free(rows);
    if (rc) return rc;
    static const char *const tables[] = {SC21_TABLE1, SC21_TABLE2};
    static const char *const names[] = {"SC21 Table 1 (weak scaling)", "SC21 Table 2's PTD-P"};
    for (size_t t = 0; t < ND_ARRAY_LEN(tables); t++)
        if ((rc = sc21_transfer(dir, tables[t], names[t], total, &fitted, err))) return rc;
    return ND_OK;
}

static int loo(round_data *d, nd_error *err)
{
    nd_fit_options o;
    options(&o);
    nd_fit_result res;
    int rc = nd_fit_run(d->rows, d->cmp.count, &o, &res, err);
    if (rc) return rc;
    printf("  %-16s %4zu rows   step %5.1f %%   peak ", d->ses.run.model.name, d->cmp.count,
           100 * res.loo_total.mape);
    if (res.loo_memory.n)
        printf("%5.1f %%", 100 * res.loo_memory.mape);
    else
        printf("    - "); /* no memory ratio identified */
    printf("   held:");
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (k != ND_RATIO_FORWARD && res.status[k] == ND_RATIO_HELD && !strstr(res.why[k], "exercises"))
            printf(" %s", nd_ratio_key_name((nd_ratio_key)k));
    printf("\n");
    nd_fit_result_free(&res);
    return ND_OK;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc > 1 && argv[1][0] == '-') {
        printf("usage: bench_calibration [SOURCE_DIR]\n"
               "Fits ratios and devices on part of each bundled real set and prices the rest: calibrated\n"
               "and transfer MAPE. docs/benchmarks.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    const char *dir = argc > 1 ? argv[1] : ND_SOURCE_DIR;
    nd_error err = {0};
    enum { VT = ND_ARRAY_LEN(vtrain), DL = ND_ARRAY_LEN(dlperf) };
    round_data v[VT], dl[DL];
    for (size_t k = 0; k < VT; k++)
        if (load(dir, vtrain[k][0], vtrain[k][1], &v[k], &err)) return fail(&err);
    printf("Calibrated fidelity: predictions of measured steps the calibration was not fitted on\n\n");
    printf("vTrain (8 x A100), 10-fold held-out step MAPE per model\n");
    printf("  %-16s %6s %9s %9s %9s\n", "model", "rows", "ratios", "device", "both");
    for (size_t k = 0; k < VT; k++) {
        fold_sums s = {0};
        if (kfold(&v[k], &s, &err)) return fail(&err);
        double n = (double)s.n;
        printf("  %-16s %6zu %8.2f%% %8.2f%% %8.2f%%\n", v[k].ses.run.model.name, s.n, 100 * s.ratios / n,
               100 * s.device / n, 100 * s.both / n);
    }
    double lomo[VT];
    if (across_models(v, VT, lomo, &err)) return fail(&err);
    printf("\nvTrain, the device fitted on the other three models predicting this one (step MAPE)\n");
    for (size_t k = 0; k < VT; k++) printf("  %-16s %8.2f%%\n", v[k].ses.run.model.name, 100 * lomo[k]);
    printf(
        "\nvTrain's node to another cluster: the device fitted on all four models predicting Megatron-LM's "
        "SC21 runs (weak scaling on 32-3,072 A100; PTD-P at 175B and 530B on 384-2,240)\n");
    if (cluster_transfer(dir, v, VT, &err)) return fail(&err);
    printf("\nDLPerf (V100), nd-fit --hold auto, exact leave-one-out MAPE\n");
    for (size_t k = 0; k < DL; k++)
        if (load(dir, dlperf[k][0], dlperf[k][1], &dl[k], &err) || loo(&dl[k], &err)) return fail(&err);
    printf("\nDLPerf (V100), the device fitted on one node predicting 2 and 4 nodes\n");
    if (node_transfer(dl, DL, &err)) return fail(&err);
    printf(
        "\nllm-foundry's MPT runs on H100 (Composer FSDP), the device fitted on one node predicting 2 to 8 "
        "nodes\n");
    if (mpt_node_transfer(dir, &err)) return fail(&err);
    printf("\nSimuMax's runs of one DGX B200 (Megatron-LM, BF16), the built-in B200 fitted on one model "
           "predicting the others\n");
    if (simumax_model_transfer(dir, &err)) return fail(&err);
    for (size_t k = 0; k < DL; k++) unload(&dl[k]);
    for (size_t k = 0; k < VT; k++) unload(&v[k]);
    return 0;
}
