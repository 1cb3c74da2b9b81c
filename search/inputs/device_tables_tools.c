/*
 * device_tables_tools.c — collectives from the text the benchmark tools print: nccl-tests
 * (NVIDIA) and hccl_test (Ascend's HCCL performance tester, CANN tools/hccl_test); and the line,
 * point and call helpers the CSV readers (device_tables.c) use too. Each row is one measured
 * call, fitted with the CSV's rows. docs/devices.md §Measured tables.
 */
#include "device_tables_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/array.h"
#include "nd/base/text.h"
#include "nd/costmodel/collective.h"

/* ---- what both kinds of reader share --------------------------------------------------------- */

#define POINTS_MAX 1000000

bool nd_tables_next_line(const char *text, size_t len, size_t *at, const char **line, size_t *line_len)
{
    if (*at >= len) return false;
    size_t from = *at, to = from;
    while (to < len && text[to] != '\n') to++;
    *at = to < len ? to + 1 : to;
    if (to > from && text[to - 1] == '\r') to--;
    *line = text + from;
    *line_len = to - from;
    return true;
}

int nd_tables_append(const reader *r, void **items, size_t *count, size_t size, const void *item,
                     const char *what)
{
    if (*count >= POINTS_MAX)
        return nd_error_set(r->err, ND_EINPUT, "%s:%d: more than %d %s", r->path, r->line, POINTS_MAX, what);
    if ((*count & (*count - 1)) == 0) {
        void *grown = realloc(*items, (*count ? 2 * *count : 1) * size);
        if (!grown) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
        *items = grown;
    }
    memcpy((char *)*items + *count * size, item, size);
    (*count)++;
    return ND_OK;
}

int nd_tables_op_of(const char *text)
{
    static const struct {
        const char *name;
        int op;
    } names[] = {{"all_reduce", ND_COLL_ALL_REDUCE},
                 {"allreduce", ND_COLL_ALL_REDUCE},
                 {"reduce_scatter", ND_COLL_REDUCE_SCATTER},
                 {"reducescatter", ND_COLL_REDUCE_SCATTER},
                 {"all_gather", ND_COLL_ALL_GATHER},
                 {"allgather", ND_COLL_ALL_GATHER},
                 {"all_to_all", ND_COLL_ALL_TO_ALL},
                 {"alltoall", ND_COLL_ALL_TO_ALL},
                 {"all2all", ND_COLL_ALL_TO_ALL},
                 {"p2p", ND_COLL_P2P},
                 {"sendrecv", ND_COLL_P2P}};
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (!strcmp(text, names[i].name)) return names[i].op;
    return -1;
}

int nd_tables_add_coll(const reader *r, coll_points *pts, coll_point p)
{
    if (p.per_node > r->d->devices_per_node)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: %g ranks a node, more than the device's devices_per_node (%d)", r->path,
                            r->line, p.per_node, r->d->devices_per_node);
    void *items = pts->items;
    int rc = nd_tables_append(r, &items, &pts->count, sizeof p, &p, "collective rows");
    pts->items = items;
    return rc;
}

/* ---- nccl-tests' output --------------------------------------------------------------------- */

bool nd_tables_is_nccl_tests(const char *text, size_t len)
{
    static const char *const marks[] = {"# nThread ", "# Collective test starting", "#  Rank "};
    size_t scan = len < 65536 ? len : 65536;
    for (size_t i = 0; i < ND_ARRAY_LEN(marks); i++) {
        size_t m = strlen(marks[i]);
        for (size_t at = 0; at + m <= scan; at++)
            if ((at == 0 || text[at - 1] == '\n') && !memcmp(text + at, marks[i], m)) return true;
    }
    return false;
}

/* Whitespace-separated words of a line, at most `max`. */
size_t nd_tables_words(const char *line, size_t len, char out[][CELL_CHARS], size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        while (i < len && isspace((unsigned char)line[i])) i++;
        size_t from = i;
        while (i < len && !isspace((unsigned char)line[i])) i++;
        if (i == from) break;
        size_t w = i - from < CELL_CHARS ? i - from : CELL_CHARS - 1;
        memcpy(out[n], line + from, w);
        out[n++][w] = '\0';
    }
    return n;
}

