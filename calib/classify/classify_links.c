/* Which host op launched a device kernel, and the step and phase of its launch: bounded
 * tables of the ops that matter, by External id and by thread in time order (each op with
 * its enclosing op), the runtime launches resolved against them as they are read, and the
 * launches' steps and phases as runs of correlation ids (classify_links.h). Each table
 * forgets its oldest entries first. */
#include "classify_links.h"

#include <stdlib.h>
#include <string.h>

/* Ops around a launch looked at for its group, shape and payload (they nest a few deep:
 * c10d::allreduce_ > record_param_comms > nccl:all_reduce; aten::linear > aten::addmm). */
#define SCAN_BACK 32
/* Open ops remembered per thread to find an op's enclosing op (call depth). */
#define STACK_MAX 256

int nd_classify_phase_bucket(uint32_t phases)
{
    if ((phases & F_BW) && (phases & F_REC)) return PHASE_REC;
    if (phases & F_BW) return PHASE_BW;
    if (phases & F_OPT) return PHASE_OPT;
    if (phases & F_FW) return PHASE_FW;
    return PHASE_OTHER;
}

/* ---- a bounded map from a 64-bit id to a link_info --------------------------------- */

/* A set-associative table: an id goes to one set of MAP_WAYS entries, and a set that is
 * full forgets its oldest. About the last LINK_MAX ids are kept (fewer when ids crowd one
 * set), at one cache miss a lookup: a FIFO over an open-addressing table (the first
 * version) cost two misses and a deletion an op, a sixth of the reading. */
#define MAP_WAYS 4
#define MAP_SETS (LINK_MAX / MAP_WAYS)

typedef struct link_map {
    uint64_t *keys; /* MAP_SETS x MAP_WAYS; 0: empty (id 0 means "none", never stored) */
    link_info *vals;
    uint8_t *next; /* per set: the way written next (round robin: the oldest) */
    size_t count;
} link_map;

static size_t set_of(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (MAP_SETS - 1);
}

static int map_init(link_map *m)
{
    m->keys = calloc((size_t)MAP_SETS * MAP_WAYS, sizeof *m->keys);
    m->vals = malloc((size_t)MAP_SETS * MAP_WAYS * sizeof *m->vals);
    m->next = calloc(MAP_SETS, 1);
    return m->keys && m->vals && m->next ? 0 : -1;
}

static void map_free(link_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->next);
    memset(m, 0, sizeof *m);
}

static const link_info *map_get(const link_map *m, uint64_t key)
{
    if (!m->keys || !key) return NULL;
    size_t base = set_of(key) * MAP_WAYS;
    for (size_t w = 0; w < MAP_WAYS; w++)
        if (m->keys[base + w] == key) return &m->vals[base + w];
    return NULL;
}

static int map_put(link_map *m, uint64_t key, const link_info *v)
{
    if (!key) return 0;
    if (!m->keys && map_init(m)) return -1;
    size_t set = set_of(key), base = set * MAP_WAYS;
    for (size_t w = 0; w < MAP_WAYS; w++)
        if (m->keys[base + w] == key) {
            m->vals[base + w] = *v;
            return 0;
        }
    size_t w = m->next[set];
    m->next[set] = (uint8_t)((w + 1) % MAP_WAYS);
    m->count += m->keys[base + w] == 0;
    m->keys[base + w] = key;
    m->vals[base + w] = *v;
    return 0;
}

/* ---- launches' steps and phases: runs of correlation ids --------------------------- */

typedef struct launch_run {
    uint64_t lo, hi; /* correlation ids [lo, hi] */
    launch_place at;
} launch_run;

typedef struct run_list {
    launch_run *items; /* sorted by lo, disjoint */
    size_t n, cap;
} run_list;

static bool same_place(const launch_place *a, const launch_place *b)
{
    return a->step == b->step && a->phase == b->phase;
}

/* The last run with lo <= corr, or n when none. */
static size_t run_before(const run_list *r, uint64_t corr)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->items[mid].lo <= corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : r->n;
}

