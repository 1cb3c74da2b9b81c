/*
 * search_best.c — best.yaml: the winning strategy as a run file nd-estimate reads
 * back (model, training, cluster, strategy, per-layer plan), and HyperParallel's
 * train.yaml keys for the trainer (docs/reference/nd-costmodel.md §6.3).
 */
#include "nd/planner/search_out.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/inputs/framework.h"
#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/costmodel/stage.h"
#include "nd/base/text.h"
#include "nd/base/yaml_doc.h"
#include "nd/costmodel/split.h"

/* A name in a comment: a control character would end the comment. */
static void comment_text(FILE *fp, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, fp);
}

static const char *bytes_name(int bytes)
{
    return bytes == 4 ? "fp32" : "bf16";
}

static void write_train(FILE *fp, const nd_train *t, const nd_context *ctx, const nd_strategy *best)
{
    const char *in = "  ";
    static const char *optimizers[] = {"adamw", "sgd", "muon"};
    fputs("train:\n", fp);
    nd_yaml_write_int(fp, in, "seq_len", t->seq_len);
    nd_yaml_write_text(fp, in, "precision", t->precision);
    /* 16-bit gradients take the precision's 16-bit type (bf16 when training in fp32). */
    nd_yaml_write_text(fp, in, "grad_precision",
                       t->grad_bytes == 4                           ? "fp32"
                       : nd_text_equal_nocase(t->precision, "fp16") ? "fp16"
                                                                    : "bf16");
    nd_yaml_write_bool(fp, in, "master_weights", t->master_bytes > 0);
    nd_yaml_write_text(fp, in, "optimizer", optimizers[t->optimizer]);
    nd_yaml_write_text(fp, in, "optimizer_state_precision", bytes_name(t->state_bytes));
    nd_yaml_write_bool(fp, in, "grad_clip", t->grad_clip);
    fputs("  selective_modules: [", fp);
    const char *sep = "";
    if (t->selective_modules & ND_SELECTIVE_CORE_ATTN) {
        fprintf(fp, "%score_attn", sep);
        sep = ", ";
    }
    if (t->selective_modules & ND_SELECTIVE_ACTIVATION) {
        fprintf(fp, "%sactivation", sep);
        sep = ", ";
    }
    if (t->selective_modules & ND_SELECTIVE_NORM) {
        fprintf(fp, "%snorm", sep);
        sep = ", ";
    }
    if (t->selective_modules & ND_SELECTIVE_MLA_UP) {
        fprintf(fp, "%smla_up_proj", sep);
        sep = ", ";
    }
    if (t->selective_modules & ND_SELECTIVE_MOE_ACT) fprintf(fp, "%smoe_act", sep);
    fputs("]\n", fp);
    nd_yaml_write_bool(fp, in, "flash_attention", t->flash_attention);
    nd_yaml_write_double(fp, in, "dropout", t->dropout);
    nd_yaml_write_bool(fp, in, "overlap_grad_reduce", t->overlap_grad_reduce);
    nd_yaml_write_bool(fp, in, "overlap_param_gather", t->overlap_param_gather);
    nd_yaml_write_bool(fp, in, "tp_comm_overlap", nd_train_tp_comm_overlap(t));
    nd_yaml_write_bool(fp, in, "ep_comm_overlap", t->ep_comm_overlap);
    nd_yaml_write_bool(fp, in, "overlap_p2p_comm", t->overlap_p2p_comm);
    /* the winner's split: the embedding and loss counted, or the run's explicit layout */
    nd_yaml_write_bool(fp, in, "account_for_embedding_in_pipeline_split", best->embedding_in_split);
    nd_yaml_write_bool(fp, in, "account_for_loss_in_pipeline_split", best->loss_in_split);
    if (best->layout) {
        char layout[4096];
        nd_split_layout_text(best, ctx->model->layers, ctx->model->mtp_layers, layout, sizeof layout);
        nd_yaml_write_text(fp, in, "pipeline_layout", layout);
    }
    nd_yaml_write_bool(fp, in, "swap_optimizer", t->swap_optimizer);
    if (t->virtual_optimizer_gib >= ND_VIRTUAL_OPTIMIZER_ALL)
        nd_yaml_write_text(fp, in, "virtual_optimizer", "all");
    else if (t->virtual_optimizer_gib > 0)
        nd_yaml_write_double(fp, in, "virtual_optimizer", t->virtual_optimizer_gib);
    nd_yaml_write_bool(fp, in, "grad_accumulation_fusion", t->grad_accumulation_fusion);
    if (t->check_for_nan_in_grad >= 0)
        nd_yaml_write_bool(fp, in, "check_for_nan_in_grad", t->check_for_nan_in_grad > 0);
    nd_yaml_write_bool(fp, in, "average_in_collective", t->average_in_collective);
    nd_yaml_write_bool(fp, in, "fp8_weight_cache", t->fp8_weight_cache);
    nd_yaml_write_bool(fp, in, "fp8", t->fp8);
    /* what prices the framework's own costs: without it best.yaml would price another step */
    static const char *recipes[] = {"delayed", "current", "blockwise"},
                      *cp_forms[] = {"ring", "a2a", "allgather", "hybrid"};
    nd_yaml_write_text(fp, in, "fp8_recipe", recipes[t->fp8_recipe]);
    nd_yaml_write_text(fp, in, "framework", nd_framework_name(t->framework));
    nd_yaml_write_bool(fp, in, "tf32", t->tf32);
    nd_yaml_write_text(fp, in, "cp_comm", cp_forms[t->cp_comm]);
    if (t->cp_comm == ND_CP_HYBRID) nd_yaml_write_int(fp, in, "cp_ulysses_degree", t->cp_ulysses_degree);
    nd_yaml_write_bool(fp, in, "cuda_graphs", t->cuda_graphs);
    nd_yaml_write_bool(fp, in, "moe_grouped_gemm", t->moe_grouped_gemm);
    nd_yaml_write_bool(fp, in, "fused_cross_entropy", t->fused_cross_entropy);
    if (t->vocab_divisible_by > 0) nd_yaml_write_int(fp, in, "vocab_divisible_by", t->vocab_divisible_by);
    if (t->expandable_segments >= 0)
        nd_yaml_write_bool(fp, in, "expandable_segments", t->expandable_segments > 0);
    if (t->record_streams >= 0) nd_yaml_write_bool(fp, in, "record_streams", t->record_streams > 0);
    if (t->optimizer_impl >= 0)
        nd_yaml_write_text(fp, in, "optimizer_impl",
                           nd_optimizer_impl_name((nd_optimizer_impl)t->optimizer_impl));
    if (t->reshard_after_forward >= 0)
        nd_yaml_write_bool(fp, in, "reshard_after_forward", t->reshard_after_forward > 0);
    nd_yaml_write_bool(fp, in, "fp32_grad_copy", t->fp32_grad_copy);
    nd_yaml_write_bool(fp, in, "compile", t->compile);
    if (t->selective_every > 0) nd_yaml_write_int(fp, in, "selective_every", t->selective_every);
}