/* The operation from "# Collective test starting: all_reduce_perf", else the file's name. */
static int nccl_op(const char *path, const char *text, size_t len)
{
    static const char *const names[] = {"all_reduce", "reduce_scatter", "all_gather", "alltoall", "sendrecv"};
    static const int ops[] = {ND_COLL_ALL_REDUCE, ND_COLL_REDUCE_SCATTER, ND_COLL_ALL_GATHER,
                              ND_COLL_ALL_TO_ALL, ND_COLL_P2P};
    const char *mark = "# Collective test starting: ";
    size_t at = 0, line_len;
    const char *line;
    while (nd_tables_next_line(text, len, &at, &line, &line_len)) {
        size_t m = strlen(mark);
        if (line_len <= m || memcmp(line, mark, m)) continue;
        for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
            if (!strncmp(line + m, names[i], strlen(names[i]))) return ops[i];
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (strstr(base, names[i])) return ops[i];
    return -1;
}

int nd_tables_read_nccl_tests(reader *r, const char *text, size_t len, coll_points *pts)
{
    int op = nccl_op(r->path, text, len);
    r->line = 1;
    if (op < 0)
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:1: nccl-tests output names no operation: keep its '# Collective test starting: "
            "NAME_perf' line, or name the file after the test (all_reduce_perf.txt, ...)",
            r->path);
    char hosts[256][CELL_CHARS];
    size_t n_hosts = 0, ranks = 0, at = 0, line_len;
    int time_col = -1;
    const char *line;
    char w[32][CELL_CHARS];
    for (r->line = 1; nd_tables_next_line(text, len, &at, &line, &line_len); r->line++) {
        size_t n = nd_tables_words(line, line_len, w, ND_ARRAY_LEN(w));
        if (n >= 2 && !strcmp(w[0], "#") && !strcmp(w[1], "Rank")) {
            ranks++;
            for (size_t i = 2; i + 1 < n; i++)
                if (!strcmp(w[i], "on")) {
                    size_t h = 0;
                    while (h < n_hosts && strcmp(hosts[h], w[i + 1])) h++;
                    if (h == n_hosts && n_hosts < ND_ARRAY_LEN(hosts))
                        nd_text_copy(hosts[n_hosts++], w[i + 1], CELL_CHARS);
                    break;
                }
            continue;
        }
        if (n >= 3 && !strcmp(w[0], "#") && !strcmp(w[1], "size")) {
            for (size_t i = 1; i < n && time_col < 0; i++)
                if (!strcmp(w[i], "time")) time_col = (int)i - 1;
            continue;
        }
        if (!n || w[0][0] == '#') continue;
        double bytes, us;
        if (time_col < 0 || (size_t)time_col >= n) continue;
        if (nd_parse_double(w[0], &bytes) || nd_parse_double(w[time_col], &us) || !(bytes > 0) || !(us > 0))
            continue; /* a size of 0, or N/A */
        if (ranks < 2 || !n_hosts)
            return nd_error_set(
                r->err, ND_EINPUT,
                "%s:%d: nccl-tests rows before its '#  Rank N ... on HOST' lines (%zu rank%s): "
                "keep the header nccl-tests prints",
                r->path, r->line, ranks, ranks == 1 ? "" : "s");
        if (ranks % n_hosts)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: %zu ranks on %zu hosts: not the same number on each", r->path,
                                r->line, ranks, n_hosts);
        coll_point p = {
            op, n_hosts > 1 ? ND_TIER_INTER : ND_TIER_INTRA, (double)ranks, (double)(ranks / n_hosts), bytes,
            us};
        int rc = nd_tables_add_coll(r, pts, p);
        if (rc) return rc;
    }
    if (!pts->count)
        return nd_error_set(r->err, ND_EINPUT, "%s:1: nccl-tests output without a row of size and time",
                            r->path);
    return ND_OK;
}

/* ---- hccl_test's output --------------------------------------------------------------------- */

#define HCCL_HEADER "data_size(Bytes):"

bool nd_tables_is_hccl_test(const char *text, size_t len)
{
    size_t scan = len < 65536 ? len : 65536, at = 0, line_len;
    const char *line;
    while (at < scan && nd_tables_next_line(text, len, &at, &line, &line_len)) {
        while (line_len && (*line == ' ' || *line == '\t')) {
            line++;
            line_len--;
        }
        if (line_len >= strlen(HCCL_HEADER) && !memcmp(line, HCCL_HEADER, strlen(HCCL_HEADER))) return true;
    }
    return false;
}

/* What the mpirun line that ran the test says: the operation from the binary's name
 * (all_reduce_test, ...), the ranks from mpirun's -n/-np, the NPUs a node from the test's
 * -p/--npus. Fields not found stay as they were. */
typedef struct hccl_run {
    int op;
    double ranks, per_node;
} hccl_run;

static int hccl_op(const char *word)
{
    static const char *const names[] = {"all_reduce_test", "reduce_scatter_test", "all_gather_test",
                                        "alltoall_test"};
    static const int ops[] = {ND_COLL_ALL_REDUCE, ND_COLL_REDUCE_SCATTER, ND_COLL_ALL_GATHER,
                              ND_COLL_ALL_TO_ALL};
    const char *base = strrchr(word, '/');
    base = base ? base + 1 : word;
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (!strncmp(base, names[i], strlen(names[i]))) return ops[i];
    return -1;
}