static int run_insert_at(run_list *r, size_t i, const launch_run *x)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        launch_run *n = realloc(r->items, cap * sizeof *n);
        if (!n) return -1;
        r->items = n;
        r->cap = cap;
    }
    memmove(r->items + i + 1, r->items + i, (r->n - i) * sizeof *r->items);
    r->items[i] = *x;
    r->n++;
    if (r->n > LAUNCH_RUNS_MAX) { /* forget the oldest quarter at once: one move per many */
        size_t drop = LAUNCH_RUNS_MAX / 4;
        memmove(r->items, r->items + drop, (r->n - drop) * sizeof *r->items);
        r->n -= drop;
    }
    return 0;
}

/* corr launched at `at`. Ids in a gap between two launches of one place take that place
 * (they were launched between them, by another thread or as a copy); a launch inside a
 * run of another place splits it. */
static int run_put(run_list *r, uint64_t corr, const launch_place *at)
{
    if (!corr) return 0;
    if (r->n && corr > r->items[r->n - 1].hi) { /* in order: the common case */
        launch_run *last = &r->items[r->n - 1];
        if (same_place(&last->at, at)) {
            last->hi = corr;
            return 0;
        }
        return run_insert_at(r, r->n, &(launch_run){corr, corr, *at});
    }
    size_t i = run_before(r, corr);
    if (i == r->n) { /* before every run */
        if (r->n && same_place(&r->items[0].at, at) && r->items[0].lo == corr + 1) {
            r->items[0].lo = corr;
            return 0;
        }
        return run_insert_at(r, 0, &(launch_run){corr, corr, *at});
    }
    launch_run *x = &r->items[i];
    if (same_place(&x->at, at)) {
        if (corr > x->hi) x->hi = corr;
        return 0;
    }
    if (corr > x->hi) return run_insert_at(r, i + 1, &(launch_run){corr, corr, *at});
    launch_run right = {corr + 1, x->hi, x->at};
    bool has_left = x->lo < corr;
    if (has_left)
        x->hi = corr - 1;
    else
        *x = (launch_run){corr, corr, *at};
    if (has_left && run_insert_at(r, i + 1, &(launch_run){corr, corr, *at})) return -1;
    size_t after = has_left ? i + 2 : i + 1;
    return right.lo <= right.hi ? run_insert_at(r, after, &right) : 0;
}

static bool run_get(const run_list *r, uint64_t corr, launch_place *out)
{
    size_t i = run_before(r, corr);
    if (!corr || i == r->n || corr > r->items[i].hi) return false;
    *out = r->items[i].at;
    return true;
}

/* ---- ops by thread, in time order ---------------------------------------------- */

typedef struct link_op {
    nd_ns ts, end;
    link_info info;
    int64_t parent; /* the enclosing kept op's number on the thread; -1 none */
    uint8_t inh;    /* phase bits of the op and every op around it */
} link_op;

typedef struct open_op {
    int64_t seq;
    nd_ns end;
    uint8_t inh;
} open_op;

typedef struct link_thread {
    uint64_t key;
    link_op *ops; /* ops[start, n) in time order; ops[i] is the thread's op number base + i */
    size_t start, n, cap;
    int64_t base;
    open_op stack[STACK_MAX]; /* ops open at the last op kept, outermost first */
    size_t depth;
    nd_ns forgot_end; /* the latest end of the ops forgotten; INT64_MIN none */
} link_thread;

struct link_store {
    link_map by_ext, by_corr;
    run_list runs;
    link_thread *threads;
    size_t n_threads, cap_threads, held, last;
    uint64_t next_op;
    unsigned long long forgotten; /* launches inside ops no longer kept */
    bool launches_seen;           /* a runtime launch with a correlation was read */
};

link_store *nd_classify_links_alloc(void)
{
    return calloc(1, sizeof(link_store));
}

void nd_classify_links_free(link_store *l)
{
    if (!l) return;
    map_free(&l->by_ext);
    map_free(&l->by_corr);
    free(l->runs.items);
    for (size_t i = 0; i < l->n_threads; i++) free(l->threads[i].ops);
    free(l->threads);
    free(l);
}

unsigned long long nd_classify_links_forgotten(const link_store *l)
{
    return l->forgotten;
}

