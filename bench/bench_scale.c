/* bench_scale: the time and peak memory of every nd binary at 10x, 100x and 1,000x the size
 * of a sample input, along each axis an input grows on — rows of a round, layers of a model,
 * stages of a memory CSV, keys of a config.json, events of a trace, ranks of a run — to show
 * that cost grows linearly (10x per step) and memory stays bounded (docs/benchmarks.md).
 *
 * `bench_scale [DIR]` writes its inputs under DIR (default /tmp), runs each binary in a child
 * (wall time by the clock, peak RSS from wait4's rusage), prints a table and removes the
 * inputs. Prints figures; exits 1 only when a binary fails. */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nd/base/array.h"

static const char *dir;
static int failures;

typedef struct measure {
    double wall_s;
    long rss_kib;
} measure;

/* "a/b" in one of a few rotating buffers: arguments live until the run that uses them. */
static char *joined(const char *a, const char *b)
{
    static char buf[12][4096];
    static int next;
    char *p = buf[next++ % 12];
    snprintf(p, 4096, "%s/%s", a, b);
    return p;
}

static char *path_of(const char *name)
{
    return joined(dir, name);
}

static FILE *create(const char *name)
{
    FILE *f = fopen(path_of(name), "w");
    if (!f) {
        fprintf(stderr, "bench_scale: cannot write %s: %s\n", path_of(name), strerror(errno));
        exit(1);
    }
    return f;
}

/* Runs argv (a NULL-terminated list) with stdout to /dev/null; wall time and peak RSS. */
static measure run(char *const argv[])
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(stdout); /* else the child flushes our buffered table too */
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(path_of("stderr.txt"), "w", stderr)) _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char line[512] = "";
        FILE *e = fopen(path_of("stderr.txt"), "r");
        while (e && fgets(line, sizeof line, e)) {
        }
        if (e) fclose(e);
        fprintf(stderr, "bench_scale: %s %s failed: %s", argv[0], argv[1] ? argv[1] : "", line);
        failures++;
    }
    return (measure){(double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
                     ru.ru_maxrss};
}

/* ---- inputs, n times a sample's size ----------------------------------------------------- */

static const char *source_dir = ND_SOURCE_DIR;

/* A round of n rows: the sample round's 12 rows in turn, each step a little slower. */
static void write_round(long n)
{
    char sample[4096], line[1024], rows[16][1024], header[1024] = "";
    snprintf(sample, sizeof sample, "%s/samples/rounds/llama3-8b-h100.csv", source_dir);
    FILE *in = fopen(sample, "r");
    int count = 0;
    while (in && fgets(line, sizeof line, in) && count < 16) {
        if (!header[0])
            snprintf(header, sizeof header, "%s", line);
        else
            snprintf(rows[count++], sizeof rows[0], "%s", line);
    }
    if (in) fclose(in);
    if (!count) {
        fprintf(stderr, "bench_scale: cannot read %s\n", sample);
        exit(1);
    }
    /* the time column: the same strategy measured again, 0.1 ms slower each time round */
    int time_col = 0;
    for (char *c = header, *t; (t = strchr(c, ',')); c = t + 1, time_col++)
        if (!strncmp(c, "time,", 5)) break;
    FILE *f = create("round.csv");
    fputs(header, f);
    for (long i = 0; i < n; i++) {
        const char *row = rows[i % count];
        int col = 0;
        for (const char *p = row; *p; p++) {
            if (col == time_col && (p == row || p[-1] == ',')) {
                double t = strtod(p, NULL) + 0.1 * (double)(i / count);
                fprintf(f, "%.3f", t);
                while (*p && *p != ',' && *p != '\n') p++;
                if (!*p) break;
            }
            fputc(*p, f);
            if (*p == ',') col++;
        }
    }
    fclose(f);
}

/* A small dense model of n layers, sized so that -ar has to choose per layer. */
static void write_layers(long n)
{
    FILE *f = create("layers.yaml");
    fprintf(f,
            "model:\n  model_type: llama\n  hidden_size: 128\n  num_hidden_layers: %ld\n"
            "  num_attention_heads: 2\n  num_key_value_heads: 2\n  intermediate_size: 256\n"
            "  vocab_size: 1000\ntrain:\n  seq_len: 2048\n  global_batch: 64\ncluster:\n  device: H100\n"
            "  devices: 8\n",
            n);
    fclose(f);
}

/* A memory CSV of n stages (nd-plot memory's input). */
static void write_stages(long n)
{
    FILE *f = create("memory.csv");
    fputs("stage,first_layer,layers,inflight,params_mib,grads_mib,optimizer_mib,activations_mib,working_mib,"
          "buffers_mib,allocator_mib,context_mib,total_mib,budget_mib\n",
          f);
    for (long i = 0; i < n; i++)
        fprintf(f, "%ld,%ld,1,1,1000,2000,500,%ld,400,100,224,800,%ld,81920\n", i, i, 3000 + i % 500,
                8024 + i % 500);
    fclose(f);
}

