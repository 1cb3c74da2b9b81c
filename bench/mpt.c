/* mpt.c — llm-foundry's MPT rows as nd runs (mpt.h). */
#include "mpt.h"

#include <stdio.h>
#include <string.h>

#include "nd/base/array.h"
#include "nd/session/cli.h"

/* llm-foundry's MPT sizes (samples/published/README.md): hidden, heads, layers. */
static const struct mpt_size {
    const char *name;
    int hidden, heads, layers;
} mpt_sizes[] = {{"MPT-125m", 768, 12, 12}, {"MPT-350m", 1024, 16, 24}, {"MPT-760m", 1536, 12, 24},
                 {"MPT-1b", 2048, 16, 24},  {"MPT-3b", 2560, 20, 32},   {"MPT-7b", 4096, 32, 32},
                 {"MPT-13b", 5120, 40, 40}, {"MPT-30b", 7168, 64, 48},  {"MPT-70b", 8192, 64, 80}};

int mpt_parse(const char *line, mpt_run *r)
{
    return sscanf(line, "%15[^,],%ld,%ld,%15[^,],%ld,%ld,%7[^,],%*[^,],%*[^,],%lf", r->model, &r->seq,
                  &r->devices, r->device, &r->mbs, &r->accum, r->ac, &r->tokens_per_s) == 8
               ? 0
               : 1;
}

int mpt_write_run(const char *path, const mpt_run *r)
{
    const struct mpt_size *m = NULL;
    for (size_t i = 0; i < ND_ARRAY_LEN(mpt_sizes); i++)
        if (!strcmp(mpt_sizes[i].name, r->model)) m = &mpt_sizes[i];
    FILE *fp = m ? fopen(path, "w") : NULL;
    if (!fp) return 1;
    fprintf(fp,
            "model:\n  model_type: gpt\n  name: %s\n  hidden_size: %d\n  num_hidden_layers: %d\n"
            "  num_attention_heads: %d\n  intermediate_size: %d\n  vocab_size: 50368\n"
            "  position_embeddings: %ld\ntrain:\n  seq_len: %ld\n  precision: bf16\n"
            "  attention_kernel: triton\n  framework: fsdp\n  fused_cross_entropy: true\n",
            m->name, m->hidden, m->layers, m->heads, 4 * m->hidden, r->seq, r->seq);
    return fclose(fp) ? 1 : 0;
}

static void mpt_strategy(const mpt_run *r, char *buf, size_t size)
{
    snprintf(buf, size, "DP=%ld OP=%ld ZERO=3 MB=%ld MBS=%ld recompute=%s", r->devices, r->devices, r->accum,
             r->mbs, strcmp(r->ac, "true") ? "off" : "full");
}

void mpt_flags_set(const mpt_run *r, const char *run_path, mpt_flags *flags, nd_cli_common *common)
{
    snprintf(flags->devices, sizeof flags->devices, "%ld", r->devices);
    snprintf(flags->gbs, sizeof flags->gbs, "%ld", mpt_global_batch(r));
    mpt_strategy(r, flags->strategy, sizeof flags->strategy);
    nd_cli_common_init(common);
    common->run_path = run_path;
    common->device = r->device;
    common->devices = flags->devices;
    common->gbs = flags->gbs;
}

long mpt_global_batch(const mpt_run *r)
{
    return r->devices * r->mbs * r->accum;
}

double mpt_measured_ms(const mpt_run *r)
{
    return (double)(mpt_global_batch(r) * r->seq) / r->tokens_per_s * 1e3;
}
