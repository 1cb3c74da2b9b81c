/*
 * fw_common.h — what every framework reader and writer shares (fw_common.c):
 * setting a run's model, training and strategy keys with messages that name the user's
 * own file, line and key, and the notes (or --strict errors) for what a config leaves out.
 */
#ifndef ND_FW_COMMON_H
#define ND_FW_COMMON_H

#include <stdbool.h>
#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/base/yaml_doc.h"

typedef struct fw_reader {
    nd_run *run;
    const char *path; /* the file being read */
    bool strict;
    nd_error *err;
} fw_reader;

/* A model key by its Hugging Face name; `theirs` is the user's key, for messages. */
int fw_model(fw_reader *r, const char *key, const char *value, int line, const char *theirs);
/* A train key of the run file (run-file.md), e.g. "seq_len", "precision". */
int fw_train(fw_reader *r, const char *key, const char *value, int line, const char *theirs);
/* A strategy key (DP, MP, ..., recompute, schedule). */
int fw_strategy(fw_reader *r, const char *key, const char *value, int line, const char *theirs);
/* A strategy degree given as a number. */
int fw_degree(fw_reader *r, const char *key, int64_t value, int line, const char *theirs);
/* Something the estimate needs that the config does not state: a note naming the default
 * used, or with --strict an error. */
int fw_default(fw_reader *r, const char *fmt, ...) ND_PRINTF(2, 3);
/* A note on stderr, for what a reader prices differently from the framework. */
void fw_note(nd_run *run, const char *fmt, ...) ND_PRINTF(2, 3);
/* Sets the model family from a name (MindFormers' LlamaConfig, a model name, -m): deepseek,
 * qwen3_moe, qwen3, qwen2_moe, qwen2, mixtral, mistral, gpt_neox, gpt2, llama; else llama
 * ("custom"). */
int fw_model_family(fw_reader *r, const char *name, int line);
/* Completes the model (family rules, validation) and the strategy's defaults; the device count
 * and batch follow from the strategy when the config states none. */
int fw_finish(fw_reader *r);

/* "bf16", "fp16" or "fp32" for a dtype text (bfloat16, float16, float32, torch.bfloat16, ...),
 * or NULL. */
const char *fw_precision_of(const char *dtype);
/* Whether a text reads as a YAML/TOML/JSON true (true, True, yes, on, 1). */
bool fw_true(const char *text);

/* A YAML lookup by dotted path ("model.model_config.hidden_size"), NULL when absent. */
yaml_node_t *fw_yaml_at(nd_yaml *y, const char *dotted);
/* Its text when a scalar, else NULL. */
const char *fw_yaml_text(nd_yaml *y, const char *dotted, int *line);
/* Refuses (ND_EINPUT, naming both lines) a model mapping `what` (e.g. model.model_config)
 * that states one field under two of its spellings (num_layers and num_hidden_layers):
 * docs/limits.md, one field under two spellings. */
int fw_check_spellings(fw_reader *r, nd_yaml *y, yaml_node_t *map, const char *what);

/* The file next to `base` (relative to its directory) or as given when absolute; new string. */
char *fw_path_beside(const char *base, const char *name);

/* Appends "dir/name" to written (one per line) and returns the path in buf. */
const char *fw_output_path(const char *dir, const char *name, char *buf, size_t size, char *written,
                           size_t wsize);

/* The mode a choice's trainer plan states: its one mode, or with a per-layer plan the
 * recomputing mode most layers run (full on a tie), off when no layer recomputes (ND's). */
nd_recompute fw_choice_mode(const nd_config_choice *c);

#endif