static link_thread *thread_of(link_store *l, uint64_t key, bool create)
{
    if (l->last < l->n_threads && l->threads[l->last].key == key) return &l->threads[l->last];
    for (size_t i = 0; i < l->n_threads; i++)
        if (l->threads[i].key == key) return &l->threads[l->last = i];
    if (!create) return NULL;
    if (l->n_threads == l->cap_threads) {
        size_t cap = l->cap_threads ? l->cap_threads * 2 : 8;
        link_thread *t = realloc(l->threads, cap * sizeof *t);
        if (!t) return NULL;
        l->threads = t;
        l->cap_threads = cap;
    }
    link_thread *t = &l->threads[l->n_threads];
    memset(t, 0, sizeof *t);
    t->key = key;
    t->forgot_end = INT64_MIN;
    l->last = l->n_threads++;
    return t;
}

/* Forgets the oldest op of the thread holding the most. */
static void forget_one(link_store *l)
{
    link_thread *big = NULL;
    for (size_t i = 0; i < l->n_threads; i++)
        if (!big || l->threads[i].n - l->threads[i].start > big->n - big->start) big = &l->threads[i];
    if (!big || big->n == big->start) return;
    if (big->ops[big->start].end > big->forgot_end) big->forgot_end = big->ops[big->start].end;
    big->start++;
    l->held--;
}

static int thread_reserve(link_thread *t)
{
    if (t->start > 0 && (t->n == t->cap || t->start * 2 >= t->n)) { /* compact */
        memmove(t->ops, t->ops + t->start, (t->n - t->start) * sizeof *t->ops);
        t->n -= t->start;
        t->base += (int64_t)t->start;
        t->start = 0;
    }
    if (t->n < t->cap) return 0;
    size_t cap = t->cap ? t->cap * 2 : 256;
    link_op *o = realloc(t->ops, cap * sizeof *o);
    if (!o) return -1;
    t->ops = o;
    t->cap = cap;
    return 0;
}

/* Appends op (not before the thread's last op) with its enclosing op from the stack of
 * open ops; *kept says whether it was (out of order, it is not). */
static int thread_add(link_store *l, link_thread *t, link_op *op, bool *kept)
{
    *kept = false;
    if (t->n > t->start && op->ts < t->ops[t->n - 1].ts) return 0; /* out of order: not kept */
    *kept = true;
    if (thread_reserve(t)) return -1;
    while (t->depth && t->stack[t->depth - 1].end <= op->ts) t->depth--;
    const open_op *up = t->depth ? &t->stack[t->depth - 1] : NULL;
    op->parent = up ? up->seq : -1;
    op->inh = (uint8_t)(op->info.phases | (up ? up->inh : 0));
    int64_t seq = t->base + (int64_t)t->n;
    t->ops[t->n++] = *op;
    l->held++;
    if (op->end > op->ts && t->depth < STACK_MAX) t->stack[t->depth++] = (open_op){seq, op->end, op->inh};
    return 0;
}

int nd_classify_links_op(link_store *l, uint64_t thread, uint64_t ext_id, nd_ns ts, nd_ns dur,
                         const link_info *info)
{
    link_op op = {.ts = ts, .end = ts + dur, .info = *info};
    op.info.op = ++l->next_op;
    link_thread *t = thread_of(l, thread, true);
    bool kept;
    if (!t || thread_add(l, t, &op, &kept)) return -1;
    /* By External id: the kernels' second way to their op. Once the trace has shown its
     * launches, an op kept on its thread is found through them (by correlation); only
     * before (kineto's older layout: every op, then the launches with their kernels) and
     * for an op written out of order does the id table earn its cache misses. */
    bool linked = info->group >= 0 || info->shape >= 0 || info->in_comm;
    if (linked && (!l->launches_seen || !kept) && map_put(&l->by_ext, ext_id, &op.info)) return -1;
    while (l->held > LINK_MAX) forget_one(l);
    return 0;
}

static bool named(const comm_group *g)
{
    return g->pg_name || g->pg_desc || g->ranks || g->size > 1 || g->stride > 0;
}

/* The innermost group with a name or ranks, else the innermost with a kind; a named
 * group of unknown kind takes the kind of another (merged into a new group). */
