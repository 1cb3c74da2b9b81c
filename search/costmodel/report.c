/*
 * report.c — printing an estimate (table or JSON).
 */
#include "nd/costmodel/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/costmodel/prediction.h"
#include "nd/base/version.h"
#include "nd/base/array.h"

cJSON *nd_report_strategy_json(const nd_strategy *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (int i = 0; i < ND_DIMS; i++) {
        nd_dim d = nd_dim_strategy_order[i];
        nd_json_add_number(o, nd_dim_name(d), (double)nd_strategy_dim_resolved(s, d));
    }
    if (s->first_stage_layers) nd_json_add_number(o, nd_strategy_keys.first, (double)s->first_stage_layers);
    if (s->last_stage_layers) nd_json_add_number(o, nd_strategy_keys.last, (double)s->last_stage_layers);
    cJSON_AddStringToObject(o, nd_strategy_keys.recompute, nd_recompute_name(s->recompute));
    cJSON_AddStringToObject(o, nd_strategy_keys.schedule, nd_schedule_name(s->schedule));
    return o;
}

/* The keys of the report JSON (formats.h). */
static const nd_report_format *const key = &nd_report_json;

/* The 95 % prediction intervals -c gives (NaN without an uncertainty in the ratios file). */
static double step_halfwidth(const nd_context *ctx, const nd_strategy *s, const nd_estimate *est)
{
    return ctx->ratios ? nd_prediction_step_halfwidth_ms(ctx->ratios, s, est) : NAN;
}

static double peak_halfwidth(const nd_context *ctx, const nd_estimate *est)
{
    if (!ctx->ratios || !est->stage_memory) return NAN;
    return nd_prediction_peak_halfwidth_mib(ctx->ratios, &est->stage_memory[est->peak_stage], ND_PEAK_DEVICE,
                                            est->peak_mib);
}

static void add_interval(cJSON *doc, const char *name, double centre, double half)
{
    if (!isfinite(half)) return;
    cJSON *a = cJSON_AddArrayToObject(doc, name);
    cJSON_AddItemToArray(a, cJSON_CreateNumber(centre - half));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(centre + half));
}

static cJSON *stage_json(const nd_stage_memory *m, const nd_stage_time *t, int64_t i)
{
    cJSON *o = cJSON_CreateObject();
    nd_json_add_number(o, key->stage, (double)i);
    nd_json_add_number(o, key->first_layer, (double)m->first_layer);
    nd_json_add_number(o, key->layers, (double)m->layers);
    nd_json_add_number(o, key->inflight_microbatches, m->inflight);
    cJSON *mem = cJSON_AddObjectToObject(o, key->memory_mib);
    nd_json_add_number(mem, key->params, m->params_mib);
    nd_json_add_number(mem, key->grads, m->grads_mib);
    nd_json_add_number(mem, key->optimizer, m->optimizer_mib);
    nd_json_add_number(mem, key->activations, m->activations_mib);
    nd_json_add_number(mem, key->working, m->working_mib);
    nd_json_add_number(mem, key->buffers, m->buffers_mib);
    nd_json_add_number(mem, key->allocator, m->allocator_mib);
    nd_json_add_number(mem, key->held, m->held_mib);
    nd_json_add_number(mem, key->context, m->context_mib);
    nd_json_add_number(mem, key->allocated, m->allocated_mib);
    nd_json_add_number(mem, key->reserved, m->reserved_mib);
    nd_json_add_number(mem, key->total, m->total_mib);
    cJSON *mb = cJSON_AddObjectToObject(o, key->microbatch_ms);
    nd_json_add_number(mb, key->forward, t->forward_ms);
    nd_json_add_number(mb, key->backward, t->backward_ms);
    nd_json_add_number(mb, key->recompute, t->recompute_ms);
    nd_json_add_number(mb, key->mp_comm, t->tp_ms);
    nd_json_add_number(mb, key->ep_comm, t->ep_ms);
    nd_json_add_number(mb, key->cp_comm, t->cp_ms);
    nd_json_add_number(mb, key->overhead, t->overhead_ms);
    nd_json_add_number(mb, key->total, t->total_ms);
    cJSON *step = cJSON_AddObjectToObject(o, key->step_ms);
    nd_json_add_number(step, key->dp_comm, t->dp_comm_ms);
    nd_json_add_number(step, key->dp_reduce, t->dp_reduce_ms);
    nd_json_add_number(step, key->optimizer, t->optimizer_ms);
    return o;
}