/* Llama-3-8B's config.json with n keys nd does not price (config.json holds many). */
static void write_keys(long n)
{
    FILE *f = create("config.json");
    fputs("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
          "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, "
          "\"vocab_size\": 128256, \"max_position_embeddings\": 8192",
          f);
    for (long i = 0; i < n; i++) fprintf(f, ", \"unpriced_%ld\": %ld", i, i);
    fputs("}\n", f);
    fclose(f);
}

/* A torch.profiler trace of n steps, each a ProfilerStep, ten matmuls and their kernels. */
static void write_trace(long steps)
{
    FILE *f = create("trace.json");
    fputs("{\"traceEvents\": [\n", f);
    for (long s = 0; s < steps; s++) {
        double t0 = (double)s * 2000;
        fprintf(f,
                "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%ld\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %.0f, \"dur\": 1900}",
                s ? ",\n" : "", s, t0);
        for (int k = 0; k < 10; k++) {
            double t = t0 + 10 + k * 180;
            fprintf(f,
                    ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                    "\"ts\": %.0f, \"dur\": 100},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                    "\"sm90_xmma_gemm\", \"pid\": 2, \"tid\": 7, \"ts\": %.0f, \"dur\": 150}",
                    t, t + 5);
        }
    }
    fputs("\n]}\n", f);
    fclose(f);
}

/* n copies of the sample trace, one per rank. */
static void write_ranks(long n, const char *sample)
{
    FILE *in = fopen(sample, "rb");
    if (!in) {
        fprintf(stderr, "bench_scale: cannot read %s\n", sample);
        exit(1);
    }
    char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, in);
    fclose(in);
    mkdir(path_of("ranks"), 0777);
    for (long i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "ranks/rank%ld.json", i);
        FILE *f = create(name);
        fwrite(buf, 1, len, f);
        fclose(f);
    }
}

/* ---- the table -------------------------------------------------------------------------- */

typedef struct axis {
    const char *binary, *what;
    long base; /* the sample's size along this axis */
    void (*write)(long n);
    void (*argv)(long n, char **out); /* fills a NULL-terminated argument list */
} axis;

static const char *bin = ND_BIN_DIR;
static char args[32][4096];

static char **args_of(int count, ...)
{
    static char *list[33];
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++) {
        snprintf(args[i], sizeof args[i], "%s", va_arg(ap, const char *));
        list[i] = args[i];
    }
    va_end(ap);
    list[count] = NULL;
    return list;
}

static char *binary(const char *name)
{
    return joined(bin, name);
}

static char **argv_for(const char *name, long n)
{
    char number[32];
    snprintf(number, sizeof number, "%ld", n);
    char budget[32];
    snprintf(budget, sizeof budget, "%ldGB", n / 8 + 8); /* room for every layer to be kept */
    char run[4096];
    snprintf(run, sizeof run, "%s/samples/runs/llama3-8b.yaml", source_dir);
    if (!strcmp(name, "compare"))
        return args_of(7, binary("nd-compare"), "-y", run, "--real_csv", path_of("round.csv"), "-o",
                       path_of("cmp"));
    if (!strcmp(name, "fit"))
        return args_of(5, binary("nd-fit"), "-y", run, "--real_csv", path_of("round.csv"));
    if (!strcmp(name, "search"))
        return args_of(10, binary("nd-search"), "-y", path_of("layers.yaml"), "-M", budget, "-ar", "-ao",
                       "-t", "1", "--no-progress");
    if (!strcmp(name, "estimate"))
        return args_of(5, binary("nd-estimate"), "-y", path_of("layers.yaml"), "--strategy", "PP=8 MB=64");
    if (!strcmp(name, "keys"))
        return args_of(13, binary("nd-estimate"), "-y", path_of("config.json"), "-A", "H100", "-d", "8", "-b",
                       "64", "--seq", "4096", "--strategy", "DP=8 MB=8 recompute=full");
    if (!strcmp(name, "memory"))
        return args_of(6, binary("nd-plot"), "memory", path_of("memory.csv"), "--script-only", "-o",
                       path_of("m"));
    if (!strcmp(name, "parity"))
        return args_of(6, binary("nd-plot"), "parity", path_of("cmp/round_estimates.csv"), "--script-only",
                       "-o", path_of("p"));
    if (!strcmp(name, "trace"))
        return args_of(4, binary("nd-classify"), path_of("trace.json"), "--dims", "DP=1");
    /* ranks: every rank file */
    static char *list[1100];
    int k = 0;
    list[k++] = binary("nd-classify");
    static char files[1000][4096];
    for (long i = 0; i < n && i < 1000; i++) {
        snprintf(files[i], sizeof files[i], "%s/ranks/rank%ld.json", dir, i);
        list[k++] = files[i];
    }
    list[k++] = "--dims";
    static char dims[64];
    snprintf(dims, sizeof dims, "DP=%ld", n);
    list[k++] = dims;
    list[k] = NULL;
    return list;
}

