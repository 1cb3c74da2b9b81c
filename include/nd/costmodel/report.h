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

/* The strategy as a JSON object of its degrees. */
cJSON *nd_report_strategy_json(const nd_strategy *s);

#endif