cJSON *nd_report_estimate_json(const nd_context *ctx, const nd_strategy *s, const nd_estimate *est)
{
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    cJSON_AddStringToObject(doc, key->nd_version, ND_VERSION);
    cJSON_AddStringToObject(doc, key->cost_model, ND_COST_MODEL_VERSION);
    cJSON_AddStringToObject(doc, key->model, ctx->model->name);
    nd_json_add_number(doc, key->params_total, (double)ctx->params.total);
    nd_json_add_number(doc, key->params_with_mtp, (double)ctx->params.total_with_mtp);
    nd_json_add_number(doc, key->params_active_per_token, (double)ctx->params.active_per_token);
    cJSON_AddStringToObject(doc, key->device, ctx->device->name);
    if (ctx->device->rates_caveat)
        cJSON_AddStringToObject(doc, key->device_rates_caveat, ctx->device->rates_caveat);
    else
        cJSON_AddNullToObject(doc, key->device_rates_caveat);
    const char *caveat = nd_estimate_strategy_caveat(ctx, s);
    if (caveat)
        cJSON_AddStringToObject(doc, key->strategy_caveat, caveat);
    else
        cJSON_AddNullToObject(doc, key->strategy_caveat);
    nd_json_add_number(doc, key->devices, (double)(s->dp * s->tp * s->pp * s->cp));
    nd_json_add_number(doc, key->seq_len, (double)ctx->train->seq_len);
    nd_json_add_number(doc, key->global_batch, (double)(s->dp * s->mb * s->mbs));
    cJSON_AddItemToObject(doc, key->strategy, nd_report_strategy_json(s));
    nd_json_add_number(doc, key->step_ms, est->step_ms);
    nd_json_add_number(doc, key->raw_step_ms, est->raw_step_ms);
    cJSON *parts = cJSON_AddObjectToObject(doc, key->parts_ms);
    cJSON *raw = cJSON_AddObjectToObject(doc, key->raw_parts_ms);
    for (int p = 0; p < ND_PARTS; p++) {
        nd_json_add_number(parts, nd_part_name((nd_part)p), est->parts_ms[p]);
        nd_json_add_number(raw, nd_part_name((nd_part)p), est->raw_parts_ms[p]);
    }
    cJSON_AddBoolToObject(doc, key->corrected, ctx->ratios != NULL);
    nd_json_add_number(doc, key->peak_mib, est->peak_mib);
    nd_json_add_number(doc, key->peak_allocated_mib, est->peak_allocated_mib);
    nd_json_add_number(doc, key->peak_reserved_mib, est->peak_reserved_mib);
    nd_json_add_number(doc, key->peak_firm_mib, est->peak_firm_mib);
    nd_json_add_number(doc, key->peak_stage, est->peak_stage);
    nd_json_add_number(doc, key->budget_mib, ctx->budget_mib);
    cJSON_AddBoolToObject(doc, key->fits, est->fits);
    add_interval(doc, key->step_interval_ms, est->step_ms, step_halfwidth(ctx, s, est));
    add_interval(doc, key->peak_interval_mib, est->peak_mib, peak_halfwidth(ctx, est));
    nd_json_add_number(doc, key->straggler_stage, est->straggler_stage);
    nd_json_add_number(doc, key->tokens_per_s_per_device, est->tokens_per_s_per_device);
    nd_json_add_number(doc, key->mfu, est->mfu);
    nd_json_add_number(doc, key->model_flops_per_step, est->model_flops_per_step);
    cJSON *stages = cJSON_AddArrayToObject(doc, key->stages);
    for (int64_t i = 0; est->stage_memory && est->stage_time && i < est->stages; i++)
        cJSON_AddItemToArray(stages, stage_json(&est->stage_memory[i], &est->stage_time[i], i));
    cJSON_AddItemToObject(doc, key->layer_costs, nd_report_layers_json(ctx, s));
    return doc;
}

static void print_count(FILE *fp, int64_t n)
{
    char digits[32], out[48];
    int len = snprintf(digits, sizeof digits, "%lld", (long long)n), o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    fputs(out, fp);
}