static void write_for(const char *name, long n)
{
    if (!strcmp(name, "compare") || !strcmp(name, "fit"))
        write_round(n);
    else if (!strcmp(name, "search") || !strcmp(name, "estimate"))
        write_layers(n);
    else if (!strcmp(name, "keys"))
        write_keys(n);
    else if (!strcmp(name, "memory"))
        write_stages(n);
    else if (!strcmp(name, "trace"))
        write_trace(n);
    else if (!strcmp(name, "ranks")) {
        char sample[4096];
        snprintf(sample, sizeof sample, "%s/tests/data/classify/rank2.pt.trace.json", source_dir);
        write_ranks(n, sample);
    }
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "/tmp";
    static char work[4096];
    snprintf(work, sizeof work, "%s/nd_bench_scale_XXXXXX", dir);
    if (!mkdtemp(work)) {
        fprintf(stderr, "bench_scale: cannot make a directory in %s\n", dir);
        return 1;
    }
    dir = work;

    /* name, what grows, the sample's size (the shipped sample it is measured against) */
    static const struct {
        const char *name, *label, *what;
        long base;
    } rows[] = {
        {"compare", "nd-compare -o", "rows of a round (llama3-8b-h100.csv: 12)", 12},
        {"fit", "nd-fit", "rows of a round (llama3-8b-h100.csv: 12)", 12},
        {"parity", "nd-plot parity", "rows of an estimates CSV (12)", 12},
        {"search", "nd-search -ar -ao", "layers of a model (Llama-3-8B: 32)", 32},
        {"estimate", "nd-estimate", "layers of a model (Llama-3-8B: 32)", 32},
        {"memory", "nd-plot memory", "stages of a memory CSV (8)", 8},
        {"keys", "nd-estimate -y config.json", "keys of a config.json (llama3-8b.json: 30)", 30},
        {"trace", "nd-classify", "steps of a trace, 21 events each (a 50-step sample)", 50},
        {"ranks", "nd-classify", "rank traces (1)", 1},
    };
    printf("%-28s %-50s %26s %26s %26s %s\n", "binary", "what grows", "10x", "100x", "1,000x",
           "growth per 10x (time, memory above a run of 1x)");
    for (size_t r = 0; r < ND_ARRAY_LEN(rows); r++) {
        measure m[4];
        long sizes[4] = {rows[r].base, rows[r].base * 10, rows[r].base * 100, rows[r].base * 1000};
        for (int s = 0; s < 4; s++) {
            /* parity reads what nd-compare wrote for a round of that size */
            if (!strcmp(rows[r].name, "parity")) {
                write_round(sizes[s]);
                run(argv_for("compare", sizes[s]));
            } else {
                write_for(rows[r].name, sizes[s]);
            }
            m[s] = run(argv_for(rows[r].name, sizes[s]));
        }
        printf("%-28s %-50s", rows[r].label, rows[r].what);
        for (int s = 1; s < 4; s++) {
            char cell[64];
            snprintf(cell, sizeof cell, "%ld: %.3f s %.1f MiB", sizes[s], m[s].wall_s, m[s].rss_kib / 1024.0);
            printf(" %26s", cell);
        }
        double t10 = m[2].wall_s / (m[1].wall_s > 1e-3 ? m[1].wall_s : 1e-3);
        double t100 = m[3].wall_s / (m[2].wall_s > 1e-3 ? m[2].wall_s : 1e-3);
        double m10 = (double)(m[2].rss_kib - m[0].rss_kib) /
                     (double)(m[1].rss_kib - m[0].rss_kib > 64 ? m[1].rss_kib - m[0].rss_kib : 64);
        double m100 = (double)(m[3].rss_kib - m[0].rss_kib) /
                      (double)(m[2].rss_kib - m[0].rss_kib > 64 ? m[2].rss_kib - m[0].rss_kib : 64);
        printf(" x%.1f, x%.1f; x%.1f, x%.1f\n", t10, t100, m10, m100);
        fflush(stdout);
    }
    if (getenv("ND_BENCH_KEEP")) return failures ? 1 : 0;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_scale: could not remove %s\n", dir);
    return failures ? 1 : 0;
}
