/*
 * fit_cmd.c — nd-fit: estimate each row of the round (raw), fit the ratios,
 * print the report and write the ratios file only when the fit succeeded.
 */
#include "fit_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/calibrate/classified.h"
#include "nd/calibrate/compare.h"
#include "compare_out.h"
#include "nd/calibrate/fit.h"
#include "nd/calibrate/fit_device.h"
#include "nd/html/html.h"
#include "nd/base/io.h"
#include "nd/calibrate/fit_suggest.h"
#include "fit_out.h"
#include "nd/base/json.h"
#include "nd/base/text.h"

/* --hold COMPUTE,KERNEL_US,...: ratio keys, fixed costs or memory ratios. */
static int parse_hold(const char *list, nd_fit_options *o, nd_error *err)
{
    char buf[512];
    if (!strcmp(list, "auto")) {
        o->hold_auto = true;
        return ND_OK;
    }
    if (nd_text_copy(buf, list, sizeof buf) >= sizeof buf)
        return nd_error_set(err, ND_EUSAGE, "--hold: a list of %zu bytes; nd reads at most %zu", strlen(list),
                            sizeof buf - 1);
    int named = 0;
    for (char *save = NULL, *key = strtok_r(buf, ",", &save); key; key = strtok_r(NULL, ",", &save)) {
        while (*key == ' ') key++;
        if (!*key) continue;
        named++;
        int k = nd_ratio_key_from_name(key), f = nd_fixed_cost_from_name(key),
            m = nd_memory_ratio_from_name(key);
        if (k >= 0)
            o->hold[k] = true;
        else if (f >= 0)
            o->hold_fixed[f] = true;
        else if (m >= 0)
            o->hold_memory[m] = true;
        else
            return nd_error_set(err, ND_EUSAGE,
                                "--hold %s: '%s' is not a ratio key, fixed cost or memory ratio "
                                "(COMPUTE, DP_COMM, ..., OVERHEAD, KERNEL_US, MICROBATCH_MS, STEP_MS, "
                                "MEM_ACTIVATIONS, MEM_TRANSIENT)",
                                list, key);
    }
    if (!named)
        return nd_error_set(err, ND_EUSAGE,
                            "--hold '%s' names no key: give ratio keys, fixed costs or memory ratios "
                            "(COMPUTE,DP_COMM,...) or auto",
                            list);
    /* The step cannot split PP_COMM from BUBBLE: holding either holds both. */
    o->hold[ND_RATIO_PP_COMM] = o->hold[ND_RATIO_BUBBLE] =
        o->hold[ND_RATIO_PP_COMM] || o->hold[ND_RATIO_BUBBLE];
    return ND_OK;
}