static void write_strategy(FILE *fp, const nd_strategy *s)
{
    const char *in = "  ";
    fputs("strategy:\n", fp);
    for (int i = 0; i < ND_DIMS; i++) {
        nd_dim d = nd_dim_strategy_order[i];
        nd_yaml_write_int(fp, in, nd_dim_name(d),
                          nd_strategy_dim_resolved(s, d)); /* ranked: ETP already resolved */
    }
    if (s->first_stage_layers) nd_yaml_write_int(fp, in, nd_strategy_keys.first, s->first_stage_layers);
    if (s->last_stage_layers) nd_yaml_write_int(fp, in, nd_strategy_keys.last, s->last_stage_layers);
    nd_yaml_write_text(fp, in, nd_strategy_keys.recompute, nd_recompute_name(s->recompute));
    nd_yaml_write_text(fp, in, nd_strategy_keys.schedule, nd_schedule_name(s->schedule));
}

typedef struct layer_map {
    FILE *fp; /* NULL: only count */
    nd_recompute main;
    int64_t differ;
} layer_map;

static void map_layer(void *arg, int64_t layer, nd_recompute mode)
{
    layer_map *lm = arg;
    if (mode == lm->main) return;
    if (lm->fp)
        fprintf(lm->fp, "%s      \"%lld\": %s\n", lm->differ ? "" : "    layers:\n", (long long)layer,
                nd_recompute_name(mode));
    lm->differ++;
}

