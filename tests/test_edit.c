/* Tests of the config editors of nd_base (yaml_edit.c, toml.c): a value changed, a key
 * added, and every other byte of the user's file (comments, order, quoting) kept. The
 * expected texts are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/base/toml.h"
#include "nd/base/yaml_edit.h"

static const char *write_temp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/nd_test_edit_%d.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void yaml_value_replaced_comments_kept(void **state)
{
    (void)state;
    const char *in = "# MindFormers job\n"
                     "parallel_config:\n"
                     "  data_parallel: 8   # eight replicas\n"
                     "  model_parallel: 1\n"
                     "\n"
                     "# recompute\n"
                     "recompute_config:\n"
                     "  recompute: True\n";
    nd_yaml_edit *e;
    nd_error err = {0};
    assert_int_equal(nd_yaml_edit_open(&e, write_temp(in), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "parallel_config.data_parallel", "4", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "parallel_config.pipeline_stage", "2", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.recompute", "False", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "# MindFormers job\n"
                                                    "parallel_config:\n"
                                                    "  data_parallel: 4   # eight replicas\n"
                                                    "  model_parallel: 1\n"
                                                    "  pipeline_stage: 2\n"
                                                    "\n"
                                                    "# recompute\n"
                                                    "recompute_config:\n"
                                                    "  recompute: False\n");
    nd_yaml_edit_free(e);
}

static void yaml_missing_sections_created(void **state)
{
    (void)state;
    nd_yaml_edit *e;
    nd_error err = {0};
    assert_int_equal(
        nd_yaml_edit_open(&e, write_temp("model:\n  name: x\ncontext:\n  device_num: 8\n"), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "accelerator.tp_size", "2", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "model.config_overrides.offset", "[1, -1]", &err), 0);
    assert_int_equal(nd_yaml_edit_remove(e, "context", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "model:\n"
                                                    "  name: x\n"
                                                    "  config_overrides:\n"
                                                    "    offset: [1, -1]\n"
                                                    "accelerator:\n"
                                                    "  tp_size: 2\n");
    nd_yaml_edit_free(e);
}

static void yaml_empty_and_list_values(void **state)
{
    (void)state;
    nd_yaml_edit *e;
    nd_error err = {0};
    /* an empty section gets its key; a per-stage list becomes one value */
    const char *in =
        "parallel:\nrecompute_config:\n  recompute:\n    - 2\n    - 1\n  select_recompute: False\n";
    assert_int_equal(nd_yaml_edit_open(&e, write_temp(in), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "parallel.enable_parallel_optimizer", "True", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.recompute", "True", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "parallel:\n"
                                                    "  enable_parallel_optimizer: True\n"
                                                    "recompute_config:\n"
                                                    "  recompute: True\n"
                                                    "  select_recompute: False\n");
    /* a value where a mapping is needed is refused, naming the line */
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.recompute.x", "1", &err), -1);
    assert_non_null(strstr(err.message, ":4: 'recompute' holds a value"));
    nd_yaml_edit_free(e);
}

static void toml_read_and_edit(void **state)
{
    (void)state;
    const char *in = "# torchtitan Llama 3 8B\n"
                     "[model]\n"
                     "name = \"llama3\"\n"
                     "flavor = \"8B\"  # the size\n"
                     "\n"
                     "[training]\n"
                     "local_batch_size = 1\n"
                     "seq_len = 8_192\n"
                     "dataset_path = 'c:\\data'\n"
                     "mixed = [\"a\",\n  \"b\"]\n"
                     "\n"
                     "[parallelism]\n"
                     "data_parallel_shard_degree = -1\n";
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(nd_toml_load(&t, write_temp(in), &err), 0);
    int line = 0;
    assert_string_equal(nd_toml_get(t, "model", "flavor", &line), "8B");
    assert_int_equal(line, 4);
    assert_string_equal(nd_toml_get(t, "training", "seq_len", NULL), "8192"); /* TOML 1.0: 8_192 is 8192 */
    assert_string_equal(nd_toml_get(t, "training", "dataset_path", NULL), "c:\\data");
    assert_null(nd_toml_get(t, "training", "steps", NULL));
    assert_int_equal(nd_toml_set(t, "parallelism", "data_parallel_shard_degree", "8", &err), 0);
    assert_int_equal(nd_toml_set(t, "parallelism", "tensor_parallel_degree", "2", &err), 0);
    assert_int_equal(nd_toml_set(t, "training", "local_batch_size", "2", &err), 0);
    assert_int_equal(nd_toml_set(t, "activation_checkpoint", "mode", "\"full\"", &err), 0);
    assert_string_equal(nd_toml_text(t, NULL), "# torchtitan Llama 3 8B\n"
                                               "[model]\n"
                                               "name = \"llama3\"\n"
                                               "flavor = \"8B\"  # the size\n"
                                               "\n"
                                               "[training]\n"
                                               "local_batch_size = 2\n"
                                               "seq_len = 8_192\n"
                                               "dataset_path = 'c:\\data'\n"
                                               "mixed = [\"a\",\n  \"b\"]\n"
                                               "\n"
                                               "[parallelism]\n"
                                               "data_parallel_shard_degree = 8\n"
                                               "tensor_parallel_degree = 2\n"
                                               "\n"
                                               "[activation_checkpoint]\n"
                                               "mode = \"full\"\n");
    nd_toml_free(t);
}

static void toml_errors_name_the_line(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(nd_toml_load(&t, write_temp("[a]\nx = 1\nx = 2\n"), &err), -1);
    assert_non_null(strstr(err.message, ":3: key 'x' is stated twice (first on line 2)"));
    assert_int_equal(nd_toml_load(&t, write_temp("[a]\ny = \"open\n"), &err), -1);
    assert_non_null(strstr(err.message, ":2: a string is not closed"));
    assert_int_equal(nd_toml_load(&t, write_temp("[a\n"), &err), -1);
    assert_non_null(strstr(err.message, ":1: a [table] header is not closed"));
    assert_int_equal(nd_toml_load(&t, write_temp("z = 1 2\n"), &err), -1);
    assert_non_null(strstr(err.message, ":1: expected the end of the line"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(yaml_value_replaced_comments_kept), cmocka_unit_test(yaml_missing_sections_created),
        cmocka_unit_test(yaml_empty_and_list_values),        cmocka_unit_test(toml_read_and_edit),
        cmocka_unit_test(toml_errors_name_the_line),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[64];
    snprintf(path, sizeof path, "/tmp/nd_test_edit_%d.txt", (int)getpid());
    unlink(path);
    return rc;
}