static int parse_mode(const nd_fit_request *req, nd_fit_options *o, nd_error *err)
{
    if (!req->mode) return ND_OK;
    if (!strcmp(req->mode, "parts"))
        o->mode = ND_FIT_PARTS;
    else if (!strcmp(req->mode, "total"))
        o->mode = ND_FIT_TOTAL;
    else if (!strcmp(req->mode, "sums"))
        o->mode = ND_FIT_SUMS;
    else if (!strcmp(req->mode, "auto"))
        o->mode = ND_FIT_AUTO;
    else
        return nd_error_set(err, ND_EUSAGE, "--mode %s: expected parts, total, sums or auto", req->mode);
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
        return nd_error_set(err, ND_EINPUT,
                            "--mode parts: %s has no '%s' column (only the step is "
                            "measured: use --mode total)",
                            rounds[0].path, nd_classified_csv.measured[ND_MEAS_COMP]);
    if (req->max_ci && (nd_parse_double(req->max_ci, &o->max_ci) || !(o->max_ci > 0) || o->max_ci > 1e6))
        return nd_error_set(err, ND_EUSAGE, "--max-ci %s: expected a positive fraction such as 0.5",
                            req->max_ci);
    o->no_fixed = req->no_fixed;
    o->no_shapes = req->no_shapes;
    if (req->hold && (rc = parse_hold(req->hold, o, err))) return rc;
    if (req->weights) {
        if (!strcmp(req->weights, "relative"))
            o->weights = ND_WEIGHTS_RELATIVE;
        else if (!strcmp(req->weights, "absolute"))
            o->weights = ND_WEIGHTS_ABSOLUTE;
        else
            return nd_error_set(err, ND_EUSAGE, "--weights %s: expected relative or absolute", req->weights);
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
    uint64_t hash[ND_FIT_MAX_ROUNDS]; /* each round file's FNV-1a: what the fit saw */
    nd_device fitted;                 /* --write_device: the fitted device */
    bool has_fitted;
    nd_fit_row *rows; /* every round's rows, in round order */
    size_t n;
    nd_html_capture *notes; /* --report: what the run printed on stderr, else NULL */
    FILE *progress;         /* progress lines (stderr), or NULL */
    FILE *later;            /* lines saying a file was written: printed only when the fit succeeds */
} fit_job;

static int open_rounds(fit_job *job, FILE *diag, nd_error *err)
{
    const nd_fit_request *req = job->req;
    int rc = ND_OK;
    for (int r = 0; !rc && r < job->count; r++) {
        nd_cli_common common = req->common;
        if (req->round_run[r]) common.run_path = req->round_run[r];
        fit_round *fr = &job->rounds[r];
        rc = nd_session_open(&fr->ses, &common, false, diag, err);
        fr->open = true; /* closed even after a failure: it frees what the open allocated */
        if (!rc) rc = nd_classified_load(req->real_csv[r], &fr->round, err);
        job->hash[r] = nd_fit_file_hash(req->real_csv[r]);
        if (!rc && r > 0 && strcmp(fr->ses.device->name, job->rounds[0].ses.device->name))
            rc = nd_error_set(err, ND_EUSAGE,
                              "%s is priced on %s, %s on %s: every round of one fit runs on one "
                              "device",
                              req->real_csv[0], job->rounds[0].ses.device->name, req->real_csv[r],
                              fr->ses.device->name);
    }
    return rc;
}

/* Prices every round (raw) on `device` (NULL: each round's own) and gathers the fit rows. */
static int price_rounds(fit_job *job, const nd_device *device, nd_error *err)
{
    free(job->rows);
    job->rows = NULL;
    job->n = 0;
    size_t total = 0;
    int rc = ND_OK;
    for (int r = 0; !rc && r < job->count; r++) {
        fit_round *fr = &job->rounds[r];
        nd_compare_free(&fr->cmp);
        nd_compare_inputs in = {&fr->ses.run,
                                device ? device : fr->ses.device,
                                fr->ses.budget_mib,
                                NULL,
                                job->peak,
                                job->req->common.mppb ? &fr->ses.run.layout : NULL,
                                true};
        if (!(rc = nd_compare_round_progress(&in, &fr->round, &fr->cmp, job->progress, "nd-fit", err)))
            total += fr->cmp.count;
    }
    if (!rc && !(job->rows = calloc(total, sizeof *job->rows)))
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
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
        nd_fit_previous prev;
        if (!(rc = nd_fit_previous_read(job->req->write_device, true, &prev, err))) {
            nd_fit_device_context ctx = {
                job->req->device_name, job->req->real_csv, job->count, models, job->hash, &prev};
            rc = nd_fit_device_write(job->req->write_device, base, &res, rows, &ctx, out, job->later,
                                     &job->fitted, err);
        }
        nd_fit_previous_free(&prev);
        job->has_fitted = !rc;
        nd_device_fit_result_free(&res);
    }
    free(rows);
    return rc;
}

/* The plots into -o DIR, named after the first round ("round.csv": round_ratios, round_loo);
 * with --report an SVG copy of each too (only the copy without -o). */
static int write_plots(const nd_fit_request *req, const nd_fit_result *res, const nd_fit_row *rows, size_t n,
                       nd_plot_gallery *gallery, nd_error *err)
{
    if (req->out_dir) { /* the plots' numbers, for nd-plot ratios and loo, with or without plots */
        char *csv_stem = nd_path_stem(req->real_csv[0]);
        int rc = csv_stem ? nd_make_dir(req->out_dir, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        if (!rc) rc = nd_fit_plot_csvs(req->out_dir, csv_stem, res, rows, n, err);
        free(csv_stem);
        if (rc) return rc;
    }
    if (req->no_plots || (!req->out_dir && !req->report)) return ND_OK;
    nd_plot_options opt;
    nd_plot_options_init(&opt);
    opt.gallery = req->report ? gallery : NULL;
    opt.gallery_only = !req->out_dir;
    char *stem = nd_path_stem(req->real_csv[0]);
    int rc = stem ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && req->plot_format) rc = nd_plot_format_from_name(req->plot_format, &opt.format, err);
    if (!rc && req->out_dir) rc = nd_make_dir(req->out_dir, err);
    if (!rc) rc = nd_fit_plots(req->out_dir ? req->out_dir : ".", stem, res, rows, n, &opt, err);
    free(stem);
    return rc;
}

