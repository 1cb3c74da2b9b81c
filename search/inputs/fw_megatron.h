/*
 * fw_megatron.h — the Megatron format's parts: the write-back (fw_megatron_write.c), which the
 * format table's entry in fw_megatron.c names (the fw_format writer's contract, fw_formats.h),
 * and the reader's parts by concept (the layers built, fw_megatron_layers.c; CP's form,
 * fw_megatron_cp.c), each setting nd's keys through fw_model / fw_train.
 */
#ifndef ND_INPUTS_FW_MEGATRON_H
#define ND_INPUTS_FW_MEGATRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/run.h"

struct args_doc;
struct fw_reader;

/* --noop-layers: the model's layers less the no-ops (num_hidden_layers). */
int fw_megatron_noop_layers(struct fw_reader *r, struct args_doc *d);

/* Whether layer i of --num-layers is in the --noop-layers list. */
bool fw_megatron_is_noop(const char *list, int64_t i);

/* --moe-layer-freq: first_k_dense_replace or moe_layer_freq; a pattern nd cannot represent
 * refused at its line. */
int fw_megatron_layer_freq(struct fw_reader *r, struct args_doc *d);

/* --cp-comm-type and --context-parallel-algo: train.cp_comm and cp_ulysses_degree. */
int fw_megatron_read_cp(struct fw_reader *r, struct args_doc *d);

int fw_megatron_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                      size_t size, nd_error *err);

#endif
