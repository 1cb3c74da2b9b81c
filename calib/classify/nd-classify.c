/* nd-classify: profiler traces of one run -> one classified CSV row (docs/classify.md).
 * Parses flags and calls the library; prints and picks the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/classify/classify.h"
#include "nd/base/cmdline.h"
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
    "                   [--json] [-v N] [-o DIR [--format png|svg|pdf]]\n"
    "\n"
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
    "  --csv FILE         append the row to a round file (created if absent; columns are\n"
    "                     matched by name, a new one added, a missing one left blank);\n"
    "                     written atomically\n"
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
    "  --stat S           what the rows hold: mean (ND, default) or median\n"
    "  --json             print the report as JSON\n"
    "  --no-plots         no plots with -o\n"
    "  --report FILE      a one-page HTML report: summary, inputs, ND's parts, the plots (inline\n"
    "                     SVG, drawn for it even without -o), communication, warnings and notes\n"
    "  --comm-kernel RE   device kernels whose name matches the POSIX extended regular\n"
    "                     expression RE are communication too (repeatable), beside the\n"
    "                     families nd knows (NCCL, RCCL, MSCCL, HCCL, DeepEP, NVSHMEM,\n"
    "                     MSCCL++, UCC, symmetric memory) and the kernels collectives launch\n"
    "  --comm-kernel-file FILE  the same, one expression a line ('#' comments)\n"
    "  --format F         plot format (-o, --report): png (default), svg or pdf\n";

static const char exit_status[] = "Exit status: 0 done, 1 failed while running, 2 bad usage or bad input.\n";

#define MAX_COMM_KERNELS 256 /* --comm-kernel flags and the lines of --comm-kernel-file */