/* The cluster --suggest searches: -d and -b (or the run file's), else the round's most
 * frequent device count and batch. */
static void suggest_cluster(const fit_job *job, int64_t *devices, int64_t *gbs)
{
    const fit_round *r0 = &job->rounds[0];
    *devices = r0->ses.run.devices;
    *gbs = r0->ses.run.train.global_batch;
    if (*devices > 0 && *gbs > 0) return;
    size_t best = 0;
    for (size_t i = 0; i < r0->cmp.count; i++) {
        size_t same = 0;
        for (size_t j = 0; j < r0->cmp.count; j++)
            same += r0->cmp.rows[j].devices == r0->cmp.rows[i].devices &&
                    r0->cmp.rows[j].gbs == r0->cmp.rows[i].gbs;
        if (same > best) {
            best = same;
            *devices = r0->cmp.rows[i].devices;
            *gbs = r0->cmp.rows[i].gbs;
        }
    }
}

static void suggestion_label(const nd_suggestion *s, char *buf, size_t size)
{
    nd_strategy_label(&s->strategy, buf, size);
    size_t used = strlen(buf);
    if (s->strategy.recompute != ND_RECOMPUTE_OFF && used < size)
        snprintf(buf + used, size - used, " recompute=%s", nd_recompute_name(s->strategy.recompute));
}

/* Suggestions for the first round's model: printed and written with --suggest; after a
 * refusal, the first three also name what to profile in its message. */
