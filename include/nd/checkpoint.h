/*
 * checkpoint.h — a model checkpoint on this machine: finding its directory offline, and
 * (for -V) the parameter tensors its .safetensors files hold, read from their headers only.
 */
#ifndef ND_CHECKPOINT_H
#define ND_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nd/error.h"

/* The directory with config.json that `name` means: an absolute path, a path relative to
 * the directory of `beside` (a config file; may be NULL) or to the current directory, or a
 * hub id ("Org/Model") in the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub,
 * ~/.cache/huggingface/hub; the snapshot refs/main names, else the first). Nothing is
 * downloaded. ND_EINPUT when there is none. */
int nd_checkpoint_find(const char *name, const char *beside, char *out, size_t size, nd_error *err);

#endif