typedef struct args {
    const char *csv, *perf_parts, *detail, *kernels, *sweep, *log_config;
    const char *plot_format, *report; /* --format, --report FILE (-o DIR is shared) */
    bool json, nd_columns, no_plots, log, skip_given, peak_allocated;
    bool view_given, stat_given; /* for the notes on flags a mode has no use for */
    const char **inputs;         /* the traces, directories or logs, in order */
    int n_inputs;
    nd_classify_options *o;
    const char *comm_kernel[MAX_COMM_KERNELS]; /* borrowed: argv, or owned_patterns */
    size_t n_comm_kernel;
    char **owned_patterns; /* the --comm-kernel-file lines, freed by main */
    size_t n_owned;
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

enum {
    OPT_DIMS = 256,
    OPT_CSV,
    OPT_PERF_PARTS,
    OPT_DETAIL,
    OPT_SKIP,
    OPT_JSON,
    OPT_VIEW,
    OPT_STAT,
    OPT_ND_COLUMNS,
    OPT_KERNELS,
    OPT_SWEEP,
    OPT_LOG,
    OPT_LOG_CONFIG,
    OPT_LOG_PEAK,
    OPT_FORMAT,
    OPT_NO_PLOTS,
    OPT_REPORT,
    OPT_COMM_KERNEL,
    OPT_COMM_KERNEL_FILE
};

static const struct option longs[] = {{"dims", required_argument, 0, OPT_DIMS},
                                      {"csv", required_argument, 0, OPT_CSV},
                                      {"perf-parts", required_argument, 0, OPT_PERF_PARTS},
                                      {"detail", required_argument, 0, OPT_DETAIL},
                                      {"skip-steps", required_argument, 0, OPT_SKIP},
                                      {"json", no_argument, 0, OPT_JSON},
                                      {"view", required_argument, 0, OPT_VIEW},
                                      {"stat", required_argument, 0, OPT_STAT},
                                      {"nd-columns", no_argument, 0, OPT_ND_COLUMNS},
                                      {"kernels", required_argument, 0, OPT_KERNELS},
                                      {"sweep", required_argument, 0, OPT_SWEEP},
                                      {"log", no_argument, 0, OPT_LOG},
                                      {"log-config", required_argument, 0, OPT_LOG_CONFIG},
                                      {"log-peak", required_argument, 0, OPT_LOG_PEAK},
                                      {"format", required_argument, 0, OPT_FORMAT},
                                      {"no-plots", no_argument, 0, OPT_NO_PLOTS},
                                      {"report", required_argument, 0, OPT_REPORT},
                                      {"comm-kernel", required_argument, 0, OPT_COMM_KERNEL},
                                      {"comm-kernel-file", required_argument, 0, OPT_COMM_KERNEL_FILE},
                                      {0, 0, 0, 0}};

static int take_choice(int opt, const char *arg, args *a, nd_error *err)
{
    nd_classify_options *o = a->o;
    a->view_given |= opt == OPT_VIEW;
    a->stat_given |= opt == OPT_STAT;
    switch (opt) {
    case OPT_VIEW:
        if (!strcmp(arg, "auto"))
            o->view = ND_VIEW_AUTO;
        else if (!strcmp(arg, "host"))
            o->view = ND_VIEW_HOST;
        else if (!strcmp(arg, "device"))
            o->view = ND_VIEW_DEVICE;
        else
            return nd_error_set(err, ND_EUSAGE, "--view: '%s' is not auto, host or device", arg);
        return 0;
    case OPT_STAT:
        if (!strcmp(arg, "mean"))
            o->stat = ND_STAT_MEAN;
        else if (!strcmp(arg, "median"))
            o->stat = ND_STAT_MEDIAN;
        else
            return nd_error_set(err, ND_EUSAGE, "--stat: '%s' is not mean or median", arg);
        return 0;
    case OPT_LOG_PEAK:
        if (strcmp(arg, "allocated") && strcmp(arg, "reserved"))
            return nd_error_set(err, ND_EUSAGE, "--log-peak: '%s' is not reserved or allocated", arg);
        a->peak_allocated = !strcmp(arg, "allocated");
        return 0;
    default: return 1;
    }
}

/* nd-classify's own flags (nd_cmdline_handler): 0 taken, 1 not its own, ND_EUSAGE. */
static int handle(int opt, const char *arg, void *request, nd_error *err)
{
    args *a = request;
    int64_t n;
    switch (opt) {
    case OPT_DIMS:
        if (nd_classify_dims_parse(arg, &a->o->dims, err)) return ND_EUSAGE;
        a->o->has_dims = true;
        return 0;
    case OPT_CSV: a->csv = arg; return 0;
    case OPT_PERF_PARTS: a->perf_parts = arg; return 0;
    case OPT_DETAIL: a->detail = arg; return 0;
    case OPT_SKIP:
        if (nd_parse_int64(arg, 0, 1000000, &n))
            return nd_error_set(err, ND_EUSAGE, "--skip-steps: '%s' is not a whole number >= 0", arg);
        a->o->skip_steps = (int)n;
        a->skip_given = true;
        return 0;
    case OPT_JSON: a->json = true; return 0;
    case OPT_JSON | ND_CMDLINE_NO: a->json = false; return 0;
    case OPT_KERNELS: a->kernels = arg; return 0;
    case OPT_FORMAT: {
        nd_plot_format f;
        if (nd_plot_format_from_name(arg, &f, err))
            return nd_error_set(err, ND_EUSAGE, "--format %s: expected png, svg or pdf", arg);
        a->plot_format = arg;
        return 0;
    }
    case OPT_NO_PLOTS: a->no_plots = true; return 0;
    case OPT_NO_PLOTS | ND_CMDLINE_NO: a->no_plots = false; return 0;
    case OPT_REPORT: a->report = arg; return 0;
    case OPT_COMM_KERNEL:
        if (nd_classify_pattern_check(arg, err)) return err->code;
        return comm_kernel_add(a, arg, err);
    case OPT_COMM_KERNEL_FILE: return comm_kernel_file(a, arg, err);
    case OPT_SWEEP: a->sweep = arg; return 0;
    case OPT_LOG: a->log = true; return 0;
    case OPT_LOG | ND_CMDLINE_NO: a->log = false; return 0;
    case OPT_LOG_CONFIG: a->log_config = arg; return 0;
    case OPT_ND_COLUMNS: a->nd_columns = true; return 0;
    case OPT_ND_COLUMNS | ND_CMDLINE_NO: a->nd_columns = false; return 0;
    default: return take_choice(opt, arg, a, err);
    }
}

static int operand(const char *arg, void *request)
{
    args *a = request;
    a->inputs[a->n_inputs++] = arg;
    return 0;
}

/* What the flags together must satisfy, once all are read. */
static int check_flags(const args *a, const nd_cmdline_shared *sh, nd_error *err)
{
    if (a->sweep && a->n_inputs)
        return nd_error_set(err, ND_EUSAGE, "--sweep DIR takes its runs from DIR: no other input ('%s')",
                            a->inputs[0]);
    if (a->sweep && (a->perf_parts || a->detail || a->kernels || sh->out_dir || a->report))
        return nd_error_set(err, ND_EUSAGE,
                            "--sweep writes the round file (--csv) and the report; "
                            "--perf-parts, --detail, --kernels, -o and --report are for one run");
    if (a->log &&
        (a->sweep || a->perf_parts || a->detail || a->kernels || a->json || sh->out_dir || a->report))
        return nd_error_set(err, ND_EUSAGE,
                            "--log reads trainer logs into round rows (--csv) and a "
                            "report: --sweep, --perf-parts, --detail, --kernels, --json, -o and --report are "
                            "for traces");
    if (!a->log && (a->log_config || a->peak_allocated))
        return nd_error_set(err, ND_EUSAGE, "--log-config and --log-peak go with --log");
    if (!a->sweep && !a->n_inputs)
        return nd_error_set(err, ND_EUSAGE, a->log ? "no trainer log given" : "no trace or directory given");
    return ND_OK;
}

/* A flag this mode has no use for is said, not ignored (docs/cli.md): one note each. */
static void unused_notes(const args *a, const nd_cmdline_shared *sh, FILE *diag)
{
    static const char note[] = "nd-classify: note: %s is not used: %s\n";
    const char *plots = "plot files are drawn only with -o DIR or --report";
    if (a->plot_format && !sh->out_dir && !a->report) fprintf(diag, note, "--format", plots);
    if (a->no_plots && !sh->out_dir && !a->report) fprintf(diag, note, "--no-plots", plots);
    if (!a->log) return;
    if (a->view_given)
        fprintf(diag, note, "--view", "a trainer log has no host or device view (it is for traces)");
    if (a->stat_given)
        fprintf(diag, note, "--stat", "a trainer log's row is always the median of its steady steps");
    if (a->nd_columns)
        fprintf(diag, note, "--nd-columns",
                "a trainer log's row holds its step time, peak_mib, gbs and seq_len, not ND's parts");
    if (a->n_comm_kernel) fprintf(diag, note, "--comm-kernel", "a trainer log holds no device kernels");
}

/* --log-config is torchtitan's job toml: with no torchtitan log among the logs, it is said. */
static void log_config_note(const args *a, const nd_classify_log *logs, size_t n, FILE *diag)
{
    if (!a->log_config || !n) return;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(logs[i].format, "torchtitan")) return;
    fprintf(diag,
            "nd-classify: note: --log-config is not used: %s is a %s log, which states its batch, "
            "sequence and degrees itself; the toml is read for torchtitan logs only\n",
            logs[0].path, logs[0].format);
}

