/* Tests of nd's TOML reader (base/toml.c) against TOML 1.0 as Python's tomllib reads it: the
 * numbers of TOML's grammar (toml.io/en/v1.0.0 §Integer, §Float: 1_0 is 10, 0x8 is 8, 08 is
 * refused), inline tables and dotted keys read as the tables they define and edited where
 * they stand, the table rules tomllib enforces (a table defined twice, [[x]] after [x]),
 * \u escapes, UTF-16 refused by name. Each accept/refuse was checked with tomllib
 * (Python 3.11) by hand. */
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

static const char *write_bytes(const char *text, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/nd_test_toml_%d.toml", (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
    return path;
}

static const char *write_temp(const char *text)
{
    return write_bytes(text, strlen(text));
}

/* The value of a = ... at the top level, or NULL when the file is refused (message in err). */
static const char *value_of(const char *text, nd_toml **t, nd_error *err)
{
    *t = NULL;
    if (nd_toml_load(t, write_temp(text), err)) return NULL;
    return nd_toml_get(*t, "", "a", NULL);
}

static void numbers_by_toml_grammar(void **state)
{
    (void)state;
    static const struct {
        const char *text, *value; /* NULL: refused */
        nd_toml_type type;
    } cases[] = {
        {"a = 1_0\n", "10", ND_TOML_INTEGER},
        {"a = 0x8\n", "8", ND_TOML_INTEGER},
        {"a = 0o10\n", "8", ND_TOML_INTEGER},
        {"a = 0b1000\n", "8", ND_TOML_INTEGER},
        {"a = 0xdead_BEEF\n", "3735928559", ND_TOML_INTEGER},
        {"a = +5\n", "5", ND_TOML_INTEGER},
        {"a = -0\n", "0", ND_TOML_INTEGER},
        {"a = 8e0\n", "8e0", ND_TOML_FLOAT},
        {"a = 4.5\n", "4.5", ND_TOML_FLOAT},
        {"a = 1E-5_0\n", "1E-50", ND_TOML_FLOAT},
        {"a = inf\n", "inf", ND_TOML_FLOAT},
        {"a = -nan\n", "-nan", ND_TOML_FLOAT},
        {"a = true\n", "true", ND_TOML_BOOL},
        {"a = [8]\n", "[8]", ND_TOML_ARRAY},
        {"a = 1979-05-27T07:32:00Z\n", NULL, ND_TOML_DATETIME},
        {"a = 08\n", NULL, 0},
        {"a = 00\n", NULL, 0},
        {"a = 1__0\n", NULL, 0},
        {"a = 1_\n", NULL, 0},
        {"a = _1\n", NULL, 0},
        {"a = 0x_8\n", NULL, 0},
        {"a = +0x8\n", NULL, 0},
        {"a = .5\n", NULL, 0},
        {"a = 5.\n", NULL, 0},
        {"a = 1e\n", NULL, 0},
        {"a = True\n", NULL, 0},
        {"a = 1979-05-27T07:32\n", NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_toml *t;
        nd_error err = {0};
        const char *v = value_of(cases[i].text, &t, &err);
        if (cases[i].type) {
            if (!t) fail_msg("%s refused: %s", cases[i].text, err.message);
            if (cases[i].value) assert_string_equal(v, cases[i].value);
            assert_int_equal(nd_toml_type_of(t, "", "a"), cases[i].type);
        } else if (t) {
            fail_msg("%s read as %s", cases[i].text, v);
        } else {
            assert_non_null(strstr(err.message, ":1: key 'a': "));
        }
        nd_toml_free(t);
    }
    nd_toml *t;
    nd_error err = {0};
    assert_null(value_of("a = 08\n", &t, &err));
    assert_non_null(strstr(err.message, "'08' has a leading zero, which TOML refuses"));
}

static void integers_checked_for_their_reader(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(
        nd_toml_load(&t, write_temp("[p]\na = 4.5\nb = 8\nc = 9223372036854775808\nd = \"8\"\n"), &err), 0);
    int64_t v = 7;
    int line = -1;
    assert_int_equal(nd_toml_int(t, "p", "absent", 1, 100, &v, &line, &err), 0);
    assert_int_equal(v, 7); /* untouched */
    assert_int_equal(line, 0);
    assert_int_equal(nd_toml_int(t, "p", "b", 1, 100, &v, &line, &err), 0);
    assert_int_equal(v, 8);
    assert_int_equal(line, 3);
    assert_int_equal(nd_toml_int(t, "p", "a", 1, 100, &v, &line, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":2: key 'p.a': 4.5 is a float, not an integer"));
    assert_int_equal(nd_toml_int(t, "p", "b", 1, 4, &v, &line, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":3: key 'p.b': 8 is out of range (1 to 4)"));
    assert_int_equal(nd_toml_int(t, "p", "c", INT64_MIN, INT64_MAX, &v, &line, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":4: key 'p.c': 9223372036854775808 is out of range"));
    assert_int_equal(nd_toml_int(t, "p", "d", 1, 100, &v, &line, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":5: key 'p.d': \"8\" is a string, not an integer"));
    nd_toml_free(t);
}

static void strings_decoded(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    /* é is U+00E9 (C3 A9), 😀 U+1F600 (F0 9F 98 80) */
    assert_string_equal(value_of("a = \"\\u00e9\\U0001F600\"\n", &t, &err), "\xC3\xA9\xF0\x9F\x98\x80");
    nd_toml_free(t);
    assert_string_equal(value_of("a = \"\"\"\nab\\\n   c\"\"\"\n", &t, &err), "abc");
    nd_toml_free(t);
    assert_string_equal(value_of("a = \"\"\"x\"\"\"\"\n", &t, &err), "x\"");
    nd_toml_free(t);
    assert_string_equal(value_of("a = 'c:\\q'\n", &t, &err), "c:\\q");
    nd_toml_free(t);
    assert_null(value_of("a = \"\\q\"\n", &t, &err));
    assert_non_null(strstr(err.message, ":1: a string has an escape TOML does not know"));
    assert_null(value_of("a = \"\\uD800\"\n", &t, &err));
    assert_non_null(strstr(err.message, "not a Unicode scalar value"));
    assert_null(value_of("a = \"x\x01y\"\n", &t, &err));
    assert_non_null(strstr(err.message, "a string holds a control character"));
}

static void inline_and_dotted_tables(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    int line;
    assert_int_equal(nd_toml_load(&t,
                                  write_temp("# degrees\nparallelism = {tensor_parallel_degree = 8, "
                                             "data_parallel_shard_degree = 4}\n[model]\nname = 'x'\n"),
                                  &err),
                     0);
    assert_string_equal(nd_toml_get(t, "parallelism", "tensor_parallel_degree", &line), "8");
    assert_int_equal(line, 2);
    assert_true(nd_toml_has_table(t, "parallelism"));
    /* edited inside the braces, a new key added inside them: never a second [parallelism] */
    assert_int_equal(nd_toml_set(t, "parallelism", "tensor_parallel_degree", "2", &err), 0);
    assert_int_equal(nd_toml_set(t, "parallelism", "pipeline_parallel_degree", "4", &err), 0);
    assert_string_equal(nd_toml_text(t, NULL),
                        "# degrees\nparallelism = {tensor_parallel_degree = 2, "
                        "data_parallel_shard_degree = 4, pipeline_parallel_degree = 4}\n"
                        "[model]\nname = 'x'\n");
    nd_toml_free(t);

    assert_int_equal(nd_toml_load(&t,
                                  write_temp("parallelism.tensor_parallel_degree = 8\n\n[model]\nname = "
                                             "'x'\n"),
                                  &err),
                     0);
    assert_string_equal(nd_toml_get(t, "parallelism", "tensor_parallel_degree", NULL), "8");
    assert_int_equal(nd_toml_set(t, "parallelism", "tensor_parallel_degree", "2", &err), 0);
    assert_int_equal(nd_toml_set(t, "parallelism", "pipeline_parallel_degree", "4", &err), 0);
    assert_string_equal(nd_toml_text(t, NULL),
                        "parallelism.tensor_parallel_degree = 2\n"
                        "parallelism.pipeline_parallel_degree = 4\n\n[model]\nname = 'x'\n");
    nd_toml_free(t);

    /* an array of tables cannot take a key as a table: refused, the text kept */
    assert_int_equal(nd_toml_load(&t, write_temp("[[p]]\nx = 1\n"), &err), 0);
    assert_int_equal(nd_toml_set(t, "p", "y", "2", &err), ND_EINPUT);
    assert_string_equal(nd_toml_text(t, NULL), "[[p]]\nx = 1\n");
    nd_toml_free(t);

    /* a quoted table name of 100 tabs is written \u0009 each, 600 characters: more than the
     * path's room. Refused with the text kept (it was cut, adding the key to another table;
     * a fuzz finding kept in tests/fuzz/regressions/toml/) */
    char text[256] = "'a", *q = text + 2;
    for (int i = 0; i < 100; i++) *q++ = '\t';
    strcpy(q, "b'.e = 2\n");
    assert_int_equal(nd_toml_load(&t, write_temp(text), &err), 0);
    char table[128] = "a";
    memset(table + 1, '\t', 100);
    strcpy(table + 101, "b");
    assert_string_equal(nd_toml_get(t, table, "e", NULL), "2");
    assert_int_equal(nd_toml_set(t, table, "f", "4", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "its name is too long"));
    assert_string_equal(nd_toml_text(t, NULL), text);
    nd_toml_free(t);
}

static void tables_defined_once(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"[p]\nx = 1\n[p]\n", ":3: [p]: the table is already defined (line 1)"},
        {"[p]\n[[p]]\n", ":2: [[p]]: 'p' is already a table (line 1), not an array of tables"},
        {"[[p]]\n[p]\n", ":2: [p]: the table is already defined (line 1, as an array of tables)"},
        {"p = {t = 8}\n[p]\n", ":2: [p]: the table is already defined (line 1, as an inline table)"},
        {"p.t = 8\n[p]\n", ":2: [p]: the table is already defined (line 1, by dotted keys)"},
        {"p = {t = 8}\np.x = 1\n", ":2: an inline table cannot be extended"},
        {"a = 1\na.b = 2\n", ":2: 'a' is a value (line 1), not a table"},
        {"[a.b]\n[a]\nb.c = 1\n", ":3: dotted keys cannot add to table 'a.b'"},
        {"p = {t = 8,}\n", ":1: an inline table ends with ','"},
        {"a = 1\rb = 2\n", ":1: expected the end of the line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_toml *t;
        nd_error err = {0};
        if (!nd_toml_load(&t, write_temp(cases[i].text), &err)) {
            nd_toml_free(t);
            fail_msg("%s accepted", cases[i].text);
        }
        if (!strstr(err.message, cases[i].message)) fail_msg("%s: %s", cases[i].text, err.message);
    }
    /* what tomllib accepts */
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(nd_toml_load(&t,
                                  write_temp("[[p]]\nx = 1\n[[p]]\nx = 2\n[a.b]\nx = 1\n[a]\ny = 2\n"
                                             "q.t = 8\n[q.r]\nx = 1\n"),
                                  &err),
                     0);
    assert_string_equal(nd_toml_get(t, "a", "y", NULL), "2");
    assert_string_equal(nd_toml_get(t, "q.r", "x", NULL), "1");
    nd_toml_free(t);
}

