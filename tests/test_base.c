/* Tests of nd_base: strict number parsing, memory sizes, shortest double text,
 * atomic outputs. Expected values are written out by hand. */
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

#include "nd/error.h"
#include "nd/io.h"
#include "nd/text.h"

static void parse_double_is_strict(void **state)
{
    (void)state;
    double v;
    assert_int_equal(nd_parse_double(" 1.5 ", &v), 0);
    assert_true(v == 1.5);
    assert_int_equal(nd_parse_double("1e-3", &v), 0);
    assert_true(v == 1e-3);
    assert_int_equal(nd_parse_double("12abc", &v), -1);
    assert_int_equal(nd_parse_double("", &v), -1);
    assert_int_equal(nd_parse_double("nan", &v), -1);
    assert_int_equal(nd_parse_double("inf", &v), -1);
    assert_int_equal(nd_parse_double("0x10", &v), -1);
    assert_int_equal(nd_parse_double("1e999", &v), -1);
}

static void parse_int_bounds(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(nd_parse_int64("8", 1, 100, &v), 0);
    assert_int_equal(v, 8);
    assert_int_equal(nd_parse_int64("8.0", 1, 100, &v), 0);
    assert_int_equal(nd_parse_int64("8.5", 1, 100, &v), -1);
    assert_int_equal(nd_parse_int64("0", 1, 100, &v), -1);
    assert_int_equal(nd_parse_int64("-3", 1, 100, &v), -1);
    assert_int_equal(nd_parse_int64("1e3", 1, 10000, &v), -1);
}

static void memory_sizes_in_mib(void **state)
{
    (void)state;
    double mib;
    assert_int_equal(nd_parse_memory_mib("58GB", &mib), 0);
    assert_true(mib == 58.0 * 1024); /* GB = 2^30 bytes, as ND */
    assert_int_equal(nd_parse_memory_mib("512 MiB", &mib), 0);
    assert_true(mib == 512);
    assert_int_equal(nd_parse_memory_mib("64", &mib), 0);
    assert_true(mib == 64.0 * 1024); /* bare number: GiB */
    assert_int_equal(nd_parse_memory_mib("1.5TB", &mib), 0);
    assert_true(mib == 1.5 * 1024 * 1024);
    assert_int_equal(nd_parse_memory_mib("58 parsecs", &mib), -1);
    assert_int_equal(nd_parse_memory_mib("-1GB", &mib), -1);
}

static void shortest_doubles_round_trip(void **state)
{
    (void)state;
    char buf[ND_DOUBLE_TEXT_MAX];
    assert_string_equal(nd_format_double(0.1, buf), "0.1");
    assert_string_equal(nd_format_double(0.1 + 0.2, buf), "0.30000000000000004");
    assert_string_equal(nd_format_double(1.0 / 3.0, buf), "0.3333333333333333");
    assert_string_equal(nd_format_double(1234.5, buf), "1234.5");
    assert_string_equal(nd_format_double(0.0, buf), "0");
    assert_string_equal(nd_format_double(100.0, buf), "100");
    assert_string_equal(nd_format_double(-5500.0, buf), "-5500");
    assert_string_equal(nd_format_double(1e300, buf), "1e+300");
    assert_string_equal(nd_format_double(5e-324, buf), "5e-324");
}

static void outfile_commit_and_discard(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd_test_base_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = nd_path_join(dir, "out.txt");
    nd_error err = {0};
    assert_int_equal(nd_write_file_atomic(path, "old\n", 4, &err), 0);

    /* A discarded output leaves the earlier file as it was. */
    nd_outfile out;
    assert_int_equal(nd_outfile_open(&out, path, &err), 0);
    fputs("half a new file", out.fp);
    nd_outfile_discard(&out);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(nd_read_file(path, 1 << 20, &text, &len, &err), 0);
    assert_string_equal(text, "old\n");
    free(text);

    /* An output into a missing directory fails cleanly with the path in the message. */
    char *bad = nd_path_join(dir, "missing/out.txt");
    assert_int_equal(nd_write_file_atomic(bad, "x", 1, &err), ND_EIO);
    assert_non_null(strstr(err.message, "missing/out.txt"));
    free(bad);

    unlink(path);
    rmdir(dir);
    free(path);
}

/* A FIFO is refused at once (a reader would otherwise wait for a writer forever); a
 * directory too; a regular file opens. */
static void only_regular_files_are_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd_test_base_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *fifo = nd_path_join(dir, "fifo"), *file = nd_path_join(dir, "file");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    nd_error err = {0};
    char *text = NULL;
    assert_int_equal(nd_read_file(fifo, 1 << 20, &text, NULL, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "fifo: is a FIFO, not a regular file"));
    assert_int_equal(nd_open_regular(dir, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "is a directory, not a regular file"));
    assert_int_equal(nd_write_file_atomic(file, "x", 1, &err), 0);
    FILE *f = nd_fopen_regular(file, &err);
    assert_non_null(f);
    assert_int_equal(fgetc(f), 'x');
    fclose(f);
    unlink(fifo), unlink(file), rmdir(dir);
    free(fifo), free(file);
}

/* The path lock creates an absent file and removes it again when nothing was written;
 * a file replaced by rename while locked is still the one the next lock takes. */
static void path_lock_follows_replacements(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd_test_base_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = nd_path_join(dir, "round.csv");
    nd_error err = {0};
    nd_path_lock lock;
    assert_int_equal(nd_path_lock_take(&lock, path, &err), 0);
    assert_true(lock.created);
    nd_path_lock_release(&lock, path, true);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0); /* the empty file it made is gone */

    assert_int_equal(nd_path_lock_take(&lock, path, &err), 0);
    assert_int_equal(nd_write_file_atomic(path, "a\n", 2, &err), 0); /* replaced under the lock */
    nd_path_lock_release(&lock, path, true);
    assert_int_equal(stat(path, &st), 0); /* not the created file any more: kept */
    assert_int_equal(nd_path_lock_take(&lock, path, &err), 0);
    assert_false(lock.created);
    char c = 0;
    assert_int_equal(read(lock.fd, &c, 1), 1); /* the lock holds the new file */
    assert_int_equal(c, 'a');
    nd_path_lock_release(&lock, path, true);
    unlink(path), rmdir(dir);
    free(path);
}

static void path_helpers(void **state)
{
    (void)state;
    char *s = nd_path_stem("out/round.csv");
    assert_string_equal(s, "round");
    free(s);
    s = nd_path_dir("round.csv");
    assert_string_equal(s, ".");
    free(s);
    s = nd_path_join("a/", "b");
    assert_string_equal(s, "a/b");
    free(s);
}

static void exit_status_mapping(void **state)
{
    (void)state;
    assert_int_equal(nd_exit_status(ND_OK), 0);
    assert_int_equal(nd_exit_status(ND_EINPUT), 2);
    assert_int_equal(nd_exit_status(ND_EUSAGE), 2);
    assert_int_equal(nd_exit_status(ND_EIO), 1);
    assert_int_equal(nd_exit_status(ND_ERUNTIME), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_double_is_strict),
        cmocka_unit_test(parse_int_bounds),
        cmocka_unit_test(memory_sizes_in_mib),
        cmocka_unit_test(shortest_doubles_round_trip),
        cmocka_unit_test(outfile_commit_and_discard),
        cmocka_unit_test(path_helpers),
        cmocka_unit_test(only_regular_files_are_read),
        cmocka_unit_test(path_lock_follows_replacements),
        cmocka_unit_test(exit_status_mapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