static int write_outputs(const nd_classify_run *run, const args *a, const char *out_dir, nd_error *err)
{
    int rc = ND_OK;
    if (a->csv) rc = nd_classify_csv_write(run, a->csv, a->nd_columns, err);
    if (!rc && a->perf_parts) rc = nd_classify_perf_parts_write(run, a->perf_parts, err);
    if (!rc && a->detail) rc = nd_classify_detail_write(run, a->detail, err);
    if (!rc && a->kernels) rc = nd_classify_kernels_write(run, a->kernels, err);
    /* The plots into -o DIR; with --report an SVG copy of each too (only the copy without -o). */
    nd_plot_gallery gallery = {0};
    if (!rc && !a->no_plots && (out_dir || a->report)) {
        nd_plot_options opt;
        nd_plot_options_init(&opt);
        if (a->plot_format) nd_plot_format_from_name(a->plot_format, &opt.format, err);
        opt.gallery = a->report ? &gallery : NULL;
        opt.gallery_only = !out_dir;
        if (out_dir) rc = nd_make_dir(out_dir, err);
        if (!rc) rc = nd_classify_plots(run, out_dir ? out_dir : ".", &opt, err);
    }
    if (!rc && a->report) rc = nd_classify_report_html(run, a->report, a->csv, &gallery, NULL, err);
    nd_plot_gallery_free(&gallery);
    return rc;
}

static int sweep_main(const nd_classify_options *o, const args *a, FILE *out, bool details, nd_error *err)
{
    nd_classify_sweep s;
    int rc = nd_classify_sweep_load(a->sweep, o, &s, err);
    if (rc) return rc;
    if (a->csv) rc = nd_classify_sweep_csv_write(&s, a->csv, a->nd_columns, err);
    if (!rc) nd_classify_sweep_report_print(&s, out, details);
    nd_classify_sweep_free(&s);
    return rc;
}

