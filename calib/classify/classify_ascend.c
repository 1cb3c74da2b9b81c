/* The Ascend path (docs/reference/nd-calibration.md §3.4): step_trace_time.csv gives each
 * device step's time, compute and exposed communication; communication.json names
 * the operators, whose elapse times share the exposed time out (ND's apportioning:
 * the overlap is assumed spread evenly over the operators). Every header version in
 * docs/reference/ascend-profiler-formats.md is read: with or without Device_id and
 * Preparing, the 2023 lower-case variant, and msprof-analyze's cluster file
 * (Type/Index columns, rank rows only; its cluster_communication.json too). */
#include "classify_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "classify_ascend.h"
#include "classify_kernel_details.h"
#include "classify_output.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <dir>/<sub>/ASCEND_PROFILER_OUTPUT/step_trace_time.csv, first <sub> in sorted order (ND). */
static char *find_nested(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL, *hit = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char **m = realloc(names, (n + 1) * sizeof *m);
        if (!m) break;
        names = m;
        if ((names[n] = nd_strdup(e->d_name))) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !hit; i++) {
        char *sub = nd_path_join(dir, names[i]);
        char *out = sub ? nd_path_join(sub, "ASCEND_PROFILER_OUTPUT") : NULL;
        char *csv = out ? nd_path_join(out, "step_trace_time.csv") : NULL;
        if (csv && is_file(csv)) {
            hit = csv;
            csv = NULL;
        }
        free(sub);
        free(out);
        free(csv);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return hit;
}

int nd_classify_ascend_find(const char *path, char **csv_out, nd_error *err)
{
    *csv_out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) {
        size_t n = strlen(path);
        if (n < 4 || strcmp(path + n - 4, ".csv")) return 0;
        *csv_out = nd_strdup(path);
        return *csv_out ? 1 : nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    static const char *const tries[] = {"step_trace_time.csv", "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                                        "cluster_step_trace_time.csv",
                                        "cluster_analysis_output/cluster_step_trace_time.csv"};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        char *p = nd_path_join(path, tries[i]);
        if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
        if (is_file(p)) {
            *csv_out = p;
            return 1;
        }
        free(p);
    }
    *csv_out = find_nested(path);
    return *csv_out != NULL;
}

/* "2-7" or "0, 3, 5-6": the ranks marked in seen (index rank + 1), within size bytes. */
static void rank_list(const bool *seen, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 16 < size; i++) {
        if (!seen[i]) continue;
        size_t j = i;
        while (j + 1 < n && seen[j + 1]) j++;
        if (j == i)
            used += (size_t)snprintf(buf + used, size - used, "%s%ld", used ? ", " : "", (long)i - 1);
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%ld-%ld", used ? ", " : "", (long)i - 1,
                                     (long)j - 1);
        i = j;
    }
}

/* Per rank (index rank + 1): rows seen (for warm-up dropping) and whether a row had
 * exposed communication that communication.json does not account for. */
typedef struct rank_book {
    int *orders;
    bool *unmatched;
    size_t n;
    double unmatched_ms;
    size_t unmatched_rows, zero_rows;
} rank_book;

static int book_grow(rank_book *b, int rank)
{
    if ((size_t)(rank + 1) < b->n) return 0;
    size_t n = (size_t)(rank + 1) * 2 + 8;
    int *o = realloc(b->orders, n * sizeof *o);
    if (o) b->orders = o;
    bool *u = o ? realloc(b->unmatched, n * sizeof *u) : NULL;
    if (!u) return -1;
    b->unmatched = u;
    memset(o + b->n, 0, (n - b->n) * sizeof *o);
    memset(u + b->n, 0, (n - b->n) * sizeof *u);
    b->n = n;
    return 0;
}

static void warn_unmatched(nd_classify_run *run, const ascend_comm *comm, const char *csv_path,
                           const rank_book *b)
{
    if (!b->unmatched_rows) return;
    char ranks[256], ms[ND_CLASSIFY_MS_TEXT];
    rank_list(b->unmatched, b->n, ranks, sizeof ranks);
    nd_classify_format_ms(b->unmatched_ms / (double)b->unmatched_rows, ms);
    const char *who = b->unmatched[0] ? "some steps" : "rank(s) ";
    if (comm->present)
        nd_classify_run_warn(run,
                             "%s holds no operators for %s%s: their exposed communication (%s ms per "
                             "rank-step over %zu rank-steps) is charged to unclassified, not placed in a "
                             "dimension",
                             comm->path, who, b->unmatched[0] ? "" : ranks, ms, b->unmatched_rows);
    else
        nd_classify_run_warn(
            run,
            "%s: no communication.json beside it: the exposed communication (%s ms per rank-step "
            "over %zu rank-steps) is charged to unclassified, not placed in a dimension",
            csv_path, ms, b->unmatched_rows);
}

