/* Tests of nd_csv_table, nd-plot's CSV reader.
 *
 * Each case writes a small CSV text (shown in the test, so the expected
 * lines, cells and messages can be read off it by eye) to a temporary file and
 * loads it. Line numbers count every line of the file from 1, blank ones
 * included; a row carries the line it starts on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/charts/csv_table.h"
#include "nd/base/error.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct fixture {
    char path[64];
    nd_csv_table t;
    nd_error err;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->path, sizeof f->path, "/tmp/nd_test_csv_table_XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0) return -1;
    close(fd);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    nd_csv_table_free(&f->t);
    unlink(f->path);
    free(f);
    return 0;
}

/* Writes text (len bytes: it may hold a NUL) to the fixture's file and loads it. */
static int load_bytes(fixture *f, const char *text, size_t len)
{
    FILE *fp = fopen(f->path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    return nd_csv_table_load(f->path, &f->t, &f->err);
}

static int load(fixture *f, const char *text)
{
    return load_bytes(f, text, strlen(text));
}

/* The message is "<path>:<rest>"; checks the rest. */
static void assert_message(const fixture *f, const char *rest)
{
    size_t n = strlen(f->path);
    if (strncmp(f->err.message, f->path, n) != 0 || strcmp(f->err.message + n, rest) != 0)
        fail_msg("message: %s\n   want: %s%s", f->err.message, f->path, rest);
}

/* ---- good files ------------------------------------------------------------- */

static void test_good_file(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "stage, total_mib ,label\n"
                             "0,100.5,a\n"
                             "1,2e3,b\n"),
                     ND_OK);
    assert_int_equal(f->t.n_cols, 3);
    assert_int_equal(f->t.n_rows, 2);
    assert_int_equal(f->t.header_line, 1);
    assert_string_equal(f->t.header[1], "total_mib"); /* trimmed */
    assert_int_equal(f->t.lines[0], 2);
    assert_int_equal(f->t.lines[1], 3);
    assert_int_equal(nd_csv_table_find(&f->t, "label"), 2);
    assert_int_equal(nd_csv_table_find(&f->t, "LABEL"), -1); /* names are exact */
    assert_int_equal(nd_csv_table_find(&f->t, "nope"), -1);
    size_t col = 0;
    assert_int_equal(nd_csv_table_column(&f->t, "total_mib", &col, &f->err), ND_OK);
    assert_int_equal(col, 1);
    double v = 0;
    assert_int_equal(nd_csv_table_number(&f->t, 0, col, &v, &f->err), ND_OK);
    assert_true(v == 100.5);
    assert_int_equal(nd_csv_table_number_required(&f->t, 1, col, &v, &f->err), ND_OK);
    assert_true(v == 2000);
    assert_string_equal(nd_csv_table_cell(&f->t, 1, 2), "b");
}

/* nd's own files have `recompute` (the mode) beside `RECOMPUTE` (a part). */
static void test_names_differing_in_case(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "recompute,RECOMPUTE\noff,0\n"), ND_OK);
    assert_int_equal(nd_csv_table_find(&f->t, "recompute"), 0);
    assert_int_equal(nd_csv_table_find(&f->t, "RECOMPUTE"), 1);
}

static void test_bom_crlf_and_blank_lines(void **state)
{
    fixture *f = *state;
    /* Line 1 blank, header on line 2, line 4 blank, last row on line 5 without a newline. */
    assert_int_equal(load(f, "\xEF\xBB\xBF\r\na,b\r\n1,2\r\n\r\n3,4"), ND_OK);
    assert_int_equal(f->t.header_line, 2);
    assert_string_equal(f->t.header[0], "a"); /* no BOM bytes in the name */
    assert_int_equal(f->t.n_rows, 2);
    assert_int_equal(f->t.lines[0], 3);
    assert_int_equal(f->t.lines[1], 5);
    assert_string_equal(nd_csv_table_cell(&f->t, 1, 1), "4");
}

static void test_quoted_cells(void **state)
{
    fixture *f = *state;
    /* The JSON cell of row 1 doubles its quotes; row 2's label spans lines 3-4,
     * so row 2 starts on line 3 and row 3 on line 5. */
    assert_int_equal(load(f, "\"label\",json\n"
                             "\"DP 8, MP 2\",\"{\"\"0-1\"\": \"\"full\"\"}\"\n"
                             "\"two\nlines\",\"[1, 2]\"\n"
                             "c,d\n"),
                     ND_OK);
    assert_string_equal(f->t.header[0], "label");
    assert_int_equal(f->t.n_rows, 3);
    assert_string_equal(nd_csv_table_cell(&f->t, 0, 0), "DP 8, MP 2");
    assert_string_equal(nd_csv_table_cell(&f->t, 0, 1), "{\"0-1\": \"full\"}");
    assert_string_equal(nd_csv_table_cell(&f->t, 1, 0), "two\nlines");
    assert_int_equal(f->t.lines[1], 3);
    assert_int_equal(f->t.lines[2], 5);
}

