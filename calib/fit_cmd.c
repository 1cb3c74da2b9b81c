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
#include "fit_out.h"
#include "nd/json.h"
#include "nd/text.h"

static int parse_options(const nd_fit_request *req, const nd_classified *round, nd_fit_options *o,
                         nd_error *err)
{
    memset(o, 0, sizeof *o);
    o->robust = req->robust;
    o->allow_fallback = req->allow_fallback;
    memcpy(o->column, round->column, sizeof o->column);
    if (req->mode) {
        if (!strcmp(req->mode, "parts")) o->mode = ND_FIT_PARTS;
        else if (!strcmp(req->mode, "total")) o->mode = ND_FIT_TOTAL;
        else if (!strcmp(req->mode, "sums")) o->mode = ND_FIT_SUMS;
        else if (!strcmp(req->mode, "auto")) o->mode = ND_FIT_AUTO;
        else return nd_error_set(err, ND_EUSAGE, "--mode %s: expected parts, total, sums or auto", req->mode);
    }
    if (o->mode == ND_FIT_PARTS && !round->column[ND_MEAS_COMP])
        return nd_error_set(err, ND_EINPUT, "--mode parts: %s has no '%s' column (only the step is "
                            "measured: use --mode total)", round->path, nd_classified_csv.measured[ND_MEAS_COMP]);
    if (req->weights) {
        if (!strcmp(req->weights, "relative")) o->weights = ND_WEIGHTS_RELATIVE;
        else if (!strcmp(req->weights, "absolute")) o->weights = ND_WEIGHTS_ABSOLUTE;
        else return nd_error_set(err, ND_EUSAGE, "--weights %s: expected relative or absolute", req->weights);
    }
    return ND_OK;
}

static int make_rows(const nd_compare *cmp, nd_fit_row **rows, nd_error *err)
{
    *rows = calloc(cmp->count, sizeof **rows);
    if (!*rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; i < cmp->count; i++) {
        const nd_compare_row *c = &cmp->rows[i];
        nd_fit_row *r = &(*rows)[i];
        snprintf(r->label, sizeof r->label, "%s", c->label);
        memcpy(r->est, c->est.raw_parts_ms, sizeof r->est);
        for (int m = 0; m < ND_MEAS_COUNT; m++) r->measured[m] = c->row->has[m] ? c->row->measured[m] : 0;
        r->time_ms = c->row->time_ms;
        r->rank_ms = c->rank_cost;
        r->rank_scale = c->rank_cost / c->rank_ms;
        r->idle_ms = nd_classified_idle_ms(c->row);
        r->busy_ms = nd_classified_busy_ms(c->row);
    }
    return ND_OK;
}

static int write_outputs(const nd_fit_request *req, const nd_session *ses, const nd_fit_result *res,
                         const nd_fit_row *rows, size_t n, const nd_fit_options *o, nd_error *err)
{
    nd_fit_context ctx = {req->real_csv, ses->device->name, ses->run.model.name,
                          ses->run.train.seq_len, o->weights, o->robust, o->allow_fallback, NULL};
    int rc = ND_OK;
    if (req->write_ratios) {
        cJSON *doc = nd_fit_ratios_json(res, rows, n, &ctx);
        rc = doc ? nd_json_write_file(req->write_ratios, doc, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
    }
    if (!rc && req->report_json) {
        cJSON *doc = nd_fit_report_json(res, rows, n, &ctx);
        rc = doc ? nd_json_write_file(req->report_json, doc, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
        cJSON_Delete(doc);
    }
    return rc;
}

int nd_fit_command(const nd_fit_request *req, FILE *out, FILE *diag, nd_error *err)
{
    if (!req->real_csv) return nd_error_set(err, ND_EUSAGE, "--real_csv ROUND.csv is required");
    nd_session ses;
    nd_classified round = {0};
    nd_compare cmp = {0};
    nd_fit_row *rows = NULL;
    nd_fit_result res = {0};
    nd_fit_options o;
    int rc = nd_session_open(&ses, &req->common, false, diag, err);
    if (!rc) rc = nd_classified_load(req->real_csv, &round, err);
    if (!rc) rc = parse_options(req, &round, &o, err);
    if (!rc) {
        nd_compare_inputs in = {&ses.run, ses.device, ses.budget_mib, NULL};
        rc = nd_compare_round(&in, &round, &cmp, err);
    }
    if (!rc) rc = make_rows(&cmp, &rows, err);
    if (!rc) rc = nd_fit_run(rows, cmp.count, &o, &res, err);
    if (!rc) {
        nd_fit_print(out, &res, rows, cmp.count, cmp.normalized, req->write_ratios);
        rc = write_outputs(req, &ses, &res, rows, cmp.count, &o, err);
    }
    nd_fit_result_free(&res);
    free(rows);
    nd_compare_free(&cmp);
    nd_classified_free(&round);
    nd_session_close(&ses);
    return rc;
}