static int log_main(const nd_classify_options *o, const args *a, const nd_cmdline_streams *io, nd_error *err)
{
    nd_classify_log_options lo = {.dims = o->dims,
                                  .has_dims = o->has_dims,
                                  .config = a->log_config,
                                  .skip_steps = a->skip_given ? o->skip_steps : -1,
                                  .peak_allocated = a->peak_allocated};
    size_t n = (size_t)a->n_inputs;
    nd_classify_log *logs = calloc(n, sizeof *logs);
    if (!logs) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    size_t read = 0;
    for (; read < n && !rc; read++) rc = nd_classify_log_read(a->inputs[read], &lo, &logs[read], err);
    if (!rc) log_config_note(a, logs, n, io->diag);
    if (!rc && a->csv) rc = nd_classify_logs_csv_write(logs, n, a->csv, err);
    if (!rc) nd_classify_logs_report_print(logs, n, io->out);
    for (size_t i = 0; i < read; i++) nd_classify_log_free(&logs[i]);
    free(logs);
    return rc;
}

static int traces_main(const nd_classify_options *o, const args *a, const nd_cmdline_shared *sh, FILE *out,
                       nd_error *err)
{
    nd_classify_run *run = nd_classify_run_alloc(o);
    if (!run) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    for (int i = 0; i < a->n_inputs && !rc; i++) rc = nd_classify_run_add(run, a->inputs[i], err);
    if (!rc) rc = nd_classify_run_finish(run, err);
    if (!rc) rc = write_outputs(run, a, sh->out_dir, err);
    if (!rc && a->json)
        nd_classify_json_print(run, out);
    else if (!rc)
        nd_classify_report_print(run, out, nd_cmdline_says(sh, ND_VERBOSITY_INFO));
    nd_classify_run_free(run);
    return rc;
}

int main(int argc, char **argv)
{
    /* The shared flags nd-classify has no use for are refused, never read as something else. */
    static const nd_cmdline_unused unused[] = {
        {ND_FLAG_BUDGET, true, "nd-classify reads what a profile measured; it prices no memory"},
        {ND_FLAG_RATIOS, true, "nd-classify reads what a profile measured; it corrects no estimate"},
        {ND_FLAG_VERIFY, true, "nd-classify reads no model to check against a checkpoint"},
        {0, false, NULL}};
    static const nd_cmdline_help own[] = {
        {ND_FLAG_OUTPUT_DIR,
         "  -o, --output-dir DIR     plots: classify_ranks (each rank's step by part) and, with a\n"
         "                           device view, classify_kernels (device time by kernel class)\n"},
        {ND_FLAG_VERBOSITY,
         "  -v, --verbosity N        as every program; 3 and above: the report's details (ND's\n"
         "                           blocks, communication by source, statistics, the kernel view)\n"},
        {0, NULL}};
    static const nd_cmdline_program program = {.name = "nd-classify",
                                               .usage = usage,
                                               .exit_status = exit_status,
                                               .options = longs,
                                               .short_options = "",
                                               .handle = handle,
                                               .operand = operand,
                                               .unused = unused,
                                               .shared_help = own};
    nd_classify_options o;
    nd_classify_options_init(&o);
    args a = {0};
    a.o = &o;
    a.inputs = calloc((size_t)argc + 1, sizeof *a.inputs);
    if (!a.inputs) return fail(ND_ENOMEM, "out of memory");
    static nd_cmdline_shared sh; /* its words outlive the parse: static, not on the stack */
    nd_cmdline_shared_init(&sh);
    int status = nd_cmdline_parse(&program, argc, argv, &sh, &a);
    nd_error err = {0};
    if (status < 0 && check_flags(&a, &sh, &err)) status = nd_cmdline_usage_error("nd-classify", err.message);
    if (status >= 0) {
        free(a.inputs);
        args_free(&a);
        return status == 0 && fflush(stdout) != 0 ? 1 : status;
    }
    o.comm_kernels = a.comm_kernel;
    o.n_comm_kernels = a.n_comm_kernel;
    nd_main_start();
    nd_cmdline_streams io;
    nd_cmdline_streams_open(sh.verbosity, &io);
    unused_notes(&a, &sh, io.diag);
    int rc;
    if (a.log)
        rc = log_main(&o, &a, &io, &err);
    else if (a.sweep)
        rc = sweep_main(&o, &a, io.out, nd_cmdline_says(&sh, ND_VERBOSITY_INFO), &err);
    else
        rc = traces_main(&o, &a, &sh, io.out, &err);
    nd_cmdline_streams_close(&io);
    free(a.inputs);
    args_free(&a); /* the patterns the options borrowed */
    return nd_main_end("nd-classify", sh.verbosity, rc, &err);
}
