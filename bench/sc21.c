/*
 * sc21.c — Megatron-LM's weak-scaling table as nd run files (sc21.h).
 */
#include "sc21.h"

#include <stdio.h>
#include <string.h>

#include "nd/costmodel/strategy.h"
#include "nd/session/cli.h"

int sc21_read(const char *dir, const char *table, sc21_run *rows, int cap)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/samples/published/%s", dir, table);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    int n = 0;
    while (n < cap && fgets(line, sizeof line, fp)) {
        sc21_run *r = &rows[n];
        memset(r, 0, sizeof *r);
        if (sscanf(line, "%lf,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%7[^,],%lf", &r->params_b, &r->heads,
                   &r->hidden, &r->layers, &r->tp, &r->pp, &r->devices, &r->gbs, &r->mbs,
                   &r->layers_per_chunk, r->ddp, &r->tflops_per_gpu) != 12 ||
            r->tp * r->pp <= 0)
            continue; /* the header */
        r->dp = r->devices / (r->tp * r->pp);
        r->vpp = r->layers_per_chunk ? r->layers / r->pp / r->layers_per_chunk : 1;
        n++;
    }
    fclose(fp);
    return n;
}

double sc21_measured_ms(const sc21_run *r)
{
    double h = (double)r->hidden, l = (double)r->layers, s = 2048, vocab = 51200;
    double flops = 96 * (double)r->gbs * s * l * h * h * (1 + s / (6 * h) + vocab / (16 * l * h));
    return 1e3 * flops / ((double)r->devices * r->tflops_per_gpu * 1e12);
}

bool sc21_is_zero3(const sc21_run *r)
{
    return !strcmp(r->ddp, "zero3");
}

/* The run file of one row: GPT with vocabulary 51200 at sequence 2048, fp16, every layer
 * recomputed, the stack of Megatron-LM of 2021 (samples/published/README.md); torch's DDP
 * overlaps the all-reduce with the backward pass, Megatron's local DDP runs it after; the ZeRO-3
 * rows run DeepSpeed's. */
static int write_run(const char *path, const sc21_run *r)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return 1;
    if (sc21_is_zero3(r)) {
        fprintf(fp,
                "model:\n  model_type: gpt\n  name: GPT-%.1fB\n  hidden_size: %ld\n  num_hidden_layers: %ld\n"
                "  num_attention_heads: %ld\n  intermediate_size: %ld\n  vocab_size: 51200\n"
                "  position_embeddings: 2048\ntrain:\n  seq_len: 2048\n  precision: fp16\n"
                "  recompute: full\n  flash_attention: false\n  dropout: 0.1\n  framework: deepspeed\n",
                r->params_b, r->hidden, r->layers, r->heads, 4 * r->hidden);
        return fclose(fp) ? 1 : 0;
    }
    fprintf(fp,
            "model:\n  model_type: gpt\n  name: GPT-%.1fB\n  hidden_size: %ld\n  num_hidden_layers: %ld\n"
            "  num_attention_heads: %ld\n  intermediate_size: %ld\n  vocab_size: 51200\n"
            "  position_embeddings: 2048\ntrain:\n  seq_len: 2048\n  precision: fp16\n  recompute: full\n"
            "  flash_attention: false\n  dropout: 0.1\n  overlap_grad_reduce: %s\n"
            "  grad_accumulation_fusion: false\n  fp32_grad_copy: true\n  framework: megatron-legacy\n",
            r->params_b, r->hidden, r->layers, r->heads, 4 * r->hidden,
            strcmp(r->ddp, "torch") ? "false" : "true");
    return fclose(fp) ? 1 : 0;
}

int sc21_price(const sc21_run *r, const char *tmp, const nd_device *device, nd_estimate *est)
{
    char run_path[4096], devices[32], gbs[32], strategy[160];
    snprintf(run_path, sizeof run_path, "%s/sc21.yaml", tmp);
    snprintf(devices, sizeof devices, "%ld", r->devices);
    snprintf(gbs, sizeof gbs, "%ld", r->gbs);
    if (sc21_is_zero3(r))
        snprintf(strategy, sizeof strategy, "DP=%ld OP=%ld ZERO=3 MB=%ld MBS=%ld", r->dp, r->dp,
                 r->gbs / (r->dp * r->mbs), r->mbs);
    else
        snprintf(strategy, sizeof strategy, "DP=%ld MP=%ld PP=%ld VPP=%ld MB=%ld MBS=%ld schedule=%s", r->dp,
                 r->tp, r->pp, r->vpp, r->gbs / (r->dp * r->mbs), r->mbs,
                 r->vpp > 1 ? "interleaved" : "1f1b");
    if (write_run(run_path, r)) {
        fprintf(stderr, "sc21: cannot write %s\n", run_path);
        return 1;
    }
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = run_path;
    common.device = "A100"; /* Selene: DGX A100 80 GB, 8 HDR NICs a node */
    common.devices = devices;
    common.gbs = gbs;
    nd_session s;
    nd_error err = {0};
    int rc = nd_session_open(&s, &common, false, stderr, &err);
    nd_strategy st = s.run.strategy;
    if (!rc) rc = nd_strategy_parse(&st, strategy, &err);
    if (!rc) rc = nd_strategy_check(&st, &s.run.model, s.run.devices, s.run.train.global_batch, 2048, &err);
    if (!rc) {
        nd_context ctx;
        nd_context_init(&ctx, &s.run.model, &s.run.train, device ? device : s.device, r->devices,
                        s.budget_mib, NULL);
        memset(est, 0, sizeof *est);
        rc = nd_estimate_strategy(&ctx, &st, NULL, NULL, est, &err);
    }
    if (rc) fprintf(stderr, "sc21: GPT-%.1fB: %s\n", r->params_b, err.message);
    nd_session_close(&s);
    remove(run_path);
    return rc ? 1 : 0;
}
