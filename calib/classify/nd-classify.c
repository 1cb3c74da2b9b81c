/* nd-classify: profiler traces of one run -> one classified CSV row (docs/classify.md).
 * Parses flags and calls the library; prints and picks the exit status. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/classify/classify.h"
#include "nd/base/flags.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"
#include "nd/base/text.h"
#include "nd/base/main.h"

static const char usage[] =
    "usage: nd-classify TRACE_OR_DIR... [--dims DP=8,MP=4,PP=2,MB=16] [--csv ROUND.csv]\n"
    "       nd-classify --sweep DIR [--dims ...] [--csv ROUND.csv]\n"
    "       nd-classify --log TRAINER.log... [--log-config JOB.toml] [--dims ...] [--csv ROUND.csv]\n"
    "                   [--kernels FILE] [--perf-parts FILE] [--detail FILE] [--skip-steps N]\n"
    "                   [--view auto|host|device] [--stat mean|median] [--nd-columns]\n"
    "                   [--comm-kernel REGEX]... [--comm-kernel-file FILE]\n"
    "                   [--json] [-v] [-o DIR [--format png|svg|pdf]]\n";

static const char help[] =
    "Classifies the profiled steps of one run into ND's parts (compute, waits per parallel\n"
    "dimension, idle) and writes one row of the classified CSV that nd-compare and nd-fit read.\n"
    "\n"
    "Inputs: torch.profiler Chrome traces (.json, .json.gz; one without ProfilerStep is one\n"
    "window), torch_npu trace_view.json, Ascend ASCEND_PROFILER_OUTPUT directories,\n"
    "step_trace_time.csv files, kernel_details*.csv files (the Ascend kernel view). A trace\n"
    "given twice (or as .json and .json.gz) is read once; two traces of one rank are refused.\n"
    "Device kernels belong to the step that launched them (HTA's rule).\n"
    "\n"
    "  --dims SPEC        parallel degrees, e.g. DP=8,MP=4,PP=2,MB=16 (TP = MP; SP refused);\n"
    "                     without it, a trace's distributedInfo gives them when it names\n"
    "                     its process groups; Ascend inputs need them\n"
    "  --sweep DIR        a directory of runs, one subdirectory per strategy: one row per\n"
    "                     run; a strategy.txt in a run (--dims syntax) gives its degrees\n"
    "  --csv FILE         append the row to a round file (created if absent; the header\n"
    "                     must match); written atomically\n"
    "  --nd-columns       write exactly ND's columns (no idle, unclassified, optimizer)\n"
    "  --log              the inputs are trainer logs (Megatron-LM, Megatron-DeepSpeed,\n"
    "                     MindSpeed, torchtitan, NeMo, MindFormers): one row each, the\n"
    "                     median of the steady steps as time, the peak memory as peak_mib\n"
    "  --log-config FILE  torchtitan's job toml (batch, sequence, degrees) for --log\n"
    "  --log-peak KIND    peak_mib from the reserved (default) or allocated peak\n"
    "  --perf-parts FILE  the row in ND estimate columns\n"
    "  --detail FILE      one row per rank-step with per-source columns and HTA's\n"
    "                     comm/compute overlap (comm_kernel_ms, overlap_pct)\n"
    "  --kernels FILE     the kernel view: time by kernel class, each collective type\n"
    "                     (calls, MiB, exposed and overlapped ms, bus bandwidth) and each\n"
    "                     GEMM or attention shape (ms per call, TFLOP/s); blank: not known\n"
    "  --skip-steps N     drop each rank's first N steps (warm-up); with --log, the first N\n"
    "                     step lines (default: the first tenth, at least one)\n"
    "  --view V           auto (device when a trace has kernels), host or device\n"
    "  --comm-kernel RE   device kernels whose name matches the POSIX extended regular\n"
    "                     expression RE are communication too (repeatable), beside the\n"
    "                     families nd knows (NCCL, RCCL, MSCCL, HCCL, DeepEP, NVSHMEM,\n"
    "                     MSCCL++, UCC, symmetric memory) and the kernels collectives launch\n"
    "  --comm-kernel-file FILE  the same, one expression a line ('#' comments)\n"
    "  --stat S           what the rows hold: mean (ND, default) or median\n"
    "  --json             print the report as JSON\n"
    "  -o, --output-dir DIR  plots: classify_ranks (each rank's step by part) and, with a\n"
    "                     device view, classify_kernels (device time by kernel class)\n"
    "  --format F         plot format: png (default), svg or pdf\n"
    "  --no-plots         no plots with -o\n"
    "  --report FILE      a one-page HTML report: summary, inputs, ND's parts, the plots (inline\n"
    "                     SVG, drawn for it even without -o), communication, warnings and notes\n"
    "  -v, --verbose      the report's details: ND's blocks, communication by source,\n"
    "                     statistics, the kernel view, the notes\n"
    "  -h, --help         this help;  -V, --version  the version\n"
    "\n"
    "Exit status: 0 done, 1 failed while running, 2 bad usage or bad input.\n";

#define MAX_COMM_KERNELS 256 /* --comm-kernel flags and the lines of --comm-kernel-file */

