/*
 * bench_fidelity — how close nd's UNCALIBRATED estimate is to real measured training runs,
 * printed, never asserted: per model, the step time's MAPE, signed bias (mean of
 * estimate / measured - 1) and Spearman rank correlation; the peak memory's MAPE and bias
 * where the round measured it (peak_mib), and how many runs that really ran nd calls
 * "does not fit". Then the same per source and overall.
 *
 * The rounds are real public measurements bundled in samples/ (docs/benchmarks.md):
 *   DLPerf: Megatron-LM GPT on 1-32 V100 (OneFlow's DLPerf benchmark);
 *   vTrain: Megatron-DeepSpeed GPT on one 8 x A100 node (Bang et al., MICRO 2024).
 * A round is a run file plus a classified CSV: the same inputs nd-compare takes. Then single
 * published peaks outside the rounds (a trainer's own config and its logged peak): DLPerf's
 * one-GPU GPT-h768 row and two torchtitan Llama-3-8B runs. Then the published sets without a
 * profile (samples/published): torchtitan's tables, llm-foundry's MPT runs and Megatron-LM's
 * SC21 weak scaling on up to 3,072 A100s.
 *
 * Usage: bench_fidelity [SOURCE_DIR] [RUN.yaml ROUND.csv SOURCE]...
 *   (default: the bundled rounds of the source tree it was built from; explicit triples are
 *   paths as given)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/calibrate/classified.h"
#include "nd/session/cli.h"
#include "nd/calibrate/compare.h"
#include "nd/costmodel/estimate.h"
#include "nd/calibrate/metrics.h"
#include "nd/base/array.h"
#include "mpt.h"
#include "sc21.h"
#include "simumax_runs.h"

typedef struct tally {
    char source[32];
    double abs_err, signed_err, mem_abs, mem_signed;
    size_t rows, mem_rows, refused;
} tally;

static const char *const bundled[][3] = {
    {"samples/runs/dlperf-gpt-h1536-l16.yaml", "samples/rounds/dlperf-gpt-h1536-l16.csv", "DLPerf V100"},
    {"samples/runs/dlperf-gpt-h2304-l24.yaml", "samples/rounds/dlperf-gpt-h2304-l24.csv", "DLPerf V100"},
    {"samples/runs/vtrain-gpt-h1024-l12.yaml", "samples/rounds/vtrain-gpt-h1024-l12.csv", "vTrain A100"},
    {"samples/runs/vtrain-gpt-h1024-l16.yaml", "samples/rounds/vtrain-gpt-h1024-l16.csv", "vTrain A100"},
    {"samples/runs/vtrain-gpt-h1024-l20.yaml", "samples/rounds/vtrain-gpt-h1024-l20.csv", "vTrain A100"},
    {"samples/runs/vtrain-gpt-h1024-l24.yaml", "samples/rounds/vtrain-gpt-h1024-l24.csv", "vTrain A100"},
};

/* Single published peaks outside the rounds: a run file (a trainer's own config), the
 * cluster it ran on, what was measured and what it measures (reserved: torch's peak of
 * reserved memory; device: nvidia-smi, reserved plus the runtime context). */
typedef struct published_peak {
    const char *label, *run, *device, *devices, *gbs, *budget;
    double measured_mib;
    bool reserved;
} published_peak;

static const published_peak published[] = {
    {"DLPerf GPT-h768-L12, 1 x V100, MBS 8", "samples/runs/dlperf-gpt-h768-l12.yaml", NULL, NULL, NULL, NULL,
     9810, false},
    {"torchtitan Llama-3-8B, 4 x H100, CP 2, full AC", "samples/runs/torchtitan-llama3-8b-cp2-full.toml",
     "H100", "4", "2", "97280MB", 44.84 * 1024, true},
    {"torchtitan Llama-3-8B, 8 x H100, LBS 2, op AC", "samples/runs/torchtitan-llama3-8b-sac-lbs2.toml",
     "H100", "8", "16", "97280MB", 82.4 * 1024, true},
};

