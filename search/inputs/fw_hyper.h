/*
 * fw_hyper.h — HyperParallel v2's write-back (fw_hyper_write.c), which the format table's entries
 * in fw_hyper.c name: the fw_format writer's contract (fw_formats.h).
 */
#ifndef ND_INPUTS_FW_HYPER_H
#define ND_INPUTS_FW_HYPER_H

#include <stddef.h>

#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/run.h"

int fw_hyper_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                   nd_error *err);

#endif