static void hccl_command(const char *line, size_t len, hccl_run *run)
{
    char w[64][CELL_CHARS];
    size_t n = nd_tables_words(line, len, w, ND_ARRAY_LEN(w)), binary = n;
    for (size_t i = 0; i < n && binary == n; i++)
        if (hccl_op(w[i]) >= 0) binary = i;
    if (binary == n) return;
    run->op = hccl_op(w[binary]);
    for (size_t i = 0; i + 1 < n; i++) {
        double v;
        if (nd_parse_double(w[i + 1], &v) || !(v >= 1) || v != floor(v) || v > (1 << 24)) continue;
        if (i < binary && (!strcmp(w[i], "-n") || !strcmp(w[i], "-np") || !strcmp(w[i], "--np")))
            run->ranks = v;
        if (i > binary && (!strcmp(w[i], "-p") || !strcmp(w[i], "--npus"))) run->per_node = v;
    }
}

/* The group of the table: from the command line, the NPUs a node defaulting to the group when
 * it fits in one node. */
static int hccl_group(const reader *r, const char *text, size_t len, hccl_run *run)
{
    size_t at = 0, line_len;
    const char *line;
    while (nd_tables_next_line(text, len, &at, &line, &line_len)) hccl_command(line, line_len, run);
    if (run->op < 0) {
        const char *base = strrchr(r->path, '/');
        run->op = hccl_op(base ? base + 1 : r->path);
    }
    if (run->op < 0 || run->ranks < 2)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:1: hccl_test output without its command: keep the mpirun line that ran it "
                            "(mpirun -n 16 .../all_reduce_test -p 8 ...) above the table",
                            r->path);
    if (run->per_node <= 0 && run->ranks <= r->d->devices_per_node) run->per_node = run->ranks;
    if (run->per_node <= 0 || fmod(run->ranks, run->per_node) != 0)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:1: hccl_test's -p (NPUs a node) %s %g ranks: state -p on the command line",
                            r->path, run->per_node > 0 ? "does not divide" : "is missing for", run->ranks);
    return ND_OK;
}

/* One row: data_size, aveg_time, alg_bandwidth, check_result, '|' between. hccl_test's
 * data_size is the buffer of one NPU and its alg_bandwidth the whole operation's bytes over the
 * time (all-gather: data_size x ranks): the bytes nd fits, nccl-tests' whole buffer, are
 * data_size times the factor (1 or ranks) the bandwidth shows. */
static int hccl_row(reader *r, const hccl_run *run, char w[][CELL_CHARS], size_t n, size_t first,
                    coll_points *pts)
{
    double bytes, us, algbw = 0;
    if (n < 2 || nd_parse_double(w[0], &bytes) || nd_parse_double(w[1], &us) || !(bytes > 0) || !(us > 0) ||
        !isfinite(bytes) || !isfinite(us))
        return ND_OK; /* a log line between the rows */
    if (n >= 4 && !strcmp(w[3], "failed"))
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: check_result 'failed': the collective returned wrong data, not a "
                            "measurement",
                            r->path, r->line);
    if (n >= 3 && !nd_parse_double(w[2], &algbw) && algbw > 0 && isfinite(algbw)) {
        double factor = algbw * us * 1e3 / bytes;
        if (fabs(log(factor / run->ranks)) < fabs(log(factor))) bytes *= run->ranks;
    }
    for (size_t i = first; i < pts->count; i++) /* every rank prints: the slowest one counts */
        if (pts->items[i].bytes == bytes) {
            pts->items[i].time_us = fmax(pts->items[i].time_us, us);
            return ND_OK;
        }
    coll_point p = {run->op,    run->ranks > run->per_node ? ND_TIER_INTER : ND_TIER_INTRA,
                    run->ranks, run->per_node,
                    bytes,      us};
    return nd_tables_add_coll(r, pts, p);
}

int nd_tables_read_hccl_test(reader *r, const char *text, size_t len, coll_points *pts)
{
    hccl_run run = {-1, 0, 0};
    int rc = hccl_group(r, text, len, &run);
    if (rc) return rc;
    size_t at = 0, line_len, first = pts->count;
    const char *line;
    bool table = false;
    char w[16][CELL_CHARS];
    for (r->line = 1; nd_tables_next_line(text, len, &at, &line, &line_len); r->line++) {
        char row[1024];
        size_t keep = line_len < sizeof row - 1 ? line_len : sizeof row - 1;
        memcpy(row, line, keep);
        row[keep] = '\0';
        for (char *c = row; *c; c++)
            if (*c == '|') *c = ' ';
        size_t n = nd_tables_words(row, keep, w, ND_ARRAY_LEN(w));
        if (n && !strcmp(w[0], HCCL_HEADER)) {
            table = true;
            continue;
        }
        if (table && (rc = hccl_row(r, &run, w, n, first, pts))) return rc;
    }
    if (pts->count == first)
        return nd_error_set(r->err, ND_EINPUT, "%s:1: hccl_test output without a row of size and time",
                            r->path);
    return ND_OK;
}
