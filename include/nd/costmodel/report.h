/*
 * report.h — an estimate as a readable table or as a JSON document
 * (schema: docs/nd-estimate.md).
 */
#ifndef ND_REPORT_H
#define ND_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include "nd/costmodel/estimate.h"

/* The table nd-estimate prints: memory per stage by component, parts in ms and %, step
 * time, tokens/s per device, MFU. est must have stage_memory and stage_time filled. */
void nd_report_estimate_text(FILE *fp, const nd_context *ctx, const nd_strategy *s, const nd_estimate *est);

/* The same as a JSON object the caller frees with cJSON_Delete (NULL when out of memory). */
cJSON *nd_report_estimate_json(const nd_context *ctx, const nd_strategy *s, const nd_estimate *est);

/* Memory per stage as CSV: stage, first_layer, layers, inflight, params_mib, grads_mib,
 * optimizer_mib, activations_mib, working_mib, buffers_mib, reserve_mib, total_mib, budget_mib.
 * Written atomically. nd-plot memory draws it. */
int nd_report_memory_csv(const char *path, const nd_estimate *est, double budget_mib, nd_error *err);

/* One micro-batch of one layer kind at a strategy's sharding and recompute mode, in ms: its
 * compute (forward, backward, replay), of which GEMMs, attention and memory-bound kernels; its
 * exposed TP, EP and CP collectives; its kernels and host operators; the host's time to issue
 * them and the device's to run them (docs/nd-estimate.md §Per layer). */
typedef struct nd_layer_row {
    const char *kind; /* "embedding", "dense", "moe", "head" */
    int64_t count;    /* such layers in the model */
    double forward_ms, backward_ms, recompute_ms, gemm_ms, attention_ms, memory_ms;
    double tp_ms, ep_ms, cp_ms, kernels, host_ops, host_ms, device_ms;
} nd_layer_row;

enum { ND_LAYER_ROWS_MAX = 2 + ND_LAYER_KINDS };

/* Fills rows (the embedding, each decoder kind the model has, the head); returns how many. */
int nd_report_layer_rows(const nd_context *ctx, const nd_strategy *s, nd_layer_row rows[ND_LAYER_ROWS_MAX]);

/* The rows as nd-estimate -v prints them, and as --json's layer_costs (an array the caller frees
 * with cJSON_Delete; NULL when out of memory). */
void nd_report_layers_text(FILE *fp, const nd_context *ctx, const nd_strategy *s);
cJSON *nd_report_layers_json(const nd_context *ctx, const nd_strategy *s);

/* The strategy as a JSON object of its degrees. */
cJSON *nd_report_strategy_json(const nd_strategy *s);

#endif
