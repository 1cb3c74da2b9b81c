/* Which host op launched a device kernel: bounded tables of the ops that matter, by
 * External id and by thread and time, and the runtime launches resolved against them
 * (classify_links.h). Each table forgets its oldest entries first. */
#include "classify_links.h"

#include <stdlib.h>
#include <string.h>

/* Ops a launch may sit in are searched back this far on its thread (they nest a few
 * deep: c10d::allreduce_ > record_param_comms > nccl:all_reduce; aten::linear >
 * aten::addmm), and an op arriving this far out of time order is not kept. */
#define SCAN_BACK 32

/* ---- a bounded map from a 64-bit id to a link_info --------------------------------- */

typedef struct link_map {
    uint64_t *keys; /* 0: empty (id 0 means "none" and is never stored) */
    link_info *vals;
    size_t n_slots;  /* a power of two, twice max */
    uint64_t *fifo;  /* keys in insertion order: the oldest is forgotten first */
    size_t head, count;
} link_map;

static size_t slot_of(uint64_t key, size_t mask)
{
    key ^= key >> 33, key *= 0xff51afd7ed558ccdull, key ^= key >> 33;
    return (size_t)key & mask;
}

static int map_init(link_map *m)
{
    m->n_slots = 2 * (size_t)LINK_MAX;
    m->keys = calloc(m->n_slots, sizeof *m->keys);
    m->vals = malloc(m->n_slots * sizeof *m->vals);
    m->fifo = malloc((size_t)LINK_MAX * sizeof *m->fifo);
    return m->keys && m->vals && m->fifo ? 0 : -1;
}

static void map_free(link_map *m)
{
    free(m->keys), free(m->vals), free(m->fifo);
    memset(m, 0, sizeof *m);
}

static const link_info *map_get(const link_map *m, uint64_t key)
{
    if (!m->keys || !key) return NULL;
    size_t mask = m->n_slots - 1;
    for (size_t i = slot_of(key, mask); m->keys[i]; i = (i + 1) & mask)
        if (m->keys[i] == key) return &m->vals[i];
    return NULL;
}

/* Linear probing's deletion by backward shift: no tombstones, probes stay short. */
static void map_delete(link_map *m, uint64_t key)
{
    size_t mask = m->n_slots - 1, i = slot_of(key, mask);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    if (!m->keys[i]) return;
    for (size_t j = i;;) {
        j = (j + 1) & mask;
        if (!m->keys[j]) break;
        size_t k = slot_of(m->keys[j], mask);
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        m->keys[i] = m->keys[j], m->vals[i] = m->vals[j];
        i = j;
    }
    m->keys[i] = 0;
}

static int map_put(link_map *m, uint64_t key, const link_info *v)
{
    if (!key) return 0;
    if (!m->keys && map_init(m)) return -1;
    size_t mask = m->n_slots - 1, i = slot_of(key, mask);
    for (; m->keys[i]; i = (i + 1) & mask)
        if (m->keys[i] == key) return m->vals[i] = *v, 0;
    if (m->count == LINK_MAX) { /* forget the oldest, then find the slot again */
        map_delete(m, m->fifo[m->head]);
        m->head = (m->head + 1) % LINK_MAX, m->count--;
        for (i = slot_of(key, mask); m->keys[i]; i = (i + 1) & mask) {
        }
    }
    m->keys[i] = key, m->vals[i] = *v;
    m->fifo[(m->head + m->count++) % LINK_MAX] = key;
    return 0;
}

/* ---- ops by thread, in time order ---------------------------------------------- */

typedef struct link_op {
    nd_ns ts, end;
    link_info info;
} link_op;

typedef struct link_thread {
    uint64_t key;
    link_op *ops; /* ops[start, n) sorted by ts */
    size_t start, n, cap;
} link_thread;

struct link_store {
    link_map by_ext, by_corr;
    link_thread *threads;
    size_t n_threads, cap_threads, held, last;
    uint64_t next_op;
};

link_store *nd_classify_links_alloc(void)
{
    return calloc(1, sizeof(link_store));
}

void nd_classify_links_free(link_store *l)
{
    if (!l) return;
    map_free(&l->by_ext), map_free(&l->by_corr);
    for (size_t i = 0; i < l->n_threads; i++)
        free(l->threads[i].ops);
    free(l->threads);
    free(l);
}

bool nd_classify_links_empty(const link_store *l)
{
    return l->held == 0 && l->by_ext.count == 0;
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
        l->threads = t, l->cap_threads = cap;
    }
    link_thread *t = &l->threads[l->n_threads];
    memset(t, 0, sizeof *t);
    t->key = key;
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
    big->start++, l->held--;
}

static int thread_add(link_store *l, link_thread *t, const link_op *op)
{
    if (t->start > 0 && (t->n == t->cap || t->start * 2 >= t->n)) { /* compact */
        memmove(t->ops, t->ops + t->start, (t->n - t->start) * sizeof *t->ops);
        t->n -= t->start, t->start = 0;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        link_op *o = realloc(t->ops, cap * sizeof *o);
        if (!o) return -1;
        t->ops = o, t->cap = cap;
    }
    size_t i = t->n;
    while (i > t->start && t->ops[i - 1].ts > op->ts && t->n - i < SCAN_BACK)
        i--;
    if (i > t->start && t->ops[i - 1].ts > op->ts) return 0; /* far out of order: not kept */
    memmove(t->ops + i + 1, t->ops + i, (t->n - i) * sizeof *t->ops);
    t->ops[i] = *op;
    t->n++, l->held++;
    return 0;
}

int nd_classify_links_op(link_store *l, uint64_t thread, uint64_t ext_id, nd_ns ts, nd_ns dur,
                         const link_info *info)
{
    link_op op = {ts, ts + dur, *info};
    op.info.op = ++l->next_op;
    if (map_put(&l->by_ext, ext_id, &op.info)) return -1;
    link_thread *t = thread_of(l, thread, true);
    if (!t || thread_add(l, t, &op)) return -1;
    while (l->held > LINK_MAX)
        forget_one(l);
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

int nd_classify_links_launch(link_store *l, group_table *groups, uint64_t thread, nd_ns ts,
                             uint64_t corr)
{
    link_thread *t = thread_of(l, thread, false);
    if (!t || !corr || t->n == t->start) return 0;
    size_t lo = t->start, hi = t->n; /* the first op starting after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ops[mid].ts <= ts) lo = mid + 1;
        else hi = mid;
    }
    const link_op *in[SCAN_BACK];
    size_t n = 0;
    for (size_t i = lo; i > t->start && lo - i < SCAN_BACK; i--) /* innermost first */
        if (t->ops[i - 1].end > ts) in[n++] = &t->ops[i - 1];
    if (n == 0) return 0;
    link_info v = {.group = merged_group(groups, in, n), .shape = -1};
    for (size_t i = 0; i < n; i++) {
        if (v.shape < 0 && in[i]->info.shape >= 0)
            v.shape = in[i]->info.shape, v.flops = in[i]->info.flops, v.op = in[i]->info.op;
        if (in[i]->info.bytes > v.bytes) v.bytes = in[i]->info.bytes;
    }
    return map_put(&l->by_corr, corr, &v);
}

bool nd_classify_links_find(const link_store *l, uint64_t corr, uint64_t ext_id, link_info *out)
{
    const link_info *v = map_get(&l->by_corr, corr);
    if (!v) v = map_get(&l->by_ext, ext_id);
    if (v) *out = *v;
    return v != NULL;
}
