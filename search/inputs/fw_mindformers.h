/*
 * fw_mindformers.h — MindFormers' write-back (fw_mindformers_write.c), which the format table's
 * entry in fw_mindformers.c names: the fw_format writer's contract (fw_formats.h).
 */
#ifndef ND_INPUTS_FW_MINDFORMERS_H
#define ND_INPUTS_FW_MINDFORMERS_H

#include <stddef.h>
#include <stdint.h>

#include "nd/base/error.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/run.h"

#include "fw_common.h"
#include "nd/base/yaml_doc.h"

/* A MindFormers yaml being read: its reader and document. */
typedef struct mf_doc {
    fw_reader *r;
    nd_yaml y;
} mf_doc;

/* Per-stage counts from a MindFormers list at `dotted` (an int for every stage, a list per
 * stage, or a list per VPP chunk of lists per stage, summed over chunks; a bare true is every
 * layer, -1): the number of stages read, 0 when absent; *err_rc set on a bad entry. Defined
 * with the write-back, which reads the offsets too, so that the two files call one way. */
int64_t fw_mindformers_stage_list(mf_doc *d, const char *dotted, int64_t out[ND_RUN_MAX_STAGES], int *err_rc);

/* The same from the node n (NULL: absent), named `dotted` in a message: a select_recompute
 * mapping's value, say, whose operator key holds dots. */
int64_t fw_mindformers_stage_counts(mf_doc *d, yaml_node_t *n, const char *dotted,
                                    int64_t out[ND_RUN_MAX_STAGES], int *err_rc);

int fw_mindformers_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                         size_t size, nd_error *err);

#endif
