/* A sweep: a directory of runs, one subdirectory per strategy, classified in one call
 * into one round row per run. A run's inputs are the Ascend output or the Chrome traces
 * it holds; its degrees come from a strategy.txt in it (over --dims), else --dims, else
 * its traces' distributedInfo. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "classify_internal.h"
#include "classify_output.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

#define STRATEGY_FILE      "strategy.txt"
#define STRATEGY_MAX_BYTES ((size_t)64 << 10)
#define SWEEP_MAX_RUNS     4096
#define RUN_MAX_INPUTS     65536

typedef struct names {
    char **items;
    size_t n;
} names;

static void names_free(names *n)
{
    for (size_t i = 0; i < n->n; i++) free(n->items[i]);
    free(n->items);
    memset(n, 0, sizeof *n);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir (no dot files), joined to dir, sorted. */
static int list_dir(const char *dir, names *out, size_t max, nd_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) return nd_error_set(err, ND_EINPUT, "%s: cannot open the directory", dir);
    int rc = ND_OK;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (out->n == max) {
            rc = nd_error_set(err, ND_EINPUT, "%s: more than %zu entries", dir, max);
            break;
        }
        char **m = realloc(out->items, (out->n + 1) * sizeof *m);
        if (m) out->items = m;
        char *p = m ? nd_path_join(dir, e->d_name) : NULL;
        if (!p)
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        else
            out->items[out->n++] = p;
    }
    closedir(d);
    if (rc)
        names_free(out);
    else if (out->n)
        qsort(out->items, out->n, sizeof *out->items, cmp_str);
    return rc;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* A Chrome trace by its name: .json or .json.gz, but not the JSON files profilers write
 * beside their traces. */
static bool is_trace_name(const char *path)
{
    static const char *const not_traces[] = {"communication", "cluster_communication", "config",
                                             "profiler_info", "profiler_metadata",     NULL};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!ends_with(base, ".json") && !ends_with(base, ".json.gz")) return false;
    for (const char *const *n = not_traces; *n; n++)
        if (!strncmp(base, *n, strlen(*n))) return false;
    return true;
}

static int names_add(names *n, const char *s)
{
    if (n->n == RUN_MAX_INPUTS) return ND_EINPUT;
    char **m = realloc(n->items, (n->n + 1) * sizeof *m);
    if (!m) return ND_ENOMEM;
    n->items = m;
    if (!(n->items[n->n] = nd_strdup(s))) return ND_ENOMEM;
    n->n++;
    return ND_OK;
}

/* The inputs of one run directory: itself when it is Ascend output; else, in name order,
 * its Ascend subdirectories (one per rank) and its traces, and those of its other
 * subdirectories (one level). */
static int run_inputs(const char *dir, names *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    static const char *const ascend_here[] = {"step_trace_time.csv", "ASCEND_PROFILER_OUTPUT",
                                              "cluster_step_trace_time.csv", "cluster_analysis_output", NULL};
    for (const char *const *a = ascend_here; *a; a++) {
        char *p = nd_path_join(dir, *a);
        struct stat st;
        bool here = p && stat(p, &st) == 0;
        free(p);
        if (here) return names_add(out, dir) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
    }
    names top;
    int rc = list_dir(dir, &top, RUN_MAX_INPUTS, err);
    for (size_t i = 0; i < top.n && !rc; i++) {
        char *csv = NULL;
        const char *p = top.items[i];
        if (!is_dir(p)) {
            if (is_trace_name(p) && names_add(out, p)) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            continue;
        }
        int found = nd_classify_ascend_find(p, &csv, err);
        free(csv);
        if (found < 0)
            rc = found;
        else if (found)
            rc = names_add(out, p) ? nd_error_set(err, ND_ENOMEM, "out of memory") : ND_OK;
        else {
            names sub;
            rc = list_dir(p, &sub, RUN_MAX_INPUTS, err);
            for (size_t k = 0; k < sub.n && !rc; k++)
                if (!is_dir(sub.items[k]) && is_trace_name(sub.items[k]) && names_add(out, sub.items[k]))
                    rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            names_free(&sub);
        }
    }
    names_free(&top);
    if (!rc && out->n == 0)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s: a run without inputs (no .json or .json.gz trace, no Ascend output)", dir);
    if (rc) names_free(out);
    return rc;
}

/* One line of a strategy.txt: its '#' comment dropped, spaces and tabs as commas; its items
 * join d (a dimension on two lines is given twice, as in --dims). Errors name path:line. */
static int strategy_line(char *line, const char *path, int number, nd_classify_dims *d, nd_error *err)
{
    bool blank = true;
    line[strcspn(line, "#")] = '\0';
    for (char *p = line; *p; p++) {
        if (*p == '\r' || *p == '\t' || *p == ' ')
            *p = ',';
        else if (*p != ',')
            blank = false;
    }
    nd_classify_dims one;
    int rc = blank ? ND_OK : nd_classify_dims_parse(line, &one, err);
    for (int i = 0; !rc && !blank && i < one.count; i++) {
        for (int k = 0; k < d->count && !rc; k++)
            if (d->dim[k] == one.dim[i])
                rc = nd_error_set(err, ND_EINPUT, "--dims: %s is given twice", nd_dim_name(one.dim[i]));
        if (!rc && d->count == ND_CLASSIFY_DIMS_MAX)
            rc = nd_error_set(err, ND_EINPUT, "--dims: too many dimensions");
        if (!rc) {
            d->dim[d->count] = one.dim[i];
            d->value[d->count++] = one.value[i];
        }
    }
    if (rc) {
        nd_error_prefix(err, "%s:%d", path, number);
        rc = err->code = ND_EINPUT; /* the file's fault, not the command line's: no "Try --help" */
    }
    return rc;
}

