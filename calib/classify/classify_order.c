/* The reorder window: records kept in (start, longer first) order, so a parent is
 * released before its children. torch writes each thread's events in time order and
 * torch_npu nearly so (a parent after its children, a ProfilerStep after the step's
 * events); a window of REORDER_WINDOW records per stream absorbs that with memory that
 * does not depend on the trace's size. Records in order go to a sorted ring, the others
 * to a min-heap; the smaller of the two fronts is released first. An insertion sort (the
 * first version) cost the distance a record is late, which MTIA's runtime events (tens
 * of thousands of events late, in blocks) turned into minutes. */
#include "classify_internal.h"

#include <stdlib.h>
#include <string.h>

static bool before(const trace_rec *a, const trace_rec *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

static int ring_grow(reorder_buf *b)
{
    size_t cap = b->cap ? b->cap * 2 : 256;
    trace_rec *ring = malloc(cap * sizeof *ring);
    if (!ring) return -1;
    for (size_t i = 0; i < b->ring_len; i++) ring[i] = b->ring[(b->head + i) & (b->cap - 1)];
    free(b->ring);
    b->ring = ring;
    b->cap = cap;
    b->head = 0;
    return 0;
}

static int heap_push(reorder_buf *b, const trace_rec *r)
{
    if (b->heap_len == b->heap_cap) {
        size_t cap = b->heap_cap ? b->heap_cap * 2 : 256;
        trace_rec *h = realloc(b->heap, cap * sizeof *h);
        if (!h) return -1;
        b->heap = h;
        b->heap_cap = cap;
    }
    size_t i = b->heap_len++;
    while (i > 0 && before(r, &b->heap[(i - 1) / 2])) {
        b->heap[i] = b->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    b->heap[i] = *r;
    return 0;
}

static trace_rec heap_pop(reorder_buf *b)
{
    trace_rec top = b->heap[0], last = b->heap[--b->heap_len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= b->heap_len) break;
        if (c + 1 < b->heap_len && before(&b->heap[c + 1], &b->heap[c])) c++;
        if (!before(&b->heap[c], &last)) break;
        b->heap[i] = b->heap[c];
        i = c;
    }
    if (b->heap_len) b->heap[i] = last;
    return top;
}

int nd_classify_reorder_pop(reorder_buf *b, trace_rec *out)
{
    if (!b->len) return 0;
    bool from_heap = b->heap_len && (!b->ring_len || before(&b->heap[0], &b->ring[b->head]));
    if (from_heap) {
        *out = heap_pop(b);
    } else {
        *out = b->ring[b->head];
        b->head = (b->head + 1) & (b->cap - 1);
        b->ring_len--;
    }
    b->len--;
    b->released_ts = out->ts;
    b->released_dur = out->dur;
    b->released_any = true;
    return 1;
}

int nd_classify_reorder_push(reorder_buf *b, const trace_rec *r, trace_rec *out)
{
    const trace_rec *tail = b->ring_len ? &b->ring[(b->head + b->ring_len - 1) & (b->cap - 1)] : NULL;
    if (tail && before(r, tail)) {
        if (heap_push(b, r)) return -1;
    } else {
        if (b->ring_len == b->cap && ring_grow(b) != 0) return -1;
        b->ring[(b->head + b->ring_len++) & (b->cap - 1)] = *r;
    }
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
    free(b->heap);
    memset(b, 0, sizeof *b);
}
