/*
 * estimate_cmd.c — nd-estimate: load the run, apply the flags, price one
 * strategy, print the table or the JSON document.
 */
#include "estimate_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/estimate.h"
#include "nd/costmodel/layer_cache.h"
#include "nd/inputs/ratios.h"
#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/session/fidelity.h"
#include "nd/costmodel/report.h"
#include "nd/inputs/search_config.h"
#include "nd/costmodel/stage.h"
#include "nd/inputs/layout.h"

/* -o DIR: the estimate as --json prints it (estimate.json) and its memory per stage
 * (memory.csv, nd-plot memory's input). */
static int write_dir(const char *dir, const nd_context *ctx, const nd_strategy *s, const nd_estimate *est,
                     nd_error *err)
{
    int rc = nd_make_dir(dir, err);
    char *json = rc ? NULL : nd_path_join(dir, "estimate.json"),
         *csv = rc ? NULL : nd_path_join(dir, "memory.csv");
    if (!rc && (!json || !csv)) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    cJSON *doc = rc ? NULL : nd_report_estimate_json(ctx, s, est);
    if (!rc && !doc) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = nd_json_write_file(json, doc, err);
    if (!rc) rc = nd_report_memory_csv(csv, est, ctx->budget_mib, err);
    cJSON_Delete(doc);
    free(json);
    free(csv);
    return rc;
}

/* An estimate without ratios is nd's raw model: how far off such estimates were on the runs nd
 * was benchmarked against, and the step and MFU at that error. */
static void note_uncalibrated(FILE *out, const nd_context *ctx, const nd_strategy *s, const nd_estimate *est)
{
    if (ctx->ratios) return;
    const char *caveat = nd_estimate_strategy_caveat(ctx, s);
    if (caveat) fprintf(out, "strategy: %s (docs/benchmarks.md)\n", caveat);
    double e = ND_UNCALIBRATED_STEP_ERROR;
    fprintf(
        out,
        "uncalibrated: on the real runs nd was benchmarked against, its step estimates were off by %.0f to "
        "%.0f %% on average per set, mostly too fast (docs/benchmarks.md): at +-%.1f %% the step is %.0f to "
        "%.0f ms and the MFU %.1f %% at the longer end; a profiling round calibrates it (nd-fit)\n",
        100 * ND_UNCALIBRATED_STEP_ERROR_LOW, 100 * e, 100 * e, est->step_ms * (1 - e),
        est->step_ms * (1 + e), 100 * est->mfu / (1 + e));
    if (ctx->device->rates_caveat)
        fprintf(out,
                "device %s: %s (docs/benchmarks.md); a device file with the cluster's measured kernels "
                "(docs/devices.md) or a profiling round corrects it\n",
                ctx->device->name, ctx->device->rates_caveat);
}

/* The files this run writes, refused before anything is priced or printed. */
static int check_outputs(const nd_estimate_request *req, nd_error *err)
{
    const char *dir = req->common.shared.out_dir;
    char *json = dir ? nd_path_join(dir, "estimate.json") : NULL,
         *csv = dir ? nd_path_join(dir, "memory.csv") : NULL;
    int rc = dir && (!json || !csv) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    const char *names[] = {"--memory-csv", "-o", "-o"}, *paths[] = {req->memory_csv, json, csv};
    if (!rc) rc = nd_outputs_writable(names, paths, 3, err);
    free(json);
    free(csv);
    return rc;
}