/* Opens the run the flags describe and prices its own strategy, or `strategy` when given, without
 * ratios: *est and the session's budget. Errors go to stderr, naming `what`; 1 on failure. */
static int price_run(const nd_cli_common *common, const char *strategy, const char *what, nd_estimate *est,
                     double *budget_mib)
{
    nd_session s;
    nd_error err = {0};
    if (nd_session_open(&s, common, false, stderr, &err)) {
        fprintf(stderr, "bench_fidelity: %s\n", err.message);
        nd_session_close(&s);
        return 1;
    }
    const nd_run *r = &s.run;
    nd_strategy st = r->strategy;
    nd_context ctx;
    memset(est, 0, sizeof *est);
    int rc = strategy ? nd_strategy_parse(&st, strategy, &err) : 0;
    if (!rc)
        rc = nd_strategy_check(&st, &r->model, r->devices, r->train.global_batch, r->train.seq_len, &err);
    if (!rc) {
        nd_context_init(&ctx, &r->model, &r->train, s.device, st.dp * st.tp * st.pp * st.cp, s.budget_mib,
                        NULL);
        rc = nd_estimate_strategy(&ctx, &st, NULL, NULL, est, &err);
    }
    if (rc) fprintf(stderr, "bench_fidelity: %s: %s\n", what, err.message);
    *budget_mib = s.budget_mib;
    nd_session_close(&s);
    return rc ? 1 : 0;
}

/* Prices one published peak with the run's own strategy; prints it; adds |error| and error. */
static int one_peak(const char *dir, const published_peak *p, double *abs_err, double *signed_err,
                    size_t *refused)
{
    char run_path[4096];
    snprintf(run_path, sizeof run_path, "%s/%s", dir, p->run);
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = run_path;
    common.device = p->device;
    common.devices = p->devices;
    common.gbs = p->gbs;
    common.shared.budget = p->budget;
    nd_estimate est;
    double budget_mib;
    if (price_run(&common, NULL, p->run, &est, &budget_mib)) return 1;
    double got = p->reserved ? est.peak_reserved_mib : est.peak_mib, e = got / p->measured_mib - 1;
    printf("%-48s %9s %9.0f %9.0f %+8.1f%% %s\n", p->label, p->reserved ? "reserved" : "device",
           p->measured_mib, got, 100 * e, est.fits ? "fits" : "REFUSED");
    *abs_err += fabs(e);
    *signed_err += e;
    *refused += !est.fits;
    return 0;
}

static int published_peaks(const char *dir)
{
    printf("\nPublished peaks outside the rounds (the run's own strategy, no ratios)\n\n");
    printf("%-48s %9s %9s %9s %9s\n", "run", "peak", "measured", "nd MiB", "error");
    double abs_err = 0, signed_err = 0;
    size_t refused = 0, n = ND_ARRAY_LEN(published);
    int failed = 0;
    for (size_t i = 0; i < n; i++) failed |= one_peak(dir, &published[i], &abs_err, &signed_err, &refused);
    printf("%-48s %9s %9s %9s MAPE %.1f%%, bias %+.1f%%, refused %zu/%zu\n", "all", "", "", "",
           100 * abs_err / (double)n, 100 * signed_err / (double)n, refused, n);
    return failed;
}

/* Prices one published run with its strategy; *fits, *firm_share (firm peak / budget) and the
 * estimated step. */
