/*
 * fw_torchtitan_write.c — the chosen strategy written back into a copy of torchtitan's job toml
 * (resolved.toml): each degree, the pipeline's schedule and micro-batches, the batch and the
 * recompute mode, at the key the reader read it from (the older [training]/[experimental]
 * layout, inline tables and dotted keys kept as they stand). docs/frameworks.md §torchtitan.
 */
#include "fw_torchtitan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_formats.h"
#include "nd/base/array.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/toml.h"

/* nd's schedule for a torchtitan pipeline_parallel_schedule, and whether it runs several
 * stages a rank (Interleaved*, Looped*, ZBV*, DualPipe*: VPP 2 unless the stage's layers say). */
const char *fw_torchtitan_schedule_of(const char *name, bool *inter)
{
    *inter = strstr(name, "Interleaved") || strstr(name, "Looped") || strstr(name, "ZBV") ||
             strstr(name, "DualPipe");
    return strstr(name, "GPipe")                               ? "gpipe"
           : strstr(name, "ZeroBubble") || strstr(name, "ZBV") ? "zb-h1"
           : *inter                                            ? "interleaved"
                                                               : "1f1b";
}

/* The older torchtitan's table for a [parallelism] key (read_strategy's), or NULL. */
static const char *old_table(const char *key)
{
    static const char *const training[] = {"tensor_parallel_degree", "data_parallel_replicate_degree",
                                           "data_parallel_shard_degree"};
    static const char *const experimental[] = {
        "pipeline_parallel_degree",   "context_parallel_degree",           "expert_parallel_degree",
        "pipeline_parallel_schedule", "pipeline_parallel_microbatch_size", "pipeline_parallel_microbatches"};
    for (size_t i = 0; i < ND_ARRAY_LEN(training); i++)
        if (!strcmp(key, training[i])) return "training";
    for (size_t i = 0; i < ND_ARRAY_LEN(experimental); i++)
        if (!strcmp(key, experimental[i])) return "experimental";
    return NULL;
}

/* Where a [parallelism] key goes back: where the reader read it ([parallelism] first, then the
 * older table); a key the file leaves out goes to [parallelism], or in a file of the older
 * layout (no [parallelism]; [experimental] or a degree under [training]) to the older table. */
static const char *par_table(const nd_toml *t, const char *key)
{
    const char *old = old_table(key);
    if (nd_toml_get(t, "parallelism", key, NULL) || !old) return "parallelism";
    if (nd_toml_get(t, old, key, NULL)) return old;
    bool legacy =
        !nd_toml_has_table(t, "parallelism") &&
        (nd_toml_has_table(t, "experimental") || nd_toml_get(t, "training", "tensor_parallel_degree", NULL) ||
         nd_toml_get(t, "training", "data_parallel_shard_degree", NULL) ||
         nd_toml_get(t, "training", "data_parallel_replicate_degree", NULL));
    return legacy ? old : "parallelism";
}

/* text as a TOML basic string, quotes, backslashes and control characters escaped (owned; NULL
 * when out of memory). */
static char *toml_basic_string(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(6 * n + 3), *o = out;
    if (!out) return NULL;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') {
            *o++ = '\\';
            *o++ = (char)*c;
        } else if (*c < 0x20 || *c == 0x7f) {
            o += sprintf(o, "\\u%04x", *c);
        } else {
            *o++ = (char)*c;
        }
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static int set_num(nd_toml *t, const char *table, const char *key, int64_t v, bool add, nd_error *err)
{
    if (!table) table = par_table(t, key);
    if (!add && !nd_toml_get(t, table, key, NULL)) return ND_OK;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return nd_toml_set(t, table, key, text, err);
}

