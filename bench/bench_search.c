/*
 * bench_search — search speed on the two spaces of issue 3, printed, never asserted:
 *   a Megatron-Turing-style 530B GPT on 5,128 A100s, global batch 2,520, all dimensions
 *   (5,128 = 8 x 641 admits no strategy; the same model on 5,120 shows the full space);
 *   DeepSeek-V3 on 4,096 A3 dies, global batch 8,192, all dimensions, with -ar;
 *   the same on 4,096 B200s of SimuMax's measured kernel tables (samples/devices/simumax/), the
 *   tables in use.
 * Usage: bench_search [SOURCE_DIR [TEXT]]   (default: the source tree it was built from; TEXT:
 *        only the cases whose title holds it, for profiling one)
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nd/inputs/device_file.h"
#include "nd/inputs/run.h"
#include "nd/planner/search.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *only; /* the cases to run: titles holding this text (NULL: all) */

static void run(const char *title, const char *run_file, int64_t devices, bool per_layer, int threads,
                const char *device_file, const char *device)
{
    if (only && !strstr(title, only)) return;
    nd_run r;
    nd_error err = {0};
    if (nd_run_load(&r, run_file, &err)) {
        printf("%s: %s\n", title, err.message);
        return;
    }
    nd_device_table table;
    nd_device_table_builtin(&table, &err);
    if (device_file && nd_device_table_load(&table, device_file, &err)) {
        printf("%s: %s\n", title, err.message);
        nd_device_table_free(&table);
        return;
    }
    const nd_device *d = nd_device_table_find(&table, device ? device : r.device);
    nd_context ctx;
    nd_context_init(&ctx, &r.model, &r.train, d, devices, 0, NULL);
    nd_search_config cfg = {&ctx, r.strategy, r.train.global_batch, {0}, 10, threads, NULL};
    nd_search_space_init(&cfg.space, &r.train);
    cfg.space.per_layer = per_layer;
    nd_search_result res;
    double t0 = now_s();
    int rc = nd_search_run(&cfg, &res, &err);
    double t = now_s() - t0;
    if (rc) {
        printf("%-44s %d thread%s: %.3f s wall; no strategy: %s\n", title, threads, threads > 1 ? "s" : " ",
               t, err.message);
    } else {
        printf("%-44s %d thread%s: %.3f s wall, %9llu enumerated (%6.2f M/s), %7llu priced (%6.2f M/s), "
               "%7llu fit, best %.1f ms\n",
               title, threads, threads > 1 ? "s" : " ", t, (unsigned long long)res.stats.enumerated,
               (double)res.stats.enumerated / t / 1e6, (unsigned long long)res.stats.priced,
               (double)res.stats.priced / t / 1e6, (unsigned long long)res.stats.fitting,
               res.count ? res.items[0].step_ms : 0.0);
        nd_search_result_free(&res);
    }
    nd_device_table_free(&table);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '-') {
        printf("usage: bench_search [SOURCE_DIR [TEXT]]\n"
               "Times nd-search's enumeration and pricing on four spaces, with 1 and 2 threads (TEXT: only\n"
               "the cases whose title holds it). docs/benchmarks.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    const char *src = argc > 1 ? argv[1] : ND_SOURCE_DIR;
    only = argc > 2 ? argv[2] : NULL;
    char gpt[1024], ds[1024], sm[1024];
    snprintf(gpt, sizeof gpt, "%s/samples/runs/mt-nlg-530b.yaml", src);
    snprintf(ds, sizeof ds, "%s/samples/runs/deepseek-v3.yaml", src);
    snprintf(sm, sizeof sm, "%s/samples/devices/simumax/b200_bf16_ceperm.json", src);
    for (int threads = 1; threads <= 2; threads++) {
        run("530B GPT, 5128 A100, GBS 2520, all dims", gpt, 5128, false, threads, NULL, NULL);
        run("530B GPT, 5120 A100, GBS 2520, all dims", gpt, 5120, false, threads, NULL, NULL);
        run("DeepSeek-V3, 4096 A3, GBS 8192, all dims", ds, 4096, false, threads, NULL, NULL);
        run("DeepSeek-V3, 4096 A3, GBS 8192, all + -ar", ds, 4096, true, threads, NULL, NULL);
        run("DeepSeek-V3, 4096 B200 kernel tables, all", ds, 4096, false, threads, sm, "b200_bf16_ceperm");
    }
    return 0;
}
