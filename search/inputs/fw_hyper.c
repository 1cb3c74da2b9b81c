/*
 * fw_hyper.c — HyperParallel v2: the AutoModels train.yaml (-f hyper_v2) and the three
 * files of -f hyperparallel2 (a model yaml, --train-yaml, --accelerate-yaml, the last in
 * HyperParallel's accelerator schema or Hugging Face Accelerate's). The model comes from
 * the checkpoint's config.json (model.pretrained_model_name_or_path) with
 * model.config_overrides over it, the strategy from accelerator, fsdp_config and
 * training, recompute from activation_checkpoint; keys as ND's hyper_v2 parser reads them
 * (docs/reference/nd-costmodel.md §1.3). The choice goes back into copies (resolved.yaml,
 * resolved_accelerate.yaml: fw_hyper_write.c).
 */
#include "fw_formats.h"
#include "fw_hyper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/inputs/checkpoint.h"
#include "nd/inputs/model_fields.h"
#include "nd/base/text.h"
#include "nd/base/yaml_edit.h"
#include "nd/base/array.h"

enum { DOC_TRAIN = 0, DOC_MODEL, DOC_ACCEL, DOCS };

typedef struct hy {
    fw_reader *r;
    nd_yaml y[DOCS];
    bool loaded[DOCS];
    const char *path[DOCS];
    const char *at; /* the file the last key found was read from */
} hy;

/* The largest degree or size nd reads from these files (as the run file's devices). */
#define HY_DEGREE_MAX (1 << 24)

/* A scalar in the first of the docs listed (in order) that has it; *path names the file. */
static const char *text_in(hy *h, const int *docs, int n, const char *dotted, int *line, const char **path)
{
    for (int i = 0; i < n; i++) {
        int d = docs[i];
        if (!h->loaded[d]) continue;
        const char *t = fw_yaml_text(&h->y[d], dotted, line);
        if (t) {
            if (path) *path = h->path[d];
            h->at = h->path[d];
            return t;
        }
    }
    return NULL;
}

static const int for_model[] = {DOC_MODEL, DOC_TRAIN};
static const int for_train[] = {DOC_TRAIN, DOC_MODEL, DOC_ACCEL};
static const int for_degrees[] = {DOC_ACCEL, DOC_TRAIN, DOC_MODEL};

static const char *model_text(hy *h, const char *k, int *line)
{
    return text_in(h, for_model, 2, k, line, NULL);
}
static const char *train_text(hy *h, const char *k, int *line)
{
    return text_in(h, for_train, 3, k, line, NULL);
}
static const char *degree_text(hy *h, const char *k, int *line)
{
    return text_in(h, for_degrees, 3, k, line, NULL);
}

/* The reader, naming in its messages the file path (a key's: the model, train or accelerate
 * yaml), so that an error points at the file the key stands in. */
static fw_reader in_file(const hy *h, const char *path)
{
    fw_reader w = *h->r;
    if (path) w.path = path;
    return w;
}

/* The reader naming the file the last key found was read from. */
static fw_reader found_in(const hy *h)
{
    return in_file(h, h->at);
}

/* The first of several spellings that is stated. */
static const char *first_of(hy *h, const char *(*get)(hy *, const char *, int *), const char *const *keys,
                            const char **which, int *line)
{
    for (; *keys; keys++) {
        const char *t = get(h, *keys, line);
        if (t) {
            *which = *keys;
            return t;
        }
    }
    return NULL;
}

static yaml_node_t *node_in(hy *h, int doc, const char *dotted)
{
    return h->loaded[doc] ? fw_yaml_at(&h->y[doc], dotted) : NULL;
}

/* The first of several spellings stated as null (~, null, None, nothing) in a training doc, which
 * fw_yaml_text reads as unstated: its text, *which and *line (NULL: none is). */
static const char *null_of(hy *h, const char *const *keys, const char **which, int *line)
{
    for (; *keys; keys++)
        for (size_t i = 0; i < ND_ARRAY_LEN(for_train); i++) {
            yaml_node_t *n = node_in(h, for_train[i], *keys);
            const char *t = nd_yaml_text(n);
            if (!t || fw_yaml_text(&h->y[for_train[i]], *keys, line)) continue;
            *which = *keys;
            h->at = h->path[for_train[i]];
            return t;
        }
    return NULL;
}

/* model.config_overrides: model keys (Hugging Face names) over the checkpoint's, and the
 * run's own (seq_length, capacity_factor, offset, full_rec, sel_rec, use_gmm). */
