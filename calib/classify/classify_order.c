/* The reorder window: a ring of records kept sorted by (start, longer first), so a
 * parent is released before its children. torch writes each thread's events in time
 * order and torch_npu nearly so (a parent after its children, a ProfilerStep after
 * the step's events); a window of REORDER_WINDOW records per stream absorbs that
 * with memory that does not depend on the trace's size. */
#include "classify_internal.h"

#include <stdlib.h>
#include <string.h>

static bool before(const trace_rec *a, const trace_rec *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

static int grow(reorder_buf *b)
{
    size_t cap = b->cap ? b->cap * 2 : 256;
    trace_rec *ring = malloc(cap * sizeof *ring);
    if (!ring) return -1;
    for (size_t i = 0; i < b->len; i++)
        ring[i] = b->ring[(b->head + i) & (b->cap - 1)];
    free(b->ring);
    b->ring = ring, b->cap = cap, b->head = 0;
    return 0;
}

int nd_classify_reorder_pop(reorder_buf *b, trace_rec *out)
{
    if (!b->len) return 0;
    *out = b->ring[b->head];
    b->head = (b->head + 1) & (b->cap - 1);
    b->len--;
    b->released_ts = out->ts, b->released_dur = out->dur, b->released_any = true;
    return 1;
}

int nd_classify_reorder_push(reorder_buf *b, const trace_rec *r, trace_rec *out)
{
    if (b->len == b->cap && grow(b) != 0) return -1;
    size_t mask = b->cap - 1, i = b->len;
    /* Insertion from the tail: O(1) for records already in order. */
    while (i > 0 && before(r, &b->ring[(b->head + i - 1) & mask])) {
        b->ring[(b->head + i) & mask] = b->ring[(b->head + i - 1) & mask];
        i--;
    }
    b->ring[(b->head + i) & mask] = *r;
    b->len++;
    if (b->len > REORDER_WINDOW) return nd_classify_reorder_pop(b, out);
    return 0;
}

bool nd_classify_reorder_late(const reorder_buf *b, const trace_rec *r)
{
    if (!b->released_any) return false;
    trace_rec last = {.ts = b->released_ts, .dur = b->released_dur};
    return before(r, &last);
}

void nd_classify_reorder_free(reorder_buf *b)
{
    free(b->ring);
    memset(b, 0, sizeof *b);
}
