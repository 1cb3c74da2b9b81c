/*
 * fw_hyper_write.c — the chosen strategy written back into copies of HyperParallel v2's files
 * (resolved.yaml; with -f hyperparallel2 also resolved_accelerate.yaml): the degrees in the
 * schema the file uses (AutoModels' accelerator, the legacy Trainer's, Accelerate's
 * parallelism_config with its world size), the batch, the recompute mode and per-layer plan,
 * -mppb's per-stage lists. docs/frameworks.md §HyperParallel v2 (`-f hyper_v2`, `-f hyperparallel2`).
 */
#include "fw_hyper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_common.h"
#include "nd/base/text.h"
#include "nd/base/yaml_edit.h"
#include "nd/base/array.h"

/* ---- writing back ---------------------------------------------------------------------- */

/* activation_checkpoint.layers: the ranges of layers running another mode than `main`,
 * each stage's first layers in the plan's recompute modes (full, then selective), as ND's
 * per-stage lists put them: {"0-3": full, "24-31": off}. Empty when every layer runs main. */
static void layers_map(const nd_run *run, const nd_config_choice *c, nd_recompute main, char *buf,
                       size_t size)
{
    int64_t L = run->model.layers;
    size_t used = (size_t)snprintf(buf, size, "{");
    int64_t start = 0;
    nd_recompute prev = ND_RECOMPUTE_MODES;
    for (int64_t st = 0; st <= c->plan_stages; st++) {
        int64_t first = L, count = 0, left[2][3];
        if (st < c->plan_stages) {
            nd_strategy_stage_layers(&c->s, L, st, &first, &count);
            memcpy(left, c->plan[st], sizeof left);
        }
        for (int64_t j = first; j <= first + count && j <= L; j++) {
            nd_recompute m = ND_RECOMPUTE_MODES; /* past the last layer: closes the last range */
            if (j < first + count && j < L) {
                int k = nd_model_layer_kind(&run->model, j);
                m = left[k][ND_RECOMPUTE_FULL]        ? ND_RECOMPUTE_FULL
                    : left[k][ND_RECOMPUTE_SELECTIVE] ? ND_RECOMPUTE_SELECTIVE
                                                      : ND_RECOMPUTE_OFF;
                if (left[k][m]) left[k][m]--;
            } else if (st < c->plan_stages) {
                continue;
            }
            if (m == prev) continue;
            if (prev != ND_RECOMPUTE_MODES && prev != main && used < size)
                used += (size_t)snprintf(buf + used, size - used, "%s\"%lld-%lld\": %s", used > 1 ? ", " : "",
                                         (long long)start, (long long)(j - 1), nd_recompute_name(prev));
            start = j;
            prev = m;
        }
    }
    if (used < size) snprintf(buf + used, size - used, "}");
}

static bool present(const nd_yaml *y, const char *dotted)
{
    return fw_yaml_at((nd_yaml *)y, dotted) != NULL;
}

/* Sets a key when the file has it or nd's value differs from the framework's default (1). */
static int set_num(nd_yaml_edit *e, const nd_yaml *y, const char *dotted, int64_t v, bool add, nd_error *err)
{
    if (!add && !present(y, dotted)) return ND_OK;
    char t[32];
    snprintf(t, sizeof t, "%lld", (long long)v);
    return nd_yaml_edit_set_path(e, dotted, t, err);
}

/* Sequence parallelism under `prefix` in the spelling the file uses (the reader's two), or
 * added as sequence_parallel when chosen and the file states none (off is the default). */
static int write_sp(nd_yaml_edit *e, const nd_yaml *y, const char *prefix, bool sp, nd_error *err)
{
    static const char *const names[] = {"sequence_parallel", "use_seq_parallel"};
    char key[96];
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++) {
        snprintf(key, sizeof key, "%s%s", prefix, names[i]);
        if (present(y, key)) return nd_yaml_edit_set_path(e, key, sp ? "true" : "false", err);
    }
    if (!sp) return ND_OK;
    snprintf(key, sizeof key, "%s%s", prefix, names[0]);
    return nd_yaml_edit_set_path(e, key, "true", err);
}

