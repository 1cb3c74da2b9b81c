/* bench_classify: writes a synthetic torch.profiler trace of at least 1 GB (default;
 * `bench_classify [MB] [DIR]`) laid out as kineto writes it (every step's host events,
 * then every step's device events), classifies it in a child process, and prints the
 * throughput and the child's peak RSS (getrusage). Targets: >= 200 MB/s, < 64 MiB.
 * The trace is deleted afterwards. Prints figures; exits 1 only on errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nd/classify.h"

#define STEP_US 100000.0
#define LAYERS 400

static const char *const pg =
    "\"Collective name\": \"allreduce\", \"In msg nelems\": 6637568, \"Out msg nelems\": "
    "6637568, \"Group size\": 8, \"dtype\": \"BFloat16\", \"In split size\": \"[]\", \"Out "
    "split size\": \"[]\", \"Process Group Name\": \"0\", \"Process Group Description\": "
    "\"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\"";

static void ev(FILE *f, const char *cat, const char *name, int pid, int tid, double ts, double dur,
               const char *args)
{
    fprintf(f,
            "  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n"
            "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {%s}\n  },\n",
            cat, name, pid, tid, ts, dur, args);
}

/* One step's host events: forward layers, backward with a gradient all-reduce per
 * layer, the optimizer. About 2 * LAYERS * 7 events. */
static void host_step(FILE *f, int step, double t0)
{
    char name[64], args[512];
    snprintf(name, sizeof name, "ProfilerStep#%d", step);
    ev(f, "user_annotation", name, 100, 100, t0, STEP_US - 10, "\"External id\": 1");
    double per = STEP_US * 0.8 / (2 * LAYERS);
    for (int l = 0; l < 2 * LAYERS; l++) {
        double t = t0 + 5 + l * per;
        int bw = l >= LAYERS;
        snprintf(args, sizeof args,
                 "\"External id\": %d, \"Input Dims\": [[4096, 4096], [4096, "
                 "4096]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Sequence "
                 "number\": %d",
                 step * 10000 + l, l);
        ev(f, bw ? "cpu_op" : "python_function",
           bw ? "autograd::engine::evaluate_function: MmBackward0" : "nn.Module: Linear_0", 100,
           100, t, per * 0.9, args);
        ev(f, "cpu_op", bw ? "MmBackward0" : "aten::linear", 100, 100, t + 1, per * 0.5, args);
        ev(f, "cpu_op", "aten::mm", 100, 100, t + 2, per * 0.4, args);
        ev(f, "cuda_runtime", "cudaLaunchKernel", 100, 100, t + 3, 5, "\"correlation\": 1");
        if (!bw) continue;
        ev(f, "python_function", "torch/distributed/distributed_c10d.py(2500): all_reduce", 100,
           100, t + per * 0.6, per * 0.2, "");
        ev(f, "cpu_op", "c10d::allreduce_", 100, 100, t + per * 0.6 + 1, per * 0.15,
           "\"Input Dims\": [[[6637568]]], \"Input type\": [\"TensorList\"]");
        ev(f, "cpu_op", "record_param_comms", 100, 100, t + per * 0.6 + 2, per * 0.1, pg);
    }
    ev(f, "user_annotation", "Optimizer.step#AdamW.step", 100, 100, t0 + STEP_US * 0.85,
       STEP_US * 0.1, "");
    ev(f, "cpu_op", "aten::_foreach_add_", 100, 100, t0 + STEP_US * 0.86, STEP_US * 0.05, "");
}

/* One step's device events: a compute kernel per layer, an NCCL kernel per backward layer. */
static void device_step(FILE *f, double t0)
{
    char args[640];
    double per = STEP_US * 0.8 / (2 * LAYERS);
    for (int l = 0; l < 2 * LAYERS; l++) {
        double t = t0 + 20 + l * per;
        ev(f, "kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 0, 7, t,
           per * 0.7,
           "\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
           "\"correlation\": 1, \"registers per thread\": 168, \"grid\": [132, 1, 1], \"block\": "
           "[384, 1, 1], \"est. achieved occupancy %\": 12");
        if (l < LAYERS) continue;
        snprintf(args, sizeof args, "\"device\": 0, \"stream\": 20, %s", pg);
        ev(f, "kernel",
           "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
           "ncclWork*)",
           0, 20, t + per * 0.5, per * 0.8, args);
    }
}

static long write_trace(const char *path, double min_bytes)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fputs("{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
          "\"world_size\": 8},\n\"traceEvents\": [\n",
          f);
    double t0 = 1.7e15;
    int steps = 0;
    while ((double)ftell(f) < min_bytes * 0.72) {
        steps++;
        host_step(f, steps, t0 + steps * STEP_US);
    }
    for (int s = 1; s <= steps; s++)
        device_step(f, t0 + s * STEP_US);
    fputs("  {\"ph\": \"i\", \"name\": \"end\", \"ts\": 0, \"pid\": 0, \"tid\": 0}\n]}\n", f);
    long n = ftell(f);
    return fclose(f) == 0 ? n : -1;
}

static int classify_child(const char *path)
{
    nd_classify_options o;
    nd_classify_options_init(&o);
    nd_error err = {0};
    nd_classify_dims_parse("DP=8", &o.dims, &err);
    o.has_dims = true;
    nd_classify_run *run = nd_classify_run_alloc(&o);
    int rc = nd_classify_run_add(run, path, &err);
    if (!rc) rc = nd_classify_run_finish(run, &err);
    if (rc)
        fprintf(stderr, "bench_classify: %s\n", err.message);
    else
        printf("classified %zu steps: time %.3f ms, comp %.3f, dp_wait %.3f (%s view)\n",
               run->summary.n_samples, run->summary.q[ND_CQ_TIME].mean,
               run->summary.q[ND_CQ_COMP].mean, run->summary.q[ND_CQ_DP_WAIT].mean,
               nd_classify_view_name(run->summary.view[ND_CQ_DP_WAIT]));
    nd_classify_run_free(run);
    fflush(stdout); /* the child leaves with _exit */
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    double mb = argc > 1 ? atof(argv[1]) : 1100;
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/nd_bench_trace_%ld.json", dir, (long)getpid());
    printf("writing a synthetic trace of >= %.0f MB to %s ...\n", mb, path);
    fflush(stdout);
    long bytes = write_trace(path, mb * 1e6);
    if (bytes < 0) return fprintf(stderr, "bench_classify: cannot write %s\n", path), 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid == 0) _exit(classify_child(path));
    int status = 1;
    waitpid(pid, &status, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    unlink(path);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    double rate = (double)bytes / 1e6 / s, rss = (double)ru.ru_maxrss / 1024.0;
    printf("trace %.1f MB, %.2f s: %.0f MB/s (target >= 200), peak RSS %.1f MiB (target < 64)\n",
           (double)bytes / 1e6, s, rate, rss);
    printf("%s\n", rate >= 200 && rss < 64 ? "targets met" : "targets NOT met");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