static int price_published(const mpt_run *r, const char *run_path, bool *fits, double *firm_share,
                           double *step_ms)
{
    mpt_flags flags;
    nd_cli_common common;
    mpt_flags_set(r, run_path, &flags, &common);
    nd_estimate est;
    double budget_mib;
    if (price_run(&common, flags.strategy, r->model, &est, &budget_mib)) return 1;
    *fits = est.fits;
    *firm_share = est.peak_firm_mib / budget_mib;
    *step_ms = est.step_ms;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Step-time error per device type of the published runs. */
typedef struct device_tally {
    char device[16];
    size_t n;
    double abs_err, signed_err;
} device_tally;

static void add_step(device_tally *t, size_t *nt, size_t cap, const char *device, double e)
{
    size_t i = 0;
    while (i < *nt && strcmp(t[i].device, device)) i++;
    if (i == *nt && *nt < cap) snprintf(t[(*nt)++].device, sizeof t[i].device, "%s", device);
    if (i < *nt) {
        t[i].n++;
        t[i].abs_err += fabs(e);
        t[i].signed_err += e;
    }
}

/* Tallies named by a leading number ("2048 tokens"), in its order. */
static int by_leading_number(const void *a, const void *b)
{
    long x = atol(((const device_tally *)a)->device), y = atol(((const device_tally *)b)->device);
    return (x > y) - (x < y);
}

/* llm-foundry's MPT runs: how many nd would refuse, how full it thinks they ran, and how close
 * its step is to the measured one. */
static int published_runs(const char *dir)
{
    device_tally steps[8], by_seq[16]; /* per device; per sequence length, every device */
    size_t n_steps = 0, n_seq = 0;
    memset(steps, 0, sizeof steps);
    memset(by_seq, 0, sizeof by_seq);
    char path[4096], run_path[64] = "/tmp/nd-bench-mpt-XXXXXX", line[512];
    snprintf(path, sizeof path, "%s/" MPT_TABLE, dir);
    FILE *fp = fopen(path, "r");
    int fd = mkstemp(run_path);
    if (!fp || fd < 0) {
        fprintf(stderr, "bench_fidelity: cannot read %s or make a temporary file\n", path);
        if (fp) fclose(fp);
        return 1;
    }
    close(fd);
    double shares[512];
    size_t n = 0, refused = 0;
    int failed = 0;
    while (fgets(line, sizeof line, fp) && n < ND_ARRAY_LEN(shares)) {
        mpt_run r;
        if (mpt_parse(line, &r)) continue; /* the header */
        bool fits = false;
        double step_ms = 0;
        if (mpt_write_run(run_path, &r) || price_published(&r, run_path, &fits, &shares[n], &step_ms)) {
            failed = 1;
            continue;
        }
        double measured_ms = mpt_measured_ms(&r);
        char seq[24];
        snprintf(seq, sizeof seq, "%ld tokens", r.seq);
        add_step(steps, &n_steps, ND_ARRAY_LEN(steps), r.device, step_ms / measured_ms - 1);
        add_step(by_seq, &n_seq, ND_ARRAY_LEN(by_seq), seq, step_ms / measured_ms - 1);
        if (!fits)
            printf("  refused: %s seq %ld on %ld x %s, micro-batch %ld (nd: %.2f x the device)\n", r.model,
                   r.seq, r.devices, r.device, r.mbs, shares[n]);
        refused += !fits;
        n++;
    }
    fclose(fp);
    unlink(run_path);
    if (!n) return 1;
    qsort(shares, n, sizeof shares[0], by_value);
    printf("\nllm-foundry MPT runs that trained (samples/published): %zu priced, %zu refused; nd's firm peak "
           "over the device: median %.2f, min %.2f, max %.2f\n",
           n, refused, shares[n / 2], shares[0], shares[n - 1]);
    for (size_t i = 0; i < n_steps; i++)
        printf("  step on %-10s %4zu runs   MAPE %5.1f%%   bias %+6.1f%%\n", steps[i].device, steps[i].n,
               100 * steps[i].abs_err / (double)steps[i].n, 100 * steps[i].signed_err / (double)steps[i].n);
    qsort(by_seq, n_seq, sizeof by_seq[0], by_leading_number);
    printf("  by sequence, every device (the attention's share grows with it):\n");
    for (size_t i = 0; i < n_seq; i++)
        printf("    %-12s %4zu runs   MAPE %5.1f%%   bias %+6.1f%%\n", by_seq[i].device, by_seq[i].n,
               100 * by_seq[i].abs_err / (double)by_seq[i].n,
               100 * by_seq[i].signed_err / (double)by_seq[i].n);
    return failed;
}

typedef struct titan_run {
    char flavor[8], ac[16], compile[8], float8[8], schedule[24];
    long table, devices, local, seq, tp, pp, cp;
    double memory_gib, tps_per_gpu;
} titan_run;

/* The errors of one published set, summed as rows are priced. */
typedef struct titan_errors {
    double mem_abs, mem_signed, step_abs, step_signed;
    size_t refused;
} titan_errors;

/* A torchtitan job config for one row of torchtitan's performance tables. */
static int write_titan_run(const char *path, const titan_run *r)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return 1;
    fprintf(fp,
            "[model]\nname = \"llama3\"\nflavor = \"%s\"\n%s\n[training]\nlocal_batch_size = %ld\n"
            "seq_len = %ld\n\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = %ld\n"
            "pipeline_parallel_degree = %ld\ncontext_parallel_degree = %ld\n",
            r->flavor, strcmp(r->float8, "true") ? "" : "converters = [\"float8\"]", r->local, r->seq, r->tp,
            r->pp, r->cp);
    /* tables 5 and 6 ran with AsyncTP ("+ AsyncTP" in their captions), table 4's row without */
    if (r->table >= 5) fprintf(fp, "enable_async_tensor_parallel = true\n");
    if (r->pp > 1) /* torchtitan of December 2024: as many micro-batches as stages, unless stated */
        fprintf(fp, "pipeline_parallel_microbatches = %ld\npipeline_parallel_schedule = \"%s\"\n", r->pp,
                r->schedule);
    fprintf(fp, "\n[activation_checkpoint]\nmode = \"%s\"\n%s\n[compile]\nenable = %s\n", r->ac,
            strcmp(r->ac, "selective") ? "" : "selective_ac_option = \"op\"", r->compile);
    return fclose(fp) ? 1 : 0;
}

