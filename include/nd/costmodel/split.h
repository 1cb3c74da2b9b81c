/*
 * split.h — which decoder layers each pipeline rank and virtual chunk holds.
 *
 * Megatron's order: virtual stage v = chunk x PP + rank, and decoder layers are numbered in
 * virtual-stage order (rank 0 chunk 0 first, then rank 1 chunk 0, ..., then rank 0 chunk 1).
 * A strategy's split is one of (docs/cost-model.md §Stage layout):
 *   - even: L / (PP x VPP) layers a chunk;
 *   - FIRST/LAST (Megatron's --decoder-first/last-pipeline-num-layers): the first and last rank
 *     hold the given layers, the middle ranks the rest evenly, each rank's layers split evenly
 *     over its VPP chunks;
 *   - the embedding and/or the loss counted as a layer of the split (Megatron's
 *     --account-for-embedding/loss-in-pipeline-split): (L + 1 + 1) / (PP x VPP) units a chunk,
 *     rank 0's chunk 0 one decoder layer fewer, the last rank's last chunk one fewer;
 *   - an explicit layout (Megatron's --pipeline-model-parallel-layout, MindSpeed's
 *     --num-layer-list): the layers of every virtual stage as stated.
 * MTP layers sit on the last rank, after its decoder layers, in every split.
 */
#ifndef ND_COSTMODEL_SPLIT_H
#define ND_COSTMODEL_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nd/base/error.h"
#include "nd/costmodel/strategy.h"

/* Virtual stages (PP x VPP) a split may have, and chunks a rank may hold. */
#define ND_MAX_VIRTUAL_STAGES  4096
#define ND_MAX_CHUNKS_PER_RANK 64

/* An explicit layout: decoder layers per virtual stage, v = chunk x PP + rank. */
typedef struct nd_pipeline_layout {
    int64_t pp, vpp;                        /* the PP and VPP it was written for */
    int32_t decoder[ND_MAX_VIRTUAL_STAGES]; /* decoder layers of virtual stage v */
    int32_t offset[ND_MAX_VIRTUAL_STAGES];  /* the first decoder layer of v */
    int64_t mtp;                            /* MTP layers (all on the last rank's last chunk) */
} nd_pipeline_layout;

/* Decoder layers of virtual chunk `chunk` of rank `rank` (0-based): the first one's model index
 * and how many. The split must have passed nd_split_check. */
void nd_split_chunk(const nd_strategy *s, int64_t layers, int64_t rank, int64_t chunk, int64_t *first,
                    int64_t *count);

/* Decoder layers of rank `rank`, all its chunks. */
int64_t nd_split_rank_layers(const nd_strategy *s, int64_t layers, int64_t rank);

/* Whether s's split of `layers` decoder layers is one its framework can run: 0, or -1 with
 * the reason in why (a sentence naming the numbers). */
int nd_split_check(const nd_strategy *s, int64_t layers, char *why, size_t size);

/* A split for PP x VPP when the layers do not divide: the middle ranks an equal count (a
 * multiple of VPP), the remainder over the first and last rank (each a multiple of VPP, no
 * more than a middle rank, the first no smaller than the last), as Megatron's first/last
 * stage flags state it. False when there is none. */
bool nd_split_uneven(int64_t layers, int64_t pp, int64_t vpp, int64_t *first, int64_t *last);

/* Whether counting the embedding and the loss as layers splits `layers` evenly over PP x VPP
 * (Megatron-Bridge's account_for_embedding/loss_in_pipeline_split). */
bool nd_split_accounts(int64_t layers, int64_t pp, int64_t vpp);

/* Fills the prefix offsets of an explicit layout from its decoder counts; the sum of the
 * decoder layers. */
int64_t nd_pipeline_layout_finish(nd_pipeline_layout *l);

/* The split of s in Megatron's layout grammar ("Et|(tt|)*30mL": E embedding, t decoder
 * layer, m MTP, L loss, | between virtual stages, (...)*n repeats), with `mtp` MTP layers on
 * the last chunk. Written into buf (truncated to size). */
void nd_split_layout_text(const nd_strategy *s, int64_t layers, int64_t mtp, char *buf, size_t size);

#endif