typedef struct args {
    const char *comm_kernel[MAX_COMM_KERNELS]; /* borrowed: argv, or owned_patterns */
    size_t n_comm_kernel;
    char **owned_patterns; /* the --comm-kernel-file lines, freed by main */
    size_t n_owned;
    const char *csv, *perf_parts, *detail, *kernels, *sweep, *log_config;
    const char *out_dir, *plot_format, *report; /* -o DIR, --format, --report FILE */
    bool json, nd_columns, verbose, no_plots, log, skip_given, peak_allocated;
} args;

static int fail(int code, const char *msg)
{
    nd_outputs_abort();
    fprintf(stderr, "nd-classify: %s\n", msg);
    if (code == ND_EUSAGE) fprintf(stderr, "Try 'nd-classify --help'.\n");
    return nd_exit_status(code);
}

static int comm_kernel_add(args *a, const char *re, nd_error *err)
{
    if (a->n_comm_kernel == MAX_COMM_KERNELS)
        return nd_error_set(err, ND_EUSAGE, "--comm-kernel: more than %d patterns", MAX_COMM_KERNELS);
    a->comm_kernel[a->n_comm_kernel++] = re;
    return ND_OK;
}

/* The patterns of a --comm-kernel-file, kept until main ends. */
static int comm_kernel_file(args *a, const char *path, nd_error *err)
{
    char **lines;
    size_t n;
    if (nd_classify_patterns_read(path, &lines, &n, err)) return err->code;
    char **all = realloc(a->owned_patterns, (a->n_owned + n + 1) * sizeof *all);
    if (!all) {
        for (size_t i = 0; i < n; i++) free(lines[i]);
        free(lines);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    a->owned_patterns = all;
    int rc = ND_OK;
    for (size_t i = 0; i < n; i++) {
        a->owned_patterns[a->n_owned++] = lines[i];
        if (!rc) rc = comm_kernel_add(a, lines[i], err);
    }
    free(lines);
    return rc;
}

static void args_free(args *a)
{
    for (size_t i = 0; i < a->n_owned; i++) free(a->owned_patterns[i]);
    free(a->owned_patterns);
}

static int parse_flags(int argc, char **argv, nd_classify_options *o, args *a, nd_error *err)
{
    static const struct option longs[] = {{"dims", required_argument, 0, 'd'},
                                          {"csv", required_argument, 0, 'c'},
                                          {"perf-parts", required_argument, 0, 'p'},
                                          {"detail", required_argument, 0, 'D'},
                                          {"skip-steps", required_argument, 0, 's'},
                                          {"json", no_argument, 0, 'j'},
                                          {"view", required_argument, 0, 'W'},
                                          {"stat", required_argument, 0, 'S'},
                                          {"nd-columns", no_argument, 0, 'n'},
                                          {"help", no_argument, 0, 'h'},
                                          {"version", no_argument, 0, 'V'},
                                          {"kernels", required_argument, 0, 'k'},
                                          {"sweep", required_argument, 0, 'w'},
                                          {"log", no_argument, 0, 'L'},
                                          {"log-config", required_argument, 0, 'T'},
                                          {"log-peak", required_argument, 0, 'K'},
                                          {"verbose", no_argument, 0, 'v'},
                                          {"output-dir", required_argument, 0, 'o'},
                                          {"format", required_argument, 0, 'F'},
                                          {"no-plots", no_argument, 0, 'P'},
                                          {"report", required_argument, 0, 'R'},
                                          {"comm-kernel", required_argument, 0, 'C'},
                                          {"comm-kernel-file", required_argument, 0, 'G'},
                                          {0, 0, 0, 0}};
    int c;
    int64_t n;
    opterr = 0; /* the refused flag is reported once, below, with a suggestion */
    while ((c = getopt_long(argc, argv, "hVvo:", longs, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (nd_classify_dims_parse(optarg, &o->dims, err)) return err->code;
            o->has_dims = true;
            break;
        case 'c': a->csv = optarg; break;
        case 'p': a->perf_parts = optarg; break;
        case 'D': a->detail = optarg; break;
        case 's':
            if (nd_parse_int64(optarg, 0, 1000000, &n))
                return nd_error_set(err, ND_EUSAGE, "--skip-steps: '%s' is not a whole number >= 0", optarg);
            o->skip_steps = (int)n;
            a->skip_given = true;
            break;
        case 'j': a->json = true; break;
        case 'k': a->kernels = optarg; break;
        case 'o': a->out_dir = optarg; break;
        case 'F': {
            nd_plot_format f;
            if (nd_plot_format_from_name(optarg, &f, err))
                return nd_error_set(err, ND_EUSAGE, "--format %s: expected png, svg or pdf", optarg);
            a->plot_format = optarg;
            break;
        }
        case 'P': a->no_plots = true; break;
        case 'R': a->report = optarg; break;
        case 'C':
            if (nd_classify_pattern_check(optarg, err)) return err->code;
            if (comm_kernel_add(a, optarg, err)) return err->code;
            break;
        case 'G':
            if (comm_kernel_file(a, optarg, err)) return err->code;
            break;
        case 'w': a->sweep = optarg; break;
        case 'L': a->log = true; break;
        case 'T': a->log_config = optarg; break;
        case 'K':
            if (!strcmp(optarg, "allocated") || !strcmp(optarg, "reserved"))
                a->peak_allocated = !strcmp(optarg, "allocated");
            else
                return nd_error_set(err, ND_EUSAGE, "--log-peak: '%s' is not reserved or allocated", optarg);
            break;
        case 'v': a->verbose = true; break;
        case 'n': a->nd_columns = true; break;
        case 'W':
            if (!strcmp(optarg, "auto"))
                o->view = ND_VIEW_AUTO;
            else if (!strcmp(optarg, "host"))
                o->view = ND_VIEW_HOST;
            else if (!strcmp(optarg, "device"))
                o->view = ND_VIEW_DEVICE;
            else
                return nd_error_set(err, ND_EUSAGE, "--view: '%s' is not auto, host or device", optarg);
            break;
        case 'S':
            if (!strcmp(optarg, "mean"))
                o->stat = ND_STAT_MEAN;
            else if (!strcmp(optarg, "median"))
                o->stat = ND_STAT_MEDIAN;
            else
                return nd_error_set(err, ND_EUSAGE, "--stat: '%s' is not mean or median", optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            fputs("\n", stdout);
            fputs(help, stdout);
            return 1;
        case 'V': printf("nd-classify %s\n", ND_VERSION); return 1;
        default: {
            char msg[400];
            nd_flag_refused_message(longs, "hVvo:", argv[optind - 1], msg, sizeof msg);
            return nd_error_set(err, ND_EUSAGE, "%s", msg);
        }
        }
    }
    if (a->sweep && optind < argc)
        return nd_error_set(err, ND_EUSAGE, "--sweep DIR takes its runs from DIR: no other input ('%s')",
                            argv[optind]);
    if (a->sweep && (a->perf_parts || a->detail || a->kernels || a->out_dir || a->report))
        return nd_error_set(err, ND_EUSAGE,
                            "--sweep writes the round file (--csv) and the report; "
                            "--perf-parts, --detail, --kernels, -o and --report are for one run");
    if (a->log &&
        (a->sweep || a->perf_parts || a->detail || a->kernels || a->json || a->out_dir || a->report))
        return nd_error_set(err, ND_EUSAGE,
                            "--log reads trainer logs into round rows (--csv) and a "
                            "report: --sweep, --perf-parts, --detail, --kernels, --json, -o and --report are "
                            "for traces");
    if (!a->log && (a->log_config || a->peak_allocated))
        return nd_error_set(err, ND_EUSAGE, "--log-config and --log-peak go with --log");
    if (!a->sweep && optind >= argc)
        return nd_error_set(err, ND_EUSAGE, a->log ? "no trainer log given" : "no trace or directory given");
    o->comm_kernels = a->comm_kernel;
    o->n_comm_kernels = a->n_comm_kernel;
    return ND_OK;
}

static int write_outputs(const nd_classify_run *run, const args *a, nd_error *err)
{
    int rc = ND_OK;
    if (a->csv) rc = nd_classify_csv_write(run, a->csv, a->nd_columns, err);
    if (!rc && a->perf_parts) rc = nd_classify_perf_parts_write(run, a->perf_parts, err);
    if (!rc && a->detail) rc = nd_classify_detail_write(run, a->detail, err);
    if (!rc && a->kernels) rc = nd_classify_kernels_write(run, a->kernels, err);
    /* The plots into -o DIR; with --report an SVG copy of each too (only the copy without -o). */
    nd_plot_gallery gallery = {0};
    if (!rc && !a->no_plots && (a->out_dir || a->report)) {
        nd_plot_options opt;
        nd_plot_options_init(&opt);
        if (a->plot_format) nd_plot_format_from_name(a->plot_format, &opt.format, err);
        opt.gallery = a->report ? &gallery : NULL;
        opt.gallery_only = !a->out_dir;
        if (a->out_dir) rc = nd_make_dir(a->out_dir, err);
        if (!rc) rc = nd_classify_plots(run, a->out_dir ? a->out_dir : ".", &opt, err);
    }
    if (!rc && a->report) rc = nd_classify_report_html(run, a->report, a->csv, &gallery, NULL, err);
    nd_plot_gallery_free(&gallery);
    return rc;
}

static int sweep_main(const nd_classify_options *o, const args *a, nd_error *err)
{
    nd_classify_sweep s;
    int rc = nd_classify_sweep_load(a->sweep, o, &s, err);
    if (rc) return rc;
    if (a->csv) rc = nd_classify_sweep_csv_write(&s, a->csv, a->nd_columns, err);
    if (!rc) nd_classify_sweep_report_print(&s, stdout, a->verbose);
    nd_classify_sweep_free(&s);
    return rc;
}

static int log_main(int argc, char **argv, const nd_classify_options *o, const args *a, nd_error *err)
{
    nd_classify_log_options lo = {.dims = o->dims,
                                  .has_dims = o->has_dims,
                                  .config = a->log_config,
                                  .skip_steps = a->skip_given ? o->skip_steps : -1,
                                  .peak_allocated = a->peak_allocated};
    size_t n = (size_t)(argc - optind);
    nd_classify_log *logs = calloc(n, sizeof *logs);
    if (!logs) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    size_t read = 0;
    for (; read < n && !rc; read++)
        rc = nd_classify_log_read(argv[optind + (int)read], &lo, &logs[read], err);
    if (!rc && a->csv) rc = nd_classify_logs_csv_write(logs, n, a->csv, err);
    if (!rc) nd_classify_logs_report_print(logs, n, stdout);
    for (size_t i = 0; i < read; i++) nd_classify_log_free(&logs[i]);
    free(logs);
    return rc;
}

static int classify_main(int argc, char **argv, const nd_classify_options *o, const args *a, nd_error *err);

int main(int argc, char **argv)
{
    nd_classify_options o;
    nd_classify_options_init(&o);
    args a = {0};
    nd_error err = {0};
    int rc = parse_flags(argc, argv, &o, &a, &err);
    if (rc == 1) {
        args_free(&a);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (rc) {
        args_free(&a);
        return fail(rc, err.message);
    }
    rc = classify_main(argc, argv, &o, &a, &err);
    args_free(&a); /* the patterns the options borrowed */
    return rc;
}

/* Everything after the flags; the exit status. */
static int classify_main(int argc, char **argv, const nd_classify_options *o, const args *a, nd_error *err)
{
    int rc = ND_OK;
    nd_main_start();
    if (a->log || a->sweep) {
        rc = a->log ? log_main(argc, argv, o, a, err) : sweep_main(o, a, err);
        if (rc) return fail(rc, err->message);
        return nd_main_finish("nd-classify", ND_OK, err);
    }
    nd_classify_run *run = nd_classify_run_alloc(o);
    if (!run) return fail(ND_ENOMEM, "out of memory");
    for (int i = optind; i < argc && !rc; i++) rc = nd_classify_run_add(run, argv[i], err);
    if (!rc) rc = nd_classify_run_finish(run, err);
    if (!rc) rc = write_outputs(run, a, err);
    if (!rc) {
        if (a->json)
            nd_classify_json_print(run, stdout);
        else
            nd_classify_report_print(run, stdout, a->verbose);
    }
    nd_classify_run_free(run);
    if (rc) return fail(rc, err->message);
    return nd_main_finish("nd-classify", ND_OK, err);
}
