/*
 * census.h — ND's -V/--verify: the model nd prices against its checkpoint, offline. Each
 * tensor of the .safetensors headers (checkpoint.h) is named by its role (a query
 * projection, an expert's down projection, a norm...) and its size compared with the size
 * nd's model gives that role; the parts of every layer are summed and compared too. A
 * model read back from the tensors' sizes (the checkpoint's model) is priced beside nd's:
 * parameters, forward FLOPs per token and activation bytes per token of each layer kind.
 */
#ifndef ND_CENSUS_H
#define ND_CENSUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "nd/inputs/checkpoint.h"
#include "nd/costmodel/device.h"
#include "nd/base/error.h"
#include "nd/costmodel/model.h"
#include "nd/inputs/run.h"

/* One disagreement, the same in every layer it occurs in (layers first..last, count). */
typedef struct nd_census_mismatch {
    char what[320];         /* "model.layers.*.mlp.gate_proj.weight [14336, 4096]", "layer attention" */
    int64_t checkpoint, nd; /* elements */
    int64_t first_layer, last_layer, layers; /* -1: not a layer's */
} nd_census_mismatch;

#define ND_CENSUS_MAX_MISMATCHES 64

/* What a layer kind costs, as the checkpoint's model [0] and nd's [1] say. */
typedef struct nd_census_kind {
    int64_t layers[2];
    int64_t params[2];
    double flops_per_token[2];  /* one forward pass */
    double activation_bytes[2]; /* kept for the backward, per token, no recompute */
} nd_census_kind;

typedef struct nd_census {
    char dir[1024];
    int files;
    int64_t tensors, params; /* the checkpoint's */
    int64_t nd_params;       /* nd's model, MTP modules included */
    int64_t unknown;         /* tensors nd gives no role (not priced) */
    char first_unknown[256];
    nd_model derived;      /* the checkpoint's model */
    bool derived_ok;       /* it is a model nd can price */
    char derived_why[256]; /* else why not */
    nd_census_kind kinds[ND_LAYER_KINDS];
    int64_t embedding[2], head[2], mtp[2]; /* [checkpoint, nd] */
    nd_census_mismatch mismatches[ND_CENSUS_MAX_MISMATCHES];
    int n_mismatches;
    int64_t more_mismatches; /* beyond the table */
} nd_census;

/* The census of run's model against the tensors t (device and training for the FLOP and
 * activation prices). */
int nd_census_build(const nd_run *run, const nd_device *device, const nd_checkpoint_tensors *t, nd_census *c,
                    nd_error *err);

/* The table: both models per layer kind, then each mismatch (or that there is none). */
void nd_census_print(FILE *out, const nd_run *run, const nd_census *c);

/* nd's side alone, when there is no checkpoint to compare with (c from nd_census_build
 * with no tensors). */
void nd_census_print_nd(FILE *out, const nd_run *run, const nd_census *c);

/* DIR/census_spec.yaml: the checkpoint's model as a run file's `model:` keys (nd-estimate
 * -y reads it), and the census in numbers. Returns the path in path. */
int nd_census_write_spec(const char *dir, const nd_run *run, const nd_census *c, char *path, size_t size,
                         nd_error *err);

#endif
