/* Tests of nd_base: strict number parsing, memory sizes, shortest double text,
 * atomic outputs, inputs that are regular files, a run's outputs committed together. Expected
 * values are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd/base/error.h"
#include "nd/base/io.h"
#include "nd/base/progress.h"
#include "nd/base/text.h"

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
    /* The three-conversion path gives what a search over every precision gives: the
     * smallest precision whose %g text reads back (the definition, done the slow way). */
    unsigned long long bits = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17; /* xorshift64 */
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x) || x == floor(x)) continue;
        if (i % 2) x = (double)(bits % 1000000007) / 1000.0 + 1e-3;                /* ms-like values too */
        if (i % 7 == 0) x = ldexp(1.0, (int)(bits % 80) - 40) * (i % 3 ? 1 : 0.1); /* powers of 2 */
        if (i % 11 == 0) x = pow(10.0, (double)((int)(bits % 30) - 12)) * (1 + (double)(bits % 7) * 1e-16);
        char slow[64];
        for (int p = 1; p <= 17; p++) {
            snprintf(slow, sizeof slow, "%.*g", p, x);
            if (strtod(slow, NULL) == x) break;
        }
        if (x == floor(x)) continue;
        if (strcmp(nd_format_double(x, buf), slow)) fail_msg("%.17g: %s, expected %s", x, buf, slow);
    }
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
    unlink(fifo);
    unlink(file);
    rmdir(dir);
    free(fifo);
    free(file);
}

/* The path lock creates nothing: it locks the file's directory, so an absent file stays
 * absent, and a file replaced by rename while locked is the one nd_path_lock_read reads. */
static void path_lock_follows_replacements(void **state)
{
    (void)state;
    char dir[] = "/tmp/nd_test_base_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = nd_path_join(dir, "round.csv");
    nd_error err = {0};
    nd_path_lock lock;
    assert_int_equal(nd_path_lock_take(&lock, path, &err), 0);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0); /* locking made no file */
    char *data = NULL;
    size_t len = 1;
    assert_int_equal(nd_path_lock_read(path, 100, &data, &len, &err), 0);
    assert_null(data);
    assert_int_equal(len, 0);
    assert_int_equal(nd_write_file_atomic(path, "a\n", 2, &err), 0); /* replaced under the lock */
    assert_int_equal(nd_path_lock_read(path, 100, &data, &len, &err), 0);
    assert_string_equal(data, "a\n");
    free(data);
    int other = open(dir, O_RDONLY);
    assert_true(other >= 0);
    assert_int_not_equal(flock(other, LOCK_EX | LOCK_NB), 0); /* the directory is held */
    nd_path_lock_release(&lock);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
    close(other);
    unlink(path);
    rmdir(dir);
    free(path);
}

/* ---- inputs and the run's outputs (base/io.c, base/outputs.c) -------------------------- */

/* A scratch directory with helpers to write and read small files. */
static char *scratch(void)
{
    char tmpl[] = "/tmp/nd_test_run_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return nd_strdup(tmpl);
}