/* Layers listed one per line at most: ~30 bytes each keeps best.yaml far below the 16 MiB
 * nd-estimate reads (docs/limits.md). */
#define MAX_LISTED_LAYERS 65536

/* The layers whose mode differs from the main one, as the trainer's activation_checkpoint
 * .layers map, in the plan's layer order (nd_plan_layer_mode); MTP layers follow the body.
 * Past MAX_LISTED_LAYERS the map is left out (the plan above says it by counts). */
static void write_layer_modes(FILE *fp, const nd_context *ctx, const nd_strategy *s,
                              const nd_recompute_plan *plan, nd_recompute main)
{
    layer_map count = {NULL, main, 0};
    nd_plan_each_layer(ctx, s, plan, map_layer, &count);
    if (count.differ > MAX_LISTED_LAYERS) {
        fprintf(fp,
                "    # %lld layers differ from mode %s: too many to list here; recompute_plan "
                "gives their counts per stage\n",
                (long long)count.differ, nd_recompute_name(main));
        return;
    }
    layer_map lm = {fp, main, 0};
    nd_plan_each_layer(ctx, s, plan, map_layer, &lm);
    if (!lm.differ) fputs("    layers: {}\n", fp);
}

/* The plan's offloaded layers as the trainer's list of body-layer indices (quoted, as the
 * layers map), in the plan's layer order: the first offloaded[stage][kind] layers of each
 * kind on each stage (nd_plan_layer_mode's order). */
static void write_offloaded(FILE *fp, const nd_context *ctx, const nd_strategy *s,
                            const nd_recompute_plan *plan)
{
    int64_t total = 0;
    for (int64_t i = 0; plan->offloaded && i < plan->stages; i++)
        for (int k = 0; k < ND_LAYER_KINDS; k++) total += plan->offloaded[i][k];
    if (!total) return;
    fprintf(fp,
            "    # %lld layers keep their activations in host memory between forward and backward (-ao),\n"
            "    # as nd priced them; without offload the plan needs more memory than the budget\n",
            (long long)total);
    if (total > MAX_LISTED_LAYERS) {
        fprintf(fp, "    offloaded_layers: %lld  # too many to list: recompute_plan counts them per stage\n",
                (long long)total);
        return;
    }
    fputs("    offloaded_layers: [", fp);
    const char *sep = "";
    for (int64_t i = 0; i < plan->stages; i++)
        for (int k = 0; k < ND_LAYER_KINDS; k++)
            for (int64_t pos = 0; pos < plan->offloaded[i][k]; pos++) {
                int64_t layer = nd_plan_layer_index(ctx, s, i, (nd_layer_kind)k, pos);
                if (layer < 0) continue;
                fprintf(fp, "%s\"%lld\"", sep, (long long)layer);
                sep = ", ";
            }
    fputs("]\n", fp);
}

