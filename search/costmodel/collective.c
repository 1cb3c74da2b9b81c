/* collective.c — the time of a collective (all-reduce, all-gather, reduce-scatter,
 * all-to-all, send/receive) over a group laid out on the cluster's nodes: the ring and
 * hierarchical forms over the fast (intra-node) and slow (inter-node) links.
 * docs/cost-model.md §Communication. */
#include "nd/costmodel/collective.h"

#include <math.h>

#include "nd/costmodel/kernel_table.h"

static double bytes_per_ms(double gbps, double efficiency)
{
    return gbps * efficiency * 1e9 / 1e3;
}

/* The fast-fabric bandwidth k members of a node reach together, per device: all of it on a
 * switched fabric; on a mesh only the links to the k - 1 peers (HCCS: an 8-NPU group uses 7
 * links, a pair one). */
static double intra_gbps(const nd_device *d, double k)
{
    if (d->intra_link_gbps <= 0) return d->intra_gbps;
    return fmin(d->intra_gbps, fmax(k - 1, 1) * d->intra_link_gbps);
}

/* Members of g that share a node (k >= 1). */
static int64_t nd_group_members_per_node(const nd_device *d, nd_group g)
{
    int64_t node = d->devices_per_node;
    if (g.stride >= node) return 1;
    int64_t k = node / g.stride;
    return k < g.size ? k : g.size;
}

double nd_group_nodes(const nd_device *d, nd_group g)
{
    return g.size <= 1 ? 1.0 : (double)g.size / (double)nd_group_members_per_node(d, g);
}

/* The links a collective runs on: rates (bytes per ms), per-step latencies and the fixed
 * cost of one call (ms). The device's figures, or where its kernel tables measured the
 * operation on a tier, the measured ones (docs/devices.md §Kernel tables). */
typedef struct links {
    double intra, inter;
    double intra_step, inter_step;
    double base;
} links;

static double fixed_us(const nd_collective_rate *r, double n)
{
    for (int i = 0; i < r->sizes_count; i++)
        if (r->sizes[i] == (int)n) return r->fixed_by_size_us[i];
    return r->fixed_us;
}

/* The rate (bytes per ms) at group size n: measured there, else the table's own. */
static double rate_at(const nd_collective_rate *r, double n)
{
    for (int i = 0; i < r->sizes_count; i++)
        if (r->sizes[i] == (int)n && r->gbps_by_size[i] > 0)
            return bytes_per_ms(r->gbps_by_size[i], r->efficiency);
    return bytes_per_ms(r->gbps, r->efficiency);
}

static links links_for(const nd_device *d, nd_collective c, double n, double k, bool spans)
{
    links l = {bytes_per_ms(intra_gbps(d, c == ND_COLL_P2P ? 2 : k), d->intra_efficiency),
               bytes_per_ms(d->inter_gbps, d->inter_efficiency), d->intra_latency_us / 1e3,
               d->inter_latency_us / 1e3, (spans ? d->inter_base_us : d->intra_base_us) / 1e3};
    if (!d->tables) return l;
    const nd_collective_rate *a = &d->tables->collective[ND_TIER_INTRA][c];
    const nd_collective_rate *e = &d->tables->collective[ND_TIER_INTER][c];
    if (a->stated) {
        l.intra = rate_at(a, n);
        l.intra_step = a->step_us / 1e3;
        if (!spans) l.base = fixed_us(a, n) / 1e3;
    }
    if (e->stated) {
        l.inter = rate_at(e, n);
        l.inter_step = e->step_us / 1e3;
        if (spans) l.base = fixed_us(e, n) / 1e3;
    }
    return l;
}

double nd_dispatch_ms(const nd_device *d, nd_group g, double tokens, double copies, double remote_nodes,
                      double token_bytes, bool dedup)
{
    if (g.size <= 1 || tokens <= 0) return 0.0;
    double n = (double)g.size, k = (double)nd_group_members_per_node(d, g), nodes = n / k;
    bool spans = nodes > 1;
    links l = links_for(d, ND_COLL_ALL_TO_ALL, n, k, spans);
    double intra = l.intra, inter = l.inter;
    /* copies for experts on this node (their share of the group), and for the others */
    double local = copies * (k - 1) / n, away = copies * (n - k) / n;
    double t_inter = spans ? tokens * (dedup ? remote_nodes : away) * token_bytes / inter : 0;
    /* over the fast links: the node's own copies, and with dedup also the fan-out of what
     * arrived from other nodes to the experts' ranks */
    double t_intra = tokens * (local + (dedup && spans ? away * (k - 1) / k : 0)) * token_bytes / intra;
    double lat = (k - 1) * l.intra_step + (nodes - 1) * l.inter_step;
    return l.base + fmax(t_inter, t_intra) + (dedup ? l.intra_step + l.inter_step : lat);
}

int nd_group_is_intra_node(const nd_device *d, nd_group g)
{
    return nd_group_members_per_node(d, g) >= g.size;
}

double nd_collective_ms(const nd_device *d, nd_collective c, nd_group g, double bytes)
{
    if (g.size <= 1 || bytes <= 0) return 0.0;
    double n = (double)g.size;
    double k = (double)nd_group_members_per_node(d, g);
    double nodes = n / k;
    bool spans = nodes > 1;
    /* A collective pays a fixed set-up (launch, protocol handshake) and a latency per ring
     * step, the slowest link's: a node crossing when the group spans nodes. Fitted to
     * nccl-tests tables per device (docs/devices.md). */
    links l = links_for(d, c, n, k, spans);
    double intra = l.intra, inter = l.inter, base = l.base;
    double step = spans ? l.inter_step : l.intra_step;

    /* Ring reduce-scatter (or all-gather): n - 1 steps, (n-1)/n of the tensor passes every
     * link of the ring, so the slowest link sets the time. Inside a node that is the fast
     * fabric; a ring spanning nodes crosses each node boundary on the NIC bandwidth the
     * group's k members of a node own (k x the per-device share), as NCCL runs one ring per
     * NIC (Thakur et al. 2005 for the ring costs). An all-reduce is both halves. */
    double ring = spans ? fmin(intra, k * inter) : intra;
    double half = (n - 1) * step + (n - 1) / n * bytes / ring;
    switch (c) {
    case ND_COLL_ALL_REDUCE: return base + 2 * half;
    case ND_COLL_REDUCE_SCATTER:
    case ND_COLL_ALL_GATHER: return base + half;
    case ND_COLL_ALL_TO_ALL: {
        /* Each rank keeps 1/n and sends the rest: to the k-1 node peers over the fast
         * links and to the n-k others over its NIC, both at once. */
        double t_intra = (k - 1) / n * bytes / intra, t_inter = (n - k) / n * bytes / inter;
        double a_intra = l.intra_step, a_inter = l.inter_step;
        return base + (t_intra > t_inter ? t_intra : t_inter) + (k - 1) * a_intra + (nodes - 1) * a_inter;
    }
    case ND_COLL_P2P: {
        /* Every hop of a ring or pipeline runs at once; the slowest (a node crossing
         * whenever the group spans nodes) sets the pace. A hop is one peer's link. */
        return base + step + bytes / (spans ? inter : intra);
    }
    }
    return 0.0;
}