static int read_overrides(hy *h, int doc)
{
    yaml_node_t *map = node_in(h, doc, "model.config_overrides");
    if (!map || map->type != YAML_MAPPING_NODE) return ND_OK;
    nd_yaml *y = &h->y[doc];
    fw_reader where = *h->r;
    where.path = h->path[doc];
    int rc = fw_check_spellings(&where, y, map, "model.config_overrides");
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        const char *k = nd_yaml_text(kn), *v = nd_yaml_text(nd_yaml_value_at(y, map, i));
        if (!k || !v) continue;
        char theirs[160];
        snprintf(theirs, sizeof theirs, "model.config_overrides.%s", k);
        fw_reader sub = *h->r;
        sub.path = h->path[doc];
        if (!strcmp(k, "seq_length"))
            rc = fw_train(&sub, "seq_len", v, nd_yaml_line(kn), theirs);
        else if (!strcmp(k, "cap_fact"))
            rc = fw_model(&sub, "capacity_factor", v, nd_yaml_line(kn), theirs);
        else if (!strcmp(k, "use_gmm") || !strcmp(k, "gmm"))
            rc = fw_train(&sub, "moe_grouped_gemm", v, nd_yaml_line(kn), theirs);
        else if (!strcmp(k, "offset") || !strcmp(k, "full_rec") || !strcmp(k, "sel_rec"))
            continue; /* -mppb */
        else if (nd_model_key_known(k))
            rc = fw_model(&sub, k, v, nd_yaml_line(kn), theirs);
        else if (!nd_model_key_ignored(k))
            fw_note(h->r->run, "%s:%d: %s is not a key nd prices", sub.path, nd_yaml_line(kn), theirs);
    }
    return rc;
}

static int read_model(hy *h)
{
    fw_reader *r = h->r;
    int line;
    const char *where = h->loaded[DOC_MODEL] ? h->path[DOC_MODEL] : h->path[DOC_TRAIN];
    const char *ckpt = model_text(h, "model.pretrained_model_name_or_path", &line);
    if (!ckpt) ckpt = model_text(h, "model.model_name_or_path", &line);
    int rc;
    if (ckpt) {
        char dir[1024], cfg[1100];
        const char *at = h->at; /* the yaml stating the key, for the message */
        if ((rc = nd_checkpoint_find(ckpt, where, dir, sizeof dir, r->err)))
            return nd_error_prefix(r->err, "%s:%d: model.pretrained_model_name_or_path", at, line);
        snprintf(cfg, sizeof cfg, "%s/config.json", dir);
        if ((rc = nd_model_read_hf_file(&r->run->model, cfg, false, r->err))) return rc;
        const char *slash = strrchr(ckpt, '/');
        nd_text_copy(r->run->model.name, slash && slash[1] ? slash + 1 : ckpt, sizeof r->run->model.name);
        nd_text_copy(r->run->checkpoint, cfg, sizeof r->run->checkpoint); /* for -V */
    } else {
        /* a standalone spec: model.config_overrides (or model.name's family) alone */
        line = 0;
        const char *name = model_text(h, "model.name", &line), *at = name ? h->at : where;
        nd_text_copy(r->run->model.name, name ? name : "model", sizeof r->run->model.name);
        const char *type = model_text(h, "model.config_overrides.model_type", &line);
        fw_reader w = in_file(h, type ? h->at : at);
        if ((rc = fw_model_family(&w, type ? type : name, line))) return rc;
        if (!node_in(h, DOC_MODEL, "model.config_overrides") &&
            !node_in(h, DOC_TRAIN, "model.config_overrides"))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s: model.pretrained_model_name_or_path names no checkpoint "
                                "and model.config_overrides states no model",
                                where);
    }
    rc = read_overrides(h, DOC_TRAIN);
    if (!rc) rc = read_overrides(h, DOC_MODEL);
    if (!rc && r->run->model.mtp_layers) { /* Transformers never trains them (ND's AutoModels rule) */
        fw_note(r->run,
                "%s: the checkpoint's %lld MTP layers are not trained by AutoModels: priced without them",
                where, (long long)r->run->model.mtp_layers);
        r->run->model.mtp_layers = 0;
    }
    return rc;
}

/* HyperParallel's words for no recompute: none, no (as ND's samples write it), false, off. */
static bool off_word(const char *v)
{
    bool b;
    return !strcmp(v, "none") || !strcmp(v, "no") || (!nd_parse_bool(v, &b) && !b);
}

/* The compute precision a stated dtype means: a torch dtype, or accelerate's mixed_precision,
 * whose "no" is full fp32 and "fp8" is FP8 GEMMs over bf16 (accelerate's docs); "auto" is the
 * loader's default, bf16. Anything else is refused at its line (it was priced as bf16). */
