/*
 * bench_decisions — whether nd's decisions can be followed on the jobs people really run,
 * printed, never asserted. For each published configuration of samples/published/decisions.csv
 * (a run file written as its source ran it, and what the source measured):
 *   - accepted: nd expresses the layout as published (its VPP, split, schedule);
 *   - fits: nd says it fits the device, and by how much;
 *   - price: nd's step time (no ratios) against the measured one (a step time, or tokens/s a
 *     GPU; a TFLOP/s figure alone is turned into a step with nd's own FLOP count, said so);
 *   - pick: nd-search on the same question (devices, global batch, memory budget, the run's
 *     framework and switches) and the gain nd claims over the published layout, with the parts
 *     that make the difference.
 *
 * Usage: bench_decisions [SOURCE_DIR] [ID...]   (default: the source tree it was built from;
 * IDs restrict to those rows)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/array.h"
#include "nd/charts/csv_table.h"
#include "nd/costmodel/estimate.h"
#include "nd/inputs/layout.h"
#include "nd/planner/search.h"
#include "nd/session/cli.h"

typedef struct row {
    const char *id, *run, *source;
    double step_s, tokens_s_gpu, tflops_gpu;
} row;

/* The price's error over the rows of one device (a chip whose figures are measured in training,
 * swept in isolation or assumed errs in its own way: docs/devices.md). */
typedef struct device_totals {
    char name[128]; /* as nd_device's */
    int priced;
    double abs_err, signed_err;
} device_totals;

#define DEVICE_GROUPS 16

typedef struct totals {
    int rows, accepted, fits, priced, within_15;
    double abs_err, signed_err, worst_gain;
    device_totals by_device[DEVICE_GROUPS];
    int devices;
} totals;

static void add_device_error(totals *t, const char *device, double error)
{
    int i = 0;
    while (i < t->devices && strcmp(t->by_device[i].name, device)) i++;
    if (i == t->devices) {
        if (t->devices == DEVICE_GROUPS) return;
        snprintf(t->by_device[t->devices++].name, sizeof t->by_device[0].name, "%s", device);
    }
    t->by_device[i].priced++;
    t->by_device[i].abs_err += fabs(error);
    t->by_device[i].signed_err += error;
}

static double cell_number(const nd_csv_table *t, size_t r, size_t c)
{
    const char *v = nd_csv_table_cell(t, r, c);
    return v && *v ? strtod(v, NULL) : NAN;
}

/* The measured step, ms, and how it was had. */
static double measured_step_ms(const row *w, const nd_run *run, const nd_estimate *e, const char **how)
{
    double devices = (double)run->devices,
           tokens = (double)run->train.global_batch * (double)run->train.seq_len;
    if (isfinite(w->step_s)) {
        *how = "step";
        return w->step_s * 1e3;
    }
    if (isfinite(w->tokens_s_gpu)) {
        *how = "tokens/s";
        return tokens / (w->tokens_s_gpu * devices) * 1e3;
    }
    *how = "TFLOP/s (nd's FLOPs)";
    return e->model_flops_per_step / (w->tflops_gpu * 1e12 * devices) * 1e3;
}

/* The two parts that differ most between the published layout and nd's pick. */
static void driving_parts(const double *published, const double *pick, char *buf, size_t size)
{
    int a = -1, b = -1;
    for (int p = 0; p < ND_PARTS; p++) {
        double d = fabs(published[p] - pick[p]);
        if (a < 0 || d > fabs(published[a] - pick[a])) {
            b = a;
            a = p;
        } else if (b < 0 || d > fabs(published[b] - pick[b])) {
            b = p;
        }
    }
    snprintf(buf, size, "%s %+.0f, %s %+.0f ms", nd_part_name((nd_part)a), pick[a] - published[a],
             nd_part_name((nd_part)b), pick[b] - published[b]);
}

