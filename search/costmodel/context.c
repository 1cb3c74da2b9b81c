/*
 * context.c — the fixed inputs of pricing, gathered once per run.
 */
#include "nd/costmodel/context.h"

#include <string.h>

void nd_context_init(nd_context *ctx, const nd_model *m, const nd_train *t, const nd_device *d,
                     int64_t devices, double budget_mib, const nd_ratios *ratios)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->model = m;
    ctx->train = t;
    ctx->device = d;
    ctx->devices = devices;
    ctx->budget_mib = nd_device_budget_mib(d, budget_mib);
    ctx->ratios = ratios;
    nd_model_count_params(m, &ctx->params);
}
