/* Ascend communication.json: the HCCL operators of each step, streamed with yajl (a
 * cluster's file reaches hundreds of MB; a tree of it took 9 GB) and summed per step,
 * rank and kind as they are read. Two layouts, told apart by the first key:
 *   per rank:  step<N> -> collective|p2p -> operator -> entry
 *   cluster:   group "(0, 1)" -> step<N> -> operator -> rank -> entry   (msprof-analyze)
 * An entry: {"Communication Time Info": {"Elapse Time(ms)", "Wait Time(ms)",
 * "Transit Time(ms)", ...}, "Communication Bandwidth Info": {"RDMA": {"Transit Size(MB)"},
 * "SDMA": {...}, "HCCS"...}}. The apportioning (ND's, docs/reference/nd-calibration.md §3.4)
 * is classify_apportion.c's. */
#include "classify_ascend.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "classify_json.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

/* Nesting past the deepest layout (cluster: group, step, operator, rank, entry, link,
 * size distribution: 8) is refused; the parser needs a key per level. */
#define MAX_JSON_DEPTH 64
#define KEY_MAX        256
/* A time or size in the file: finite, not negative, at most about 30 years of ms. */
#define MAX_VALUE 1e12

enum info { I_NONE, I_TIME, I_BW };
enum field { F_NONE, F_ELAPSE, F_WAIT, F_TRANSIT, F_LINK_SIZE };

typedef struct comm_parse {
    json_feed feed;
    nd_classify_run *run;
    ascend_comm *c;
    int depth, entry_depth; /* entry_depth: 4 per rank, 5 cluster; 0 until known */
    bool top_object;
    char key[8][KEY_MAX]; /* the key at each level (1..7) */
    enum info info;
    bool link_counted; /* RDMA or SDMA: the link's size counts (HCCS, PCIE repeat SDMA) */
    /* the entry being read */
    bool in_entry, skip_entry, has_elapse;
    ascend_op op;
    /* skipped operator names: counted, one note */
    unsigned long long skipped;
    char skipped_name[64];
} comm_parse;

static int fail(comm_parse *p, int code, const char *fmt, ...) ND_PRINTF(3, 4);
static int fail(comm_parse *p, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nd_error_set(p->feed.err, code, "%s: %s", p->c->path, msg);
    return 0;
}

/* "step1/collective/hcom_allReduce__1_0_1@1": the keys down to level `upto`. */
static const char *where(comm_parse *p, int upto, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 1; d <= upto && d < 8 && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", d > 1 ? "/" : "", p->key[d]);
    return buf;
}

/* The digits of a step key ("step12" -> 12); 0 without digits, -1 (matches no step) when
 * they do not fit a long. */
static long step_digits(const char *key)
{
    long v = 0;
    bool any = false;
    for (const char *s = key; *s; s++) {
        if (!isdigit((unsigned char)*s)) continue;
        if (v > (LONG_MAX - 9) / 10) return -1;
        v = v * 10 + (*s - '0');
        any = true;
    }
    return any ? v : 0;
}

static bool is_p2p_name(const char *name)
{
    return !strncmp(name, "hcom_send", 9) || !strncmp(name, "hcom_receive", 12) ||
           !strncmp(name, "hcom_batchsendrecv", 18);
}

/* ---- the sums, indexed by (step, rank, p2p, kind, group) ------------------------ */

static uint64_t op_hash(const ascend_op *o)
{
    uint64_t h = (uint64_t)o->step_num * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)o->rank << 20) ^ ((uint64_t)o->kind << 8) ^ (uint64_t)o->p2p;
    h ^= (uint64_t)(uint32_t)o->group * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
}

static bool same_key(const ascend_op *a, const ascend_op *b)
{
    return a->step_num == b->step_num && a->rank == b->rank && a->p2p == b->p2p && a->kind == b->kind &&
           a->group == b->group;
}

static int slots_grow(ascend_comm *c)
{
    size_t n = c->n_slots ? c->n_slots * 2 : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < c->n; i++) {
        size_t k = op_hash(&c->ops[i]) & (n - 1);
        while (s[k]) k = (k + 1) & (n - 1);
        s[k] = (uint32_t)i + 1;
    }
    free(c->slots);
    c->slots = s;
    c->n_slots = n;
    return 0;
}