void nd_report_estimate_text(FILE *fp, const nd_context *ctx, const nd_strategy *s, const nd_estimate *est)
{
    char strat[256];
    nd_strategy_format(s, strat, sizeof strat);
    int64_t devices = s->dp * s->tp * s->pp * s->cp;
    fprintf(fp, "%s on %lld x %s, global batch %lld x %lld tokens\n", ctx->model->name, (long long)devices,
            ctx->device->name, (long long)(s->dp * s->mb * s->mbs), (long long)ctx->train->seq_len);
    fprintf(fp, "strategy: %s\nframework: %s\nparameters: ", strat, nd_framework_name(ctx->train->framework));
    print_count(fp, ctx->params.total);
    if (ctx->model->mtp_layers) {
        fputs(" (with MTP ", fp);
        print_count(fp, ctx->params.total_with_mtp);
        fputs(")", fp);
    }
    fputs(", active per token ", fp);
    print_count(fp, ctx->params.active_per_token);
    fputs("\n\nMemory per device, MiB\n", fp);
    fprintf(fp, "  %5s %6s %9s %9s %9s %11s %9s %9s %9s %9s %9s %9s %9s %8s\n", "stage", "layers", "params",
            "grads", "optimizer", "activations", "working", "buffers", "allocated", "allocator", "reserved",
            "context", "total", "in-flight");
    for (int64_t i = 0; est->stage_memory && i < est->stages; i++) {
        const nd_stage_memory *m = &est->stage_memory[i];
        fprintf(fp,
                "  %5lld %6lld %9.0f %9.0f %9.0f %11.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %8.2f\n",
                (long long)i, (long long)m->layers, m->params_mib, m->grads_mib, m->optimizer_mib,
                m->activations_mib, m->working_mib, m->buffers_mib, m->allocated_mib, m->allocator_mib,
                m->reserved_mib, m->context_mib, m->total_mib, m->inflight);
    }
    fprintf(
        fp,
        "  peak %.0f MiB on stage %d (allocated %.0f, reserved %.0f, context %.0f), budget %.0f MiB: %s\n",
        est->peak_mib, est->peak_stage, est->peak_allocated_mib, est->peak_reserved_mib,
        est->peak_mib - est->peak_reserved_mib, ctx->budget_mib, est->fits ? "fits" : "DOES NOT FIT");
    double capacity_mib = nd_device_capacity_mib(ctx->device);
    if (!est->fits && ctx->budget_mib < capacity_mib && est->peak_firm_mib <= capacity_mib)
        fprintf(fp,
                "  over the budget by %.0f MiB but within the device's %.0f MiB: the budget keeps a margin "
                "for what nd's peaks leave unexplained (3 to 9 %% on measured ones, docs/benchmarks.md); "
                "-mem 0 judges the fit on the device\n",
                est->peak_firm_mib - ctx->budget_mib, capacity_mib);
    if (est->peak_firm_mib < est->peak_mib)
        fprintf(fp,
                "  of which %.0f MiB are collective buffers held until the device has run them "
                "(record_streams); the allocator frees them before a request would fail, so the fit is "
                "judged on %.0f MiB\n",
                est->peak_mib - est->peak_firm_mib, est->peak_firm_mib);
    fputc('\n', fp);
    double peak_half = peak_halfwidth(ctx, est), step_half = step_halfwidth(ctx, s, est);
    if (isfinite(peak_half))
        fprintf(
            fp,
            "  95 %% prediction interval of the peak (the ratios file's uncertainty): %.0f to %.0f MiB\n\n",
            est->peak_mib - peak_half, est->peak_mib + peak_half);
    fprintf(fp, "Step time%s, ms (pipeline straggler: stage %d)\n",
            ctx->ratios ? ", corrected by the ratios file" : "", est->straggler_stage);
    for (int p = 0; p < ND_PARTS; p++) {
        double pct = est->step_ms > 0 ? 100.0 * est->parts_ms[p] / est->step_ms : 0;
        fprintf(fp, "  %-11s %12.2f %6.1f %%", nd_part_name((nd_part)p), est->parts_ms[p], pct);
        if (ctx->ratios) fprintf(fp, "   raw %10.2f", est->raw_parts_ms[p]);
        fputc('\n', fp);
    }
    fprintf(fp, "  %-11s %12.2f %6.1f %%", "step", est->step_ms, 100.0);
    if (ctx->ratios) fprintf(fp, "   raw %10.2f", est->raw_step_ms);
    if (isfinite(step_half))
        fprintf(fp,
                "\n  95 %% prediction interval of the step (the ratios file's uncertainty): %.2f to %.2f ms "
                "(+-%.1f %%)",
                est->step_ms - step_half, est->step_ms + step_half, 100 * step_half / est->step_ms);
    fprintf(fp, "\n\ntokens/s per device: %.1f   MFU: %.1f %%\n", est->tokens_per_s_per_device,
            100.0 * est->mfu);
}

int nd_report_memory_csv(const char *path, const nd_estimate *est, double budget_mib, nd_error *err)
{
    const nd_memory_format *f = &nd_memory_csv;
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    fprintf(out.fp, "%s,%s,%s,%s", f->stage, f->first_layer, f->layers, f->inflight);
    for (int c = 0; c < ND_MEMORY_COMPONENTS; c++) fprintf(out.fp, ",%s", f->component[c]);
    fprintf(out.fp, ",%s,%s\n", f->total_mib, f->budget_mib);
    for (int64_t i = 0; i < est->stages; i++) {
        const nd_stage_memory *m = &est->stage_memory[i];
        double v[ND_MEMORY_COMPONENTS + 3];
        v[0] = m->inflight;
        nd_stage_memory_components(m, v + 1);
        v[ND_MEMORY_COMPONENTS + 1] = m->total_mib;
        v[ND_MEMORY_COMPONENTS + 2] = budget_mib;
        fprintf(out.fp, "%lld,%lld,%lld", (long long)i, (long long)m->first_layer, (long long)m->layers);
        for (size_t k = 0; k < ND_ARRAY_LEN(v); k++) {
            char buf[ND_DOUBLE_TEXT_MAX];
            fprintf(out.fp, ",%s", nd_format_double(v[k], buf));
        }
        fputc('\n', out.fp);
    }
    return nd_outfile_commit(&out, err);
}