/* Accelerate's world size: num_processes, read as the device count, becomes the chosen
 * layout's, and num_machines keeps the processes a machine had. */
static int write_world(nd_yaml_edit *e, const nd_yaml *y, const nd_strategy *s, nd_error *err)
{
    int64_t world = s->dp * s->cp * s->tp * s->pp, old = 0, machines = 0;
    const char *t = fw_yaml_text((nd_yaml *)y, "num_processes", NULL);
    if (!t || nd_parse_int64(t, 1, 1 << 24, &old)) return ND_OK;
    int rc = set_num(e, y, "num_processes", world, false, err);
    t = fw_yaml_text((nd_yaml *)y, "num_machines", NULL);
    if (rc || !t || nd_parse_int64(t, 1, 1 << 24, &machines) || old % machines) return rc;
    int64_t per_machine = old / machines;
    return set_num(e, y, "num_machines", world % per_machine ? world / per_machine + 1 : world / per_machine,
                   false, err);
}

/* The degrees into a file in HyperParallel's accelerator schema (AutoModels or legacy) or
 * Hugging Face Accelerate's parallelism_config. */
static int write_degrees(nd_yaml_edit *e, const nd_yaml *y, const nd_run *run, const nd_strategy *s,
                         int64_t shard, nd_error *err)
{
    int64_t replicate = s->dp * s->cp / shard;
    int rc;
    if (present(y, "parallelism_config")) {
        const char *k = "parallelism_config.parallelism_config_";
        char key[96];
        snprintf(key, sizeof key, "%stp_size", k);
        rc = set_num(e, y, key, s->tp, true, err);
        snprintf(key, sizeof key, "%scp_size", k);
        if (!rc) rc = set_num(e, y, key, s->cp, s->cp > 1, err);
        snprintf(key, sizeof key, "%sdp_shard_size", k);
        if (!rc) rc = set_num(e, y, key, shard, true, err);
        snprintf(key, sizeof key, "%sdp_replicate_size", k);
        if (!rc) rc = set_num(e, y, key, replicate, true, err);
        if (!rc) rc = write_world(e, y, s, err);
        return rc;
    }
    if (present(y, "train.accelerator")) { /* the legacy Trainer schema */
        const char *a = "train.accelerator.";
        static const char *const names[] = {"dp_replicate",
                                            "dp_shard",
                                            "tp_degree",
                                            "pipeline_parallel_degree",
                                            "context_parallel_degree",
                                            "expert_parallel_degree"};
        /* MindSpore's optimizer parallel (enable_parallel_optimizer) is the OP, not FSDP's shard */
        bool opt = present(y, "train.accelerator.enable_parallel_optimizer") && s->zero < 3;
        if (opt) { /* DP = dp_replicate x dp_shard, as read */
            shard = 1;
            replicate = s->dp;
        }
        int64_t v[] = {replicate, shard, s->tp, s->pp, s->cp, s->ep};
        rc = ND_OK;
        for (int i = 0; !rc && i < 6; i++) {
            char key[96];
            snprintf(key, sizeof key, "%s%s", a, names[i]);
            rc = set_num(e, y, key, v[i], true, err);
        }
        if (!rc && run->model.experts)
            rc = set_num(e, y, "train.accelerator.expert_tensor_parallel_degree", s->etp ? s->etp : 1, true,
                         err);
        /* VPP: ND's hyper_v2 legacy key, written whenever it is used or stated */
        if (!rc) rc = set_num(e, y, "train.accelerator.pp_interleave_num", s->vpp, s->vpp > 1, err);
        if (!rc) rc = write_sp(e, y, "train.accelerator.", s->sp, err);
        if (!rc && opt)
            rc = nd_yaml_edit_set_path(e, "train.accelerator.enable_parallel_optimizer",
                                       s->op > 1 ? "true" : "false", err);
        if (!rc && opt)
            rc = set_num(e, y, "train.accelerator.optimizer_weight_shard_size", s->op > 1 ? s->op : 1,
                         s->op > 1 && s->op != s->dp * s->cp, err);
        return rc;
    }
    rc = set_num(e, y, "accelerator.tp_size", s->tp, true, err);
    if (!rc) rc = set_num(e, y, "accelerator.pp_size", s->pp, true, err);
    if (!rc) rc = set_num(e, y, "accelerator.cp_size", s->cp, true, err);
    if (!rc) rc = set_num(e, y, "accelerator.ep_size", s->ep, true, err);
    if (!rc) rc = set_num(e, y, "accelerator.dp_replicate", replicate, false, err);
    if (!rc) rc = set_num(e, y, "accelerator.pp_interleave_num", s->vpp, s->vpp > 1, err);
    if (!rc && run->model.experts)
        rc = set_num(e, y, "accelerator.expert_tensor_parallel_degree", s->etp ? s->etp : 1, false, err);
    if (!rc) rc = write_sp(e, y, "accelerator.", s->sp, err);
    if (!rc) rc = set_num(e, y, "fsdp_config.dp_shard_size", shard, true, err);
    if (!rc && present(y, "fsdp_config.edp_shard_size")) {
        /* the experts' shard, within the experts' data parallel group DP x CP x TP / (EP x ETP):
         * the file's while it still divides that group, else the dense shard when it does,
         * else the whole group; never left at a size the new layout cannot have */
        int64_t etp = s->etp ? s->etp : 1, edp = s->ep * etp > 0 ? s->dp * s->cp * s->tp / (s->ep * etp) : 1;
        int64_t old = 0;
        const char *t = fw_yaml_text((nd_yaml *)y, "fsdp_config.edp_shard_size", NULL);
        if (t) nd_parse_int64(t, 1, 1 << 24, &old);
        if (edp < 1) edp = 1;
        int64_t edp_shard = old > 0 && edp % old == 0 ? old : edp % shard == 0 ? shard : edp;
        rc = set_num(e, y, "fsdp_config.edp_shard_size", edp_shard, false, err);
    }
    return rc;
}