/* Adds the entry just read to its sum. */
static int op_sum(ascend_comm *c, const ascend_op *o)
{
    if ((c->n + 1) * 2 > c->n_slots && slots_grow(c)) return -1;
    size_t k = op_hash(o) & (c->n_slots - 1);
    for (; c->slots[k]; k = (k + 1) & (c->n_slots - 1)) {
        ascend_op *x = &c->ops[c->slots[k] - 1];
        if (!same_key(x, o)) continue;
        x->calls += o->calls;
        x->elapse_ms += o->elapse_ms;
        x->wait_ms += o->wait_ms;
        x->transit_ms += o->transit_ms;
        x->bytes += o->bytes;
        return 0;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        ascend_op *ops = realloc(c->ops, cap * sizeof *ops);
        if (!ops) return -1;
        c->ops = ops;
        c->cap = cap;
    }
    if (c->n >= UINT32_MAX - 1) return -1;
    c->ops[c->n] = *o;
    c->slots[k] = (uint32_t)++c->n;
    return 0;
}

/* ---- the parser's callbacks -------------------------------------------------- */

/* A cluster group key "(0, 1, 2)" as a group of those ranks; -1 if it lists none. */
static int32_t cluster_group(comm_parse *p, const char *key)
{
    char ranks[KEY_MAX + 2];
    size_t k = 0;
    ranks[k++] = '[';
    for (const char *s = key; *s && k + 2 < sizeof ranks; s++)
        if (isdigit((unsigned char)*s) || *s == ',' || *s == ' ') ranks[k++] = *s;
    ranks[k++] = ']';
    ranks[k] = '\0';
    if (k <= 2) return -1;
    comm_group g = {.kind = p->op.kind, .ranks = ranks, .pg_name = (char *)key};
    int i = nd_classify_group_table_intern(&p->c->groups, &g);
    return i >= 0 ? i : -1;
}

static void entry_begin(comm_parse *p)
{
    int ed = p->entry_depth;
    bool cluster = ed == 5;
    const char *name = p->key[3];
    memset(&p->op, 0, sizeof p->op);
    p->in_entry = true;
    p->has_elapse = false;
    p->info = I_NONE;
    p->skip_entry = strncmp(name, "hcom_", 5) != 0; /* "Total Op Info" repeats the step */
    if (p->skip_entry) {
        if (!p->skipped++) nd_text_copy(p->skipped_name, name, sizeof p->skipped_name);
        return;
    }
    p->op.step_num = step_digits(p->key[cluster ? 2 : 1]);
    p->op.rank = -1;
    p->op.group = -1;
    p->op.calls = 1;
    p->op.p2p = (!cluster && !strcmp(p->key[2], "p2p")) || is_p2p_name(name);
    const char *letters = name + 5;
    size_t n = 0;
    while (isalpha((unsigned char)letters[n])) n++;
    p->op.kind = n ? nd_classify_coll_from_text(letters, n) : COLL_UNKNOWN;
    if (cluster) {
        int64_t rank;
        if (nd_parse_int64(p->key[4], 0, INT32_MAX, &rank)) { /* not a rank: not an entry */
            p->skip_entry = true;
            return;
        }
        p->op.rank = (int)rank;
        p->op.group = cluster_group(p, p->key[1]);
    }
}

static int entry_end(comm_parse *p)
{
    p->in_entry = false;
    if (p->skip_entry) return 1;
    char w[4 * KEY_MAX];
    if (!p->has_elapse)
        return fail(p, ND_EINPUT,
                    "%s: 'Communication Time Info' / 'Elapse Time(ms)' is missing or not a number",
                    where(p, p->entry_depth - 1, w, sizeof w));
    if (op_sum(p->c, &p->op)) return fail(p, ND_ENOMEM, "out of memory");
    return 1;
}

static const char *field_name(enum field f)
{
    return f == F_ELAPSE    ? "Elapse Time(ms)"
           : f == F_WAIT    ? "Wait Time(ms)"
           : f == F_TRANSIT ? "Transit Time(ms)"
                            : "Transit Size(MB)";
}

