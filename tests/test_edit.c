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

/* Line breaks as libyaml counts them (its scanner's IS_BREAK/IS_CRLF: "\r\n" as one, a lone
 * "\r", "\n", U+0085, U+2028, U+2029): after each kind the next edit lands on its own line.
 * Counting "\n" alone put "\r\r\n" two lines into one and edited the line below
 * (issue 27: mp_comm_recompute: True became False). */
static void yaml_line_breaks_as_libyaml_counts(void **state)
{
    (void)state;
    nd_yaml_edit *e;
    nd_error err = {0};
    const char *in = "recompute_config:\r\r\n"
                     "  recompute: True\r"
                     "  mp_comm_recompute: True\xC2\x85"
                     "  select_recompute: False\xE2\x80\xA8"
                     "  fine_grain: 0\xE2\x80\xA9"
                     "  pp_interleave_num: 1\r\n";
    assert_int_equal(nd_yaml_edit_open(&e, write_temp(in), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.recompute", "False", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.select_recompute", "True", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.pp_interleave_num", "2", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "recompute_config.added", "3", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "recompute_config:\r\r\n"
                                                    "  recompute: False\r"
                                                    "  mp_comm_recompute: True\xC2\x85"
                                                    "  select_recompute: True\xE2\x80\xA8"
                                                    "  fine_grain: 0\xE2\x80\xA9"
                                                    "  pp_interleave_num: 2\r\n"
                                                    "  added: 3\n");
    nd_yaml_edit_free(e);
    /* the last line without a break: the added key starts a line of its own */
    assert_int_equal(nd_yaml_edit_open(&e, write_temp("a:\r\r  b: 1\r  c: 2\r"), &err), 0);
    assert_int_equal(nd_yaml_edit_remove(e, "x", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "a.c", "5", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "d", "6", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "a:\r\r  b: 1\r  c: 5\rd: 6\n");
    nd_yaml_edit_free(e);
}

/* A quoted value that a comment touches (`'x'#c`: libyaml reads the scalar x, then the
 * comment): replaced by a plain value, a blank must go between, or `1000#c` would be read
 * back as the value (found by fuzz_yaml_edit; the expected texts by hand). */
static void yaml_value_touching_comment(void **state)
{
    (void)state;
    nd_yaml_edit *e;
    nd_error err = {0};
    assert_int_equal(nd_yaml_edit_open(&e, write_temp("a: 'x'#c\nb: &n \"y\"#d\n"), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "a", "1000", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "b", "7", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "a: 1000 #c\nb: &n 7 #d\n");
    nd_yaml_edit_free(e);
}

/* Anchors and aliases (issue 25: write-back exited "found undefined alias" after dropping
 * &dp with the old value). Each expected text by hand from yaml_edit.h's rules: an anchored
 * value changes after its anchor (its aliases follow); a value set where an alias is stays
 * the alias if the anchor ends up equal, else the alias is expanded there alone; a mapping
 * written into through an alias becomes a << merge of it. */
static void yaml_anchors_and_aliases(void **state)
{
    (void)state;
    nd_yaml_edit *e;
    nd_error err = {0};
    const char *in = "parallel_config:\n"
                     "  data_parallel: &dp 1  # replicas\n"
                     "  micro_batch_num: &mb 4\n"
                     "parallel:\n"
                     "  dataset_strategy: [[*dp, 1], [*dp, 1]]\n"
                     "cb:\n"
                     "  dp: *dp\n"
                     "  mb: *mb\n";
    assert_int_equal(nd_yaml_edit_open(&e, write_temp(in), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "parallel_config.data_parallel", "8", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "cb.dp", "8", &err), 0); /* equal: stays *dp */
    assert_int_equal(nd_yaml_edit_set_path(e, "cb.mb", "2", &err), 0); /* differs: expanded */
    assert_int_equal(nd_yaml_edit_set_path(e, "parallel_config.micro_batch_num", "16", &err), 0);
    assert_string_equal(nd_yaml_edit_text(e, NULL), "parallel_config:\n"
                                                    "  data_parallel: &dp 8  # replicas\n"
                                                    "  micro_batch_num: &mb 16\n"
                                                    "parallel:\n"
                                                    "  dataset_strategy: [[*dp, 1], [*dp, 1]]\n"
                                                    "cb:\n"
                                                    "  dp: *dp\n"
                                                    "  mb: 2\n");
    nd_yaml_edit_free(e);

    in = "base: &b\n  x: 1\ncfg: *b\nmerged:\n  <<: *b\nctx:\n  c: &c 3\nuse: *c\n";
    assert_int_equal(nd_yaml_edit_open(&e, write_temp(in), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "cfg.y", "2", &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "merged.x", "5", &err), 0);
    assert_int_equal(nd_yaml_edit_remove(e, "ctx", &err), 0); /* defines &c, used after: kept */
    assert_string_equal(nd_yaml_edit_text(e, NULL), "base: &b\n  x: 1\n"
                                                    "cfg:\n  <<: *b\n  y: 2\n"
                                                    "merged:\n  <<: *b\n  x: 5\n"
                                                    "ctx:\n  c: &c 3\nuse: *c\n");
    /* a mapping that only << supplies is not copied to write under it */
    assert_int_equal(nd_yaml_edit_set_path(e, "top.inner.k", "1", &err), 0);
    nd_yaml_edit_free(e);
    assert_int_equal(nd_yaml_edit_open(&e, write_temp("b: &b\n  inner:\n    k: 0\nm:\n  <<: *b\n"), &err), 0);
    assert_int_equal(nd_yaml_edit_set_path(e, "m.inner.k", "1", &err), -1);
    assert_non_null(strstr(err.message, "'inner' comes from a merge key"));
    /* an explicit key (`? key`, its ':' anywhere after) is refused when the file is opened for
     * editing: found by fuzz_yaml_edit, where an edit took the ':' of the next key */
    nd_yaml_edit_free(e);
    e = NULL;
    assert_int_equal(nd_yaml_edit_open(&e, write_temp("trainer:\n  x: 1\n? first\n"), &err), -1);
    assert_non_null(strstr(err.message, ":3: an explicit key (? key)"));
    assert_null(e);
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

/* A key added under a table whose name is no bare key (`' l'.e = 2`: the table " l") is written
 * with that part quoted, so it reads back under " l", not under "l" (found by fuzz_toml); and a
 * new table of such a name gets a quoted header; a name with an empty part is refused. */
static void toml_quoted_table_names(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(nd_toml_load(&t, write_temp("' l'.e = 2\n"), &err), 0);
    assert_int_equal(nd_toml_set(t, " l", "k", "8", &err), 0);
    assert_int_equal(nd_toml_set(t, "a b.c", "k", "9", &err), 0);
    assert_string_equal(nd_toml_get(t, " l", "k", NULL), "8");
    assert_string_equal(nd_toml_get(t, " l", "e", NULL), "2");
    assert_string_equal(nd_toml_get(t, "a b.c", "k", NULL), "9");
    assert_null(nd_toml_get(t, "l", "k", NULL));
    nd_toml_free(t);
    /* '.e' joins into ".e", which no keys name again: refused, the text left as it was */
    assert_int_equal(nd_toml_load(&t, write_temp("'.e'.e = 2\n"), &err), 0);
    assert_int_equal(nd_toml_set(t, ".e", "k", "8", &err), ND_EINPUT);
    assert_string_equal(nd_toml_text(t, NULL), "'.e'.e = 2\n");
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
        cmocka_unit_test(yaml_value_replaced_comments_kept),
        cmocka_unit_test(yaml_missing_sections_created),
        cmocka_unit_test(yaml_empty_and_list_values),
        cmocka_unit_test(toml_read_and_edit),
        cmocka_unit_test(toml_quoted_table_names),
        cmocka_unit_test(toml_errors_name_the_line),
        cmocka_unit_test(yaml_line_breaks_as_libyaml_counts),
        cmocka_unit_test(yaml_value_touching_comment),
        cmocka_unit_test(yaml_anchors_and_aliases),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[64];
    snprintf(path, sizeof path, "/tmp/nd_test_edit_%d.txt", (int)getpid());
    unlink(path);
    return rc;
}