/* The batch and the recompute into the train yaml. */
static int write_training(nd_yaml_edit *e, const nd_yaml *y, const nd_run *run, const nd_config_choice *c,
                          nd_error *err)
{
    const nd_strategy *s = &c->s;
    bool legacy = present(y, "train.accelerator") || present(y, "train.gradient_checkpointing");
    int rc = set_num(e, y, legacy ? "train.global_batch_size" : "training.global_batch_size", c->global_batch,
                     !legacy, err);
    if (!rc)
        rc = set_num(e, y, legacy ? "train.micro_batch_size" : "training.micro_batch_size", s->mbs, !legacy,
                     err);
    if (!rc)
        rc = set_num(e, y, legacy ? "train.micro_batch_num" : "training.micro_batch_num", s->mb, legacy, err);
    nd_recompute m = fw_choice_mode(c);
    if (legacy && !rc)
        return nd_yaml_edit_set_path(e, "train.gradient_checkpointing.activation_checkpoint",
                                     m == ND_RECOMPUTE_OFF ? "none" : nd_recompute_name(m), err);
    if (!rc) rc = nd_yaml_edit_set_path(e, "activation_checkpoint.mode", nd_recompute_name(m), err);
    if (!rc && c->plan) {
        char map[4096];
        layers_map(run, c, m, map, sizeof map);
        if (strcmp(map, "{}") || present(y, "activation_checkpoint.layers"))
            rc = nd_yaml_edit_set_path(e, "activation_checkpoint.layers", map, err);
    }
    return rc;
}