static void utf16_named(void **state)
{
    (void)state;
    nd_toml *t;
    nd_error err = {0};
    assert_int_equal(nd_toml_load(&t,
                                  write_bytes("\xFF\xFE"
                                              "a\0 \0=\0 \0"
                                              "1\0\n\0",
                                              14),
                                  &err),
                     ND_EINPUT);
    assert_non_null(strstr(err.message, "UTF-16: TOML files are UTF-8"));
    assert_int_equal(nd_toml_load(&t,
                                  write_bytes("\0a\0 \0=\0 \0"
                                              "1\0\n",
                                              12),
                                  &err),
                     ND_EINPUT);
    assert_non_null(strstr(err.message, "UTF-16: TOML files are UTF-8"));
    assert_int_equal(nd_toml_load(&t, write_bytes("a = 1\nb = \"\xC3\x28\"\n", 12), &err), ND_EINPUT);
    assert_non_null(strstr(err.message, ":2: byte 0xc3 is not UTF-8: TOML files are UTF-8"));
    assert_int_equal(nd_toml_load(&t, write_bytes("a = \"\xED\xA0\x80\"\n", 9), &err),
                     ND_EINPUT); /* U+D800 */
    assert_int_equal(nd_toml_load(&t, write_bytes("a = 1\n# x\0\n", 11), &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "holds a NUL byte"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_by_toml_grammar), cmocka_unit_test(integers_checked_for_their_reader),
        cmocka_unit_test(strings_decoded),         cmocka_unit_test(inline_and_dotted_tables),
        cmocka_unit_test(tables_defined_once),     cmocka_unit_test(utf16_named),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[64];
    snprintf(path, sizeof path, "/tmp/nd_test_toml_%d.toml", (int)getpid());
    remove(path);
    return rc;
}
