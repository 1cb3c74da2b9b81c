/*
 * model_fields.h — setting model fields by their Hugging Face key names.
 * Shared by the config.json reader and the `model:` mapping of run files.
 */
#ifndef ND_MODEL_FIELDS_H
#define ND_MODEL_FIELDS_H

#include <stdbool.h>
#include <stdio.h>
#include "nd/base/error.h"
#include "nd/costmodel/model.h"

#define ND_MODEL_FIELD_MAX ((int64_t)1 << 24)

/* Resets m to the defaults of a Hugging Face model_type (keeping m->name).
 * ND_EINPUT for a type nd does not price. */
int nd_model_set_type(nd_model *m, const char *type, const char *where, nd_error *err);

/* Sets the field a key names from its text (NULL = JSON null = absent).
 * `where` prefixes messages ("run.yaml:12"). ND_EINPUT for unknown keys and bad values. */
int nd_model_set_field(nd_model *m, const char *key, const char *value, const char *where, nd_error *err);

/* Fills what a model type implies once all keys are read (GPT's learned positions). */
void nd_model_finish_type(nd_model *m);

/* The key names a model field (or model_type). */
bool nd_model_key_known(const char *key);

/* The key is a config.json key nd knowingly ignores (rope_theta, eps, token ids, ...). */
bool nd_model_key_ignored(const char *key);

int nd_model_read_hf_file(nd_model *m, const char *path, bool validate, nd_error *err);

/* The model's keys, one a line after `indent` (the body of a run file's `model:`). */
void nd_model_write_yaml(FILE *fp, const nd_model *m, const char *indent);

#endif
