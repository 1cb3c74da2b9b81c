/* Tests of the read-back check of framework write-back (framework.c, nd_config_write): the files
 * a writer produced are read again with the same reader before they are committed, and a choice
 * they do not mean is refused (exit 1) with nothing written. The choice here is one torchtitan
 * cannot run: its tensor-parallel plan always shards the sequence (SP, fw_torchtitan.c), so a
 * resolved.toml with tensor_parallel_degree = 2 means SP on, whatever the choice said. The
 * matching choice (SP on) is written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd/base/io.h"
#include "nd/inputs/framework.h"

/* The sample torchtitan job (Llama 3 8B, data_parallel_shard_degree -1) read for 16 devices. */
static void load_sample(nd_run *run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/frameworks/torchtitan_llama3_8b.toml", getenv("ND_SOURCE_DIR"));
    nd_config_input in = {path, NULL, NULL, NULL, false, NULL};
    nd_error err = {0};
    assert_int_equal(nd_config_load(run, &in, &err), 0);
    assert_int_equal(nd_run_set(run, "devices", "16", &err), 0);
    assert_int_equal(nd_config_derive(run, &err), 0);
}

static nd_config_choice choice_of(const nd_run *run, bool sp)
{
    nd_config_choice c = {run->strategy, 0, NULL, 0};
    c.s.dp = 8;
    c.s.tp = 2;
    c.s.sp = sp;
    c.s.op = 8;
    c.s.zero = 3;
    c.s.mb = 1;
    c.s.mbs = 1;
    c.global_batch = 8;
    return c;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void refused_choice_writes_nothing(void **state)
{
    (void)state;
    nd_run *run = malloc(sizeof *run);
    assert_non_null(run);
    load_sample(run);
    char dir[64], file[128], written[1024];
    snprintf(dir, sizeof dir, "/tmp/nd_test_readback_%d", (int)getpid());
    snprintf(file, sizeof file, "%s/resolved.toml", dir);
    nd_error err = {0};
    nd_config_choice c = choice_of(run, false);
    nd_outputs_begin(); /* as a binary's run: staged, committed at the end */
    assert_int_equal(nd_config_write(run, &c, dir, written, sizeof written, &err), ND_ERUNTIME);
    nd_outputs_abort();
    assert_non_null(strstr(err.message, "resolved.toml: read back, SP is 1 where nd chose 0"));
    assert_string_equal(written, "");
    assert_false(exists(file));
    /* outside a run too: the file renamed at once is removed again */
    assert_int_equal(nd_config_write(run, &c, dir, written, sizeof written, &err), ND_ERUNTIME);
    assert_false(exists(file));

    c = choice_of(run, true);
    nd_outputs_begin();
    assert_int_equal(nd_config_write(run, &c, dir, written, sizeof written, &err), 0);
    assert_int_equal(nd_outputs_commit(&err), 0);
    assert_true(exists(file));
    remove(file);
    rmdir(dir);
    free(run);
}

/* A config nd reads is written back with its own strategy and reads back the same: the schedule
 * of pp_zero_bubble.toml ("ZeroBubble": ZB-H1, one stage a rank) and of pp_layers_per_stage.toml
 * (Interleaved1F1B with 16 layers a stage: VPP 1) kept as they are, not renamed to schedules that
 * read back as VPP 2 or 1F1B. */
static void own_strategy_reads_back(void **state)
{
    (void)state;
    static const char *const files[] = {"pp_zero_bubble.toml", "pp_layers_per_stage.toml", "old_layout.toml",
                                        "inline.toml", "dotted.toml"};
    nd_run *run = malloc(sizeof *run);
    assert_non_null(run);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024], dir[64], written[1024];
        snprintf(path, sizeof path, "%s/tests/data/torchtitan/%s", getenv("ND_SOURCE_DIR"), files[i]);
        snprintf(dir, sizeof dir, "/tmp/nd_test_readback_%d", (int)getpid());
        nd_config_input in = {path, NULL, NULL, NULL, false, NULL};
        nd_error err = {0};
        assert_int_equal(nd_config_load(run, &in, &err), 0);
        if (run->derive_dp) assert_int_equal(nd_run_set(run, "devices", "16", &err), 0);
        assert_int_equal(nd_config_derive(run, &err), 0);
        nd_config_choice c = {run->strategy, run->train.global_batch, NULL, 0};
        if (nd_config_write(run, &c, dir, written, sizeof written, &err))
            fail_msg("%s: %s", files[i], err.message);
        char file[128];
        snprintf(file, sizeof file, "%s/resolved.toml", dir);
        remove(file);
        rmdir(dir);
    }
    free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_choice_writes_nothing),
        cmocka_unit_test(own_strategy_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