/* Prices one row on the hosts torchtitan measured on; prints it; adds its errors. The measured
 * step: a data-parallel rank's local batch of sequences over its TP x PP x CP GPUs, each at the
 * published tokens per second a GPU. */
static int one_titan(const char *dir, const titan_run *r, const char *run_path, titan_errors *sum)
{
    char devices[32], device_file[4096];
    snprintf(devices, sizeof devices, "%ld", r->devices);
    snprintf(device_file, sizeof device_file, "%s/samples/devices/h100-96gb-grand-teton.yaml", dir);
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = run_path;
    common.device = "H100-GT";
    common.device_file = device_file;
    common.devices = devices;
    common.shared.budget = "97280MB";
    nd_estimate est;
    double budget_mib;
    if (price_run(&common, NULL, "torchtitan's table", &est, &budget_mib)) return 1;
    double e = est.peak_reserved_mib / (r->memory_gib * 1024) - 1;
    double measured_ms =
        1e3 * (double)r->local * (double)r->seq / (r->tps_per_gpu * (double)(r->tp * r->pp * r->cp));
    double step_e = est.step_ms / measured_ms - 1;
    printf("  %ld  %-5s %4ld GPUs TP%ld PP%ld CP%ld seq %6ld %-9s%s%s %7.1f %7.1f %+7.1f%% %s"
           " %9.0f %9.0f %+7.1f%%\n",
           r->table, r->flavor, r->devices, r->tp, r->pp, r->cp, r->seq, r->ac,
           strcmp(r->compile, "true") ? "" : " compile", strcmp(r->float8, "true") ? "" : " fp8",
           r->memory_gib, est.peak_reserved_mib / 1024, 100 * e, est.fits ? "fits   " : "REFUSED",
           measured_ms, est.step_ms, 100 * step_e);
    sum->mem_abs += fabs(e);
    sum->mem_signed += e;
    sum->step_abs += fabs(step_e);
    sum->step_signed += step_e;
    sum->refused += !est.fits;
    return 0;
}

