/*
 * collective.h — α–β times of the collectives a training step runs, in ms.
 *
 * A group is `size` ranks spaced `stride` apart in the global rank order; with
 * the device's node size that says how many members share a node (k) and how
 * many nodes the group spans (n / k). A group inside one node runs on the
 * intra-node links; a ring spread over nodes is paced by the NIC bandwidth its
 * k members of a node own (Thakur et al. 2005 for the ring costs; NCCL runs one
 * ring per NIC). docs/cost-model.md §Communication.
 */
#ifndef ND_COLLECTIVE_H
#define ND_COLLECTIVE_H

#include <stdint.h>
#include "nd/costmodel/device.h"

typedef enum {
    ND_COLL_ALL_REDUCE,
    ND_COLL_REDUCE_SCATTER,
    ND_COLL_ALL_GATHER,
    ND_COLL_ALL_TO_ALL,
    ND_COLL_P2P
} nd_collective;

typedef struct nd_group {
    int64_t size;   /* ranks in the group */
    int64_t stride; /* distance between consecutive members in the global rank order */
} nd_group;

/* True when every member of g sits in one node. */
int nd_group_is_intra_node(const nd_device *d, nd_group g);

/* Time of collective c on group g, ms. bytes is, per rank: the buffer reduced (all-reduce),
 * the whole unsharded tensor (reduce-scatter, all-gather), everything a rank sends including
 * its own share (all-to-all), or the message (point-to-point to the next member). A group of
 * one rank costs 0. */
double nd_collective_ms(const nd_device *d, nd_collective c, nd_group g, double bytes);

/* One direction of an expert dispatch (or combine) over the EP group g: `tokens` tokens of
 * `token_bytes` each leave a rank, each for `copies` experts. remote_nodes is how many other
 * nodes one token reaches: a plain all-to-all (dedup false) sends every copy, those for other
 * nodes over the NIC; DeepEP-style kernels (dedup true) send a token once to each node
 * (remote_nodes over the NIC) and fan it out over the fast links there. ms. */
double nd_dispatch_ms(const nd_device *d, nd_group g, double tokens, double copies, double remote_nodes,
                      double token_bytes, bool dedup);

/* Nodes the ranks of g span (1 inside a node). */
double nd_group_nodes(const nd_device *d, nd_group g);

#endif
