/* Run files: YAML sections, config.json references, flag overrides, and the messages for
 * bad input (file, line, key). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/inputs/run.h"

static char dir[] = "/tmp/nd_test_run_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void loads_a_full_run(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "model:\n  config_json: %s/samples/models/llama3-8b.json\n"
             "train:\n  seq_len: 8192\n  global_batch: 512\n  recompute: full\n"
             "  selective_modules: [core_attn, activation]\n"
             "cluster:\n  device: H100\n  devices: 64\n  memory_budget: 70GB\n"
             "strategy:\n  DP: 8\n  MP: 4\n  PP: 2\n  MB: 64\n",
             getenv("ND_SOURCE_DIR"));
    nd_run run;
    nd_error err = {0};
    int rc = nd_run_load(&run, write_file("run.yaml", text), &err);
    if (rc) fail_msg("%s", err.message);
    assert_int_equal(run.model.hidden, 4096);
    assert_int_equal(run.train.seq_len, 8192);
    assert_int_equal(run.train.global_batch, 512);
    assert_int_equal(run.train.selective_modules, ND_SELECTIVE_CORE_ATTN | ND_SELECTIVE_ACTIVATION);
    assert_string_equal(run.device, "H100");
    assert_int_equal(run.devices, 64);
    assert_true(run.memory_budget_mib == 70 * 1024.0);
    assert_true(run.has_strategy);
    assert_int_equal(run.strategy.tp, 4);
    /* The run's recompute is the strategy's default. */
    assert_int_equal(run.strategy.recompute, ND_RECOMPUTE_FULL);
    /* Flags override the file. */
    assert_int_equal(nd_run_set(&run, "seq_len", "4096", &err), 0);
    assert_int_equal(run.train.seq_len, 4096);
    assert_int_equal(nd_run_set(&run, "recompute", "off", &err), 0);
    assert_int_equal(run.strategy.recompute, ND_RECOMPUTE_OFF);
    assert_int_equal(nd_run_set(&run, "precision", "fp8", &err), ND_EUSAGE);
    assert_non_null(strstr(err.message, "precision: 'fp8' is not bf16, fp16 or fp32"));
    assert_int_equal(nd_run_set(&run, "colour", "blue", &err), ND_EUSAGE);
}

static void inline_model_and_bare_config(void **state)
{
    (void)state;
    const char *yaml = "model:\n  model_type: gpt\n  hidden_size: 1536\n  num_hidden_layers: 16\n"
                       "  num_attention_heads: 16\n  intermediate_size: 6144\n  vocab_size: 51200\n"
                       "  position_embeddings: 2048\n";
    nd_run run;
    nd_error err = {0};
    assert_int_equal(nd_run_load(&run, write_file("gpt.yaml", yaml), &err), 0);
    assert_int_equal(run.model.norm, ND_NORM_LAYER);
    assert_int_equal(run.model.mlp, ND_MLP_PLAIN);
    assert_true(run.model.tied_embeddings);
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/models/mixtral-8x7b.json", getenv("ND_SOURCE_DIR"));
    assert_int_equal(nd_run_load(&run, path, &err), 0);
    assert_int_equal(run.model.experts, 8);
    assert_false(run.has_strategy);
}

/* The attention kernel a stack names maps to the rates nd prices it at (run-file.md): FA3,
 * cuDNN, FA4 and TE's the device's best; FA2 and SDPA's flash backend FA2's; the 2023 Triton
 * kernel its own; "unfused" turns flash attention off. */
static void attention_kernel_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        nd_attention_kernel kernel;
    } names[] = {{"fa3", ND_ATTENTION_BEST},      {"fa4", ND_ATTENTION_BEST}, {"cuDNN", ND_ATTENTION_CUDNN},
                 {"te", ND_ATTENTION_CUDNN},      {"fa2", ND_ATTENTION_FA2},  {"sdpa", ND_ATTENTION_FA2},
                 {"triton", ND_ATTENTION_TRITON}, {"auto", ND_ATTENTION_AUTO}};
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/runs/llama3-8b.yaml", getenv("ND_SOURCE_DIR"));
    nd_run run;
    nd_error err = {0};
    assert_int_equal(nd_run_load(&run, path, &err), 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(nd_run_set(&run, "attention_kernel", names[i].name, &err), 0);
        assert_int_equal(run.train.attention_kernel, names[i].kernel);
    }
    assert_true(run.train.flash_attention);
    assert_int_equal(nd_run_set(&run, "attention_kernel", "unfused", &err), 0);
    assert_false(run.train.flash_attention);
    /* a fused kernel named after flash_attention false turns it back on: the later key decides */
    assert_int_equal(nd_run_set(&run, "attention_kernel", "fa3", &err), 0);
    assert_true(run.train.flash_attention);
    assert_int_equal(nd_run_set(&run, "flash_attention", "false", &err), 0);
    assert_false(run.train.flash_attention);
    assert_int_equal(nd_run_set(&run, "attention_kernel", "flash9", &err), ND_EUSAGE);
}

static void errors_name_file_line_and_key(void **state)
{
    (void)state;
    nd_run run;
    nd_error err = {0};
    const char *p = write_file("bad1.yaml", "model:\n  model_type: llama\n  hidden_size: 4096\n"
                                            "train:\n  seq_len: 8192\n  sequence: 4\n");
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    /* The model lacks layers: that is found first, naming the model section. */
    assert_non_null(strstr(err.message, "num_hidden_layers"));

    char text[1024];
    snprintf(text, sizeof text,
             "model:\n  config_json: %s/samples/models/llama3-8b.json\n"
             "train:\n  seq_len: 8192\n  sequence: 4\n",
             getenv("ND_SOURCE_DIR"));
    p = write_file("bad2.yaml", text);
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "bad2.yaml:5: unknown train key 'sequence'"));

    snprintf(text, sizeof text,
             "model:\n  config_json: %s/samples/models/llama3-8b.json\n"
             "train:\n  seq_len: 8k\n",
             getenv("ND_SOURCE_DIR"));
    p = write_file("bad3.yaml", text);
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "bad3.yaml:4: key 'seq_len': '8k' is not a whole number"));

    p = write_file("bad4.yaml", "model: [1, 2\n");
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "bad4.yaml:"));

    p = write_file("bad5.yaml", "");
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "empty"));

    p = write_file("bad6.yaml", "model:\n  config_json: missing.json\n");
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "missing.json"));
    assert_non_null(strstr(err.message, "bad6.yaml:2"));

    p = write_file("bad7.yaml", "modle:\n  hidden_size: 1\n");
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);

    assert_int_equal(nd_run_load(&run, "/nonexistent/run.yaml", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "/nonexistent/run.yaml"));

    /* A hostile nesting depth is refused before libyaml builds the tree. */
    char deep[400];
    memset(deep, '[', 300);
    deep[300] = '\0';
    p = write_file("deep.yaml", deep);
    assert_int_equal(nd_run_load(&run, p, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "nested deeper"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_a_full_run),
        cmocka_unit_test(inline_model_and_bare_config),
        cmocka_unit_test(attention_kernel_names),
        cmocka_unit_test(errors_name_file_line_and_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
