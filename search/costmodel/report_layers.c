/*
 * report_layers.c — what one micro-batch of each layer kind costs, as the estimate prices it:
 * its compute split into GEMMs, attention and memory-bound kernels, its exposed collectives,
 * its kernels and the host operators that issue them, and whether the host or the device is
 * the slower of the two (docs/nd-estimate.md §Per layer).
 */
#include "nd/costmodel/report.h"

#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/json.h"
#include "nd/costmodel/layer_cache.h"

static const nd_report_format *const key = &nd_report_json;

/* One row: a layer kind at the strategy's sharding and recompute mode. */
static void fill_row(const nd_context *ctx, const nd_strategy *s, const nd_layer_cost *c, const char *kind,
                     int64_t count, bool decoder, nd_layer_row *row)
{
    const nd_device *d = ctx->device;
    int r = decoder ? (int)s->recompute : 0; /* the embedding and the head are never recomputed */
    memset(row, 0, sizeof *row);
    row->kind = kind;
    row->count = count;
    row->forward_ms = c->forward_ms;
    row->backward_ms = c->backward_ms;
    row->recompute_ms = decoder ? c->recompute_ms[r] : 0;
    row->gemm_ms = c->gemm_ms;
    row->attention_ms = c->attention_ms;
    row->memory_ms = c->forward_ms + c->backward_ms - c->gemm_ms - c->attention_ms;
    row->tp_ms = c->tp_ms[r];
    row->ep_ms = c->ep_ms[r];
    row->cp_ms = c->cp_ms[r];
    row->kernels = c->kernels[r];
    bool graphs = ctx->train->cuda_graphs; /* replayed without the host */
    row->host_ops = graphs ? 0 : c->host_ops[r];
    double syncs = graphs ? 0 : c->host_syncs[r];
    row->host_ms =
        (row->host_ops * d->host_dispatch_us + syncs * (d->host_sync_us + d->host_dispatch_us)) / 1e3;
    row->device_ms = row->forward_ms + row->backward_ms + row->recompute_ms + row->tp_ms + row->ep_ms +
                     row->cp_ms + row->kernels * d->kernel_launch_us / 1e3;
}

int nd_report_layer_rows(const nd_context *ctx, const nd_strategy *s, nd_layer_row rows[ND_LAYER_ROWS_MAX])
{
    nd_layer_inputs in = {ctx->model, ctx->train, ctx->device, ctx->train->seq_len};
    nd_layer_shape shape = {s->tp, s->cp, s->ep, s->etp ? s->etp : s->tp, s->mbs, s->sp};
    nd_layer_cache_entry scratch;
    const nd_layer_cache_entry *costs = nd_layer_cache_get(NULL, &in, &shape, &scratch);
    const nd_model *m = ctx->model;
    static const char *const kinds[ND_LAYER_KINDS] = {"dense", "moe"};
    int n = 0;
    fill_row(ctx, s, &costs->embedding, "embedding", 1, false, &rows[n++]);
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        int64_t count = nd_model_count_kind(m, 0, m->layers, (nd_layer_kind)k);
        if (count > 0) fill_row(ctx, s, &costs->layer[k], kinds[k], count, true, &rows[n++]);
    }
    fill_row(ctx, s, &costs->head, "head", 1, false, &rows[n++]);
    return n;
}

void nd_report_layers_text(FILE *fp, const nd_context *ctx, const nd_strategy *s)
{
    nd_layer_row rows[ND_LAYER_ROWS_MAX];
    int n = nd_report_layer_rows(ctx, s, rows);
    fprintf(fp,
            "\nPer layer and micro-batch, ms (one device at this sharding; compute before any overlap)\n"
            "  %-9s %6s %9s %9s %9s %9s %9s %9s %8s %8s %8s %8s %8s %9s %9s\n",
            "layer", "count", "forward", "backward", "recompute", "GEMM", "attention", "memory", "TP", "EP",
            "CP", "kernels", "host ops", "host", "device");
    for (int i = 0; i < n; i++) {
        const nd_layer_row *r = &rows[i];
        fprintf(
            fp,
            "  %-9s %6lld %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.3f %8.3f %8.3f %8.0f %8.0f %9.3f %9.3f%s\n",
            r->kind, (long long)r->count, r->forward_ms, r->backward_ms, r->recompute_ms, r->gemm_ms,
            r->attention_ms, r->memory_ms, r->tp_ms, r->ep_ms, r->cp_ms, r->kernels, r->host_ops, r->host_ms,
            r->device_ms, r->host_ms > r->device_ms ? "  host-bound" : "");
    }
    fprintf(fp,
            "  (memory: the memory-bound kernels; host: issuing its operators at %.1f us each; device: its "
            "compute, exposed collectives and %.1f us a kernel launch)\n",
            ctx->device->host_dispatch_us, ctx->device->kernel_launch_us);
}

cJSON *nd_report_layers_json(const nd_context *ctx, const nd_strategy *s)
{
    nd_layer_row rows[ND_LAYER_ROWS_MAX];
    int n = nd_report_layer_rows(ctx, s, rows);
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        const nd_layer_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, key->kind, r->kind);
        nd_json_add_number(o, key->count, (double)r->count);
        nd_json_add_number(o, key->forward_ms, r->forward_ms);
        nd_json_add_number(o, key->backward_ms, r->backward_ms);
        nd_json_add_number(o, key->recompute_ms, r->recompute_ms);
        nd_json_add_number(o, key->gemm_ms, r->gemm_ms);
        nd_json_add_number(o, key->attention_ms, r->attention_ms);
        nd_json_add_number(o, key->memory_bound_ms, r->memory_ms);
        nd_json_add_number(o, key->tp_ms, r->tp_ms);
        nd_json_add_number(o, key->ep_ms, r->ep_ms);
        nd_json_add_number(o, key->cp_ms, r->cp_ms);
        nd_json_add_number(o, key->kernels, r->kernels);
        nd_json_add_number(o, key->host_ops, r->host_ops);
        nd_json_add_number(o, key->host_ms, r->host_ms);
        nd_json_add_number(o, key->device_ms, r->device_ms);
    }
    return a;
}