/* torchtitan's performance tables: reserved peaks of FSDP2, TP, PP and CP runs. */
static int published_titan(const char *dir)
{
    char path[4096], tmp[64] = "/tmp/nd-bench-titan-XXXXXX", run_path[96], line[512];
    snprintf(path, sizeof path, "%s/samples/published/torchtitan-performance.csv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp || !mkdtemp(tmp)) {
        fprintf(stderr, "bench_fidelity: cannot read %s or make a temporary directory\n", path);
        if (fp) fclose(fp);
        return 1;
    }
    snprintf(run_path, sizeof run_path, "%s/run.toml", tmp);
    printf("\ntorchtitan's measured peaks and steps (samples/published; reserved GiB and step ms; H100 "
           "96 GB at 500 W, samples/devices/h100-96gb-grand-teton.yaml)\n\n");
    titan_errors sum = {0};
    size_t n = 0;
    int failed = 0;
    while (fgets(line, sizeof line, fp)) {
        titan_run r;
        memset(&r, 0, sizeof r);
        if (sscanf(line, "%ld,%7[^,],%ld,%ld,%ld,%ld,%ld,%ld,%15[^,],%7[^,],%7[^,],%23[^,],%lf,%lf", &r.table,
                   r.flavor, &r.devices, &r.local, &r.seq, &r.tp, &r.pp, &r.cp, r.ac, r.compile, r.float8,
                   r.schedule, &r.memory_gib, &r.tps_per_gpu) != 14 &&
            sscanf(line, "%ld,%7[^,],%ld,%ld,%ld,%ld,%ld,%ld,%15[^,],%7[^,],%7[^,],,%lf,%lf", &r.table,
                   r.flavor, &r.devices, &r.local, &r.seq, &r.tp, &r.pp, &r.cp, r.ac, r.compile, r.float8,
                   &r.memory_gib, &r.tps_per_gpu) != 13)
            continue; /* the header */
        if (write_titan_run(run_path, &r) || one_titan(dir, &r, run_path, &sum)) {
            failed = 1;
            continue;
        }
        n++;
    }
    fclose(fp);
    unlink(run_path);
    rmdir(tmp);
    if (!n) return 1;
    printf("  all: memory MAPE %.1f%%, bias %+.1f%%, refused %zu/%zu; step MAPE %.1f%%, bias %+.1f%%\n",
           100 * sum.mem_abs / (double)n, 100 * sum.mem_signed / (double)n, sum.refused, n,
           100 * sum.step_abs / (double)n, 100 * sum.step_signed / (double)n);
    return failed;
}

/* The step errors of one scheme of an SC21 table, summed as its rows are priced. */
typedef struct sc21_errors {
    double abs_err, signed_err;
    size_t priced, refused;
} sc21_errors;

static void sc21_summary(const char *label, const sc21_errors *e)
{
    if (!e->priced) return;
    printf("  %s: step MAPE %.1f%%, bias %+.1f%%, refused %zu/%zu\n", label,
           100 * e->abs_err / (double)e->priced, 100 * e->signed_err / (double)e->priced, e->refused,
           e->priced);
}

/* One of Megatron-LM's SC21 tables on A100 (sc21.h), multi-node sets nd's A100 was not fitted
 * on: Table 1's weak scaling, 1.7B to 1T parameters on 32 to 3,072 GPUs; Table 2's 175B and 530B
 * under PTD-P and under DeepSpeed's ZeRO-3 on 384 to 2,240. */