int nd_estimate_command(const nd_estimate_request *req, FILE *out, FILE *diag, nd_error *err)
{
    nd_session ses;
    int rc = nd_session_open(&ses, &req->common, false, diag, err);
    if (!rc) rc = check_outputs(req, err);
    if (rc) goto done;
    const nd_run *run = &ses.run;
    nd_strategy s = run->strategy;
    bool fixed = false; /* the search config's fixed degrees: a strategy to price */
    for (int d = 0; ses.search && d < ND_DIMS_SEARCHED; d++)
        if (ses.search->fixed[d]) {
            nd_strategy_set_dim(&s, (nd_dim)d, ses.search->fixed_value[d]);
            fixed = true;
        }
    if (req->strategy && (rc = nd_strategy_parse(&s, req->strategy, err))) {
        err->code = rc = ND_EUSAGE;
        nd_error_prefix(err, "--strategy");
        goto done;
    }
    /* The run's FIRST/LAST are for its own PP: another PP splits evenly unless stated. */
    if (s.pp != run->strategy.pp && s.first_stage_layers == run->strategy.first_stage_layers &&
        s.last_stage_layers == run->strategy.last_stage_layers)
        s.first_stage_layers = s.last_stage_layers = 0;
    if (!req->strategy && !run->has_strategy && !fixed) {
        rc = nd_error_set(err, ND_EUSAGE,
                          "no strategy: give --strategy \"DP=8 MP=4 PP=2 ...\" "
                          "or a strategy: section in the run file");
        if (run->source[0]) nd_error_prefix(err, "%s", run->source); /* the file that states none */
        goto done;
    }
    if ((rc = nd_strategy_check(&s, &run->model, run->devices, run->train.global_batch, run->train.seq_len,
                                err)))
        goto done;
    if ((rc = nd_strategy_check_cp_heads(s.tp, s.cp, &run->model, &run->train, err))) goto done;

    nd_context ctx;
    nd_context_init(&ctx, &run->model, &run->train, ses.device, s.dp * s.tp * s.pp * s.cp, ses.budget_mib,
                    ses.has_ratios ? &ses.ratios.ratios : NULL);
    nd_estimate est;
    est.stage_memory = calloc((size_t)s.pp, sizeof *est.stage_memory);
    est.stage_time = calloc((size_t)s.pp, sizeof *est.stage_time);
    if (!est.stage_memory || !est.stage_time) {
        free(est.stage_memory);
        free(est.stage_time);
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        goto done;
    }
    nd_recompute_plan plan = {0};
    const nd_recompute_plan *use_plan = NULL;
    if (run->has_plan) {
        if ((rc = nd_plan_from_run(run, &s, &plan, err))) goto free_est;
        use_plan = &plan;
    } else if (nd_cli_stage_counts(&req->common, run->format) &&
               !nd_layout_plan(&run->model, &run->layout, &s, ses.run.plan.layers)) {
        plan = (nd_recompute_plan){s.pp, ses.run.plan.layers, NULL, 0};
        use_plan = &plan;
    }
    rc = nd_estimate_strategy(&ctx, &s, NULL, use_plan, &est, err);
    if (!rc) {
        if (req->json) {
            cJSON *doc = nd_report_estimate_json(&ctx, &s, &est);
            if (!doc || nd_json_print(out, doc))
                rc = nd_error_set(err, ND_EIO, "cannot write the JSON document");
            cJSON_Delete(doc);
        } else {
            nd_report_estimate_text(out, &ctx, &s, &est);
            if (nd_cli_says(&req->common, ND_VERBOSITY_INFO)) nd_report_layers_text(out, &ctx, &s);
            if (use_plan && !run->has_plan) { /* -mppb's plan: what each stage recomputes */
                fprintf(out, "recompute per stage (-mppb), full/selective/off layers:");
                for (int64_t i = 0; i < s.pp; i++) {
                    int64_t by[ND_RECOMPUTE_MODES] = {0};
                    for (int k = 0; k < ND_LAYER_KINDS; k++)
                        for (int m = 0; m < ND_RECOMPUTE_MODES; m++) by[m] += plan.layers[i][k][m];
                    fprintf(out, " %lld/%lld/%lld", (long long)by[ND_RECOMPUTE_FULL],
                            (long long)by[ND_RECOMPUTE_SELECTIVE], (long long)by[ND_RECOMPUTE_OFF]);
                }
                fputc('\n', out);
            }
        }
        if (!rc && req->memory_csv) rc = nd_report_memory_csv(req->memory_csv, &est, ctx.budget_mib, err);
        if (!rc && req->common.shared.out_dir)
            rc = write_dir(req->common.shared.out_dir, &ctx, &s, &est, err);
        if (!rc && !req->json) note_uncalibrated(out, &ctx, &s, &est);
    }
free_est:
    free(est.stage_memory);
    free(est.stage_time);
done:
    nd_session_close(&ses);
    return rc;
}