static void write_hyperparallel(FILE *fp, const nd_context *ctx, const nd_ranked *best,
                                const nd_recompute_plan *plan)
{
    const nd_strategy *s = &best->s;
    fputs("hyperparallel:\n  accelerator:\n", fp);
    nd_yaml_write_int(fp, "    ", "tp_size", s->tp);
    nd_yaml_write_int(fp, "    ", "pp_size", s->pp);
    nd_yaml_write_int(fp, "    ", "cp_size", s->cp);
    nd_yaml_write_int(fp, "    ", "ep_size", s->ep);
    nd_yaml_write_int(fp, "    ", "dp_replicate", s->dp * s->cp / s->op);
    fputs("  fsdp_config:\n", fp);
    nd_yaml_write_int(fp, "    ", "dp_shard_size", s->op);
    fputs("  training:\n", fp);
    nd_yaml_write_int(fp, "    ", "global_batch_size", s->dp * s->mb * s->mbs);
    nd_yaml_write_int(fp, "    ", "micro_batch_size", s->mbs);
    nd_yaml_write_int(fp, "    ", "micro_batch_num", s->mb);
    nd_yaml_write_int(fp, "  ", "pp_interleave_num", s->vpp);
    fputs("  activation_checkpoint:\n", fp);
    nd_yaml_write_text(fp, "    ", "mode", nd_recompute_name(s->recompute));
    if (plan) write_layer_modes(fp, ctx, s, plan, s->recompute);
    if (plan) write_offloaded(fp, ctx, s, plan);
}

static void write_plan(FILE *fp, const nd_recompute_plan *plan)
{
    fputs("recompute_plan:\n", fp);
    nd_yaml_write_double(fp, "  ", "copy_cost_ms_per_gib", plan->copy_cost_ms_per_gib);
    fputs("  stages:  # layers [off, selective, full] per kind; offloaded [dense, moe] run off\n", fp);
    for (int64_t i = 0; i < plan->stages; i++) {
        int64_t(*n)[ND_RECOMPUTE_MODES] = plan->layers[i];
        fprintf(fp, "    - {%s: [%lld, %lld, %lld], %s: [%lld, %lld, %lld], offloaded: [%lld, %lld]}\n",
                nd_layer_kind_name(ND_LAYER_DENSE), (long long)n[0][0], (long long)n[0][1],
                (long long)n[0][2], nd_layer_kind_name(ND_LAYER_MOE), (long long)n[1][0], (long long)n[1][1],
                (long long)n[1][2], (long long)(plan->offloaded ? plan->offloaded[i][0] : 0),
                (long long)(plan->offloaded ? plan->offloaded[i][1] : 0));
    }
}

static void write_cluster(FILE *fp, const nd_search_config *cfg, const nd_run *run)
{
    fputs("cluster:\n", fp);
    nd_yaml_write_text(fp, "  ", "device", cfg->ctx->device->name);
    if (run->device_file[0]) { /* absolute: best.yaml is read from another directory */
        char *path = nd_path_absolute(run->device_file);
        nd_yaml_write_text(fp, "  ", "device_file", path ? path : run->device_file);
        free(path);
    }
    nd_yaml_write_int(fp, "  ", "devices", cfg->ctx->devices);
    char buf[ND_DOUBLE_TEXT_MAX + 4];
    snprintf(buf, sizeof buf, "%sMB", nd_format_double(cfg->ctx->budget_mib, (char[ND_DOUBLE_TEXT_MAX]){0}));
    fprintf(fp, "  memory_budget: %s\n", buf);
}