static int number(comm_parse *p, enum field f, const char *s, size_t n)
{
    char text[64], w[4 * KEY_MAX];
    double v;
    if (n >= sizeof text) n = sizeof text - 1;
    memcpy(text, s, n);
    text[n] = '\0';
    if (nd_parse_double(text, &v) != 0) return 1; /* not a number: as if absent */
    if (!(v >= 0 && v <= MAX_VALUE))
        return fail(p, ND_EINPUT, "%s: '%s' is %s: not a value in [0, 1e12]",
                    where(p, p->entry_depth - 1, w, sizeof w), field_name(f), text);
    switch (f) {
    case F_ELAPSE:
        p->op.elapse_ms = v;
        p->has_elapse = true;
        break;
    case F_WAIT: p->op.wait_ms = v; break;
    case F_TRANSIT: p->op.transit_ms = v; break;
    case F_LINK_SIZE: p->op.bytes += v * 1048576.0; break;
    default: break;
    }
    return 1;
}

/* What a scalar at the current level means inside an entry. */
static enum field field_at(const comm_parse *p)
{
    int d = p->depth - p->entry_depth;
    if (p->info == I_TIME && d == 1) {
        const char *k = p->key[p->depth];
        return !strcmp(k, "Elapse Time(ms)")    ? F_ELAPSE
               : !strcmp(k, "Wait Time(ms)")    ? F_WAIT
               : !strcmp(k, "Transit Time(ms)") ? F_TRANSIT
                                                : F_NONE;
    }
    if (p->info == I_BW && d == 2 && p->link_counted && !strcmp(p->key[p->depth], "Transit Size(MB)"))
        return F_LINK_SIZE;
    return F_NONE;
}

/* A value that is not an object where the layout has one: an error, or skipped where the
 * operator is not an hcom_ one or a cluster's step or operator holds something else. */
static int not_object(comm_parse *p)
{
    char w[4 * KEY_MAX];
    int d = p->depth, ed = p->entry_depth;
    if (d == 0) return fail(p, ND_EINPUT, "the top level is not an object of steps");
    if (ed && d >= 3 && strncmp(p->key[3], "hcom_", 5)) {
        if (!p->skipped++) nd_text_copy(p->skipped_name, p->key[3], sizeof p->skipped_name);
        return 1;
    }
    if (ed == 4 && d < ed) return fail(p, ND_EINPUT, "%s: is not an object", where(p, d, w, sizeof w));
    if (ed == 5 && (d == 1 || d == 4))
        return fail(p, ND_EINPUT, "%s: is not an object", where(p, d, w, sizeof w));
    return 1; /* a cluster's odd step or operator value: skipped, as before */
}

static int on_scalar(void *ctx, const char *s, size_t n, bool is_number_or_string)
{
    comm_parse *p = ctx;
    p->feed.calls++;
    if (p->depth < p->entry_depth || p->entry_depth == 0) return not_object(p);
    if (!p->in_entry || p->skip_entry || !is_number_or_string) return 1;
    enum field f = field_at(p);
    return f == F_NONE ? 1 : number(p, f, s, n);
}

static int on_null(void *ctx)
{
    return on_scalar(ctx, NULL, 0, false);
}
static int on_bool(void *ctx, int b)
{
    (void)b;
    return on_scalar(ctx, NULL, 0, false);
}
static int on_number(void *ctx, const char *s, size_t n)
{
    return on_scalar(ctx, s, n, true);
}
static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    return on_scalar(ctx, (const char *)s, n, true);
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    comm_parse *p = ctx;
    p->feed.calls++;
    int d = p->depth;
    if (d >= 8) return 1;
    size_t k = n < KEY_MAX ? n : KEY_MAX - 1;
    memcpy(p->key[d], s, k);
    p->key[d][k] = '\0';
    if (d == 1 && p->entry_depth == 0) { /* the first key decides the layout */
        p->entry_depth = strncmp(p->key[1], "step", 4) ? 5 : 4;
        p->c->cluster = p->entry_depth == 5;
    }
    if (p->in_entry && d == p->entry_depth)
        p->info = !strcmp(p->key[d], "Communication Time Info")        ? I_TIME
                  : !strcmp(p->key[d], "Communication Bandwidth Info") ? I_BW
                                                                       : I_NONE;
    if (p->in_entry && d == p->entry_depth + 1 && p->info == I_BW)
        p->link_counted = !strcmp(p->key[d], "RDMA") || !strcmp(p->key[d], "SDMA");
    return 1;
}