static int published_sc21(const char *dir, const char *table, const char *title)
{
    sc21_run rows[SC21_ROWS];
    char tmp[64] = "/tmp/nd-bench-sc21-XXXXXX";
    int n = sc21_read(dir, table, rows, SC21_ROWS);
    if (n <= 0 || !mkdtemp(tmp)) {
        fprintf(stderr, "bench_fidelity: cannot read %s or make a temporary directory\n", table);
        return 1;
    }
    printf("\n%s (samples/published/%s; step ms)\n\n", title, table);
    sc21_errors by[2] = {{0}}; /* PTD-P, ZeRO-3 */
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const sc21_run *r = &rows[i];
        nd_estimate est;
        if (sc21_price(r, tmp, NULL, &est)) {
            failed = 1;
            continue;
        }
        double measured_ms = sc21_measured_ms(r), e = est.step_ms / measured_ms - 1;
        printf("  %7.1fB %5ld GPUs TP%ld PP%-2ld VPP%ld DP%-4ld MBS%-2ld %-5s %9.0f %9.0f %+7.1f%% %s\n",
               r->params_b, r->devices, r->tp, r->pp, r->vpp, r->dp, r->mbs, r->ddp, measured_ms, est.step_ms,
               100 * e, est.fits ? "fits" : "REFUSED");
        sc21_errors *t = &by[sc21_is_zero3(r)];
        t->abs_err += fabs(e);
        t->signed_err += e;
        t->refused += !est.fits;
        t->priced++;
    }
    rmdir(tmp);
    if (!by[0].priced && !by[1].priced) return 1;
    if (by[1].priced) {
        sc21_summary("PTD-P", &by[0]);
        sc21_summary("ZeRO-3", &by[1]);
    } else {
        sc21_summary("all", &by[0]);
    }
    return failed;
}

static tally *tally_for(tally *t, size_t *n, const char *source)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(t[i].source, source)) return &t[i];
    memset(&t[*n], 0, sizeof t[*n]);
    snprintf(t[*n].source, sizeof t[*n].source, "%s", source);
    return &t[(*n)++];
}

static void add_rows(tally *t, const nd_compare *c)
{
    for (size_t i = 0; i < c->count; i++) {
        const nd_compare_row *r = &c->rows[i];
        double e = r->estimated[ND_FOLD_TOTAL] / r->measured[ND_FOLD_TOTAL] - 1;
        t->abs_err += fabs(e);
        t->signed_err += e;
        t->rows++;
        if (!isnan(r->row->peak_mib) && r->row->peak_mib > 0) {
            double m = r->est.peak_mib / r->row->peak_mib - 1;
            t->mem_abs += fabs(m);
            t->mem_signed += m;
            t->mem_rows++;
            /* The run really ran: nd must not call it "does not fit". */
            if (!r->est.fits) t->refused++;
        }
    }
}

static void print_tally(const char *name, const tally *t, double spearman)
{
    if (!t->rows) {
        printf("%-26s %5d %9s\n", name, 0, "-");
        return;
    }
    printf("%-26s %5zu %8.1f%% %+8.1f%% ", name, t->rows, 100 * t->abs_err / (double)t->rows,
           100 * t->signed_err / (double)t->rows);
    if (isnan(spearman))
        printf("%9s", "");
    else
        printf("%+9.3f", spearman);
    if (t->mem_rows)
        printf(" %8.1f%% %+8.1f%% %4zu/%zu\n", 100 * t->mem_abs / (double)t->mem_rows,
               100 * t->mem_signed / (double)t->mem_rows, t->refused, t->mem_rows);
    else
        printf(" %9s %9s %6s\n", "-", "-", "-");
}

static int one_round(const char *dir, const char *run_file, const char *csv, const char *source,
                     tally *sources, size_t *n_sources, tally *all)
{
    char run_path[4096], csv_path[4096];
    snprintf(run_path, sizeof run_path, "%s%s%s", dir ? dir : "", dir ? "/" : "", run_file);
    snprintf(csv_path, sizeof csv_path, "%s%s%s", dir ? dir : "", dir ? "/" : "", csv);
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = run_path;
    nd_session s;
    nd_error err = {0};
    nd_classified round;
    if (nd_session_open(&s, &common, false, stderr, &err)) {
        fprintf(stderr, "bench_fidelity: %s\n", err.message);
        nd_session_close(&s);
        return 1;
    }
    if (nd_classified_load(csv_path, &round, &err)) {
        fprintf(stderr, "bench_fidelity: %s\n", err.message);
        nd_session_close(&s);
        return 1;
    }
    nd_compare_inputs in = {&s.run, s.device, s.budget_mib, NULL, ND_PEAK_DEVICE, NULL, false};
    nd_compare c;
    int rc = nd_compare_round(&in, &round, &c, &err);
    if (rc) {
        fprintf(stderr, "bench_fidelity: %s\n", err.message);
    } else {
        tally model = {{0}, 0, 0, 0, 0, 0, 0, 0};
        add_rows(&model, &c);
        add_rows(tally_for(sources, n_sources, source), &c);
        add_rows(all, &c);
        print_tally(s.run.model.name, &model, c.fold[ND_FOLD_TOTAL].spearman);
        nd_compare_free(&c);
    }
    nd_classified_free(&round);
    nd_session_close(&s);
    return rc ? 1 : 0;
}