static int compute_precision(hy *h, const char *v, const char *key, int line, const char **precision)
{
    bool accelerate = !strcmp(key, "mixed_precision");
    if (fw_precision_of(v)) {
        *precision = fw_precision_of(v);
        return ND_OK;
    }
    bool off;
    if (accelerate && (nd_text_equal_nocase(v, "no") || (!nd_parse_bool(v, &off) && !off))) {
        *precision = "fp32";
        return ND_OK;
    }
    if ((accelerate && !strcmp(v, "fp8")) || nd_text_equal_nocase(v, "auto")) return ND_OK;
    return nd_error_set(
        h->r->err, ND_EINPUT, "%s:%d: %s: '%s' is not a precision nd knows (%s)", h->at, line, key, v,
        accelerate ? "no, fp16, bf16 or fp8" : "a torch dtype: bfloat16, float16 or float32, or auto");
}

static int read_training(hy *h)
{
    fw_reader *r = h->r, w;
    int line, rc = ND_OK;
    const char *which = "", *v;
    static const char *const seq_keys[] = {"dataset.data_transform.max_seq_len",
                                           "dataset.data_config.seq_length", "data.max_seq_len", NULL};
    if ((v = first_of(h, train_text, seq_keys, &which, &line))) {
        w = found_in(h);
        rc = fw_train(&w, "seq_len", v, line, which);
    } else if (r->run->model.context_length > 0) {
        char ctx[32];
        snprintf(ctx, sizeof ctx, "%lld", (long long)r->run->model.context_length);
        rc = fw_default(r,
                        "no dataset.data_transform.max_seq_len: the model's context limit, %s tokens (ND's "
                        "fallback; long-context models then fit nowhere)",
                        ctx);
        if (!rc) rc = fw_train(r, "seq_len", ctx, 0, "max_position_embeddings");
    } else {
        rc = fw_default(r, "no dataset.data_transform.max_seq_len: the sequence is 4096 tokens");
    }
    static const char *const dtypes[] = {"fsdp_config.mix_precision.param_dtype", "model_init_dtype",
                                         "model.torch_dtype", "model.param_init_type", NULL};
    int param_line = 0;
    const char *param = first_of(h, train_text, dtypes, &which, &param_line), *param_at = h->at;
    const char *param_key = which;
    static const char *const compute_keys[] = {"model.torch_dtype", "model.compute_dtype",
                                               "mixed_precision", /* accelerate: bf16, fp16, no */
                                               NULL};
    line = 0;
    const char *compute = first_of(h, train_text, compute_keys, &which, &line);
    w = compute ? found_in(h) : *r;
    const char *precision = "bf16";
    if (!rc && compute && (rc = compute_precision(h, compute, which, line, &precision)) == ND_OK &&
        !strcmp(compute, "fp8"))
        rc = fw_train(&w, "fp8", "true", line, which);
    if (!rc) rc = fw_train(&w, "precision", precision, line, compute ? which : "model.torch_dtype");
    w = in_file(h, param_at);
    if (!rc && param && fw_precision_of(param) && !strcmp(fw_precision_of(param), "fp32"))
        rc = fw_train(&w, "master_weights", "true", param_line, param_key);
    static const char *const clip_keys[] = {"training.max_grad_norm", "optimizer.max_grad_norm",
                                            "train.max_grad_norm", NULL};
    if (!rc && (v = first_of(h, train_text, clip_keys, &which, &line))) {
        /* As Transformers' Trainer reads max_grad_norm: a norm > 0 clips, 0 or less does not.
         * A word was read as 0 (no clipping), pricing another run than the file's. */
        double clip = 0;
        if (nd_parse_double(v, &clip))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: %s: '%s' is not a number (a norm; 0 or null: no clipping)", h->at,
                                line, which, v);
        w = found_in(h);
        rc = fw_train(&w, "grad_clip", clip > 0 ? "true" : "false", line, which);
    } else if (!rc && (v = null_of(h, clip_keys, &which, &line))) {
        /* null (None): Transformers' Trainer does not clip (it was read as unstated: clipping) */
        w = found_in(h);
        rc = fw_train(&w, "grad_clip", "false", line, which);
    }
    static const char *const opt_keys[] = {"optimizer._target_", "optimizer.type", "train.optimizer.type",
                                           NULL};
    if (!rc && (v = first_of(h, train_text, opt_keys, &which, &line))) {
        const char *o = strstr(v, "uon") ? "muon" : strstr(v, "SGD") || strstr(v, "sgd") ? "sgd" : "adamw";
        w = found_in(h);
        rc = fw_train(&w, "optimizer", o, line, which);
    }
    static const char *const ac_keys[] = {"activation_checkpoint.mode",
                                          "train.gradient_checkpointing.activation_checkpoint", NULL};
    if (!rc && (v = first_of(h, train_text, ac_keys, &which, &line))) {
        w = found_in(h);
        rc = fw_train(&w, "recompute", off_word(v) ? "off" : v, line, which);
    }
    if (!rc && !v && fw_true(degree_text(h, "fsdp_config.fsdp_activation_checkpointing", &line))) {
        w = found_in(h);
        rc = fw_train(&w, "recompute", "full", line, "fsdp_config.fsdp_activation_checkpointing");
    }
    if (!rc && (v = train_text(h, "context.max_device_memory", &line)) &&
        nd_run_set(r->run, "memory_budget", v, r->err)) {
        rc = nd_error_prefix(r->err, "%s:%d: context.max_device_memory", h->at, line);
        r->err->code = ND_EINPUT;
    }
    if (!rc) rc = fw_train(r, "framework", "fsdp", 0, "");
    return rc;
}

