/* Strategy text and the rules a strategy must satisfy, each with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/model.h"
#include "nd/costmodel/strategy.h"

static nd_model llama, mixtral;

static int setup(void **state)
{
    (void)state;
    char path[1024];
    nd_error err = {0};
    snprintf(path, sizeof path, "%s/samples/models/llama3-8b.json", getenv("ND_SOURCE_DIR"));
    if (nd_model_load_hf_json(&llama, path, &err)) return -1;
    snprintf(path, sizeof path, "%s/samples/models/mixtral-8x7b.json", getenv("ND_SOURCE_DIR"));
    return nd_model_load_hf_json(&mixtral, path, &err);
}

/* Parses text over the neutral strategy and checks it; returns the error message or "". */
static const char *check(const nd_model *m, const char *text, int64_t devices, int64_t gbs)
{
    static nd_error err;
    nd_strategy s;
    nd_strategy_init(&s);
    memset(&err, 0, sizeof err);
    if (nd_strategy_parse(&s, text, &err)) return err.message;
    if (nd_strategy_check(&s, m, devices, gbs, 8192, &err)) return err.message;
    return "";
}

static void parses_keys_and_synonyms(void **state)
{
    (void)state;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    assert_int_equal(nd_strategy_parse(&s, "DP=8, TP=4 pp=2 MB=16 recompute=selective SP=1", &err), 0);
    assert_int_equal(s.dp, 8);
    assert_int_equal(s.tp, 4);
    assert_int_equal(s.pp, 2);
    assert_int_equal(s.mb, 16);
    assert_true(s.sp);
    assert_int_equal(s.recompute, ND_RECOMPUTE_SELECTIVE);
    char buf[256];
    nd_strategy_label(&s, buf, sizeof buf);
    assert_string_equal(buf, "DP 8 MP 4 PP 2 MB 16 SP");
}

static void refuses_bad_items(void **state)
{
    (void)state;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    assert_int_equal(nd_strategy_parse(&s, "DP=8 XP=2", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "'XP' is unknown"));
    assert_int_equal(nd_strategy_parse(&s, "DP=0", &err), ND_EINPUT);
    assert_int_equal(nd_strategy_parse(&s, "DP=abc", &err), ND_EINPUT);
    assert_int_equal(nd_strategy_parse(&s, "DP", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "KEY=VALUE"));
    assert_int_equal(nd_strategy_parse(&s, "recompute=sometimes", &err), ND_EINPUT);
    assert_int_equal(nd_strategy_parse(&s, "ZERO=4", &err), ND_EINPUT);
}

static void each_rule_explains_itself(void **state)
{
    (void)state;
    /* Llama-3-8B: 32 heads, 8 KV heads, MLP 14336, 32 layers. */
    assert_string_equal(check(&llama, "DP=8 MP=4 PP=2 MB=8", 64, 64), "");
    assert_non_null(strstr(check(&llama, "DP=8 MP=4 PP=2 MB=8", 128, 64), "but the cluster has 128"));
    assert_non_null(strstr(check(&llama, "DP=8 MP=4 PP=2 MB=8", 64, 100), "global batch is 100"));
    assert_non_null(strstr(check(&llama, "DP=2 MP=3 PP=1 MB=1", 6, 2), "32 attention heads"));
    assert_non_null(strstr(check(&llama, "DP=1 MP=16 PP=1 MB=1", 16, 1), "8 KV heads"));
    assert_non_null(strstr(check(&llama, "DP=1 MP=1 PP=3 MB=3", 3, 3), "32 layers do not divide"));
    assert_string_equal(check(&llama, "DP=1 MP=1 PP=3 MB=3 FIRST=10 LAST=10", 3, 3), "");
    assert_non_null(
        strstr(check(&llama, "DP=1 MP=1 PP=4 MB=4 FIRST=9 LAST=8", 4, 4), "do not divide evenly"));
    assert_non_null(strstr(check(&llama, "DP=2 MP=1 PP=1 CP=3 MB=1", 6, 2), "CP=3"));
    assert_non_null(strstr(check(&llama, "DP=4 MP=1 PP=1 OP=3 MB=1", 4, 4), "OP=3"));
    assert_string_equal(check(&llama, "DP=6 MP=1 PP=1 OP=3 MB=1", 6, 6), ""); /* any divisor */
    assert_non_null(strstr(check(&llama, "DP=1 MP=1 PP=2 VPP=2 MB=3", 2, 3), "MB=3"));
    assert_non_null(strstr(check(&llama, "DP=8 EP=2 MB=1", 8, 8), "no experts"));
    /* Mixtral: 8 experts. */
    assert_non_null(strstr(check(&mixtral, "DP=6 EP=3 MB=1", 6, 6), "8 experts"));
    assert_string_equal(check(&mixtral, "DP=8 EP=8 MB=1", 8, 8), "");
    assert_non_null(strstr(check(&mixtral, "DP=2 MP=2 EP=8 ETP=1 MB=1", 4, 2), "does not divide"));
}

static void resolves_dependent_settings(void **state)
{
    (void)state;
    nd_strategy s;
    nd_strategy_init(&s);
    nd_error err = {0};
    nd_strategy_parse(&s, "DP=8 MP=4 PP=2 VPP=2 OP=8 MB=8", &err);
    assert_int_equal(nd_strategy_check(&s, &llama, 64, 64, 8192, &err), 0);
    assert_int_equal(s.zero, 1);                           /* OP > 1 shards optimizer states */
    assert_int_equal(s.schedule, ND_SCHEDULE_INTERLEAVED); /* VPP > 1 */
    assert_int_equal(s.etp, 4);                            /* expert TP follows TP */
    int64_t first, count;
    /* Interleaved, 32 layers in PP x VPP = 4 chunks of 8: rank 1 holds chunks 1 and 3 (layers
     * 8-15 and 24-31), Megatron's order: its first layer is 8, it holds 16. */
    nd_strategy_stage_layers(&s, 32, 1, &first, &count);
    assert_int_equal(first, 8);
    assert_int_equal(count, 16);
    s.vpp = 1;
    s.first_stage_layers = 10;
    s.last_stage_layers = 0;
    s.pp = 3;
    nd_strategy_stage_layers(&s, 32, 1, &first, &count); /* 22 layers over 2 stages */
    assert_int_equal(first, 10);
    assert_int_equal(count, 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_keys_and_synonyms),
        cmocka_unit_test(refuses_bad_items),
        cmocka_unit_test(each_rule_explains_itself),
        cmocka_unit_test(resolves_dependent_settings),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
