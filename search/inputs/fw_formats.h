/*
 * fw_formats.h — the framework readers and writers, one file each (fw_*.c), as the table
 * framework.c dispatches through: a format, how it is read into a run, how a choice is
 * written back into a copy of the user's files.
 */
#ifndef ND_FW_FORMATS_H
#define ND_FW_FORMATS_H

#include <stddef.h>
#include "fw_common.h"

typedef struct fw_format {
    nd_config_format format;
    /* Reads in->path (and the files it names) into r->run. */
    int (*read)(fw_reader *r, const nd_config_input *in);
    /* Writes the choice into dir, each file's path appended to written (one a line). */
    int (*write)(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                 nd_error *err);
} fw_format;

extern const fw_format fw_mindformers_format, fw_megatron_format, fw_mindspeed_json_format,
    fw_hyper_v2_format, fw_hyperparallel2_format, fw_torchtitan_format, fw_simumax_format;

#endif
