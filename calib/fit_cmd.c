/*
 * fit_cmd.c — nd-fit: estimate each row of the round (raw), fit the ratios,
 * print the report and write the ratios file only when the fit succeeded.
 */
#include "fit_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/classified.h"
#include "nd/compare.h"
#include "compare_out.h"
#include "nd/fit.h"
#include "nd/fit_device.h"
#include "nd/io.h"
#include "fit_out.h"
#include "nd/json.h"
#include "nd/text.h"

/* --hold COMPUTE,KERNEL_US,...: ratio keys, fixed costs or memory ratios. */
static int parse_hold(const char *list, nd_fit_options *o, nd_error *err)
{
    char buf[512];
    if (!strcmp(list, "auto")) {
        o->hold_auto = true;
        return ND_OK;
    }
    nd_text_copy(buf, list, sizeof buf);
    for (char *save = NULL, *key = strtok_r(buf, ",", &save); key; key = strtok_r(NULL, ",", &save)) {
        while (*key == ' ') key++;
        int k = nd_ratio_key_from_name(key), f = nd_fixed_cost_from_name(key), m = nd_memory_ratio_from_name(key);
        if (k >= 0) o->hold[k] = true;
        else if (f >= 0) o->hold_fixed[f] = true;
        else if (m >= 0) o->hold_memory[m] = true;
        else
            return nd_error_set(err, ND_EUSAGE, "--hold %s: '%s' is not a ratio key, fixed cost or memory ratio "
                                "(COMPUTE, DP_COMM, ..., OVERHEAD, KERNEL_US, MICROBATCH_MS, STEP_MS, "
                                "MEM_ACTIVATIONS, MEM_TRANSIENT)", list, key);
    }
    /* The step cannot split PP_COMM from BUBBLE: holding either holds both. */
    o->hold[ND_RATIO_PP_COMM] = o->hold[ND_RATIO_BUBBLE] = o->hold[ND_RATIO_PP_COMM] || o->hold[ND_RATIO_BUBBLE];
    return ND_OK;
}

static int parse_mode(const nd_fit_request *req, nd_fit_options *o, nd_error *err)
{
    if (!req->mode) return ND_OK;
    if (!strcmp(req->mode, "parts")) o->mode = ND_FIT_PARTS;
    else if (!strcmp(req->mode, "total")) o->mode = ND_FIT_TOTAL;
    else if (!strcmp(req->mode, "sums")) o->mode = ND_FIT_SUMS;
    else if (!strcmp(req->mode, "auto")) o->mode = ND_FIT_AUTO;
    else return nd_error_set(err, ND_EUSAGE, "--mode %s: expected parts, total, sums or auto", req->mode);
    return ND_OK;
}

/* The options; the measured columns are those every round has. */
static int parse_options(const nd_fit_request *req, const nd_classified *rounds, int count, nd_fit_options *o,
                         nd_error *err)
{
    memset(o, 0, sizeof *o);
    o->robust = req->robust;
    o->allow_fallback = req->allow_fallback;
    for (int m = 0; m < ND_MEAS_COUNT; m++) {
        o->column[m] = true;
        for (int r = 0; r < count; r++) o->column[m] &= rounds[r].column[m];
    }
    int rc = parse_mode(req, o, err);
    if (rc) return rc;
    if (o->mode == ND_FIT_PARTS && !o->column[ND_MEAS_COMP])
        return nd_error_set(err, ND_EINPUT, "--mode parts: %s has no '%s' column (only the step is "
                            "measured: use --mode total)", rounds[0].path, nd_classified_csv.measured[ND_MEAS_COMP]);
    if (req->max_ci && (nd_parse_double(req->max_ci, &o->max_ci) || !(o->max_ci > 0) || o->max_ci > 1e6))
        return nd_error_set(err, ND_EUSAGE, "--max-ci %s: expected a positive fraction such as 0.5", req->max_ci);
    o->no_fixed = req->no_fixed;
    o->no_shapes = req->no_shapes;
    if (req->hold && (rc = parse_hold(req->hold, o, err))) return rc;
    if (req->weights) {
        if (!strcmp(req->weights, "relative")) o->weights = ND_WEIGHTS_RELATIVE;
        else if (!strcmp(req->weights, "absolute")) o->weights = ND_WEIGHTS_ABSOLUTE;
        else return nd_error_set(err, ND_EUSAGE, "--weights %s: expected relative or absolute", req->weights);
    }
    return ND_OK;
}