/* A degree or size (keys: its spellings, the first stated wins): a whole number in [1,
 * HY_DEGREE_MAX]. 0, -1 or a word is refused naming the file and line: neither HyperParallel
 * nor Accelerate gives these keys a sentinel (optimizer_weight_shard_size's -1 is read
 * apart), and dropping one would price another strategy than the file's (dp_shard_size: -64
 * read as no FSDP). *n is left as it is when no spelling is stated; *key then has which NULL. */
typedef struct hy_key {
    const char *which, *path;
    int line;
} hy_key;

static int whole(hy *h, const char *(*get)(hy *, const char *, int *), const char *const *keys, int64_t *n,
                 hy_key *key)
{
    *key = (hy_key){NULL, h->r->path, 0};
    const char *which = "";
    const char *v = first_of(h, get, keys, &which, &key->line);
    if (!v) return ND_OK;
    key->which = which;
    key->path = h->at;
    if (!nd_parse_int64(v, 1, HY_DEGREE_MAX, n)) return ND_OK;
    return nd_error_set(h->r->err, ND_EINPUT, "%s:%d: %s: '%s' is not a whole number in [1, %d]", key->path,
                        key->line, which, v, HY_DEGREE_MAX);
}

static int degree(hy *h, const char *const *keys, const char *dim)
{
    int64_t n = 0;
    hy_key k;
    int rc = whole(h, degree_text, keys, &n, &k);
    if (rc || !k.which) return rc;
    fw_reader w = in_file(h, k.path);
    return fw_degree(&w, dim, n, k.line, k.which);
}

/* Hugging Face Accelerate's FSDP or DeepSpeed sharding: the ZeRO level it is (*zero -1: the
 * file states no distributed_type). */
static int accelerate_zero(hy *h, int *zero)
{
    int line;
    *zero = -1;
    const char *type = degree_text(h, "distributed_type", &line);
    if (!type) return ND_OK;
    *zero = 0;
    if (!strcmp(type, "DEEPSPEED")) {
        const char *z = degree_text(h, "deepspeed_config.zero_stage", &line);
        int64_t stage = 0;
        if (z && nd_parse_int64(z, 0, 3, &stage))
            return nd_error_set(h->r->err, ND_EINPUT,
                                "%s:%d: deepspeed_config.zero_stage: '%s' is not a ZeRO stage 0, 1, 2 or 3",
                                h->at, line, z);
        *zero = (int)stage;
        return ND_OK;
    }
    if (strcmp(type, "FSDP")) return ND_OK;
    const char *st = degree_text(h, "fsdp_config.fsdp_sharding_strategy", &line);
    *zero = 3;
    if (!st) return ND_OK;
    if (strstr(st, "GRAD_OP") || !strcmp(st, "2") || strstr(st, "ZERO2") || !strcmp(st, "5")) *zero = 2;
    if (strstr(st, "NO_SHARD") || !strcmp(st, "3")) *zero = 0;
    return ND_OK;
}

/* The devices the files state: context.device_num, else accelerate's num_processes (*n 0:
 * neither); TP x PP x CP must divide them. */
static int read_devices(hy *h, int64_t *n)
{
    static const char *const device_num[] = {"context.device_num", NULL};
    static const char *const processes[] = {"num_processes", NULL};
    hy_key k;
    nd_strategy *s = &h->r->run->strategy;
    *n = 0;
    int rc = whole(h, train_text, device_num, n, &k);
    if (!rc && !k.which) rc = whole(h, degree_text, processes, n, &k);
    if (rc || !k.which) return rc;
    int64_t model = s->tp * s->pp * s->cp;
    if (*n % model)
        return nd_error_set(h->r->err, ND_EINPUT, "%s:%d: %s=%lld is not divisible by TP x PP x CP = %lld",
                            k.path, k.line, k.which, (long long)*n, (long long)model);
    return ND_OK;
}