static int suggest(const fit_job *job, const nd_fit_result *res, unsigned res_unidentified, bool refused,
                   FILE *out, nd_error *err)
{
    const nd_fit_request *req = job->req;
    size_t k = req->suggest > 0 ? (size_t)req->suggest : 3, n_prof = 0, count = 0;
    nd_suggestion *s = calloc(k, sizeof *s);
    nd_strategy *prof = calloc(job->n, sizeof *prof);
    nd_ratios *ratios = refused ? NULL : malloc(sizeof *ratios);
    if (!s || !prof || (!refused && !ratios)) {
        free(s);
        free(prof);
        free(ratios);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    for (int r = 0; r < job->count; r++)
        for (size_t i = 0; i < job->rounds[r].cmp.count; i++)
            prof[n_prof++] = job->rounds[r].cmp.rows[i].strategy;
    if (ratios) nd_fit_ratios_of(res, ratios);
    const fit_round *r0 = &job->rounds[0];
    nd_suggest_inputs in = {&r0->ses.run,
                            job->has_fitted ? &job->fitted : r0->ses.device,
                            r0->ses.budget_mib,
                            0,
                            0,
                            job->rows,
                            job->n,
                            prof,
                            n_prof,
                            ratios,
                            req->no_fixed,
                            refused ? res_unidentified : 0,
                            0};
    /* The dimensions the rounds vary (their columns); the rest keep the run's values. */
    for (int r = 0; r < job->count; r++)
        in.vary |= job->rounds[r].round.dims & (ND_DIM_BIT(ND_DIMS_SEARCHED) - 1);
    suggest_cluster(job, &in.devices, &in.global_batch);
    nd_error quiet = {0};
    int rc = nd_fit_suggest(&in, k, s, &count, refused ? &quiet : err);
    if (refused && !rc && count) { /* name them in the refusal */
        size_t len = strlen(err->message);
        for (size_t i = 0; i < count && i < 3; i++) {
            char label[128];
            suggestion_label(&s[i], label, sizeof label);
            len += (size_t)snprintf(err->message + len,
                                    len < sizeof err->message ? sizeof err->message - len : 0, "%s%s",
                                    i ? "; " : "; to separate them profile e.g. ", label);
        }
    }
    if (!rc && req->suggest) {
        fprintf(out, "Suggested next (%zu, for %lld x %s, global batch %lld):\n", count,
                (long long)in.devices, in.device->name, (long long)in.global_batch);
        for (size_t i = 0; i < count; i++) {
            char label[128];
            suggestion_label(&s[i], label, sizeof label);
            fprintf(out, "  %2zu. %-40s %10.1f ms   %s\n", i + 1, label, s[i].estimate_ms, s[i].reason);
        }
        if (req->run_list) {
            int wrc = nd_fit_suggest_write(req->run_list, s, count, err);
            if (wrc)
                rc = wrc;
            else
                fprintf(job->later, "Run list written to %s.\n", req->run_list);
        }
    }
    free(s);
    free(prof);
    free(ratios);
    return refused ? ND_OK : rc;
}

/* The drift of every fitted term against the file being replaced. */
static size_t ratio_drift(const nd_fit_result *res, const nd_fit_previous *prev, nd_fit_drift_entry *d)
{
    size_t n = 0;
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        if (res->status[k] == ND_RATIO_FITTED)
            n = nd_fit_drift(prev, nd_ratio_key_name((nd_ratio_key)k), res->ratio[k], d, n);
    for (int f = 0; f < ND_FIXED_COSTS; f++)
        if (res->fixed[f].status == ND_RATIO_FITTED)
            n = nd_fit_drift(prev, nd_fixed_cost_name((nd_fixed_cost)f), res->fixed[f].value, d, n);
    for (int m = 0; m < ND_MEM_RATIOS; m++)
        if (res->memory[m].status == ND_RATIO_FITTED)
            n = nd_fit_drift(prev, nd_memory_ratio_name((nd_memory_ratio)m), res->memory[m].value, d, n);
    return n;
}

static int write_outputs(const fit_job *job, const nd_fit_result *res, const nd_fit_options *o, nd_error *err)
{
    const nd_fit_request *req = job->req;
    const nd_session *ses = &job->rounds[0].ses;
    char models[256];
    size_t used = 0, rows[ND_FIT_MAX_ROUNDS];
    uint64_t hash[ND_FIT_MAX_ROUNDS];
    models[0] = '\0';
    for (int r = 0; r < job->count && used < sizeof models; r++)
        if (r == 0 || strcmp(job->rounds[r].ses.run.model.name, job->rounds[r - 1].ses.run.model.name))
            used += (size_t)snprintf(models + used, sizeof models - used, "%s%s", used ? ", " : "",
                                     job->rounds[r].ses.run.model.name);
    for (int r = 0; r < job->count; r++) {
        rows[r] = job->rounds[r].cmp.count;
        hash[r] = job->hash[r];
    }
    nd_fit_previous prev = {0};
    nd_fit_drift_entry drift[ND_HISTORY_TERMS];
    size_t n_drift = 0;
    cJSON *drift_json = NULL;
    int rc = ND_OK;
    if (req->write_ratios) {
        /* The file this fit replaces, read under the run's lock: two nightly jobs cannot
         * interleave. */
        if ((rc = nd_fit_previous_read(req->write_ratios, false, &prev, err))) return rc;
        n_drift = ratio_drift(res, &prev, drift);
        if (prev.present) drift_json = nd_fit_drift_json(drift, n_drift);
    }
    nd_fit_context ctx = {req->real_csv[0],
                          job->has_fitted ? job->fitted.name : ses->device->name,
                          models,
                          ses->run.train.seq_len,
                          o->weights,
                          o->robust,
                          o->allow_fallback,
                          nd_peak_kind_name(job->peak),
                          job->count,
                          req->real_csv,
                          rows,
                          hash,
                          prev.history,
                          drift_json};
    if (req->write_ratios) {
        cJSON *doc = nd_fit_ratios_json(res, job->rows, job->n, &ctx);
        rc = doc ? nd_json_write_file(req->write_ratios, doc, err)
                 : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
        if (!rc) {
            fprintf(job->later, "Ratios written to %s; nd-search -c reads them.\n", req->write_ratios);
            nd_fit_drift_print(job->later, req->write_ratios, &prev, drift, n_drift);
        }
    }
    if (!rc && req->report_json) {
        cJSON *doc = nd_fit_report_json(res, job->rows, job->n, &ctx);
        rc = doc ? nd_json_write_file(req->report_json, doc, err)
                 : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
    }
    nd_plot_gallery gallery = {0};
    if (!rc) rc = write_plots(req, res, job->rows, job->n, &gallery, err);
    if (!rc && req->report) {
        nd_fit_report_inputs in = {req->round_run[0] ? req->round_run[0] : req->common.run_path,
                                   req->real_csv[0],
                                   models,
                                   ctx.device,
                                   req->write_ratios,
                                   req->report_json};
        rc = nd_fit_report_html(req->report, res, job->rows, job->n, &in, &gallery, job->notes, err);
    }
    nd_plot_gallery_free(&gallery);
    cJSON_Delete(drift_json);
    nd_fit_previous_free(&prev);
    return rc;
}

/* Before anything runs: no file named by two output flags (the same path, a symlink or a hard
 * link to it), and the locks on the files this fit reads back and replaces (its ratios and
 * its device file: their history), taken together in one fixed order (nd_path_lock), so that
 * two fits naming them in either order never deadlock. */
static int take_outputs(const nd_fit_request *req, nd_path_lock *lock, nd_error *err)
{
    const char *names[] = {"--write_ratios", "--write_device", "--report-json", "--run-list", "--report"};
    const char *paths[] = {req->write_ratios, req->write_device, req->report_json, req->run_list,
                           req->report};
    int rc = nd_outputs_distinct(names, paths, 5, err);
    return rc ? rc : nd_path_lock_take_all(lock, paths, 2, err);
}

/* Once the rounds are read: no output that is one of them, a directory or a device, before
 * anything is fitted or printed. */
static int check_outputs(const nd_fit_request *req, nd_error *err)
{
    const char *names[] = {"--write_ratios", "--write_device", "--report-json", "--run-list", "--report"};
    const char *paths[] = {req->write_ratios, req->write_device, req->report_json, req->run_list,
                           req->report};
    return nd_outputs_writable(names, paths, 5, err);
}

int nd_fit_command(const nd_fit_request *req, FILE *out, FILE *diag, nd_error *err)
{
    if (req->rounds == 0) return nd_error_set(err, ND_EUSAGE, "--real_csv ROUND.csv is required");
    if (req->plot_format) {
        nd_plot_format f;
        if (nd_plot_format_from_name(req->plot_format, &f, err)) return ND_EUSAGE;
    }
    if (!req->out_dir && req->plot_format && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag, "nd-fit: note: --format is not used: plot files are drawn only with -o DIR\n");
    if (!req->out_dir && !req->report && req->no_plots && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag, "nd-fit: note: --no-plots is not used: plots are drawn only with -o DIR or --report\n");
    int peak = req->peak ? nd_peak_kind_from_name(req->peak) : ND_PEAK_DEVICE;
    if (peak < 0)
        return nd_error_set(err, ND_EUSAGE, "--peak %s: expected device, reserved or allocated", req->peak);
    /* With --report, what the run says on stderr is also kept for the report's notes. */
    nd_html_capture capture = {0};
    if (req->report && nd_html_capture_open(&capture, diag, err)) return err->code;
    if (req->report) diag = capture.fp;
    fit_round rounds[ND_FIT_MAX_ROUNDS];
    memset(rounds, 0, sizeof rounds);
    fit_job job;
    memset(&job, 0, sizeof job);
    job.req = req;
    job.rounds = rounds;
    job.count = req->rounds;
    job.peak = (nd_peak_kind)peak;
    job.notes = req->report ? &capture : NULL;
    job.progress = nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT) ? capture.to ? capture.to : diag : NULL;
    nd_fit_result res = {0};
    nd_fit_options o;
    nd_classified firsts[ND_FIT_MAX_ROUNDS];
    nd_path_lock lock = {{0}, 0};
    char *later_text = NULL;
    size_t later_len = 0;
    int rc = take_outputs(req, &lock, err);
    if (!rc && !(job.later = open_memstream(&later_text, &later_len)))
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = open_rounds(&job, diag, err);
    if (!rc) rc = check_outputs(req, err);
    for (int r = 0; !rc && r < job.count; r++) firsts[r] = rounds[r].round;
    if (!rc) rc = parse_options(req, firsts, job.count, &o, err);
    if (!rc) rc = price_rounds(&job, NULL, err);
    for (int r = 0; !rc && r < job.count; r++) nd_compare_print_skips(diag, &job.rounds[r].cmp);
    if (!rc && req->write_device) {
        rc = fit_device(&job, out, err);
        /* The ratios then correct what the fitted device estimates. */
        if (!rc && req->write_ratios) rc = price_rounds(&job, &job.fitted, err);
    }
    bool ratios = !rc && (req->write_ratios || !req->write_device);
    if (ratios) rc = nd_fit_run(job.rows, job.n, &o, &res, err);
    if (ratios && rc == ND_EINPUT && res.unidentified) suggest(&job, NULL, res.unidentified, true, out, err);
    if (ratios && !rc) {
        nd_fit_print(out, &res, job.rows, job.n, rounds[0].cmp.normalized, NULL);
        rc = write_outputs(&job, &res, &o, err);
        if (!rc && req->suggest) rc = suggest(&job, &res, 0, false, out, err);
    }
    nd_fit_result_free(&res);
    close_rounds(&job);
    nd_path_lock_release(&lock); /* the run holds it until its renames are done */
    if (job.later) fclose(job.later);
    if (!rc && later_len) fwrite(later_text, 1, later_len, out);
    free(later_text);
    nd_html_capture_close(&capture);
    return rc;
}