static void put(const char *dir, const char *name, const char *text)
{
    char *p = nd_path_join(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* The content of dir/name ("" when missing), in a static buffer. */
static const char *get(const char *dir, const char *name)
{
    static char text[256];
    char *p = nd_path_join(dir, name);
    FILE *f = fopen(p, "r");
    free(p);
    text[0] = '\0';
    if (!f) return text;
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* How many entries dir holds (hidden ones included). */
static int entries(const char *dir)
{
    char *cmd = nd_path_printf("ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    free(cmd);
    return n;
}

static void rm_tree(char *dir)
{
    char *cmd = nd_path_printf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(dir);
}

static void write_text(const char *dir, const char *name, const char *text, int expect)
{
    char *p = nd_path_join(dir, name);
    nd_error err = {0};
    assert_int_equal(nd_write_file_atomic(p, text, strlen(text), &err), expect);
    free(p);
}

/* A FIFO would block a plain fopen() forever (no writer ever comes): refused at once. */
static void inputs_are_regular_files(void **state)
{
    (void)state;
    char *dir = scratch();
    char *fifo = nd_path_join(dir, "pipe.yaml");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char *text = NULL;
    nd_error err = {0};
    assert_int_equal(nd_read_file(fifo, 1 << 20, &text, NULL, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "pipe.yaml: is a FIFO, not a regular file"));
    assert_int_equal(nd_read_file(dir, 1 << 20, &text, NULL, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "is a directory, not a regular file"));
    assert_int_equal(nd_read_file("/dev/zero", 1 << 20, &text, NULL, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "is a character device"));
    /* exactly max_bytes is allowed, one more byte is not */
    put(dir, "ten", "0123456789");
    char *ten = nd_path_join(dir, "ten");
    size_t len = 0;
    assert_int_equal(nd_read_file(ten, 10, &text, &len, &err), ND_OK);
    assert_int_equal(len, 10);
    free(text);
    assert_int_equal(nd_read_file(ten, 9, &text, &len, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "larger than the 9 bytes allowed"));
    free(ten);
    free(fifo);
    rm_tree(dir);
}

/* Inside a run, no output may replace a file the run read, by any name. */
static void outputs_never_replace_inputs(void **state)
{
    (void)state;
    char *dir = scratch();
    put(dir, "round.csv", "measured\n");
    char *round = nd_path_join(dir, "round.csv"), *hard = nd_path_join(dir, "hard.csv");
    char *soft = nd_path_join(dir, "soft.csv");
    assert_int_equal(link(round, hard), 0);
    assert_int_equal(symlink("round.csv", soft), 0);
    nd_outputs_begin();
    char *text = NULL;
    nd_error err = {0};
    assert_int_equal(nd_read_file(round, 1 << 20, &text, NULL, &err), ND_OK);
    free(text);
    write_text(dir, "round.csv", "fitted\n", ND_EINPUT);
    write_text(dir, "hard.csv", "fitted\n", ND_EINPUT);
    write_text(dir, "soft.csv", "fitted\n", ND_EINPUT);
    write_text(dir, "./round.csv", "fitted\n", ND_EINPUT);
    nd_outfile out;
    assert_int_equal(nd_outfile_open(&out, round, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "round.csv: is also an input of this run"));
    write_text(dir, "ratios.json", "{}\n", ND_OK);
    assert_int_equal(nd_outputs_commit(&err), ND_OK);
    assert_string_equal(get(dir, "round.csv"), "measured\n");
    assert_string_equal(get(dir, "ratios.json"), "{}\n");
    /* outside a run nothing is remembered: the library replaces what it is told to */
    write_text(dir, "round.csv", "fitted\n", ND_OK);
    assert_string_equal(get(dir, "round.csv"), "fitted\n");
    free(round);
    free(hard);
    free(soft);
    rm_tree(dir);
}

/* Two outputs of one run with one name: refused (the second would silently win). */
static void outputs_named_twice_are_refused(void **state)
{
    (void)state;
    char *dir = scratch();
    nd_outputs_begin();
    write_text(dir, "x.json", "ratios\n", ND_OK);
    nd_error err = {0};
    char *again = nd_path_printf("%s/./x.json", dir);
    assert_int_equal(nd_write_file_atomic(again, "report\n", 7, &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "is named twice as an output of this run"));
    assert_int_equal(nd_outputs_commit(&err), ND_OK);
    assert_string_equal(get(dir, "x.json"), "ratios\n");
    free(again);
    rm_tree(dir);
}

/* A failed run replaces nothing: staged outputs are removed, earlier files stay. */
static void aborted_run_replaces_nothing(void **state)
{
    (void)state;
    char *dir = scratch();
    put(dir, "a.csv", "old a\n");
    nd_outputs_begin();
    write_text(dir, "a.csv", "new a\n", ND_OK);
    write_text(dir, "b.csv", "new b\n", ND_OK);
    assert_string_equal(get(dir, "a.csv"), "old a\n"); /* staged, not yet renamed */
    nd_outputs_abort();
    assert_string_equal(get(dir, "a.csv"), "old a\n");
    assert_string_equal(get(dir, "b.csv"), "");
    assert_int_equal(entries(dir), 1);
    rm_tree(dir);
}

/* A rename that fails half-way through the commit puts back the outputs already renamed:
 * here the third destination becomes a directory after it was staged, so rename() fails
 * (EISDIR) after a.csv and b.csv were replaced. */
static void failed_commit_puts_back_every_output(void **state)
{
    (void)state;
    char *dir = scratch();
    put(dir, "a.csv", "old a\n");
    nd_outputs_begin();
    write_text(dir, "a.csv", "new a\n", ND_OK);
    write_text(dir, "b.csv", "new b\n", ND_OK);
    write_text(dir, "c.csv", "new c\n", ND_OK);
    char *c = nd_path_join(dir, "c.csv");
    assert_int_equal(mkdir(c, 0700), 0);
    nd_error err = {0};
    assert_int_equal(nd_outputs_commit(&err), ND_EIO);
    assert_non_null(strstr(err.message, "c.csv: cannot write:"));
    assert_string_equal(get(dir, "a.csv"), "old a\n");
    assert_string_equal(get(dir, "b.csv"), ""); /* it did not exist before */
    assert_int_equal(entries(dir), 2);          /* a.csv and the directory c.csv */
    rmdir(c);
    free(c);
    rm_tree(dir);
}

/* Inside a run, a round's lock is held until the staged append is renamed: released at
 * once, a second writer could read the old file and lose this row (issue 17, case 3). */
static void run_holds_round_locks_until_commit(void **state)
{
    (void)state;
    char *dir = scratch();
    put(dir, "round.csv", "time\n1\n");
    char *path = nd_path_join(dir, "round.csv");
    nd_outputs_begin();
    nd_error err = {0};
    nd_path_lock lock;
    assert_int_equal(nd_path_lock_take(&lock, path, &err), ND_OK);
    write_text(dir, "round.csv", "time\n1\n2\n", ND_OK);
    nd_path_lock_release(&lock);
    int other = open(dir, O_RDONLY); /* the lock is on the round's directory */
    assert_true(other >= 0);
    assert_int_not_equal(flock(other, LOCK_EX | LOCK_NB), 0); /* still held by the run */
    assert_int_equal(nd_outputs_commit(&err), ND_OK);
    assert_string_equal(get(dir, "round.csv"), "time\n1\n2\n");
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0); /* released with the commit */
    close(other);
    free(path);
    rm_tree(dir);
}

/* A legal 250-byte file name has a legal temporary (NAME_MAX is 255 on Linux). */
static void long_output_names_work(void **state)
{
    (void)state;
    char *dir = scratch();
    char name[251];
    memset(name, 'n', 250);
    name[250] = '\0';
    nd_outputs_begin();
    write_text(dir, name, "long\n", ND_OK);
    nd_error err = {0};
    assert_int_equal(nd_outputs_commit(&err), ND_OK);
    assert_string_equal(get(dir, name), "long\n");
    assert_int_equal(entries(dir), 1);
    rm_tree(dir);
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

/* "Did you mean": each expected pair is a typo a user makes, worked out by hand as the
 * optimal-string-alignment distance after folding case and '-'/'_': "reall_csv" -> "real_csv"
 * deletes one letter (1); "tmie" -> "time" swaps two neighbours (1); "budg" is the first four
 * letters of "budget" (a prefix); "frobnicate" is 8+ edits from every name (none). */
static void nearest_names(void **state)
{
    (void)state;
    static const char *const flags[] = {"real_csv", "write_ratios", "format", "budget", "time"};
    assert_string_equal(nd_text_nearest("--reall_csv", flags, 5), "real_csv");
    assert_string_equal(nd_text_nearest("--Real-CSV", flags, 5), "real_csv");
    assert_string_equal(nd_text_nearest("tmie", flags, 5), "time");
    assert_string_equal(nd_text_nearest("budg", flags, 5), "budget");
    assert_string_equal(nd_text_nearest("formt", flags, 5), "format");
    assert_null(nd_text_nearest("frobnicate", flags, 5));
    assert_null(nd_text_nearest("", flags, 5));
    /* Short words allow one edit only: "xy" is two from "time"'s every prefix. */
    assert_null(nd_text_nearest("xy", flags, 5));
    char near[32];
    assert_true(nd_text_nearest_in_list("H10", "V100, A100, H100, H200", near, sizeof near));
    assert_string_equal(near, "H100"); /* one insertion; A100/V100/H200 need two */
    assert_true(nd_text_nearest_in_list("MPP", "DP MP/TP PP CP", near, sizeof near));
    assert_string_equal(near, "MP"); /* MP and PP are both one deletion away: the first wins */
    assert_false(nd_text_nearest_in_list("sequence_parallel", "seq_len, global_batch", near, sizeof near));
    char hint[ND_TEXT_HINT_MAX];
    assert_string_equal(nd_text_hint("seq_lenn", "seq_len, global_batch", hint), "did you mean 'seq_len'? ");
    assert_string_equal(nd_text_hint("zzz", "seq_len, global_batch", hint), "");
}

/* Progress: with the threshold at 0 ms and stderr a file, a line per 10 % crossed, the time
 * left on each but the last, and a closing line; silent with out NULL. */
static void progress_lines(void **state)
{
    (void)state;
    setenv("ND_PROGRESS_AFTER_MS", "0", 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    nd_progress p;
    nd_progress_begin(&p, fp, "nd-test: pricing", "layouts", 20);
    for (int done = 1; done <= 20; done++) nd_progress_update(&p, done);
    nd_progress_end(&p);
    fclose(fp);
    /* 1/20 is 5 % (decile 0), 2/20 is 10 % (decile 1) ... 19/20 decile 9: ten lines; 20/20 is
     * left to the closing line, which says the step is done: eleven lines. */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    assert_int_equal(lines, 11);
    assert_non_null(strstr(buf, "nd-test: pricing 5 % (1 of 20 layouts), "));
    assert_non_null(strstr(buf, "left\n"));
    assert_null(strstr(buf, "100 %"));
    assert_non_null(strstr(buf, "nd-test: pricing done in "));
    free(buf);
    nd_progress q;
    nd_progress_begin(&q, NULL, "silent", "", 10);
    nd_progress_update(&q, 5);
    nd_progress_end(&q); /* nothing to write to: must not crash */
    unsetenv("ND_PROGRESS_AFTER_MS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_double_is_strict),
        cmocka_unit_test(nearest_names),
        cmocka_unit_test(progress_lines),
        cmocka_unit_test(parse_int_bounds),
        cmocka_unit_test(memory_sizes_in_mib),
        cmocka_unit_test(shortest_doubles_round_trip),
        cmocka_unit_test(outfile_commit_and_discard),
        cmocka_unit_test(path_helpers),
        cmocka_unit_test(only_regular_files_are_read),
        cmocka_unit_test(path_lock_follows_replacements),
        cmocka_unit_test(exit_status_mapping),
        cmocka_unit_test(inputs_are_regular_files),
        cmocka_unit_test(outputs_never_replace_inputs),
        cmocka_unit_test(outputs_named_twice_are_refused),
        cmocka_unit_test(aborted_run_replaces_nothing),
        cmocka_unit_test(failed_commit_puts_back_every_output),
        cmocka_unit_test(long_output_names_work),
        cmocka_unit_test(run_holds_round_locks_until_commit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