/* MindSpore's optimizer parallel (ND's hyper samples): enable_parallel_optimizer shards the
 * optimizer (ZeRO-1) over optimizer_weight_shard_size ranks (-1, MindSpore's default, or
 * absent: all of DP x CP) */
static int read_optimizer_shard(hy *h)
{
    static const char *const opt_on[] = {"train.accelerator.enable_parallel_optimizer",
                                         "accelerator.enable_parallel_optimizer", NULL};
    static const char *const opt_size[] = {"train.accelerator.optimizer_weight_shard_size",
                                           "accelerator.optimizer_weight_shard_size", NULL};
    fw_reader *r = h->r;
    nd_strategy *s = &r->run->strategy;
    const char *which = "", *v;
    int line = 0;
    if (!fw_true(first_of(h, degree_text, opt_on, &which, &line)) || s->op > 1) return ND_OK;
    int64_t all = s->dp * s->cp, op = all;
    if ((v = first_of(h, degree_text, opt_size, &which, &line)) &&
        (nd_parse_int64(v, -1, HY_DEGREE_MAX, &op) || op == 0))
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: %s: '%s' is not -1 (all) or a whole number in [1, %d]",
                            h->at, line, which, v, HY_DEGREE_MAX);
    fw_reader w = found_in(h);        /* the size's file, else the switch's */
    if (op < 1 || op > all) op = all; /* -1: all */
    int rc = op > 1 ? fw_degree(&w, "OP", op, line, which) : ND_OK;
    if (!rc && op > 1) rc = fw_degree(&w, "ZERO", 1, line, which);
    return rc;
}