static int32_t merged_group(group_table *groups, const link_op *const *in, size_t n)
{
    int32_t with_name = -1, with_kind = -1;
    for (size_t i = 0; i < n; i++) {
        int32_t g = in[i]->info.group;
        if (g < 0 || (size_t)g >= groups->n) continue;
        if (with_name < 0 && named(&groups->items[g])) with_name = g;
        if (with_kind < 0 && groups->items[g].kind != COLL_UNKNOWN) with_kind = g;
    }
    if (with_name < 0) return with_kind;
    if (groups->items[with_name].kind != COLL_UNKNOWN || with_kind < 0) return with_name;
    comm_group g = groups->items[with_name];
    g.kind = groups->items[with_kind].kind;
    int i = nd_classify_group_table_intern(groups, &g);
    return i >= 0 ? i : with_name;
}

/* The op at number seq on t, or NULL when forgotten (or never kept). */
static const link_op *op_at(const link_thread *t, int64_t seq)
{
    int64_t i = seq - t->base;
    return seq >= 0 && i >= (int64_t)t->start && i < (int64_t)t->n ? &t->ops[i] : NULL;
}

/* The ops of t enclosing ts, innermost first, into in (at most SCAN_BACK); *cut when an
 * op that may enclose ts is no longer kept. An op enclosing ts that started before the
 * last op starting at or before ts encloses that op too (ops on a thread nest), so the
 * enclosing ops are that op's chain of enclosing ops. */
static size_t enclosing(const link_thread *t, nd_ns ts, const link_op **in, bool *cut)
{
    size_t lo = t->start, hi = t->n;        /* the first op starting after ts */
    if (t->ops[t->n - 1].ts <= ts) lo = hi; /* a launch read right after its op: the usual */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ops[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    *cut = false;
    if (lo == t->start) {
        *cut = t->forgot_end > ts;
        return 0;
    }
    const link_op *c = &t->ops[lo - 1];
    size_t n = 0;
    while (c && n < SCAN_BACK) {
        if (c->end > ts) in[n++] = c;
        if (c->parent < 0) break;
        const link_op *up = op_at(t, c->parent);
        if (!up) *cut = n == 0; /* nothing kept encloses ts: the forgotten op may */
        c = up;
    }
    return n;
}

int nd_classify_links_launch(link_store *l, group_table *groups, uint64_t thread, nd_ns ts, uint64_t corr,
                             int32_t step)
{
    if (!corr) return 0;
    l->launches_seen = true;
    link_thread *t = thread_of(l, thread, false);
    const link_op *in[SCAN_BACK];
    bool cut = false;
    size_t n = t && t->n > t->start ? enclosing(t, ts, in, &cut) : 0;
    if (!n && t && t->n == t->start) cut = t->forgot_end > ts;
    launch_place at = {.step = step, .phase = PHASE_OTHER};
    at.phase = (uint8_t)(cut ? PHASE_UNKNOWN : nd_classify_phase_bucket(n ? in[0]->inh : 0));
    if (cut) l->forgotten++;
    if (run_put(&l->runs, corr, &at)) return -1;
    if (n == 0) return 0;
    link_info v = {.group = merged_group(groups, in, n), .shape = -1};
    for (size_t i = 0; i < n; i++) {
        if (v.shape < 0 && in[i]->info.shape >= 0) {
            v.shape = in[i]->info.shape;
            v.flops = in[i]->info.flops;
            v.op = in[i]->info.op;
        }
        if (in[i]->info.bytes > v.bytes) v.bytes = in[i]->info.bytes;
        v.in_comm |= in[i]->info.in_comm;
    }
    if (v.group < 0 && v.shape < 0 && !v.in_comm) return 0;
    return map_put(&l->by_corr, corr, &v);
}

bool nd_classify_links_find(const link_store *l, uint64_t corr, uint64_t ext_id, link_info *out)
{
    const link_info *v = map_get(&l->by_corr, corr);
    if (!v) v = map_get(&l->by_ext, ext_id);
    if (v) *out = *v;
    return v != NULL;
}

bool nd_classify_links_place(const link_store *l, uint64_t corr, launch_place *out)
{
    return run_get(&l->runs, corr, out);
}
