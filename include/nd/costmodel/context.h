/*
 * context.h — what pricing a strategy holds fixed: the model, how it is trained, the device,
 * the cluster's size, the memory budget and the ratios; and a per-stage recompute plan, the
 * knapsack's answer that the estimate prices instead of one mode for every layer.
 */
#ifndef ND_COSTMODEL_CONTEXT_H
#define ND_COSTMODEL_CONTEXT_H

#include <stdint.h>
#include "nd/costmodel/device.h"
#include "nd/costmodel/model.h"
#include "nd/costmodel/parts.h"
#include "nd/costmodel/train.h"

/* The most pipeline stages a strategy may have (the estimate's per-stage arrays). */
#define ND_MAX_STAGES 512

typedef struct nd_context {
    const nd_model *model;
    const nd_train *train;
    const nd_device *device;
    int64_t devices;         /* cluster size */
    double budget_mib;       /* memory a strategy may use per device */
    const nd_ratios *ratios; /* NULL: uncorrected */
    nd_param_count params;   /* filled by nd_context_init */
} nd_context;

/* Fills ctx and counts the model's parameters. budget_mib 0 = the device capacity. */
void nd_context_init(nd_context *ctx, const nd_model *m, const nd_train *t, const nd_device *d,
                     int64_t devices, double budget_mib, const nd_ratios *ratios);

/* A per-stage recompute plan (from the knapsack): layers of each kind in each mode, and
 * optionally how many of the mode-off layers keep their activations in host memory. */
typedef struct nd_recompute_plan {
    int64_t stages;
    int64_t (*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES]; /* [stages] */
    int64_t (*offloaded)[ND_LAYER_KINDS];                  /* [stages], or NULL */
    double copy_cost_ms_per_gib; /* step time each GiB copied to or from the host costs */
} nd_recompute_plan;

#endif
