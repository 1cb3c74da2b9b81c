/* The fixed costs of a micro-batch (OVERHEAD): every kernel's launch, the host's dispatch
 * when it is slower than the device, synchronisations, per-micro-batch host work; and CUDA
 * graphs and synchronised passes. A stage of four identical layers is priced from a layer
 * cost written here, so every number is worked out by hand in the comments
 * (docs/cost-model.md §Host and fixed costs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "nd/costmodel/stage.h"

static nd_model model;
static nd_train train;
static nd_device device;
static nd_layer_cache_entry costs;

/* A device whose kernels cost 3 us each beyond their work, whose host takes 10 us per
 * operator, 40 us per synchronisation and 0.2 ms per micro-batch; a layer of 1 ms forward and
 * 2 ms backward, 100 kernels (40 forward) and 500 host operators (200 forward). */
static int setup(void **state)
{
    (void)state;
    memset(&model, 0, sizeof model);
    model.hidden = 1024;
    model.layers = 4;
    model.vocab = 1000;
    nd_train_init(&train);
    memset(&device, 0, sizeof device);
    device.kernel_launch_us = 3;
    device.host_dispatch_us = 10;
    device.host_sync_us = 40;
    device.microbatch_host_ms = 0.2;
    memset(&costs, 0, sizeof costs);
    nd_layer_cost *c = &costs.layer[ND_LAYER_DENSE];
    c->forward_ms = 1;
    c->backward_ms = 2;
    c->kernels[ND_RECOMPUTE_OFF] = 100;
    c->kernels_fwd = 40;
    c->host_ops[ND_RECOMPUTE_OFF] = 500;
    c->host_ops_fwd = 200;
    return 0;
}

static nd_stage_time price(void)
{
    nd_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.model = &model;
    ctx.train = &train;
    ctx.device = &device;
    nd_strategy s;
    nd_strategy_init(&s);
    s.pp = 1;
    s.mb = 1;
    nd_stage_work w;
    memset(&w, 0, sizeof w);
    w.layers = 4;
    w.n[ND_LAYER_DENSE][ND_RECOMPUTE_OFF] = 4;
    nd_stage_time t;
    nd_stage_time_compute(&ctx, &s, &costs, &w, &t);
    return t;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-9) fail_msg("got %.9f ms, want %.9f ms", got, want);
}

static void host_bound_micro_batch(void **state)
{
    (void)state;
    train.framework = ND_FRAMEWORK_MEGATRON; /* 80 host operators per micro-batch beyond the layers */
    nd_stage_time t = price();
    /* busy 4 x 3 = 12 ms; launches 400 x 3 us = 1.2 ms; host 2000 x 10 us = 20 ms, 6.8 ms more
     * than the device's 13.2: exposed. Plus 0.2 ms and 80 x 10 us of per-micro-batch work. */
    near(t.overhead_ms, 1.2 + 6.8 + 0.2 + 0.8);
    near(t.total_ms, 12 + 9.0);
    assert_true(t.kernels == 400);
}

static void synchronised_passes_overlap_less(void **state)
{
    (void)state;
    costs.layer[ND_LAYER_DENSE].forward_ms = 2.5; /* the forward now outlasts its host work */
    train.framework = ND_FRAMEWORK_MEGATRON;
    /* One overlap window: busy 4 x 4.5 = 18 + 1.2 ms of launches against 20 ms of host work:
     * 0.8 ms exposed. */
    near(price().overhead_ms, 1.2 + 0.8 + 0.2 + 0.8);
    /* Legacy Megatron's timers synchronise around the forward and the backward: the forward
     * hides its host work (10 + 0.48 ms against 8 ms), the backward does not (8 + 0.72 ms
     * against 12 ms): 3.28 ms exposed; four synchronisations at 40 + 10 us; 120 host
     * operators per micro-batch. */
    train.framework = ND_FRAMEWORK_MEGATRON_LEGACY;
    near(price().overhead_ms, 1.2 + 3.28 + 4 * 0.05 + 0.2 + 1.2);
    costs.layer[ND_LAYER_DENSE].forward_ms = 1;
}

static void cuda_graphs_remove_the_host(void **state)
{
    (void)state;
    train.framework = ND_FRAMEWORK_MEGATRON;
    train.cuda_graphs = true;
    near(price().overhead_ms, 1.2 + 0.2); /* launches and the micro-batch's fixed host time */
    train.cuda_graphs = false;
}

static void dropless_moe_synchronises(void **state)
{
    (void)state;
    train.framework = ND_FRAMEWORK_MEGATRON;
    costs.layer[ND_LAYER_DENSE].host_syncs[ND_RECOMPUTE_OFF] = 1;
    /* Four synchronisations, each its 40 us round trip and the next operator's 10 us. */
    near(price().overhead_ms, 9.0 + 4 * 0.05);
    costs.layer[ND_LAYER_DENSE].host_syncs[ND_RECOMPUTE_OFF] = 0;
}

/* A synchronisation in each layer's forward ends the host's lead there: a forward that takes
 * the host longer to issue than the device to run waits for it, though the backward leaves
 * the device busy long enough to hide all the host work of the micro-batch. Backward 6 ms
 * (300 host operators): busy 4 x 7 = 28 ms + 1.2 ms launches against 20 ms of host work,
 * nothing exposed without the synchronisation. With it, each forward: 200 x 10 us = 2 ms of
 * host against 1 ms + 40 x 3 us = 1.12 ms of device, 0.88 ms exposed, 3.52 ms in all; the rest
 * (1,200 operators, 12 ms, against 29.2 - 4.48 ms) stays hidden. Plus four synchronisations
 * at 40 + 10 us, 0.2 ms and 80 x 10 us per micro-batch. */
static void a_synchronised_forward_loses_the_host_lead(void **state)
{
    (void)state;
    train.framework = ND_FRAMEWORK_MEGATRON;
    costs.layer[ND_LAYER_DENSE].backward_ms = 6;
    near(price().overhead_ms, 1.2 + 0 + 0.2 + 0.8);
    costs.layer[ND_LAYER_DENSE].host_syncs[ND_RECOMPUTE_OFF] = 1;
    near(price().overhead_ms, 1.2 + 3.52 + 4 * 0.05 + 0.2 + 0.8);
    costs.layer[ND_LAYER_DENSE].host_syncs[ND_RECOMPUTE_OFF] = 0;
    costs.layer[ND_LAYER_DENSE].backward_ms = 2;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_bound_micro_batch),
        cmocka_unit_test(synchronised_passes_overlap_less),
        cmocka_unit_test(cuda_graphs_remove_the_host),
        cmocka_unit_test(dropless_moe_synchronises),
        cmocka_unit_test(a_synchronised_forward_loses_the_host_lead),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
