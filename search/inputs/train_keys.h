/*
 * train_keys.h — the run file's train keys: one table of names, spellings, types and ranges
 * (train_keys.c). Internal to nd_core: run.c reads files and flags through it.
 */
#ifndef ND_TRAIN_KEYS_H
#define ND_TRAIN_KEYS_H

#include <stddef.h>
#include "nd/inputs/run.h"

/* At least the number of train fields (nd_train_key_index is below it). */
#define ND_TRAIN_FIELDS 64

/* Room for the list of train keys nd_train_keys_text writes. */
#define ND_TRAIN_KEYS_TEXT_MAX 1024

/* Sets the train key `key` (any of its spellings) from `value`. Returns 0; -1 when the value
 * is bad (*hint then says what a good one is); -2 when no train key is so spelled. */
int nd_train_set_key(nd_train *t, const char *key, const char *value, const char **hint);

/* The index of the train field `key` names (its spellings share one), or -1. */
int nd_train_key_index(const char *key);

/* "seq_len, global_batch, ...": every train key's main spelling, into buf. */
const char *nd_train_keys_text(char *buf, size_t size);

#endif
