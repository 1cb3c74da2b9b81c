/*
 * strategy.h — one parallel strategy: degrees, micro-batching, sharding,
 * recompute and pipeline schedule.
 *
 * Rank order (what decides which link a group uses): TP innermost, then CP,
 * then DP, then PP outermost. Experts fold over the same TP·CP·DP ranks as
 * ETP innermost, then EP, then expert-DP (Megatron-core's "MoE parallel
 * folding"). EP and OP therefore do not multiply the device count:
 * devices = DP·TP·PP·CP.
 */
#ifndef ND_STRATEGY_H
#define ND_STRATEGY_H

#include <stdbool.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/base/formats.h"
#include "nd/costmodel/model.h"

typedef enum {
    ND_RECOMPUTE_OFF = 0,
    ND_RECOMPUTE_SELECTIVE = 1,
    ND_RECOMPUTE_FULL = 2,
    ND_RECOMPUTE_MODES = 3
} nd_recompute;

typedef enum {
    ND_SCHEDULE_1F1B = 0,        /* PipeDream-flush / Megatron 1F1B */
    ND_SCHEDULE_INTERLEAVED = 1, /* Megatron interleaved 1F1B, VPP chunks per stage */
    ND_SCHEDULE_ZB_H1 = 2,       /* zero-bubble ZB-H1 (Qi et al. 2023) */
    ND_SCHEDULE_GPIPE = 3,       /* all forwards, then all backwards */
    ND_SCHEDULE_ZB_H2 = 4,       /* zero-bubble ZB-H2 (Qi et al. 2023): more in flight, less bubble */
    ND_SCHEDULE_ZB_V = 5,        /* zero-bubble ZB-V (Qi et al. 2024): two chunks a rank in a V */
    ND_SCHEDULE_DUALPIPE = 6,    /* DeepSeek's DualPipe: both directions, two stages a rank */
    ND_SCHEDULE_DUALPIPE_V = 7,  /* DualPipeV: DualPipe cut in half, two chunks a rank in a V */
    ND_SCHEDULES = 8
} nd_schedule;

struct nd_pipeline_layout; /* split.h: an explicit layout of the layers over the virtual stages */

typedef struct nd_strategy {
    int64_t dp;  /* data-parallel replicas */
    int64_t tp;  /* tensor (model) parallel, ND's MP */
    int64_t pp;  /* pipeline stages */
    int64_t cp;  /* context parallel (ring attention over the sequence) */
    int64_t ep;  /* expert parallel */
    int64_t etp; /* expert tensor parallel; 0 = same as tp */
    int64_t op;  /* optimizer/FSDP shard degree over the DP·CP ranks */
    int zero;    /* what OP shards: 0 nothing, 1 optimizer states (+ master weights),
                    2 also gradients, 3 also parameters (FSDP) */
    int64_t vpp; /* virtual pipeline chunks per stage */
    int64_t mb;  /* micro-batches per step, ND's MB */
    int64_t mbs; /* sequences per micro-batch */
    bool sp;     /* sequence parallel (Megatron SP: norms and dropout sharded over TP) */
    nd_recompute recompute;
    nd_schedule schedule;
    int64_t first_stage_layers; /* 0 = even split; else layers on the first stage (all its chunks) */
    int64_t last_stage_layers;  /* 0 = even split; else layers on the last stage (all its chunks) */
    bool embedding_in_split;    /* the embedding counts as a layer of the split (Megatron's
                                   --account-for-embedding-in-pipeline-split) */
    bool loss_in_split;         /* the loss likewise (--account-for-loss-in-pipeline-split) */
    const struct nd_pipeline_layout *layout; /* an explicit layout (the run's pipeline_layout),
                                                owned by the run; NULL: the rules above (split.h) */
} nd_strategy;

/* The field of s that dimension d names (formats.h's nd_dim table): the value as stored,
 * SP as 0 or 1, ETP 0 when it follows MP, ZERO -1 when it follows OP. */
int64_t nd_strategy_dim(const nd_strategy *s, nd_dim d);

/* The value a written strategy states for d: as nd_strategy_dim, but ETP that follows MP
 * as MP's degree and ZERO that follows OP as 0 (before nd_strategy_check resolves them). */
int64_t nd_strategy_dim_resolved(const nd_strategy *s, nd_dim d);