static int one(const char *dir, const row *w, totals *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/published/%s", dir, w->run);
    nd_cli_common common;
    nd_cli_common_init(&common);
    common.run_path = path;
    common.shared.verbosity = 0;
    nd_session s;
    nd_error err = {0};
    t->rows++;
    if (nd_session_open(&s, &common, true, NULL, &err)) {
        printf("%-30s REFUSED: %s\n", w->id, err.message);
        nd_session_close(&s);
        return 0;
    }
    nd_run *run = &s.run;
    nd_strategy st = run->strategy;
    int rc =
        nd_strategy_check(&st, &run->model, run->devices, run->train.global_batch, run->train.seq_len, &err);
    if (rc) {
        printf("%-30s NOT EXPRESSED: %s\n", w->id, err.message);
        nd_session_close(&s);
        return 0;
    }
    t->accepted++;
    nd_context ctx;
    nd_context_init(&ctx, &run->model, &run->train, s.device, run->devices, s.budget_mib, NULL);
    nd_estimate e = {0};
    nd_recompute_plan plan = {0}; /* the run's own per-layer recompute and offload, as nd-estimate */
    if (run->has_plan && nd_plan_from_run(run, &st, &plan, &err)) {
        printf("%-30s NOT EXPRESSED: %s\n", w->id, err.message);
        nd_session_close(&s);
        return 0;
    }
    if (nd_estimate_strategy(&ctx, &st, NULL, run->has_plan ? &plan : NULL, &e, &err)) {
        printf("%-30s PRICING FAILED: %s\n", w->id, err.message);
        nd_session_close(&s);
        return 1;
    }
    t->fits += e.fits;
    const char *how;
    double measured = measured_step_ms(w, run, &e, &how), error = e.step_ms / measured - 1;
    t->priced++;
    t->abs_err += fabs(error);
    t->signed_err += error;
    add_device_error(t, s.device->name, error);

    nd_search_config cfg = {&ctx, st, run->train.global_batch, {0}, 5, 2, NULL};
    nd_search_space_init(&cfg.space, &run->train);
    nd_search_result res;
    char pick[160] = "-", drive[96] = "";
    double gain = NAN;
    if (!nd_search_run(&cfg, &res, &err) && res.count) {
        const nd_ranked *best = &res.items[0];
        nd_strategy_label(&best->s, pick, sizeof pick);
        size_t used = strlen(pick);
        snprintf(pick + used, sizeof pick - used, " %s", nd_schedule_name(best->s.schedule));
        gain = e.step_ms / best->step_ms - 1;
        driving_parts(e.parts_ms, best->parts_ms, drive, sizeof drive);
        t->within_15 += gain <= 0.15;
        t->worst_gain = fmax(t->worst_gain, gain);
    }
    if (res.count || res.items) nd_search_result_free(&res);
    printf("%-30s %-5s %6.0f/%-6.0f %9.0f %9.0f %+6.1f%% %-20s %+6.1f%%  %s | %s\n", w->id,
           e.fits ? "fits" : "NO", e.peak_firm_mib, s.budget_mib, e.step_ms, measured, 100 * error, how,
           100 * gain, pick, drive);
    nd_session_close(&s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '-') {
        printf("usage: bench_decisions [SOURCE_DIR]\n"
               "Prices each published configuration as published, then searches the same question:\n"
               "price error and the gain nd claims. docs/benchmarks.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    const char *dir = argc > 1 ? argv[1] : ND_SOURCE_DIR;
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/published/decisions.csv", dir);
    nd_csv_table tab;
    nd_error err = {0};
    if (nd_csv_table_load(path, &tab, &err)) {
        fprintf(stderr, "bench_decisions: %s\n", err.message);
        return 2;
    }
    const char *names[] = {
        "id", "run", "measured_step_s", "measured_tokens_per_s_per_gpu", "measured_tflops_per_gpu", "source"};
    size_t col[ND_ARRAY_LEN(names)];
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (nd_csv_table_column(&tab, names[i], &col[i], &err)) {
            fprintf(stderr, "bench_decisions: %s\n", err.message);
            nd_csv_table_free(&tab);
            return 2;
        }
    printf("Published configurations: as published, then nd-search on the same question (no ratios)\n\n");
    printf("%-30s %-5s %13s %9s %9s %7s %-20s %7s  %s | %s\n", "configuration", "fits", "peak/budget",
           "nd ms", "measured", "error", "measured as", "gain", "nd's pick", "parts that differ most");
    totals t = {0};
    int failed = 0;
    for (size_t r = 0; r < tab.n_rows; r++) {
        row w = {nd_csv_table_cell(&tab, r, col[0]), nd_csv_table_cell(&tab, r, col[1]),
                 nd_csv_table_cell(&tab, r, col[5]), cell_number(&tab, r, col[2]),
                 cell_number(&tab, r, col[3]),       cell_number(&tab, r, col[4])};
        bool wanted = argc <= 2;
        for (int a = 2; a < argc; a++) wanted |= !strcmp(argv[a], w.id);
        if (wanted) failed |= one(dir, &w, &t);
    }
    printf("\n%d configurations: %d expressed as published, %d fit; price MAPE %.1f%%, bias %+.1f%%; "
           "nd's claimed gain <= 15 %% on %d, the largest %+.1f%%\n",
           t.rows, t.accepted, t.fits, t.priced ? 100 * t.abs_err / t.priced : 0,
           t.priced ? 100 * t.signed_err / t.priced : 0, t.within_15, 100 * t.worst_gain);
    printf("price by device:");
    for (int i = 0; i < t.devices; i++) {
        const device_totals *g = &t.by_device[i];
        printf("%s %s %d, MAPE %.1f%% bias %+.1f%%", i ? ";" : "", g->name, g->priced,
               100 * g->abs_err / g->priced, 100 * g->signed_err / g->priced);
    }
    printf("\n");
    nd_csv_table_free(&tab);
    return failed;
}
