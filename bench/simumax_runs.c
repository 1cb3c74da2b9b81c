/* simumax_runs.c — SimuMax's B200 runs as Megatron arguments (simumax_runs.h). */
#include "simumax_runs.h"

#include <stdio.h>
#include <string.h>

#define NODE_GPUS 8 /* every run is one DGX B200 node */

int simumax_runs_read(const char *dir, simumax_run *rows, int cap)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, SIMUMAX_RUNS_TABLE);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    int n = 0;
    while (n < cap && fgets(line, sizeof line, fp)) {
        simumax_run *r = &rows[n];
        memset(r, 0, sizeof *r);
        if (line[0] == '#' ||
            sscanf(line, "%63[^,],%15[^,],%ld,%ld,%ld,%ld,%ld,%ld,%ld,%lf,%lf,%lf,%lf", r->name, r->model,
                   &r->layers, &r->tp, &r->pp, &r->ep, &r->cp, &r->seq, &r->mbc, &r->real_ms, &r->simumax_ms,
                   &r->real_alloc_gib, &r->simumax_alloc_gib) != 13 ||
            r->tp * r->pp * r->cp <= 0)
            continue; /* comments and the header */
        n++;
    }
    fclose(fp);
    return n;
}

long simumax_runs_global_batch(const simumax_run *r)
{
    return r->mbc * (NODE_GPUS / (r->tp * r->pp * r->cp));
}

/* The sizes SimuMax's launchers (simu_tools/megatron_scripts/scripts/run_pretrain_*.sh) give
 * each model; experts 0 for the dense Llamas. */
static const struct simumax_model {
    const char *name;
    long hidden, ffn, heads, groups, vocab, experts, moe_ffn, shared_ffn, topk;
} models[] = {
    {"llama3_70b", 8192, 28672, 64, 8, 128256, 0, 0, 0, 0},
    {"llama3_405b", 16384, 53248, 128, 16, 128256, 0, 0, 0, 0},
    {"deepseekv2", 5120, 12288, 128, 0, 102400, 160, 1536, 3072, 6},
    {"deepseekv3", 7168, 18432, 128, 0, 129280, 256, 2048, 2048, 8},
};

static void write_moe(FILE *fp, const simumax_run *r, const struct simumax_model *m)
{
    fprintf(
        fp,
        "    --multi-latent-attention --qk-layernorm --q-lora-rank 1536 --kv-lora-rank 512 \\\n"
        "    --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 --rotary-scaling-factor 1 \\\n"
        "    --num-experts %ld --expert-model-parallel-size %ld --moe-token-dispatcher-type alltoall \\\n"
        "    --moe-router-score-function softmax --moe-router-num-groups %ld --moe-router-group-topk 3 \\\n"
        "    --moe-router-load-balancing-type seq_aux_loss --moe-router-topk %ld \\\n"
        "    --moe-router-pre-softmax --moe-router-topk-scaling-factor 16 --moe-aux-loss-coeff 3e-3 \\\n"
        "    --moe-expert-capacity-factor 1 \\\n"
        "    --moe-ffn-hidden-size %ld --moe-shared-expert-intermediate-size %ld \\\n"
        "    --moe-layer-freq \"([0]*1+[1]*%ld)*1\" --moe-grouped-gemm --moe-permute-fusion \\\n"
        "    --moe-pad-expert-input-to-capacity \\\n",
        m->experts, r->ep, r->ep, m->topk, m->moe_ffn, m->shared_ffn, r->layers - 1);
}

int simumax_runs_write_args(const char *path, const simumax_run *r)
{
    const struct simumax_model *m = NULL;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (!strcmp(models[i].name, r->model)) m = &models[i];
    FILE *fp = m ? fopen(path, "w") : NULL;
    if (!fp) return 1;
    fprintf(
        fp,
        "torchrun --nproc_per_node %d --nnodes 1 pretrain_gpt.py \\\n"
        "    --num-layers %ld --hidden-size %ld --ffn-hidden-size %ld --num-attention-heads %ld \\\n"
        "    --seq-length %ld --max-position-embeddings %ld --attention-dropout 0.0 --hidden-dropout 0.0 \\\n"
        "    --disable-bias-linear --position-embedding-type rope --no-position-embedding --swiglu \\\n"
        "    --normalization RMSNorm --untie-embeddings-and-output-weights --vocab-size %ld \\\n"
        "    --cross-entropy-loss-fusion --cross-entropy-fusion-impl te \\\n"
        "    --micro-batch-size 1 --global-batch-size %ld --use-mcore-models --no-bias-dropout-fusion \\\n"
        "    --use-distributed-optimizer --use-flash-attn --sequence-parallel \\\n"
        "    --recompute-granularity full --recompute-method block --recompute-num-layers 0 \\\n"
        "    --tensor-model-parallel-size %ld --pipeline-model-parallel-size %ld \\\n"
        "    --bf16 --attention-softmax-in-fp32 --no-masked-softmax-fusion \\\n"
        "    --accumulate-allreduce-grads-in-fp32 --transformer-impl transformer_engine \\\n"
        "    --disable-tp-comm-overlap-ag --disable-tp-comm-overlap-rs \\\n"
        "    --no-overlap-p2p-communication \\\n",
        NODE_GPUS, r->layers, m->hidden, m->ffn, m->heads, r->seq, r->seq, m->vocab,
        simumax_runs_global_batch(r), r->tp, r->pp);
    if (m->groups) fprintf(fp, "    --group-query-attention --num-query-groups %ld \\\n", m->groups);
    if (r->cp > 1) fprintf(fp, "    --context-parallel-size %ld --cp-comm-type a2a \\\n", r->cp);
    if (m->experts) write_moe(fp, r, m);
    fprintf(fp, "    --tokenizer-type NullTokenizer --mock-data\n");
    return fclose(fp) ? 1 : 0;
}
