/*
 * fw_megatron.h — the Megatron format's write-back (fw_megatron_write.c), which the format
 * table's entry in fw_megatron.c names: the fw_format writer's contract (fw_formats.h).
 */
#ifndef ND_INPUTS_FW_MEGATRON_H
#define ND_INPUTS_FW_MEGATRON_H

#include <stddef.h>

#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/run.h"

int fw_megatron_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                      size_t size, nd_error *err);

#endif
