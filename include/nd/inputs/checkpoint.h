/*
 * checkpoint.h — a model checkpoint on this machine: finding its directory offline, and
 * (for -V) the parameter tensors its .safetensors files hold, read from their headers only.
 */
#ifndef ND_CHECKPOINT_H
#define ND_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nd/base/error.h"

/* The directory with config.json that `name` means: an absolute path, a path relative to
 * the directory of `beside` (a config file; may be NULL) or to the current directory, or a
 * hub id ("Org/Model") in the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub,
 * ~/.cache/huggingface/hub; the snapshot refs/main names, else the first). Nothing is
 * downloaded. ND_EINPUT when there is none. */
int nd_checkpoint_find(const char *name, const char *beside, char *out, size_t size, nd_error *err);

#define ND_TENSOR_MAX_DIMS 8

/* One parameter tensor of a checkpoint, as its safetensors header states it. */
typedef struct nd_tensor_info {
    char name[256];
    char dtype[16]; /* "BF16", "F32", ... */
    int bytes;      /* per element, 0 for a dtype nd does not know */
    int dims;
    int64_t shape[ND_TENSOR_MAX_DIMS];
    int64_t elements;
} nd_tensor_info;

typedef struct nd_checkpoint_tensors {
    char dir[1024];
    nd_tensor_info *items; /* sorted by name */
    size_t count, cap;
    int files; /* safetensors files read */
} nd_checkpoint_tensors;

/* The tensors of the checkpoint in dir, from the headers of the files
 * model.safetensors.index.json names (else of every *.safetensors there): 8 bytes of
 * length and the JSON header of each, never the data. No such files: ND_OK, t->files 0.
 * ND_EINPUT when a header is not safetensors'. nd_checkpoint_tensors_free releases t (also
 * after an error). */
int nd_checkpoint_tensors_read(const char *dir, nd_checkpoint_tensors *t, nd_error *err);
void nd_checkpoint_tensors_free(nd_checkpoint_tensors *t);

/* One safetensors file's beginning in memory (data, len bytes: the 8-byte length and at
 * least the header), its tensors appended to t; path names it in messages. */
int nd_checkpoint_header_parse(nd_checkpoint_tensors *t, const unsigned char *data, size_t len,
                               const char *path, nd_error *err);

#endif