/* A strategy.txt's degrees: --dims items separated by commas, spaces or lines, '#'
 * comments; a UTF-8 BOM (Windows editors write one) is skipped, as the other readers do. */
static int strategy_read(const char *path, nd_classify_dims *d, nd_error *err)
{
    char *text = NULL;
    int rc = nd_read_file(path, STRATEGY_MAX_BYTES, &text, NULL, err);
    if (rc) return rc;
    memset(d, 0, sizeof *d);
    char *p = !strncmp(text, "\xEF\xBB\xBF", 3) ? text + 3 : text;
    for (int number = 1; !rc && p; number++) {
        char *next = strchr(p, '\n');
        if (next) *next++ = '\0';
        rc = strategy_line(p, path, number, d, err);
        p = next;
    }
    if (!rc && d->count == 0)
        rc = nd_error_set(err, ND_EINPUT, "%s: no dimension given (e.g. DP=8 MP=4)", path);
    free(text);
    return rc;
}

/* strategy.txt: its values override --dims, whose other dimensions stay. */
static int strategy_file(const char *dir, nd_classify_options *o, nd_classify_run *run, nd_error *err)
{
    char *path = nd_path_join(dir, STRATEGY_FILE);
    if (!path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0) {
        free(path);
        return ND_OK;
    }
    nd_classify_dims d;
    int rc = strategy_read(path, &d, err);
    if (!rc) {
        for (int i = 0; i < d.count; i++) { /* over --dims */
            int k = 0;
            while (k < o->dims.count && o->dims.dim[k] != d.dim[i]) k++;
            if (k == o->dims.count && k < ND_CLASSIFY_DIMS_MAX) o->dims.dim[o->dims.count++] = d.dim[i];
            if (k < ND_CLASSIFY_DIMS_MAX) o->dims.value[k] = d.value[i];
        }
        bool merged = o->has_dims;
        o->has_dims = true;
        snprintf(run->dims_source, sizeof run->dims_source, "%s%s", path, merged ? " over --dims" : "");
    }
    free(path);
    return rc;
}

/* Reads and finishes one run of a sweep. */
static int sweep_one(const char *dir, const nd_classify_options *defaults, nd_classify_run **out,
                     nd_error *err)
{
    nd_classify_options o = *defaults;
    nd_classify_run *run = nd_classify_run_alloc(&o);
    if (!run) return nd_error_set(err, ND_ENOMEM, "out of memory");
    names in = {0};
    int rc = strategy_file(dir, &run->opts, run, err);
    if (!rc) rc = run_inputs(dir, &in, err);
    for (size_t i = 0; i < in.n && !rc; i++) rc = nd_classify_run_add(run, in.items[i], err);
    if (!rc) rc = nd_classify_run_finish(run, err);
    names_free(&in);
    if (rc) {
        nd_classify_run_free(run);
        return rc;
    }
    *out = run;
    return ND_OK;
}

void nd_classify_sweep_free(nd_classify_sweep *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->dirs[i]);
        nd_classify_run_free(s->runs[i]);
    }
    free(s->dirs);
    free(s->runs);
    memset(s, 0, sizeof *s);
}

int nd_classify_sweep_load(const char *dir, const nd_classify_options *opts, nd_classify_sweep *s,
                           nd_error *err)
{
    memset(s, 0, sizeof *s);
    names all;
    int rc = list_dir(dir, &all, SWEEP_MAX_RUNS, err);
    if (rc) return rc;
    for (size_t i = 0; i < all.n && !rc; i++) {
        if (!is_dir(all.items[i])) continue;
        nd_classify_run *run = NULL;
        rc = sweep_one(all.items[i], opts, &run, err);
        if (rc) break;
        char **d = realloc(s->dirs, (s->n + 1) * sizeof *d);
        nd_classify_run **r = d ? realloc(s->runs, (s->n + 1) * sizeof *r) : NULL;
        if (d) s->dirs = d;
        if (r) s->runs = r;
        if (!d || !r) {
            nd_classify_run_free(run);
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            break;
        }
        s->dirs[s->n] = all.items[i];
        all.items[i] = NULL;
        s->runs[s->n++] = run;
    }
    names_free(&all);
    if (!rc && s->n == 0)
        rc = nd_error_set(err, ND_EINPUT,
                          "%s: no run directories in it (a sweep holds one directory per strategy)", dir);
    if (rc) nd_classify_sweep_free(s);
    return rc;
}

int nd_classify_sweep_csv_write(const nd_classify_sweep *s, const char *path, bool nd_columns, nd_error *err)
{
    round_row *rows = calloc(s->n, sizeof *rows);
    if (!rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    for (size_t i = 0; i < s->n && !rc; i++) {
        if (!s->runs[i]->opts.has_dims)
            rc = nd_error_set(err, ND_EUSAGE,
                              "%s: no degrees for this run (no %s in it, no --dims, "
                              "no distributedInfo naming its groups)",
                              s->dirs[i], STRATEGY_FILE);
        else if ((rc = nd_classify_round_row_of(s->runs[i], nd_columns, &rows[i], err)))
            nd_error_prefix(err, "%s", s->dirs[i]);
    }
    if (!rc) rc = nd_classify_round_append(path, rows, s->n, err);
    free(rows);
    return rc;
}