/* "[a, b, ...]" of the chosen strategy's stages: offsets from the even split (what = 0),
 * or the plan's fully (1) or selectively (2) recomputed layers. */
static void stage_list_text(const nd_run *run, const nd_config_choice *c, int what, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int64_t i = 0; i < c->s.pp && used + 24 < size; i++) {
        int64_t v = 0, first, count;
        if (what == 0) {
            nd_strategy_stage_layers(&c->s, run->model.layers, i, &first, &count);
            v = count - run->model.layers / c->s.pp;
        } else if (c->plan && i < c->plan_stages) {
            int m = what == 1 ? ND_RECOMPUTE_FULL : ND_RECOMPUTE_SELECTIVE;
            v = c->plan[i][0][m] + c->plan[i][1][m];
        } else {
            nd_strategy_stage_layers(&c->s, run->model.layers, i, &first, &count);
            v = (what == 1 && c->s.recompute == ND_RECOMPUTE_FULL) ||
                        (what == 2 && c->s.recompute == ND_RECOMPUTE_SELECTIVE)
                    ? count
                    : 0;
        }
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)v);
    }
    snprintf(buf + used, size > used ? size - used : 0, "]");
}

/* -mppb's keys, when the user's file states them: what the choice puts on each stage. */
static int write_layout(nd_yaml_edit *e, const nd_yaml *y, const nd_run *run, const nd_config_choice *c,
                        nd_error *err)
{
    static const char *const keys[] = {"model.config_overrides.offset", "model.config_overrides.full_rec",
                                       "model.config_overrides.sel_rec"};
    int rc = ND_OK;
    for (int k = 0; !rc && k < 3; k++) {
        if (!present(y, keys[k])) continue;
        char list[2048];
        stage_list_text(run, c, k, list, sizeof list);
        rc = nd_yaml_edit_set_path(e, keys[k], list, err);
    }
    return rc;
}

int fw_hyper_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                   nd_error *err)
{
    bool three = run->format == ND_CONFIG_HYPERPARALLEL2;
    const char *train = three ? run->train_yaml : run->source;
    /* ND: the FSDP shard is OP, capped by DP x CP */
    int64_t shard = c->s.op > 1 ? c->s.op : 1;
    if (shard > c->s.dp * c->s.cp) shard = c->s.dp * c->s.cp;
    nd_yaml_edit *e = NULL, *a = NULL;
    nd_yaml y, ya;
    int rc = nd_yaml_edit_open(&e, train, err);
    if (!rc) rc = nd_yaml_load(&y, train, err);
    if (rc) {
        nd_yaml_edit_free(e);
        return rc;
    }
    if (!three) rc = write_degrees(e, &y, run, &c->s, shard, err);
    if (!rc) rc = write_training(e, &y, run, c, err);
    if (!rc) rc = write_layout(e, &y, run, c, err);
    if (!rc) rc = nd_yaml_edit_remove(e, "context", err); /* the cost model's, not the trainer's (ND) */
    char path[1024];
    if (!rc)
        rc = nd_yaml_edit_write(e, fw_output_path(dir, "resolved.yaml", path, sizeof path, written, size),
                                err);
    nd_yaml_free(&y);
    nd_yaml_edit_free(e);
    if (rc || !three) return rc;
    if ((rc = nd_yaml_edit_open(&a, run->accelerate_yaml, err))) return rc;
    if ((rc = nd_yaml_load(&ya, run->accelerate_yaml, err))) {
        nd_yaml_edit_free(a);
        return rc;
    }
    rc = write_degrees(a, &ya, run, &c->s, shard, err);
    if (!rc)
        rc = nd_yaml_edit_write(
            a, fw_output_path(dir, "resolved_accelerate.yaml", path, sizeof path, written, size), err);
    nd_yaml_free(&ya);
    nd_yaml_edit_free(a);
    return rc;
}