/* Step and peak-allocated errors of SimuMax's runs under one device, summed by model family. */
typedef struct simumax_errors {
    double step_abs, step_signed, mem_abs, mem_signed;
    int n;
} simumax_errors;

static void simumax_add(simumax_errors *e, double step_e, double mem_e)
{
    e->step_abs += fabs(step_e);
    e->step_signed += step_e;
    e->mem_abs += fabs(mem_e);
    e->mem_signed += mem_e;
    e->n++;
}

static void simumax_summary(const char *label, const simumax_errors *e)
{
    if (!e->n) return;
    printf("  %-34s %2d runs: step MAPE %5.1f%%, bias %+5.1f%%; allocated MAPE %4.1f%%, bias %+5.1f%%\n",
           label, e->n, 100 * e->step_abs / e->n, 100 * e->step_signed / e->n, 100 * e->mem_abs / e->n,
           100 * e->mem_signed / e->n);
}

/* One device's prices of SimuMax's runs: per row with `rows`, then by family (dense 4k, MoE,
 * CP) and all; SimuMax's own estimates' errors beside. */
static int simumax_device(const char *dir, const simumax_run *runs, int n, const char *device,
                          const char *device_file, bool rows)
{
    char tmp[64] = "/tmp/nd-bench-simumax-XXXXXX", run_path[96], devices[8] = "8", gbs[32];
    if (!mkdtemp(tmp)) return 1;
    snprintf(run_path, sizeof run_path, "%s/run.sh", tmp);
    simumax_errors nd_by[4] = {{0}}, theirs[4] = {{0}};
    const char *family[] = {"dense, 4k", "MoE (DeepSeek-V2, V3), 4k", "dense, CP 32k-128k", "all"};
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const simumax_run *r = &runs[i];
        snprintf(gbs, sizeof gbs, "%ld", simumax_runs_global_batch(r));
        nd_cli_common common;
        nd_cli_common_init(&common);
        common.run_path = run_path;
        common.device = device;
        common.device_file = device_file;
        common.devices = devices;
        common.gbs = gbs;
        common.shared.budget = "180GB"; /* the runs ran; SimuMax's file states 80 GB */
        common.shared.verbosity = 1;
        nd_estimate est;
        double budget_mib;
        if (simumax_runs_write_args(run_path, r) || price_run(&common, NULL, r->name, &est, &budget_mib)) {
            failed = 1;
            continue;
        }
        double step_e = est.step_ms / r->real_ms - 1,
               mem_e = est.peak_allocated_mib / 1024 / r->real_alloc_gib - 1;
        int f = r->cp > 1 ? 2 : strncmp(r->model, "deepseek", 8) ? 0 : 1;
        simumax_add(&nd_by[f], step_e, mem_e);
        simumax_add(&nd_by[3], step_e, mem_e);
        double their_step = r->simumax_ms / r->real_ms - 1,
               their_mem = r->simumax_alloc_gib / r->real_alloc_gib - 1;
        simumax_add(&theirs[f], their_step, their_mem);
        simumax_add(&theirs[3], their_step, their_mem);
        if (rows)
            printf("  %-50s %8.1f %8.1f %+6.1f%% (SimuMax %+6.1f%%) %6.1f %6.1f %+5.1f%%\n", r->name,
                   r->real_ms, est.step_ms, 100 * step_e, 100 * their_step, r->real_alloc_gib,
                   est.peak_allocated_mib / 1024, 100 * mem_e);
    }
    unlink(run_path);
    rmdir(tmp);
    printf("\n  nd, device %s%s%s:\n", device, device_file ? " of " : "",
           device_file ? "SimuMax's system file" : "");
    for (int f = 0; f < 4; f++) simumax_summary(family[f], &nd_by[f]);
    if (rows) {
        printf("  SimuMax's own estimates, the same file:\n");
        for (int f = 0; f < 4; f++) simumax_summary(family[f], &theirs[f]);
    }
    (void)dir;
    return failed;
}