static void test_blank_cells(void **state)
{
    fixture *f = *state;
    /* Row 1: empty, quoted empty, spaces, "nan" (nd_format_double's text for a
     * value not available) — all NaN. */
    assert_int_equal(load(f, "a,b,c,d\n,\"\",  ,nan\n"), ND_OK);
    for (size_t c = 0; c < 4; c++) {
        double v = 0;
        assert_int_equal(nd_csv_table_number(&f->t, 0, c, &v, &f->err), ND_OK);
        assert_true(isnan(v));
        if (c < 3) assert_null(nd_csv_table_cell(&f->t, 0, c));
    }
    double v;
    assert_int_equal(nd_csv_table_number_required(&f->t, 0, 1, &v, &f->err), ND_EINPUT);
    assert_message(f, ":2: column 'b' is blank");
}

static void test_header_only(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "a,b\n"), ND_OK);
    assert_int_equal(f->t.n_rows, 0);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_ragged_row(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "a,b,c\n1,2,3\n4,5\n"), ND_EINPUT);
    assert_message(f, ":3: the row has 2 cells, the header 3");
    assert_int_equal(f->t.n_rows, 0); /* emptied on failure */
    assert_null(f->t.cells);
}

static void test_missing_column(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "\na,b\n1,2\n"), ND_OK);
    size_t col = 99;
    assert_int_equal(nd_csv_table_column(&f->t, "score", &col, &f->err), ND_EINPUT);
    assert_message(f, ":2: no column 'score'"); /* the header's line */
    assert_int_equal(col, 99);
}

static void test_not_a_number(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "a,b\n1,2\n3,12abc\n4,inf\n5,\"x\ny\"\n"), ND_OK);
    double v;
    assert_int_equal(nd_csv_table_number(&f->t, 1, 1, &v, &f->err), ND_EINPUT);
    assert_message(f, ":3: column 'b': '12abc' is not a number");
    /* No quantity in nd can be infinite. */
    assert_int_equal(nd_csv_table_number(&f->t, 2, 1, &v, &f->err), ND_EINPUT);
    assert_message(f, ":4: column 'b': 'inf' is not a number");
    /* A newline in a cell must not break the one-line message. */
    assert_int_equal(nd_csv_table_number(&f->t, 3, 1, &v, &f->err), ND_EINPUT);
    assert_message(f, ":5: column 'b': 'x y' is not a number");
}

static void test_long_cell_is_cut(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "a\n"
                             "0123456789012345678901234567890123456789XYZ\n"),
                     ND_OK);
    double v;
    assert_int_equal(nd_csv_table_number(&f->t, 0, 0, &v, &f->err), ND_EINPUT);
    assert_message(f, ":2: column 'a': '0123456789012345678901234567890123456789...' is not a "
                      "number");
}

static void test_empty_file(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, ""), ND_EINPUT);
    assert_message(f, ":1: the file is empty: no header row");
    assert_int_equal(load(f, "\xEF\xBB\xBF\n\n"), ND_EINPUT);
    assert_message(f, ":1: the file is empty: no header row");
}

static void test_bad_header(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, "a,,c\n1,2,3\n"), ND_EINPUT);
    assert_message(f, ":1: column 2 of the header has no name");
    assert_int_equal(load(f, "a,b,a\n1,2,3\n"), ND_EINPUT);
    assert_message(f, ":1: column 'a' appears twice (columns 1 and 3)");
}

static void test_malformed(void **state)
{
    fixture *f = *state;
    /* A quote inside an unquoted cell, on line 3. */
    assert_int_equal(load(f, "a,b\n1,2\n3,4\"5\n"), ND_EINPUT);
    assert_message(f, ":3: malformed CSV: a quote inside an unquoted cell, or text after a "
                      "closing quote");
    /* A quote opened on line 2 and never closed: the row's first line is named. */
    assert_int_equal(load(f, "a,b\n1,\"2\n3,4\n"), ND_EINPUT);
    assert_message(f, ":2: malformed CSV: a quoted cell is never closed");
    assert_int_equal(load_bytes(f, "a,b\n1,\0\n", 8), ND_EINPUT);
    assert_message(f, ":1: holds a NUL byte: not a CSV text file");
}

static void test_missing_file(void **state)
{
    fixture *f = *state;
    assert_int_equal(nd_csv_table_load("/nonexistent/nd.csv", &f->t, &f->err), ND_EINPUT);
    assert_non_null(strstr(f->err.message, "/nonexistent/nd.csv"));
    assert_null(f->t.header);
    nd_csv_table_free(&f->t); /* safe on an emptied table, twice */
    nd_csv_table_free(&f->t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_differing_in_case, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bom_crlf_and_blank_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quoted_cells, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blank_cells, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ragged_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_number, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_cell_is_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
