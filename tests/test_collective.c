/* Collective times. The equations are checked on a device of round numbers built here
 * (so the expected values do not move when a built-in device is re-measured): intra-node
 * 300 GB/s per direction at 80 % = 240e6 bytes/ms, 2 us per ring step, 10 us per
 * collective; inter-node 25 GB/s at 90 % = 22.5e6 bytes/ms, 5 us per step, 20 us per
 * collective; 8 devices per node. Every expected value is worked out by hand below from the
 * ring costs of Thakur et al. 2005 (reduce-scatter/all-gather n - 1 steps and (n-1)/n x bytes
 * / bandwidth, all-reduce both halves). Then the built-in A100 is checked against the
 * measured nccl-tests table it was fitted to (samples/devices/collectives/a100-allreduce.csv). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <math.h>

#include "nd/costmodel/collective.h"

static nd_device_table table;
static nd_device round_device, mesh_device;
static const nd_device *a100 = &round_device;

static int setup(void **state)
{
    (void)state;
    nd_error err = {0};
    if (nd_device_table_builtin(&table, &err)) return -1;
    nd_device *d = &round_device;
    d->devices_per_node = 8;
    d->intra_gbps = 300;
    d->intra_efficiency = 0.8;
    d->intra_latency_us = 2;
    d->intra_base_us = 10;
    d->inter_gbps = 25;
    d->inter_efficiency = 0.9;
    d->inter_latency_us = 5;
    d->inter_base_us = 20;
    /* An HCCS-like full mesh of 28 GB/s links, 196 GB/s over 7 peers, at 70 %, 3 us a step. */
    d = &mesh_device;
    d->devices_per_node = 8;
    d->intra_gbps = 196;
    d->intra_efficiency = 0.7;
    d->intra_latency_us = 3;
    d->intra_link_gbps = 28;
    d->inter_gbps = 25;
    d->inter_efficiency = 0.85;
    d->inter_latency_us = 8;
    return 0;
}
static int teardown(void **state)
{
    (void)state;
    nd_device_table_free(&table);
    return 0;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-6) fail_msg("got %.9f ms, want %.9f ms", got, want);
}

static void all_reduce_inside_a_node(void **state)
{
    (void)state;
    /* 8 ranks, 1 GB: 0.010 + 2 x (7/8 x 1e9 / 240e6 + 7 x 0.002) = 0.010 + 2 x 3.6598333 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 1e9), 7.3296667);
    assert_true(nd_group_is_intra_node(a100, (nd_group){8, 1}));
}

static void all_reduce_across_two_nodes(void **state)
{
    (void)state;
    /* 16 ranks, 8 per node: the ring crosses nodes on 8 x 22.5e6 = 180e6 bytes/ms (< 240e6),
     * and every step waits for the slowest link's latency:
     * 0.020 + 2 x (15/16 x 1e9 / 180e6 + 15 x 0.005) = 0.020 + 2 x 5.2833333 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){16, 1}, 1e9), 10.5866667);
    assert_false(nd_group_is_intra_node(a100, (nd_group){16, 1}));
}

static void reduce_scatter_one_rank_per_node(void **state)
{
    (void)state;
    /* Stride 8: every member in its own node, on its own NIC share:
     * 0.020 + 3/4 x 1e9 / 22.5e6 + 3 x 0.005 = 33.3683333 ms */
    near(nd_collective_ms(a100, ND_COLL_REDUCE_SCATTER, (nd_group){4, 8}, 1e9), 33.3683333);
    near(nd_collective_ms(a100, ND_COLL_ALL_GATHER, (nd_group){4, 8}, 1e9), 33.3683333);
}

static void all_to_all(void **state)
{
    (void)state;
    /* 8 ranks in a node: 7/8 of 1 GB over NVLink: 0.010 + 3.6458333 + 7 x 0.002 */
    near(nd_collective_ms(a100, ND_COLL_ALL_TO_ALL, (nd_group){8, 1}, 1e9), 3.6698333);
    /* 16 ranks on 2 nodes: 8/16 leaves the node at 22.5e6 (22.2222222 ms) while 7/16 stays
     * (1.8229167 ms), both at once: 0.020 + 22.2222222 + 7 x 0.002 + 0.005 */
    near(nd_collective_ms(a100, ND_COLL_ALL_TO_ALL, (nd_group){16, 1}, 1e9), 22.2612222);
}

static void point_to_point(void **state)
{
    (void)state;
    /* Neighbours 4 apart share a node: 0.010 + 0.002 + 1e9 / 240e6 */
    near(nd_collective_ms(a100, ND_COLL_P2P, (nd_group){2, 4}, 1e9), 4.1786667);
    /* 8 apart: different nodes: 0.020 + 0.005 + 1e9 / 22.5e6 */
    near(nd_collective_ms(a100, ND_COLL_P2P, (nd_group){2, 8}, 1e9), 44.4694444);
}

