/*
 * run.h — a run description: the model, how it is trained, and optionally the
 * cluster and a fixed strategy. Loaded from a run YAML file or a bare Hugging
 * Face config.json (-y); every field can be overridden from the command line
 * (nd_run_set). docs/run-file.md lists every key.
 */
#ifndef ND_RUN_H
#define ND_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/costmodel/model.h"
#include "nd/costmodel/strategy.h"
#include "nd/costmodel/split.h"
#include "nd/costmodel/train.h"

/* A per-layer recompute plan stated in a run file (`recompute_plan:`, as nd-search -ar
 * writes it into best.yaml): per stage, layers of each kind in each mode. */
#define ND_RUN_MAX_STAGES 512
typedef struct nd_run_plan {
    int64_t stages;
    int64_t layers[ND_RUN_MAX_STAGES][2][3];
    int64_t offloaded[ND_RUN_MAX_STAGES][2];
    double copy_cost_ms_per_gib;
} nd_run_plan;

/* The format a run was read from (-f, framework.h): nd's own run file or config.json, or a
 * training framework's config, which nd-search writes its choice back into. */
typedef enum {
    ND_CONFIG_ND = 0,         /* nd's run YAML, or a bare Hugging Face config.json */
    ND_CONFIG_MINDFORMERS,    /* MindFormers yaml (ND's default -f) */
    ND_CONFIG_MEGATRON,       /* Megatron-LM / MindSpeed-LLM arguments: a launch script */
    ND_CONFIG_MINDSPEED_JSON, /* ND's MindSpeed json: MindSpeed-MM model config and `tmp` degrees */
    ND_CONFIG_HYPER_V2,       /* HyperParallel v2 AutoModels train.yaml */
    ND_CONFIG_HYPERPARALLEL2, /* HyperParallel v2: model yaml + --train-yaml + --accelerate-yaml */
    ND_CONFIG_TORCHTITAN,     /* torchtitan job toml (ND's hyperparallel and torchtitan) */
    ND_CONFIG_SIMUMAX,        /* SimuMax's strategy JSON + --model-config, its model JSON */
    ND_CONFIGS
} nd_config_format;

/* What a framework config states per pipeline stage (ND's -mppb): layers (MindFormers'
 * offset, MindSpeed's pipeline_num_layers) and recomputed layers. 0 stages = none stated. */
typedef struct nd_run_layout {
    int64_t stages; /* the config's PP */
    bool has_layers, has_recompute, has_selective;
    int64_t layers[ND_RUN_MAX_STAGES];    /* body layers per stage */
    int64_t recompute[ND_RUN_MAX_STAGES]; /* fully recomputed layers per stage */
    int64_t selective[ND_RUN_MAX_STAGES]; /* selectively recomputed layers per stage */
} nd_run_layout;

#define ND_RUN_MAX_NOTES 12

typedef struct nd_run {
    nd_model model;
    nd_train train;
    char device[128];         /* cluster.device, "" when not stated */
    int device_line;          /* cluster.device's line in source, 0 = not stated there (-A, --set) */
    char device_file[4096];   /* cluster.device_file, "" when not stated (PATH_MAX) */
    int64_t devices;          /* cluster.devices, 0 when not stated */
    double memory_budget_mib; /* cluster.memory_budget, 0 = the device's capacity */
    nd_strategy strategy;     /* strategy: section merged over the neutral strategy */
    bool has_strategy;        /* a strategy: section was given */
    bool has_plan;            /* a recompute_plan: section was given */
    nd_run_plan plan;
    char source[512];                   /* the file it came from */
    nd_config_format format;            /* its format */
    char train_yaml[512];               /* hyperparallel2: --train-yaml */
    char accelerate_yaml[512];          /* hyperparallel2: --accelerate-yaml */
    char model_config[512];             /* simumax: --model-config, the model JSON */
    char module_py[512];                /* torchtitan: MODULE.py of -y MODULE.py:CONFIG.toml ("" = none) */
    char checkpoint[512];               /* the config.json beside the checkpoint (-V): a bare
                                           config.json, model.config_json, or the one a framework
                                           config names; "" = none */
    unsigned search_modes;              /* recompute modes a search tries (1 << mode each), from the config
                                           (HyperParallel's context.recompute); 0 = not stated */
    bool derive_dp;                     /* DP follows from the device count (-d): the config states no
                                           world size (Megatron without its launcher, HyperParallel) */
    bool op_spans_dp;                   /* the optimizer shards over the DP x CP ranks, once DP is known */
    int64_t op_instances;               /* ... in this many groups (Megatron's --num-distributed-optimizer-
                                           instances); 0 = one */
    bool derive_mb;                     /* the micro-batches per step follow from the batch (Megatron) */
    bool search_full_recompute;         /* ND's rule for a framework config: a search prices every
                                           candidate fully recomputed unless -mppb, --recompute or -ar */
    nd_run_layout layout;               /* -mppb: the config's per-stage layers and recompute */
    char pipeline_layout_text[4096];    /* train.pipeline_layout as given ("" = none) */
    nd_pipeline_layout pipeline_layout; /* ... read for the strategy's PP (nd_run_bind_layout); the
                                           strategy's `layout` points here */
    int n_notes;                        /* what a framework reader took from a default, for stderr */
    char notes[ND_RUN_MAX_NOTES][256];
} nd_run;

/* An empty run read from path: training defaults, the neutral strategy (framework readers
 * start from it; nd_run_load does too). */
void nd_run_init(nd_run *run, const char *path);

/* Copies the run's training recompute and schedule into its strategy, unless the strategy
 * states them (run files and framework readers end with it). */
void nd_run_sync_strategy(nd_run *run, bool strategy_recompute, bool strategy_schedule);

/* Loads a run file. A file whose top level has model_type or architectures (a
 * config.json) is taken as the model alone. Errors name file, line and key. A run owns no
 * memory: nothing to free, on success or failure. */
int nd_run_load(nd_run *run, const char *path, nd_error *err);

/* Overrides one setting from the command line: seq, gbs, precision, grad_precision,
 * optimizer, recompute, schedule, flash_attention, dropout, device, devices,
 * memory_budget, or any train key of the run file. ND_EUSAGE names the flag. */
int nd_run_set(nd_run *run, const char *key, const char *value, nd_error *err);

/* Megatron's pipeline layout text (pipeline_layout.c) read for PP stages of a model of `layers`
 * decoder and `mtp` MTP layers into out. 0, or -1 with the reason in why. */
int nd_pipeline_layout_parse(const char *text, int64_t pp, int64_t layers, int64_t mtp,
                             nd_pipeline_layout *out, char *why, size_t size);

/* Reads the run's pipeline_layout (when it states one) for its strategy's PP and points the
 * strategy at it (VPP from the layout). ND_EINPUT naming the run file. A run copied elsewhere
 * must be bound again: its strategy points into the run it was bound in. */
int nd_run_bind_layout(nd_run *run, nd_error *err);

#endif