static int read_strategy(hy *h)
{
    fw_reader *r = h->r, w;
    static const char *const tp[] = {"accelerator.tp_size",
                                     "accelerator.tp_degree",
                                     "train.accelerator.tp_degree",
                                     "parallelism_config.parallelism_config_tp_size",
                                     "megatron_lm_config.megatron_lm_tp_degree",
                                     NULL};
    static const char *const pp[] = {"accelerator.pp_size", "accelerator.pipeline_parallel_degree",
                                     "train.accelerator.pipeline_parallel_degree",
                                     "megatron_lm_config.megatron_lm_pp_degree", NULL};
    static const char *const cp[] = {"accelerator.cp_size", "accelerator.context_parallel_degree",
                                     "train.accelerator.context_parallel_degree",
                                     "parallelism_config.parallelism_config_cp_size", NULL};
    static const char *const ep[] = {"accelerator.ep_size", "accelerator.expert_parallel_degree",
                                     "train.accelerator.expert_parallel_degree", NULL};
    static const char *const etp[] = {"accelerator.expert_tensor_parallel_degree",
                                      "train.accelerator.expert_tensor_parallel_degree", NULL};
    static const char *const vpp[] = {"accelerator.pp_interleave_num", "train.accelerator.pp_interleave_num",
                                      NULL};
    static const char *const mbs[] = {"training.micro_batch_size", "train.micro_batch_size", NULL};
    static const char *const mb[] = {"training.micro_batch_num", "train.micro_batch_num",
                                     "megatron_lm_config.megatron_lm_num_micro_batches", NULL};
    int rc = degree(h, tp, "MP");
    if (!rc) rc = degree(h, pp, "PP");
    if (!rc) rc = degree(h, cp, "CP");
    if (!rc) rc = degree(h, ep, "EP");
    if (!rc) rc = degree(h, etp, "ETP");
    if (!rc) rc = degree(h, vpp, "VPP");
    if (!rc) rc = degree(h, mbs, "MBS");
    if (!rc) rc = degree(h, mb, "MB");
    if (!rc && r->run->strategy.vpp > 1) rc = fw_train(r, "schedule", "interleaved", 0, "");
    const char *which = "", *v;
    int line = 0;
    static const char *const sp[] = {"accelerator.sequence_parallel",
                                     "accelerator.use_seq_parallel",
                                     "train.accelerator.use_seq_parallel",
                                     "train.accelerator.sequence_parallel",
                                     "megatron_lm_config.megatron_lm_sequence_parallelism",
                                     NULL};
    if (!rc && (v = first_of(h, degree_text, sp, &which, &line))) {
        w = found_in(h);
        rc = fw_strategy(&w, "SP", fw_true(v) ? "1" : "0", line, which);
    }
    if (!rc && (v = degree_text(h, "accelerator.context_parallel_algo", &line))) {
        w = found_in(h);
        rc = fw_train(&w, "cp_comm", strstr(v, "ulysses") ? "a2a" : "ring", line,
                      "accelerator.context_parallel_algo");
    }
    static const char *const gbs[] = {"training.global_batch_size", "train.global_batch_size", NULL};
    if (!rc && (v = first_of(h, train_text, gbs, &which, &line))) {
        w = found_in(h);
        rc = fw_train(&w, "global_batch", v, line, which);
    }
    /* DP = replicate x shard; the FSDP shard is the optimizer's (OP), over DP x CP */
    static const char *const shard[] = {"fsdp_config.dp_shard_size", "accelerator.dp_shard",
                                        "train.accelerator.dp_shard",
                                        "parallelism_config.parallelism_config_dp_shard_size", NULL};
    static const char *const repl[] = {"accelerator.dp_replicate", "train.accelerator.dp_replicate",
                                       "parallelism_config.parallelism_config_dp_replicate_size", NULL};
    int64_t dp_shard = 1, dp_replicate = 1, devices = 0;
    hy_key shard_key = {NULL, r->path, 0}, repl_key = {NULL, r->path, 0};
    int zero = -1;
    if (!rc) rc = whole(h, degree_text, shard, &dp_shard, &shard_key);
    if (!rc) rc = whole(h, degree_text, repl, &dp_replicate, &repl_key);
    if (!rc) rc = read_devices(h, &devices);
    if (!rc) rc = accelerate_zero(h, &zero);
    if (rc) return rc;
    nd_strategy *s = &r->run->strategy;
    /* the DP the file states stands at its shard size, else at its replicas */
    hy_key dp_key = shard_key.which ? shard_key : repl_key;
    w = in_file(h, dp_key.path);
    rc = fw_degree(&w, "DP", dp_replicate * dp_shard, dp_key.line,
                   dp_key.which ? dp_key.which : "fsdp_config.dp_shard_size");
    if (!rc && devices) {
        s->dp = devices / (s->tp * s->pp * s->cp);
        r->run->devices = devices;
    }
    /* ND: -d is needed for an AutoModels train.yaml, which states no world size */
    r->run->derive_dp = !devices && !repl_key.which;
    if (zero < 0) zero = dp_shard > 1 ? 3 : 0;               /* HyperParallel's FSDP */
    if (!rc && zero == 1 && dp_shard <= 1) dp_shard = s->dp; /* DeepSpeed ZeRO shards over every rank */
    w = in_file(h, shard_key.path);
    const char *op_key = shard_key.which ? shard_key.which : "fsdp_config.dp_shard_size";
    if (!rc && dp_shard > 1 && zero > 0) {
        rc = fw_degree(&w, "OP", dp_shard, shard_key.line, op_key);
        if (!rc) rc = fw_degree(&w, "ZERO", zero, shard_key.line, op_key);
    }
    if (!rc) rc = read_optimizer_shard(h);
    r->run->derive_mb = !first_of(h, degree_text, mb, &which, &line);
    return rc;
}

/* activation_checkpoint.layers: {"0-3": full, "4": off, ...}, the per-layer plan nd-search -ar
 * writes; nd-estimate prices it as a recompute plan over the strategy's stages. */
static int read_layers(hy *h)
{
    yaml_node_t *map = node_in(h, DOC_TRAIN, "activation_checkpoint.layers");
    nd_run *run = h->r->run;
    if (!map || map->type != YAML_MAPPING_NODE) return ND_OK;
    int64_t L = run->model.layers, pp = run->strategy.pp;
    if (pp < 1 || pp > ND_RUN_MAX_STAGES) return ND_OK;
    nd_recompute *mode = malloc((size_t)L * sizeof *mode);
    if (!mode) return nd_error_set(h->r->err, ND_ENOMEM, "out of memory");
    for (int64_t i = 0; i < L; i++) mode[i] = run->train.recompute;
    nd_yaml *y = &h->y[DOC_TRAIN];
    int rc = ND_OK;
    for (size_t i = 0; !rc && i < nd_yaml_size(map); i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        const char *k = nd_yaml_text(kn), *v = nd_yaml_text(nd_yaml_value_at(y, map, i));
        long a = -1, b = -1;
        nd_recompute m;
        int got = k ? sscanf(k, "%ld-%ld", &a, &b) : 0;
        if (got == 1) b = a;
        if (got < 1 || a < 0 || b < a || b >= L || !v || nd_recompute_parse(v, &m)) {
            rc = nd_error_set(h->r->err, ND_EINPUT,
                              "%s:%d: activation_checkpoint.layers: '%s: %s' is not \"first-last\" "
                              "layers (of %lld) and off, selective or full",
                              h->path[DOC_TRAIN], nd_yaml_line(kn), k ? k : "?", v ? v : "?", (long long)L);
            break;
        }
        for (long j = a; j <= b; j++) mode[j] = m;
    }
    if (!rc) {
        run->plan.stages = pp;
        memset(run->plan.layers, 0, sizeof run->plan.layers);
        for (int64_t st = 0; st < pp; st++) {
            int64_t first, count;
            nd_strategy_stage_layers(&run->strategy, L, st, &first, &count);
            for (int64_t j = first; j < first + count; j++)
                run->plan.layers[st][nd_model_layer_kind(&run->model, j)][mode[j]]++;
        }
        run->has_plan = true;
    }
    free(mode);
    return rc;
}