static int open_container(comm_parse *p, bool map)
{
    p->feed.calls++;
    if (p->depth >= MAX_JSON_DEPTH)
        return fail(p, ND_EINPUT, "byte %llu: nested deeper than %d levels", nd_classify_json_at(&p->feed),
                    MAX_JSON_DEPTH);
    if (!map && p->depth < (p->entry_depth ? p->entry_depth : 1) && !not_object(p)) return 0;
    if (map && p->entry_depth && p->depth == p->entry_depth - 1) entry_begin(p);
    p->depth++;
    return 1;
}

static int on_start_map(void *ctx)
{
    return open_container(ctx, true);
}
static int on_start_array(void *ctx)
{
    return open_container(ctx, false);
}

static int on_end(void *ctx)
{
    comm_parse *p = ctx;
    p->feed.calls++;
    p->depth--;
    if (p->in_entry && p->depth == p->entry_depth - 1) return entry_end(p);
    return 1;
}

static const yajl_callbacks callbacks = {on_null,      on_bool, NULL,   NULL,           on_number, on_string,
                                         on_start_map, on_key,  on_end, on_start_array, on_end};

static int cmp_step_rank(const void *a, const void *b)
{
    const ascend_op *x = a, *y = b;
    if (x->step_num != y->step_num) return x->step_num < y->step_num ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int parse_file(nd_classify_run *run, ascend_comm *c, nd_error *err)
{
    comm_parse *p = calloc(1, sizeof *p);
    if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
    p->run = run;
    p->c = c;
    p->feed = (json_feed){.path = c->path, .err = err};
    p->feed.h = yajl_alloc(&callbacks, NULL, p);
    int rc = p->feed.h ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    unsigned long long total = 0;
    if (!rc) rc = nd_classify_json_stream(&p->feed, &total);
    if (!rc) {
        yajl_status st = yajl_complete_parse(p->feed.h);
        if (st == yajl_status_client_canceled)
            rc = err->code;
        else if (st != yajl_status_ok || total == 0)
            rc = nd_error_set(err, ND_EINPUT, "%s: not valid JSON (%s)", c->path,
                              total ? "the file ends inside a value" : "empty file");
    }
    if (!rc && p->skipped)
        nd_classify_run_note(run, "%s: skipped %llu entries that are not hcom_ operators, such as '%s'",
                             c->path, p->skipped, p->skipped_name);
    if (p->feed.h) yajl_free(p->feed.h);
    free(p);
    return rc;
}

int nd_classify_ascend_comm_load(nd_classify_run *run, const char *csv_path, ascend_comm *c, nd_error *err)
{
    memset(c, 0, sizeof *c);
    char *dir = nd_path_dir(csv_path), *stem = nd_path_stem(csv_path);
    if (!dir || !stem) {
        free(dir);
        free(stem);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    bool is_cluster = !strncmp(stem, "cluster_", 8);
    c->path = nd_path_join(dir, is_cluster ? "cluster_communication.json" : "communication.json");
    free(dir);
    free(stem);
    if (!c->path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    struct stat st;
    if (stat(c->path, &st) != 0 && errno == ENOENT) /* ND: no operator; warned per row */
        return ND_OK;
    c->present = true;
    int rc = parse_file(run, c, err);
    free(c->slots);
    c->slots = NULL;
    c->n_slots = 0;
    if (!rc && c->n) qsort(c->ops, c->n, sizeof *c->ops, cmp_step_rank);
    if (rc) nd_classify_ascend_comm_free(c);
    return rc;
}

void nd_classify_ascend_comm_free(ascend_comm *c)
{
    free(c->ops);
    free(c->slots);
    free(c->path);
    nd_classify_group_table_free(&c->groups);
    memset(c, 0, sizeof *c);
}