static void one_rank_costs_nothing(void **state)
{
    (void)state;
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){1, 1}, 1e9), 0);
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 0), 0);
}

/* The A2's HCCS is a full mesh of 28 GB/s links (196 GB/s over 7 peers) at 70 %: a group of
 * k NPUs of a server uses the k - 1 links to its peers, min(196, (k - 1) x 28) GB/s.
 *   2 NPUs, 1 GB all-reduce: 2 x (1/2 x 1e9 / (28 x 0.7 x 1e6) + 1 x 0.003) = 51.0264082 ms
 *   4 NPUs: 2 x (3/4 x 1e9 / (84 x 0.7 x 1e6) + 3 x 0.003) = 25.5282041 ms
 *   8 NPUs: 2 x (7/8 x 1e9 / (196 x 0.7 x 1e6) + 7 x 0.003) = 12.7971020 ms
 *   a pipeline hop between two NPUs: 1e9 / 19.6e6 + 0.003 = 51.0234082 ms
 * On a switched fabric (A100's NVSwitch) a pair gets the whole 240e6 bytes/ms. */
static void mesh_fabric_uses_the_links_to_its_peers(void **state)
{
    (void)state;
    const nd_device *a2 = &mesh_device;
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){2, 1}, 1e9), 51.0264082);
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){4, 1}, 1e9), 25.5282041);
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 1e9), 12.7971020);
    near(nd_collective_ms(a2, ND_COLL_P2P, (nd_group){2, 1}, 1e9), 51.0234082);
    /* Switched: 0.010 + 2 x (1/2 x 1e9 / 240e6 + 0.002) = 4.1806667 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){2, 1}, 1e9), 4.1806667);
}

/* The built-in A3 is a die of an Atlas 900 A3 SuperPoD, whose 48 servers of 16 dies share one
 * UB fabric (devices.md): a group of 128 dies over 8 servers stays on it, at 196 GB/s x 0.70 =
 * 137.2e6 bytes/ms, 2 us a step, 30 us a call. 1 GB all-to-all:
 *   0.030 + 127/128 x 1e9 / 137.2e6 + 127 x 0.002 = 0.030 + 7.2316873 + 0.254 = 7.5156873 ms
 * Two SuperPoDs (1536 dies) meet on RoCE. */
static void a3_superpod_is_one_fabric(void **state)
{
    (void)state;
    const nd_device *a3 = nd_device_table_find(&table, "A3");
    assert_non_null(a3);
    assert_true(nd_group_is_intra_node(a3, (nd_group){128, 1}));
    assert_true(nd_group_is_intra_node(a3, (nd_group){768, 1}));
    assert_false(nd_group_is_intra_node(a3, (nd_group){1536, 1}));
    near(nd_collective_ms(a3, ND_COLL_ALL_TO_ALL, (nd_group){128, 1}, 1e9), 7.5156873);
    assert_int_equal(a3->devices_per_server, 16);
}

/* The built-in A100 against the measured all-reduce it was fitted to (nccl-tests on 2 to 8
 * A100 of one node, 1 MiB to 1 GiB): every point within 30 %, the mean within 8 %. */
static void a100_reproduces_its_measured_all_reduce(void **state)
{
    (void)state;
    const nd_device *d = nd_device_table_find(&table, "A100");
    assert_non_null(d);
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/devices/collectives/a100-allreduce.csv", getenv("ND_SOURCE_DIR"));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    double sum = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        int ranks;
        double bytes, us;
        if (sscanf(line, "all_reduce,%d,%lf,%lf", &ranks, &bytes, &us) != 3) continue;
        double got = nd_collective_ms(d, ND_COLL_ALL_REDUCE, (nd_group){ranks, 1}, bytes) * 1e3;
        double err = fabs(got / us - 1);
        if (err > 0.30) fail_msg("%d ranks, %.0f bytes: %.1f us, measured %.1f us", ranks, bytes, got, us);
        sum += err;
        n++;
    }
    fclose(f);
    assert_true(n >= 50);
    if (sum / n > 0.08) fail_msg("mean error %.1f %% over %d points", 100 * sum / n, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_reduce_inside_a_node),
        cmocka_unit_test(all_reduce_across_two_nodes),
        cmocka_unit_test(reduce_scatter_one_rank_per_node),
        cmocka_unit_test(all_to_all),
        cmocka_unit_test(point_to_point),
        cmocka_unit_test(one_rank_costs_nothing),
        cmocka_unit_test(mesh_fabric_uses_the_links_to_its_peers),
        cmocka_unit_test(a3_superpod_is_one_fabric),
        cmocka_unit_test(a100_reproduces_its_measured_all_reduce),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
