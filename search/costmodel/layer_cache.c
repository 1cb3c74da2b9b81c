/*
 * layer_cache.c — layer costs memoised by sharding. A search prices the same
 * (TP, CP, EP, ETP, MBS, SP) for thousands of candidates that differ in PP,
 * DP, OP, MB or VPP; pricing each layer kind once per sharding is what makes
 * the search fast. One cache per thread: no locking.
 */
#include "nd/costmodel/layer_cache.h"
#include "nd/base/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An open-addressed index of small slots into a dense array of entries: a probe touches a
 * slot, not a 1.4 KB entry, and only the entries priced take memory (a table of entries
 * themselves, half empty by design, faulted in ten times the pages a search needs). */
struct nd_layer_cache {
    uint32_t *slots; /* 0 empty, else 1 + the entry's index */
    size_t capacity; /* slots, a power of two */
    nd_layer_cache_entry *entries;
    size_t used, room; /* entries priced, entries allocated */
};

nd_layer_cache *nd_layer_cache_alloc(void)
{
    nd_layer_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->capacity = 256;
    c->slots = calloc(c->capacity, sizeof *c->slots);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

void nd_layer_cache_free(nd_layer_cache *cache)
{
    if (!cache) return;
    free(cache->slots);
    free(cache->entries);
    free(cache);
}

static uint64_t shape_hash(const nd_layer_shape *s)
{
    uint64_t h = 1469598103934665603ull;
    const int64_t parts[] = {s->tp, s->cp, s->ep, s->etp, s->mbs, s->sp};
    for (size_t i = 0; i < ND_ARRAY_LEN(parts); i++) {
        h ^= (uint64_t)parts[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bool shape_equal(const nd_layer_shape *a, const nd_layer_shape *b)
{
    return a->tp == b->tp && a->cp == b->cp && a->ep == b->ep && a->etp == b->etp && a->mbs == b->mbs &&
           a->sp == b->sp;
}

static int grow_slots(nd_layer_cache *c)
{
    size_t cap = c->capacity * 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t e = 0; e < c->used; e++) {
        size_t j = shape_hash(&c->entries[e].shape) & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(e + 1);
    }
    free(c->slots);
    c->slots = slots;
    c->capacity = cap;
    return 0;
}

static int grow_entries(nd_layer_cache *c)
{
    size_t room = c->room ? 2 * c->room : 64;
    if (room > UINT32_MAX - 1) return -1;
    nd_layer_cache_entry *e = realloc(c->entries, room * sizeof *e);
    if (!e) return -1;
    c->entries = e;
    c->room = room;
    return 0;
}

static void price(const nd_layer_inputs *in, const nd_layer_shape *shape, nd_layer_cache_entry *e)
{
    e->shape = *shape;
    nd_layer_cost_decoder(in, ND_LAYER_DENSE, shape, &e->layer[ND_LAYER_DENSE]);
    if (in->model->experts)
        nd_layer_cost_decoder(in, ND_LAYER_MOE, shape, &e->layer[ND_LAYER_MOE]);
    else
        memset(&e->layer[ND_LAYER_MOE], 0, sizeof e->layer[ND_LAYER_MOE]);
    nd_layer_cost_embedding(in, shape, &e->embedding);
    nd_layer_cost_head(in, shape, &e->head);
}

const nd_layer_cache_entry *nd_layer_cache_get(nd_layer_cache *c, const nd_layer_inputs *in,
                                               const nd_layer_shape *shape, nd_layer_cache_entry *scratch)
{
    if (!c) {
        price(in, shape, scratch);
        return scratch;
    }
    size_t j = shape_hash(shape) & (c->capacity - 1);
    for (; c->slots[j]; j = (j + 1) & (c->capacity - 1)) {
        nd_layer_cache_entry *e = &c->entries[c->slots[j] - 1];
        if (shape_equal(&e->shape, shape)) return e;
    }
    if (2 * (c->used + 1) > c->capacity) {
        if (grow_slots(c)) {
            price(in, shape, scratch);
            return scratch;
        }
        return nd_layer_cache_get(c, in, shape, scratch);
    }
    if (c->used == c->room && grow_entries(c)) {
        price(in, shape, scratch);
        return scratch;
    }
    nd_layer_cache_entry *e = &c->entries[c->used];
    price(in, shape, e);
    c->slots[j] = (uint32_t)(++c->used);
    return e;
}

size_t nd_layer_cache_count(const nd_layer_cache *cache)
{
    return cache ? cache->used : 0;
}
