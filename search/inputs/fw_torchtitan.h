/*
 * fw_torchtitan.h — torchtitan's write-back (fw_torchtitan_write.c), which the format table's
 * entry in fw_torchtitan.c names: the fw_format writer's contract (fw_formats.h); and the
 * schedule names the reader reads and the write-back keeps, defined beside the write-back so
 * the two files call one way.
 */
#ifndef ND_INPUTS_FW_TORCHTITAN_H
#define ND_INPUTS_FW_TORCHTITAN_H

#include <stdbool.h>
#include <stddef.h>

#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/run.h"

int fw_torchtitan_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                        size_t size, nd_error *err);

/* nd's schedule for a torchtitan pipeline_parallel_schedule, and whether it runs several stages
 * a rank (Interleaved*, Looped*, ZBV*, DualPipe*). */
const char *fw_torchtitan_schedule_of(const char *name, bool *inter);

#endif
