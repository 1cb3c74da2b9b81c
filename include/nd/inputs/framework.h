/*
 * framework.h — a training framework's own config read into a run, and the strategy a
 * search chose written back in the same format, so an ND user's job files work unchanged
 * (ND's -f/--framework, -y, --train-yaml, --accelerate-yaml).
 *
 * Formats (nd_config_format, run.h): MindFormers yaml, Megatron-LM / MindSpeed-LLM
 * arguments (a launch script), ND's MindSpeed json, HyperParallel v2 AutoModels
 * train.yaml (the model from its checkpoint's config.json), HyperParallel v2 with a model
 * yaml, a train yaml and an accelerate yaml, and torchtitan's job toml. Each reader fills
 * the model, the training settings and the strategy the config states, sets
 * train.framework from the config family, and notes what it took from a default (an
 * error with --strict). docs/nd-compat.md lists every key read and written.
 */
#ifndef ND_FRAMEWORK_H
#define ND_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/base/error.h"
#include "nd/inputs/run.h"

/* The -f name of a format ("mindformers"), and the format a -f name means: nd,
 * mindformers, mindspeed (a json, else Megatron arguments), megatron, hyper_v2,
 * hyperparallel (ND's name for the torchtitan toml), hyperparallel2, torchtitan
 * (any case, '_' or '-'). *json_hint is set for "mindspeed", whose file decides. */
const char *nd_config_format_name(nd_config_format f);

/* The dimensions (ND_DIM_BIT mask) a format can state when the choice is written back: a
 * search over a config of that format varies only these (the others stay the config's).
 * Accelerate's parallelism_config (hyperparallel2) states DP, TP and CP, not PP or EP; SimuMax's
 * strategy no CP. */
unsigned nd_config_format_dims(nd_config_format f);
int nd_config_format_parse(const char *name, nd_config_format *out, bool *json_hint);

/* The format of a file from its name and first bytes, when -f is not given: .toml is
 * torchtitan; a JSON object with model_type or architectures is a config.json, one with
 * `tmp` or a model_id is MindSpeed's, one with tp_size and micro_batch_num, micro_batch_size or
 * world_size SimuMax's strategy; a YAML file is MindFormers' when it has
 * parallel_config, model.model_config, runner_config, recompute_config or moe_config,
 * HyperParallel's when it has accelerator, fsdp_config, activation_checkpoint, training,
 * dataset or a model._target_/pretrained_model_name_or_path, else nd's; a text with
 * --num-layers or --tensor-model-parallel-size is Megatron arguments. */
nd_config_format nd_config_format_detect(const char *path);

/* Where a framework run comes from. */
typedef struct nd_config_input {
    const char *path;            /* -y (torchtitan: "module.py:config.toml" as ND takes it, or a toml) */
    const char *framework;       /* -f, NULL = detected */
    const char *train_yaml;      /* --train-yaml */
    const char *accelerate_yaml; /* --accelerate-yaml */
    bool strict;                 /* --strict: a default taken is an error */
    const char *model_config;    /* --model-config (simumax: the model JSON beside -y's strategy) */
} nd_config_input;

/* Reads the run. Errors name the file, line and key (ND_EINPUT), or the flag (ND_EUSAGE). A
 * run owns no memory: nothing to free, on success or failure. */
int nd_config_load(nd_run *run, const nd_config_input *in, nd_error *err);

/* What a framework derives at launch, once the command line has set the device count and
 * the batch: DP = devices / (TP x PP x CP) when the config states no world size, the
 * optimizer's shards over DP x CP, the micro-batches per step = batch / (DP x MBS).
 * ND_EUSAGE when the device count is needed and unknown, or does not divide. */
int nd_config_derive(nd_run *run, nd_error *err);

/* The strategy a search chose, to write back. */
typedef struct nd_config_choice {
    nd_strategy s;               /* degrees, micro-batching, recompute, schedule, FIRST/LAST */
    int64_t global_batch;        /* sequences per step */
    const int64_t (*plan)[2][3]; /* per stage and layer kind, layers [off, selective, full]
                                    (-ar), or NULL: every layer runs s.recompute */
    int64_t plan_stages;
} nd_config_choice;

/* Writes the choice into copies of the run's own config files in dir, in their format:
 * resolved.yaml (MindFormers, HyperParallel; + resolved_accelerate.yaml), resolved.toml
 * (torchtitan), resolved.json (MindSpeed json), resolved<ext> (Megatron arguments, with
 * the input's extension). Every other key and comment of the user's file is kept. The
 * paths written go to `written` (one per line). ND_EINPUT for a run of nd's own format. */
int nd_config_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                    nd_error *err);

struct nd_search_config_file;
/* ND's search config `model:` section over the run's model (overrides of -y's), or, when
 * standalone, as the whole model (ND's ModelSpec: the family from model_type, arch or the
 * name; the sequence is max_position_embeddings, 4096 unless stated). ND's own keys: name,
 * compute_dtype (the precision), use_flash_attention, moe_enabled (implied by the experts);
 * moe_inter_dim is ignored with a note, as ND's loader ignores it; local_batch_size is the
 * search's fixed MBS (search_config.h). */
int nd_run_apply_model_section(nd_run *run, const struct nd_search_config_file *f, bool standalone,
                               nd_error *err);

#endif