/* One round: its run and device, its rows, priced. */
typedef struct fit_round {
    nd_session ses;
    bool open;
    nd_classified round;
    nd_compare cmp;
} fit_round;

typedef struct fit_job {
    const nd_fit_request *req;
    fit_round *rounds;
    int count;
    nd_peak_kind peak;
    nd_device fitted;        /* --write_device: the fitted device */
    bool has_fitted;
    nd_fit_row *rows;        /* every round's rows, in round order */
    size_t n;
} fit_job;

static int open_rounds(fit_job *job, FILE *diag, nd_error *err)
{
    const nd_fit_request *req = job->req;
    int rc = ND_OK;
    for (int r = 0; !rc && r < job->count; r++) {
        nd_cli_common common = req->common;
        if (req->round_run[r]) common.run_path = req->round_run[r];
        fit_round *fr = &job->rounds[r];
        if (!(rc = nd_session_open(&fr->ses, &common, false, diag, err))) fr->open = true;
        if (!rc) rc = nd_classified_load(req->real_csv[r], &fr->round, err);
        if (!rc && r > 0 && strcmp(fr->ses.device->name, job->rounds[0].ses.device->name))
            rc = nd_error_set(err, ND_EUSAGE, "%s is priced on %s, %s on %s: every round of one fit runs on one "
                              "device", req->real_csv[0], job->rounds[0].ses.device->name, req->real_csv[r],
                              fr->ses.device->name);
    }
    return rc;
}

/* Prices every round (raw) on `device` (NULL: each round's own) and gathers the fit rows. */
static int price_rounds(fit_job *job, const nd_device *device, nd_error *err)
{
    free(job->rows);
    job->rows = NULL, job->n = 0;
    size_t total = 0;
    int rc = ND_OK;
    for (int r = 0; !rc && r < job->count; r++) {
        fit_round *fr = &job->rounds[r];
        nd_compare_free(&fr->cmp);
        nd_compare_inputs in = {&fr->ses.run, device ? device : fr->ses.device, fr->ses.budget_mib, NULL, job->peak};
        if (!(rc = nd_compare_round(&in, &fr->round, &fr->cmp, err))) total += fr->cmp.count;
    }
    if (!rc && !(job->rows = calloc(total, sizeof *job->rows))) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int r = 0; !rc && r < job->count; r++) {
        nd_fit_row *rows;
        if ((rc = nd_fit_rows(&job->rounds[r].cmp, &rows, err))) break;
        memcpy(job->rows + job->n, rows, job->rounds[r].cmp.count * sizeof *rows);
        job->n += job->rounds[r].cmp.count;
        free(rows);
    }
    return rc;
}

static void close_rounds(fit_job *job)
{
    for (int r = 0; r < job->count; r++) {
        nd_compare_free(&job->rounds[r].cmp);
        nd_classified_free(&job->rounds[r].round);
        if (job->rounds[r].open) nd_session_close(&job->rounds[r].ses);
    }
    free(job->rows);
}

/* --write_device: the device fitted to every round's steps, reported and written. */
static int fit_device(fit_job *job, FILE *out, nd_error *err)
{
    size_t total = 0;
    for (int r = 0; r < job->count; r++) total += job->rounds[r].cmp.count;
    nd_device_fit_row *rows = calloc(total, sizeof *rows);
    if (!rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (int r = 0, at = 0; r < job->count; at += (int)job->rounds[r].cmp.count, r++)
        nd_device_fit_rows(&job->rounds[r].cmp, &job->rounds[r].ses.run, r, rows + at);
    nd_device_fit_options o;
    nd_device_fit_options_init(&o);
    nd_device_fit_result res;
    const nd_device *base = job->rounds[0].ses.device;
    int rc = nd_device_fit(base, rows, total, &o, &res, err);
    if (!rc) {
        const char *models[ND_FIT_MAX_ROUNDS];
        for (int r = 0; r < job->count; r++) models[r] = job->rounds[r].ses.run.model.name;
        nd_fit_device_context ctx = {job->req->device_name, job->req->real_csv, job->count, models, 0};
        rc = nd_fit_device_write(job->req->write_device, base, &res, rows, &ctx, out, &job->fitted, err);
        job->has_fitted = !rc;
        nd_device_fit_result_free(&res);
    }
    free(rows);
    return rc;
}

/* The plots into -o DIR, named after the first round ("round.csv": round_ratios, round_loo). */
static int write_plots(const nd_fit_request *req, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                       nd_error *err)
{
    nd_plot_options opt;
    nd_plot_options_init(&opt);
    char *stem = nd_path_stem(req->real_csv[0]);
    int rc = stem ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && req->plot_format) rc = nd_plot_format_from_name(req->plot_format, &opt.format, err);
    if (!rc) rc = nd_make_dir(req->out_dir, err);
    if (!rc) rc = nd_fit_plots(req->out_dir, stem, res, rows, n, &opt, err);
    free(stem);
    return rc;
}