/* context.recompute: the recompute dimension of a search (ND: a hyper_v2 yaml's). */
static int read_search_modes(hy *h)
{
    yaml_node_t *n = node_in(h, DOC_TRAIN, "context.recompute");
    if (!n) return ND_OK;
    const char *t = nd_yaml_text(n);
    nd_recompute m;
    if (t && !strcmp(t, "auto")) {
        h->r->run->search_modes = 7;
        return ND_OK;
    }
    if (t && off_word(t)) {
        h->r->run->search_modes = 1u << ND_RECOMPUTE_OFF;
        return ND_OK;
    }
    if (t && !nd_recompute_parse(t, &m)) {
        h->r->run->search_modes = 1u << m;
        return ND_OK;
    }
    for (size_t i = 0; n->type == YAML_SEQUENCE_NODE && i < nd_yaml_size(n); i++) {
        const char *w = nd_yaml_text(nd_yaml_item(&h->y[DOC_TRAIN], n, i));
        if (w && off_word(w)) {
            h->r->run->search_modes |= 1u << ND_RECOMPUTE_OFF;
            continue;
        }
        if (!w || nd_recompute_parse(w, &m))
            return nd_error_set(h->r->err, ND_EINPUT,
                                "%s:%d: context.recompute: '%s' is not off, selective, full or "
                                "auto",
                                h->path[DOC_TRAIN], nd_yaml_line(n), w ? w : "?");
        h->r->run->search_modes |= 1u << m;
    }
    return ND_OK;
}

/* Per-stage counts of a config_overrides key: an int for every stage, a list per stage, or
 * a list per chunk of lists per stage (summed). Returns the stages read, 0 when absent,
 * -1 on a cell that is not a whole number. */
static int64_t override_stages(hy *h, const char *key, int64_t out[ND_RUN_MAX_STAGES], int *line,
                               const char **path)
{
    static const int docs[] = {DOC_MODEL, DOC_TRAIN};
    char dotted[64];
    snprintf(dotted, sizeof dotted, "model.config_overrides.%s", key);
    for (size_t i = 0; i < ND_ARRAY_LEN(docs); i++) {
        yaml_node_t *n = node_in(h, docs[i], dotted);
        if (!n) continue;
        nd_yaml *y = &h->y[docs[i]];
        *line = nd_yaml_line(n);
        *path = h->path[docs[i]];
        memset(out, 0, sizeof(int64_t) * ND_RUN_MAX_STAGES);
        const char *t = nd_yaml_text(n);
        bool on;
        if (t && !nd_parse_int64(t, -(1 << 24), 1 << 24, &out[0])) return 1;
        if (t && strcmp(key, "offset") && !nd_parse_bool(t, &on)) { /* sel_rec: false (ND's samples) */
            out[0] = on ? -1 : 0;                                   /* true: every layer */
            return 1;
        }
        if (t) return -1;
        if (n->type != YAML_SEQUENCE_NODE) return -1;
        int64_t stages = 0;
        for (size_t a = 0; a < nd_yaml_size(n); a++) {
            yaml_node_t *item = nd_yaml_item(y, n, a);
            size_t inner = item->type == YAML_SEQUENCE_NODE ? nd_yaml_size(item) : 1;
            for (size_t b = 0; b < inner && b < ND_RUN_MAX_STAGES; b++) {
                yaml_node_t *cell = item->type == YAML_SEQUENCE_NODE ? nd_yaml_item(y, item, b) : item;
                int64_t v;
                const char *c = nd_yaml_text(cell);
                if (!c || nd_parse_int64(c, -(1 << 24), 1 << 24, &v)) return -1;
                size_t st = item->type == YAML_SEQUENCE_NODE ? b : a;
                if (st >= ND_RUN_MAX_STAGES) continue;
                out[st] += v;
                if ((int64_t)st + 1 > stages) stages = (int64_t)st + 1;
            }
        }
        return stages;
    }
    return 0;
}

