/* Collective times on the built-in A100 (DGX A100): intra-node 300 GB/s per direction at
 * 80 % = 240e6 bytes/ms with 2 us per step; inter-node 25 GB/s at 90 % = 22.5e6 bytes/ms
 * with 5 us; 8 devices per node. Every expected value is worked out by hand below from the
 * ring costs of Thakur et al. 2005 (reduce-scatter/all-gather (n-1)/n x bytes / bandwidth,
 * all-reduce twice that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nd/collective.h"

static nd_device_table table;
static const nd_device *a100;

static int setup(void **state)
{
    (void)state;
    nd_error err = {0};
    if (nd_device_table_builtin(&table, &err)) return -1;
    a100 = nd_device_table_find(&table, "A100");
    return a100 ? 0 : -1;
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
    /* 8 ranks, 1 GB: 2 x (7/8 x 1e9 / 240e6 + 7 x 0.002) = 2 x 3.6598333 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 1e9), 7.3196667);
    assert_true(nd_group_is_intra_node(a100, (nd_group){8, 1}));
}

static void all_reduce_across_two_nodes(void **state)
{
    (void)state;
    /* 16 ranks, 8 per node: the ring crosses nodes on 8 x 22.5e6 = 180e6 bytes/ms (< 240e6);
     * 2 x (15/16 x 1e9 / 180e6 + 7 x 0.002 + log2(2) x 0.005) = 2 x 5.2273333 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){16, 1}, 1e9), 10.4546667);
    assert_false(nd_group_is_intra_node(a100, (nd_group){16, 1}));
}

static void reduce_scatter_one_rank_per_node(void **state)
{
    (void)state;
    /* Stride 8: every member in its own node, on its own NIC share:
     * 3/4 x 1e9 / 22.5e6 + log2(4) x 0.005 = 33.3433333 ms */
    near(nd_collective_ms(a100, ND_COLL_REDUCE_SCATTER, (nd_group){4, 8}, 1e9), 33.3433333);
    near(nd_collective_ms(a100, ND_COLL_ALL_GATHER, (nd_group){4, 8}, 1e9), 33.3433333);
}

static void all_to_all(void **state)
{
    (void)state;
    /* 8 ranks in a node: 7/8 of 1 GB over NVLink: 3.6458333 + 7 x 0.002 */
    near(nd_collective_ms(a100, ND_COLL_ALL_TO_ALL, (nd_group){8, 1}, 1e9), 3.6598333);
    /* 16 ranks on 2 nodes: 8/16 leaves the node at 22.5e6 (22.2222222 ms) while 7/16 stays
     * (1.8229167 ms), both at once: 22.2222222 + 7 x 0.002 + 0.005 */
    near(nd_collective_ms(a100, ND_COLL_ALL_TO_ALL, (nd_group){16, 1}, 1e9), 22.2412222);
}

static void point_to_point(void **state)
{
    (void)state;
    /* Neighbours 4 apart share a node: 1e9 / 240e6 + 0.002 */
    near(nd_collective_ms(a100, ND_COLL_P2P, (nd_group){2, 4}, 1e9), 4.1686667);
    /* 8 apart: different nodes: 1e9 / 22.5e6 + 0.005 */
    near(nd_collective_ms(a100, ND_COLL_P2P, (nd_group){2, 8}, 1e9), 44.4494444);
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
    const nd_device *a2 = nd_device_table_find(&table, "A2");
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){2, 1}, 1e9), 51.0264082);
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){4, 1}, 1e9), 25.5282041);
    near(nd_collective_ms(a2, ND_COLL_ALL_REDUCE, (nd_group){8, 1}, 1e9), 12.7971020);
    near(nd_collective_ms(a2, ND_COLL_P2P, (nd_group){2, 1}, 1e9), 51.0234082);
    /* A100: 2 x (1/2 x 1e9 / 240e6 + 0.002) = 4.1706667 ms */
    near(nd_collective_ms(a100, ND_COLL_ALL_REDUCE, (nd_group){2, 1}, 1e9), 4.1706667);
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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