/* SimuMax's measured B200 runs, priced with SimuMax's measured kernels (its system file: the
 * same inputs, nd's composition) and with nd's built-in B200 (uncalibrated). */
static int published_simumax(const char *dir)
{
    simumax_run runs[SIMUMAX_RUNS_MAX];
    int n = simumax_runs_read(dir, runs, SIMUMAX_RUNS_MAX);
    if (n <= 0) {
        fprintf(stderr, "bench_fidelity: cannot read %s/%s\n", dir, SIMUMAX_RUNS_TABLE);
        return 1;
    }
    char device_file[4096];
    snprintf(device_file, sizeof device_file, "%s/samples/devices/simumax/b200_bf16_ceperm.json", dir);
    printf("\nSimuMax's measured runs of one 8 x B200 node (samples/published/simumax-b200-runs.csv; "
           "Megatron-LM, TE 2.11, BF16)\n  step ms real, nd; peak allocated GiB real, nd\n\n");
    return simumax_device(dir, runs, n, "b200_bf16_ceperm", device_file, true) |
           simumax_device(dir, runs, n, "B200", NULL, false);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '-') {
        printf(
            "usage: bench_fidelity [SOURCE_DIR [RUN.yaml ROUND.csv SOURCE]...]\n"
            "Prices every run of the bundled real rounds (or of the rounds given, each after the\n"
            "run file it was measured with and the name of its source) without ratios and prints step-time "
            "MAPE,\n"
            "bias and Spearman, memory MAPE and bias, and refusals. docs/benchmarks.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    const char *dir = argc > 1 ? argv[1] : ND_SOURCE_DIR;
    tally sources[16], all = {"all", 0, 0, 0, 0, 0, 0, 0};
    size_t n_sources = 0;
    int failed = 0;
    printf("Uncalibrated fidelity: nd's estimate against measured runs (no ratios)\n\n");
    printf("%-26s %5s %9s %9s %9s %9s %9s %6s\n", "model", "runs", "step MAPE", "bias", "Spearman",
           "mem MAPE", "mem bias", "refused");
    if (argc > 2) {
        for (int i = 2; i + 2 < argc; i += 3)
            failed |= one_round(NULL, argv[i], argv[i + 1], argv[i + 2], sources, &n_sources, &all);
    } else {
        for (size_t i = 0; i < ND_ARRAY_LEN(bundled); i++)
            failed |= one_round(dir, bundled[i][0], bundled[i][1], bundled[i][2], sources, &n_sources, &all);
    }
    printf("\n");
    for (size_t i = 0; i < n_sources; i++) print_tally(sources[i].source, &sources[i], NAN);
    print_tally("all", &all, NAN);
    printf(
        "\n(refused: runs that really ran which nd calls \"does not fit\", of those with a measured peak)\n");
    if (argc <= 2)
        failed |=
            published_peaks(dir) | published_titan(dir) | published_runs(dir) |
            published_sc21(dir, SC21_TABLE1, "Megatron-LM's weak scaling on A100 (SC21 Table 1)") |
            published_sc21(dir, SC21_TABLE2, "PTD-P against DeepSpeed's ZeRO-3 on A100 (SC21 Table 2)") |
            published_simumax(dir);
    return failed;
}