int fw_torchtitan_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                        size_t size, nd_error *err)
{
    nd_toml *t;
    int rc = nd_toml_load(&t, run->source, err);
    if (rc) return rc;
    const nd_strategy *s = &c->s;
    const char *par = NULL; /* each key where it was read (par_table) */
    const char *pp_text =
        nd_toml_get(t, par_table(t, "pipeline_parallel_degree"), "pipeline_parallel_degree", NULL);
    bool file_pipeline = pp_text && strcmp(pp_text, "1") != 0; /* before nd's PP is written */
    int64_t shard = s->op > 1 && s->op % s->cp == 0 ? s->op / s->cp : 1;
    if (shard > s->dp) shard = s->dp;
    rc = set_num(t, par, "data_parallel_replicate_degree", s->dp / shard, true, err);
    if (!rc) rc = set_num(t, par, "data_parallel_shard_degree", shard, true, err);
    if (!rc) rc = set_num(t, par, "tensor_parallel_degree", s->tp, true, err);
    if (!rc) rc = set_num(t, par, "pipeline_parallel_degree", s->pp, true, err);
    if (!rc) rc = set_num(t, par, "context_parallel_degree", s->cp, true, err);
    if (!rc) rc = set_num(t, par, "expert_parallel_degree", s->ep, run->model.experts > 0, err);
    if (!rc && run->model.experts)
        rc = set_num(t, par, "expert_tensor_parallel_degree", s->etp ? s->etp : s->tp, false, err);
    /* the pipeline's keys only with a pipeline (chosen, or the file's own): at PP 1 torchtitan
     * reads none of them, and the file's are left as they are */
    if (!rc && (s->pp > 1 || (file_pipeline && nd_toml_get(t, par_table(t, "pipeline_parallel_schedule"),
                                                           "pipeline_parallel_schedule", NULL)))) {
        /* the file's own name when it reads as the chosen schedule, else torchtitan's */
        const char *sched_table = par_table(t, "pipeline_parallel_schedule");
        const char *now = nd_toml_get(t, sched_table, "pipeline_parallel_schedule", NULL);
        bool inter = false;
        bool interleaved = s->vpp > 1 || s->schedule == ND_SCHEDULE_INTERLEAVED;
        const char *want = s->schedule == ND_SCHEDULE_GPIPE   ? "gpipe"
                           : s->schedule == ND_SCHEDULE_ZB_H1 ? "zb-h1"
                           : interleaved                      ? "interleaved"
                                                              : "1f1b";
        char *sched = NULL;
        if (now && !strcmp(fw_torchtitan_schedule_of(now, &inter), want)) {
            sched = toml_basic_string(now); /* the file's own name, whatever its length */
            if (!sched) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        } else {
            sched = nd_strdup(s->schedule == ND_SCHEDULE_GPIPE   ? "\"GPipe\""
                              : s->schedule == ND_SCHEDULE_ZB_H1 ? "\"InterleavedZeroBubble\""
                              : interleaved                      ? "\"Interleaved1F1B\""
                                                                 : "\"1F1B\"");
            if (!sched) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        }
        if (!rc) rc = nd_toml_set(t, sched_table, "pipeline_parallel_schedule", sched, err);
        free(sched);
        if (!rc) rc = set_num(t, par, "pipeline_parallel_microbatch_size", s->mbs, true, err);
        /* the older count of micro-batches, when the file states it, decides over the size */
        if (!rc) rc = set_num(t, par, "pipeline_parallel_microbatches", s->mb, false, err);
        /* the stage's layers decide VPP whenever stated: rewritten for VPP 1 too, and written
         * whenever the schedule runs several stages a rank (else torchtitan's VPP 2) */
        if (!rc)
            rc = set_num(t, par, "pipeline_parallel_layers_per_stage", run->model.layers / (s->pp * s->vpp),
                         s->vpp > 1 || inter, err);
    }
    int64_t local = s->pp > 1 ? s->mb * s->mbs : s->mbs;
    if (!rc)
        rc = set_num(t, "training",
                     nd_toml_get(t, "training", "batch_size", NULL) ? "batch_size" : "local_batch_size",
                     local, true, err);
    if (!rc)
        rc = set_num(t, "training", "global_batch_size", c->global_batch, local * s->dp != c->global_batch,
                     err);
    nd_recompute m = fw_choice_mode(c);
    char mode[16];
    snprintf(mode, sizeof mode, "\"%s\"", m == ND_RECOMPUTE_OFF ? "none" : nd_recompute_name(m));
    /* rewritten only when it changes (the file's quoting kept) */
    const char *was = nd_toml_get(t, "activation_checkpoint", "mode", NULL);
    bool same = was && strlen(was) + 2 == strlen(mode) && !strncmp(was, mode + 1, strlen(was));
    if (!rc && !same) rc = nd_toml_set(t, "activation_checkpoint", "mode", mode, err);
    char path[1024];
    if (!rc)
        rc = nd_toml_write(t, fw_output_path(dir, "resolved.toml", path, sizeof path, written, size), err);
    nd_toml_free(t);
    return rc;
}