static int write_outputs(const fit_job *job, const nd_fit_result *res, const nd_fit_options *o, nd_error *err)
{
    const nd_fit_request *req = job->req;
    const nd_session *ses = &job->rounds[0].ses;
    char models[256];
    size_t used = 0;
    models[0] = '\0';
    for (int r = 0; r < job->count && used < sizeof models; r++)
        if (r == 0 || strcmp(job->rounds[r].ses.run.model.name, job->rounds[r - 1].ses.run.model.name))
            used += (size_t)snprintf(models + used, sizeof models - used, "%s%s", used ? ", " : "",
                                     job->rounds[r].ses.run.model.name);
    nd_fit_context ctx = {req->real_csv[0], job->has_fitted ? job->fitted.name : ses->device->name, models,
                          ses->run.train.seq_len, o->weights, o->robust, o->allow_fallback,
                          nd_peak_kind_name(job->peak)};
    int rc = ND_OK;
    if (req->write_ratios) {
        cJSON *doc = nd_fit_ratios_json(res, job->rows, job->n, &ctx);
        rc = doc ? nd_json_write_file(req->write_ratios, doc, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
    }
    if (!rc && req->report_json) {
        cJSON *doc = nd_fit_report_json(res, job->rows, job->n, &ctx);
        rc = doc ? nd_json_write_file(req->report_json, doc, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
    }
    if (!rc && req->out_dir && !req->no_plots) rc = write_plots(req, res, job->rows, job->n, err);
    return rc;
}

int nd_fit_command(const nd_fit_request *req, FILE *out, FILE *diag, nd_error *err)
{
    if (req->rounds == 0) return nd_error_set(err, ND_EUSAGE, "--real_csv ROUND.csv is required");
    if (req->plot_format) {
        nd_plot_format f;
        if (nd_plot_format_from_name(req->plot_format, &f, err)) return ND_EUSAGE;
    }
    if (!req->out_dir && (req->plot_format || req->no_plots) && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag, "nd-fit: note: %s is not used: plots are drawn only with -o DIR\n",
                req->plot_format ? "--format" : "--no-plots");
    int peak = req->peak ? nd_peak_kind_from_name(req->peak) : ND_PEAK_DEVICE;
    if (peak < 0) return nd_error_set(err, ND_EUSAGE, "--peak %s: expected device, reserved or allocated", req->peak);
    fit_round rounds[ND_FIT_MAX_ROUNDS];
    memset(rounds, 0, sizeof rounds);
    fit_job job;
    memset(&job, 0, sizeof job);
    job.req = req, job.rounds = rounds, job.count = req->rounds, job.peak = (nd_peak_kind)peak;
    nd_fit_result res = {0};
    nd_fit_options o;
    nd_classified firsts[ND_FIT_MAX_ROUNDS];
    int rc = open_rounds(&job, diag, err);
    for (int r = 0; !rc && r < job.count; r++) firsts[r] = rounds[r].round;
    if (!rc) rc = parse_options(req, firsts, job.count, &o, err);
    if (!rc) rc = price_rounds(&job, NULL, err);
    if (!rc && req->write_device) {
        rc = fit_device(&job, out, err);
        /* The ratios then correct what the fitted device estimates. */
        if (!rc && req->write_ratios) rc = price_rounds(&job, &job.fitted, err);
    }
    bool ratios = !rc && (req->write_ratios || !req->write_device);
    if (ratios) rc = nd_fit_run(job.rows, job.n, &o, &res, err);
    if (ratios && !rc) {
        nd_fit_print(out, &res, job.rows, job.n, rounds[0].cmp.normalized, req->write_ratios);
        rc = write_outputs(&job, &res, &o, err);
    }
    nd_fit_result_free(&res);
    close_rounds(&job);
    return rc;
}
