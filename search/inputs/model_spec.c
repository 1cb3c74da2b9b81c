/*
 * model_spec.c — a search config's `model:` section (ND's ModelSpec) applied to a run: over a
 * run's own model, or standalone (the model and its sequence from the section alone).
 */
#include "fw_common.h"

#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/inputs/model_fields.h"
#include "nd/inputs/search_config.h"

int nd_run_apply_model_section(nd_run *run, const nd_search_config_file *f, bool standalone, nd_error *err)
{
    fw_reader r = {run, f->path, false, err};
    int rc = ND_OK;
    if (standalone) { /* ND's ModelSpec: the family from model_type, arch or the name */
        nd_run_init(run, f->path);
        const char *type = NULL, *arch = NULL, *name = NULL;
        int line = 0;
        for (int i = 0; i < f->n_model; i++) {
            if (!strcmp(f->model[i].key, "model_type")) {
                type = f->model[i].value;
                line = f->model[i].line;
            } else if (!strcmp(f->model[i].key, "arch"))
                arch = f->model[i].value;
            else if (!strcmp(f->model[i].key, "name"))
                name = f->model[i].value;
        }
        nd_text_copy(run->model.name, name ? name : "model", sizeof run->model.name);
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", f->path, line);
        if (type) {
            rc = nd_model_set_type(&run->model, type, where, err);
            nd_text_copy(run->model.name, name ? name : type, sizeof run->model.name);
        } else
            rc = fw_model_family(&r, arch ? arch : name, line);
        if (rc) return rc;
    }
    bool has_positions = false;
    for (int i = 0; !rc && i < f->n_model; i++) {
        const char *k = f->model[i].key, *v = f->model[i].value;
        int line = f->model[i].line;
        char theirs[96];
        snprintf(theirs, sizeof theirs, "model.%.60s", k);
        if (!strcmp(k, "model_type") || !strcmp(k, "arch") || !strcmp(k, "moe_enabled")) continue;
        if (!strcmp(k, "name"))
            nd_text_copy(run->model.name, v, sizeof run->model.name);
        else if (!strcmp(k, "compute_dtype")) /* one nd does not know was ignored: priced as bf16 */
            rc = fw_precision_of(v) ? fw_train(&r, "precision", fw_precision_of(v), line, theirs)
                                    : nd_error_set(err, ND_EINPUT,
                                                   "%s:%d: model.compute_dtype: '%s' is not a dtype nd knows "
                                                   "(bfloat16, float16 or float32)",
                                                   f->path, line, v);
        else if (!strcmp(k, "use_flash_attention"))
            rc = fw_train(&r, "flash_attention", v, line, theirs);
        else if (!strcmp(k, "moe_inter_dim")) /* ND's loader reads moe_intermediate_size, not this */
            fw_note(run,
                    "%s:%d: model.moe_inter_dim is not a key ND's model loader reads: ignored, as ND does "
                    "(moe_intermediate_size is)",
                    f->path, line);
        else if (nd_model_key_known(k)) {
            rc = fw_model(&r, k, v, line, theirs);
            has_positions |= !strcmp(k, "max_position_embeddings");
            /* a standalone spec's sequence is its max_position_embeddings (ND: 4096 unless stated) */
            if (!rc && standalone && !strcmp(k, "max_position_embeddings"))
                rc = fw_train(&r, "seq_len", v, line, theirs);
        } else if (!nd_model_key_ignored(k)) {
            fw_note(run, "%s:%d: model.%s is not a key nd prices: ignored", f->path, line, k);
        }
    }
    if (rc) return rc;
    if (standalone) {
        if (!has_positions) {
            rc = fw_train(&r, "seq_len", "4096", 0, "model.max_position_embeddings");
            fw_note(run,
                    "%s: model.max_position_embeddings not stated: a sequence of 4096 tokens (ND's default)",
                    f->path);
        }
        if (!rc) rc = fw_finish(&r);
        run->format = ND_CONFIG_ND;
        return rc;
    }
    nd_model_finish_type(&run->model);
    return nd_model_validate(&run->model, f->path, err);
}