/* Sets the field of s that dimension d names (SP: v != 0). */
void nd_strategy_set_dim(nd_strategy *s, nd_dim d, int64_t v);

/* The neutral strategy: every degree 1, no sharding, no recompute, 1F1B. */
void nd_strategy_init(nd_strategy *s);

/* Reads "DP=8 MP=4 PP=2 MB=16 recompute=selective" (spaces or commas between items;
 * keys case-insensitive; TP is a synonym of MP). Keys not in the text keep their value
 * in s. Unknown keys and bad values: ND_EINPUT naming the item. */
int nd_strategy_parse(nd_strategy *s, const char *text, nd_error *err);

/* The most devices a strategy may span (2^40): far above any cluster, far below where the
 * product of four degrees of up to 2^20 would overflow. */
#define ND_STRATEGY_DEVICES_MAX 1099511627776.0

/* DP*MP*PP*CP, or -1 when it is more than ND_STRATEGY_DEVICES_MAX (computed without
 * overflow). */
int64_t nd_strategy_devices(const nd_strategy *s);

/* The expert-data-parallel degree: the ranks of one expert shard's replicas,
 * DP*CP*TP / (EP*ETP) (the expert grid folds TP and CP into EP and ETP). */
int64_t nd_strategy_expert_dp(const nd_strategy *s);

/* The degree the expert parameters' optimizer states are sharded over: the part of
 * the optimizer sharding `op` that divides the expert-data-parallel group. */
int64_t nd_strategy_expert_op(const nd_strategy *s);

/* Sets one key ("DP", "recompute", ...) from text. ND_EINPUT if unknown or bad. */
int nd_strategy_set(nd_strategy *s, const char *key, const char *value, nd_error *err);

/* nd_strategy_set for one item of a list that states each field once: *seen (start at 0)
 * remembers the fields set, and a second spelling of one (DP and dp, MP and TP) is refused
 * with ND_EINPUT instead of silently winning. */
int nd_strategy_set_once(nd_strategy *s, const char *key, const char *value, uint64_t *seen, nd_error *err);

struct nd_train;
/* Under the all-to-all forms of CP (cp_comm a2a, hybrid) each of MP times the all-to-all group's
 * ranks computes whole heads (DeepSpeed-Ulysses' and MindSpeed's constraint), and on Megatron
 * whole K/V heads too (Transformer Engine's assert; ND's kv_heads % (TP*CP)): ND_EINPUT with the
 * reason where the model's do not divide over them. err may be NULL (the search's test). */
int nd_strategy_check_cp_heads(int64_t tp, int64_t cp, const nd_model *m, const struct nd_train *t,
                               nd_error *err);

/* Checks s against the model, the device count and the global batch (sequences),
 * and resolves what follows from the rest (etp 0 -> tp, zero 1 when OP > 1 and
 * zero unset, interleaved when VPP > 1). The message says which rule fails and why,
 * e.g. "MP=3: the 32 attention heads do not divide over 3 tensor-parallel ranks". */
int nd_strategy_check(nd_strategy *s, const nd_model *m, int64_t devices, int64_t global_batch,
                      int64_t seq_len, nd_error *err);

/* An uneven pipeline for a layer count PP x VPP does not divide (DeepSeek-V3's 61 layers):
 * nd_split_uneven (split.h) for VPP 1. */
bool nd_strategy_uneven_split(int64_t layers, int64_t pp, int64_t *first, int64_t *last);

/* Layers of pipeline stage `stage` (0-based), all its chunks, and the first layer of its
 * first chunk (split.h says which layers each chunk holds). */
void nd_strategy_stage_layers(const nd_strategy *s, int64_t layers, int64_t stage, int64_t *first,
                              int64_t *count);

/* "DP=8 MP=4 PP=2 ..." with every key, in a buffer of size bytes. */
void nd_strategy_format(const nd_strategy *s, char *buf, size_t size);

/* ND's label: "DP 8 MP 4 PP 2" keeping only degrees other than 1 (DP always). */
void nd_strategy_label(const nd_strategy *s, char *buf, size_t size);

const char *nd_recompute_name(nd_recompute r);
int nd_recompute_parse(const char *text, nd_recompute *out);
const char *nd_schedule_name(nd_schedule s);
int nd_schedule_parse(const char *text, nd_schedule *out);

#endif
