/*
 * search_config.h — ND's search config (-s search.yaml, docs/reference/nd-costmodel.md
 * §7.1): which values each dimension may take (scalar = fixed, list = candidates,
 * "auto" = searched), the cluster, the batch and memory constraints, the recompute
 * choice. Command-line flags override it as in ND (-A, -b, -M, -d, -ar, --recompute).
 */
#ifndef ND_SEARCH_CONFIG_H
#define ND_SEARCH_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/base/formats.h"
#include "nd/costmodel/strategy.h"

#define ND_SEARCH_CONFIG_MAX_LIST 64
/* cluster.num_nodes x cards_per_node at most: the devices -d and run files may state. */
#define ND_SEARCH_CONFIG_MAX_DEVICES    ((int64_t)1 << 24)
#define ND_SEARCH_CONFIG_MAX_MODEL_KEYS 64

typedef struct nd_search_config_file {
    /* per dimension: fixed value, candidate list, or searched */
    bool fixed[ND_DIMS_SEARCHED];
    int64_t fixed_value[ND_DIMS_SEARCHED];
    int64_t list[ND_DIMS_SEARCHED][ND_SEARCH_CONFIG_MAX_LIST];
    size_t n_list[ND_DIMS_SEARCHED];
    bool declared[ND_DIMS_SEARCHED];
    char device[128];
    int device_line;        /* cluster.device_type's line, 0 when not stated */
    int64_t num_nodes;      /* cluster.num_nodes, 0 when not stated */
    int64_t cards_per_node; /* cluster.cards_per_node, 0 = the device's node size */
    int64_t global_batch;   /* constraint.global_batch_size */
    double memory_mib;      /* min of memory_limit_gb and device_memory_gb, 0 when not stated */
    int n_modes;
    nd_recompute modes[ND_RECOMPUTE_MODES];
    bool per_layer; /* recompute: per_layer */
    nd_schedule schedule;
    bool has_schedule;
    char path[1024];       /* the file, for messages */
    char train_yaml[1024]; /* train_yaml, beside the file ("" = none): the base run (ND) */
    int train_yaml_line;
    /* model: each key as written, applied over the run's model, or the whole model when -y is
     * not given (nd_run_apply_model_section, framework.h) */
    int n_model;
    struct {
        char key[64];
        char value[256];
        int line;
    } model[ND_SEARCH_CONFIG_MAX_MODEL_KEYS];
    int64_t local_batch_size; /* model.local_batch_size: ND's fixed MBS, 0 = not stated */
    int64_t etp;              /* parallelism.etp: fixed (ND never searches it), 0 = not stated */
    /* estimator: */
    char ratios_file[1024]; /* estimator.ratios_file, beside the file ("" = none): -c */
    bool calibration_off;   /* estimator.enable_profiling_calibration: false */
    char cp_algo[32];       /* estimator.cp_algo ("" = none) */
    int n_notes;            /* what nd read but does not use, for a note each */
    char notes[8][1200];    /* "file:line: message": a path of up to 1,000 bytes */
} nd_search_config_file;

/* Reads a search config. Unknown keys are errors naming file, line and key; ND's keys nd
 * does not use (stage_partition, estimator.type, ...) are accepted with a note (notes), as
 * docs/search.md lists. out owns no memory: nothing to free. */
int nd_search_config_load(const char *path, nd_search_config_file *out, nd_error *err);

#endif