/* The answer in comments: #1's step and interval, its headroom, and what it assumes. */
static void write_header(FILE *fp, const nd_search_config *cfg, const nd_search_result *res,
                         const nd_search_answer *ans, const nd_search_assumptions *assumed)
{
    const nd_ranked *best = &res->items[0];
    fputs("# nd-search's best strategy for ", fp);
    comment_text(fp, cfg->ctx->model->name);
    fprintf(fp, " on %lld x ", (long long)cfg->ctx->devices);
    comment_text(fp, cfg->ctx->device->name);
    fprintf(fp, ", global batch %lld: %.2f ms per step", (long long)cfg->global_batch, best->step_ms);
    if (ans && ans->count)
        fprintf(fp, " (%s %.0f to %.0f ms)",
                ans->interval == ND_INTERVAL_FITTED ? "95 % interval" : "uncalibrated,",
                ans->choices[0].lo_ms, ans->choices[0].hi_ms);
    fprintf(fp,
            ",\n# peak %.0f MiB, %.0f MiB of headroom under the %.0f MiB budget. `nd-estimate -y best.yaml`\n"
            "# prices it again; the hyperparallel: section holds HyperParallel's train.yaml keys for the\n"
            "# trainer, with the same recompute and offload plan.\n",
            best->peak_mib, cfg->ctx->budget_mib - best->peak_mib, cfg->ctx->budget_mib);
    if (ans && ans->count > 1) {
        size_t tied = 0;
        for (size_t j = 1; j < ans->count; j++) tied += ans->choices[j].tied;
        fprintf(fp, "# %zu of the next %zu distinct choices cannot be told apart from it (ranking.csv).\n",
                tied, ans->count - 1);
    }
    if (!assumed || !assumed->count) return;
    fputs("#\n# What this answer assumes:\n", fp);
    for (size_t i = 0; i < assumed->count; i++) {
        fprintf(fp, "#   %s: ", assumed->items[i].what);
        comment_text(fp, assumed->items[i].text);
        fputc('\n', fp);
    }
}

int nd_search_write_best(const char *path, const nd_search_config *cfg, const nd_run *run,
                         const nd_search_result *res, const nd_search_answer *ans,
                         const nd_search_assumptions *assumed, nd_error *err)
{
    if (!res->count) return nd_error_set(err, ND_EINPUT, "no strategy to write");
    const nd_ranked *best = &res->items[0];
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    FILE *fp = out.fp;
    write_header(fp, cfg, res, ans, assumed);
    fputs("model:\n", fp);
    nd_model_write_yaml(fp, cfg->ctx->model, "  ");
    write_train(fp, cfg->ctx->train, cfg->ctx, &best->s);
    nd_yaml_write_int(fp, "  ", "global_batch", cfg->global_batch);
    write_cluster(fp, cfg, run);
    write_strategy(fp, &best->s);
    int64_t(*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = NULL;
    int64_t(*offloaded)[ND_LAYER_KINDS] = NULL;
    nd_recompute_plan plan = {0};
    bool has_plan = false;
    if (best->per_layer) {
        layers = calloc((size_t)best->s.pp, sizeof *layers);
        offloaded = calloc((size_t)best->s.pp, sizeof *offloaded);
        plan.layers = layers;
        plan.offloaded = offloaded;
        has_plan = layers && offloaded && !nd_search_plan(cfg, best, &plan);
        if (has_plan) write_plan(fp, &plan);
    }
    write_hyperparallel(fp, cfg->ctx, best, has_plan ? &plan : NULL);
    free(layers);
    free(offloaded);
    return nd_outfile_commit(&out, err);
}

int nd_search_write_resolved(const char *dir, const nd_search_config *cfg, const nd_run *run,
                             const nd_ranked *best, char *written, size_t size, nd_error *err)
{
    nd_config_choice c = {best->s, cfg->global_batch, NULL, 0};
    int64_t(*layers)[ND_LAYER_KINDS][ND_RECOMPUTE_MODES] = NULL;
    if (best->per_layer) {
        layers = calloc((size_t)best->s.pp, sizeof *layers);
        nd_recompute_plan plan = {best->s.pp, layers, NULL, 0};
        if (layers && !nd_search_plan(cfg, best, &plan)) {
            c.plan = (const int64_t(*)[2][3])layers;
            c.plan_stages = best->s.pp;
        }
    }
    int rc = nd_config_write(run, &c, dir, written, size, err);
    free(layers);
    return rc;
}