/* Moves the kernel view of each of src's samples onto the sample of run (from index
 * `from`) of the same step and rank (a rank unknown on either side matches); the number
 * moved. */
static size_t kernel_views_move(nd_classify_run *run, size_t from, nd_classify_run *src)
{
    size_t moved = 0;
    for (size_t i = 0; i < src->n_samples; i++) {
        nd_classify_sample *k = &src->samples[i];
        for (size_t j = from; j < run->n_samples && k->kernels; j++) {
            nd_classify_sample *s = &run->samples[j];
            bool rank = s->rank == k->rank || s->rank < 0 || k->rank < 0;
            if (s->kernels || !rank || strcmp(s->step, k->step)) continue;
            s->kernels = k->kernels;
            k->kernels = NULL;
            s->comm_ms = k->comm_ms;
            s->overlapped_ms = k->overlapped_ms;
            moved++;
        }
    }
    return moved;
}

/* torch_npu writes kernel_details.csv beside step_trace_time.csv: its tasks give the run's
 * rank-steps (those from index `from`) their kernel view, by step and rank. */
static int kernel_views_beside(nd_classify_run *run, const char *csv_path, size_t from, nd_error *err)
{
    char *dir = nd_path_dir(csv_path), *kd = dir ? nd_path_join(dir, "kernel_details.csv") : NULL;
    free(dir);
    if (!kd) return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!is_file(kd)) {
        free(kd);
        return ND_OK;
    }
    nd_classify_run *src = nd_classify_run_alloc(&run->opts);
    int rc =
        src ? nd_classify_kernel_details_read(src, kd, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        size_t moved = kernel_views_move(run, from, src);
        nd_classify_run_note(run,
                             "%s: the kernel view of %zu rank-step(s) from the kernel_details.csv beside it "
                             "(its tasks, by step and rank)",
                             csv_path, moved);
    }
    nd_classify_run_free(src);
    free(kd);
    return rc;
}

int nd_classify_ascend_read(nd_classify_run *run, const char *csv_path, nd_error *err)
{
    size_t from = run->n_samples;
    ascend_row *rows;
    size_t n;
    ascend_file_id id;
    int rc = nd_classify_ascend_rows(csv_path, &rows, &n, &id, err);
    if (rc) return rc;
    /* the same file twice (a directory and its step_trace_time.csv): read once */
    if ((rc = nd_classify_run_input_check(run, csv_path, -1, id.digest, id.bytes, err))) {
        free(rows);
        return rc < 0 ? rc : ND_OK;
    }
    ascend_comm comm;
    rc = nd_classify_ascend_comm_load(run, csv_path, &comm, err);
    rank_book b = {0};
    for (size_t i = 0; i < n && !rc; i++) {
        ascend_row *r = &rows[i];
        if (book_grow(&b, r->rank)) {
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            break;
        }
        r->order = b.orders[r->rank + 1]++;
        if (r->time_ms <= 0) { /* a step of no length: no row nd-compare would refuse */
            b.zero_rows++;
            continue;
        }
        bool unmatched = false;
        rc = nd_classify_ascend_sample(run, csv_path, &comm, r, &unmatched, err);
        if (unmatched) {
            b.unmatched[r->rank + 1] = true;
            b.unmatched_ms += r->exposed_ms;
            b.unmatched_rows++;
        }
    }
    if (!rc) warn_unmatched(run, &comm, csv_path, &b);
    if (!rc) rc = kernel_views_beside(run, csv_path, from, err);
    if (!rc && b.zero_rows)
        nd_classify_run_warn(run, "%s: %zu row(s) with a Stage of 0 skipped (a step of no length)", csv_path,
                             b.zero_rows);
    free(b.orders);
    free(b.unmatched);
    nd_classify_ascend_comm_free(&comm);
    free(rows);
    return rc;
}