/* -mppb: model.config_overrides' offset (layers a stage holds beyond the even split),
 * full_rec and sel_rec (layers a stage recomputes fully or selectively), as ND reads them. */
static int read_layout(hy *h)
{
    nd_run *run = h->r->run;
    nd_run_layout *L = &run->layout;
    int64_t pp = run->strategy.pp, layers = run->model.layers;
    static const char *const keys[] = {"offset", "full_rec", "sel_rec"};
    int64_t *into[] = {NULL, L->recompute, L->selective};
    int64_t off[ND_RUN_MAX_STAGES];
    for (size_t k = 0; k < ND_ARRAY_LEN(keys); k++) {
        int line = 0;
        const char *path = NULL;
        int64_t n = override_stages(h, keys[k], into[k] ? into[k] : off, &line, &path);
        if (n < 0)
            return nd_error_set(h->r->err, ND_EINPUT,
                                "%s:%d: model.config_overrides.%s: a whole number, a list "
                                "of them per pipeline stage, or (recompute) true or false",
                                path, line, keys[k]);
        if (n == 0) continue;
        if (n > 1 && n != pp)
            return nd_error_set(h->r->err, ND_EINPUT,
                                "%s:%d: model.config_overrides.%s lists %lld stages but the "
                                "pipeline has %lld",
                                path, line, keys[k], (long long)n, (long long)pp);
        L->stages = pp;
        if (k == 0) {
            int64_t sum = 0;
            for (int64_t i = 0; i < pp && pp <= ND_RUN_MAX_STAGES; i++)
                sum += L->layers[i] = layers / pp + off[n == 1 ? 0 : i];
            if (sum != layers) { /* only -mppb reads the offsets: a note, not an error */
                fw_note(run,
                        "%s:%d: model.config_overrides.offset puts %lld layers on the stages, the model has "
                        "%lld: -mppb splits the layers as nd does without it",
                        path, line, (long long)sum, (long long)layers);
                continue;
            }
            L->has_layers = true;
        } else {
            if (n == 1)
                for (int64_t i = 1; i < ND_RUN_MAX_STAGES; i++) into[k][i] = into[k][0];
            if (k == 1)
                L->has_recompute = true;
            else
                L->has_selective = true;
        }
    }
    return ND_OK;
}

static int fw_hyper_read(fw_reader *r, const char *train_yaml, const char *accelerate_yaml)
{
    hy h;
    memset(&h, 0, sizeof h);
    h.r = r;
    h.path[DOC_TRAIN] = train_yaml ? train_yaml : r->path;
    h.path[DOC_MODEL] = train_yaml ? r->path : NULL;
    h.path[DOC_ACCEL] = accelerate_yaml;
    int rc = ND_OK;
    for (int d = 0; !rc && d < DOCS; d++)
        if (h.path[d] && !(rc = nd_yaml_load(&h.y[d], h.path[d], r->err))) h.loaded[d] = true;
    if (train_yaml) {
        nd_text_copy(r->run->train_yaml, train_yaml, sizeof r->run->train_yaml);
        nd_text_copy(r->run->accelerate_yaml, accelerate_yaml, sizeof r->run->accelerate_yaml);
    }
    if (!rc) rc = read_model(&h);
    if (!rc) rc = read_training(&h);
    if (!rc) rc = read_strategy(&h);
    if (!rc) rc = read_search_modes(&h);
    if (!rc) rc = read_layout(&h);
    if (!rc) rc = fw_finish(r);
    if (!rc) rc = read_layers(&h);
    for (int d = 0; d < DOCS; d++)
        if (h.loaded[d]) nd_yaml_free(&h.y[d]);
    return rc;
}

static int read_hyper_v2(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_hyper_read(r, NULL, NULL);
}

static int read_hyperparallel2(fw_reader *r, const nd_config_input *in)
{
    if (!in->train_yaml || !in->accelerate_yaml)
        return nd_error_set(r->err, ND_EUSAGE,
                            "-f hyperparallel2 reads three files: -y the model yaml, "
                            "--train-yaml and --accelerate-yaml");
    return fw_hyper_read(r, in->train_yaml, in->accelerate_yaml);
}

const fw_format fw_hyper_v2_format = {ND_CONFIG_HYPER_V2, read_hyper_v2, fw_hyper_write};
const fw_format fw_hyperparallel2_format = {ND_CONFIG_HYPERPARALLEL2, read_hyperparallel2, fw_hyper_write};
