/*
 * layer_cache.c — layer costs memoised by sharding. A search prices the same
 * (TP, CP, EP, ETP, MBS, SP) for thousands of candidates that differ in PP,
 * DP, OP, MB or VPP; pricing each layer kind once per sharding is what makes
 * the search fast. One cache per thread: no locking.
 */
#include "nd/costmodel/layer_cache.h"
#include "nd/base/array.h"

#include <stdlib.h>
#include <string.h>

struct nd_layer_cache {
    nd_layer_cache_entry *slots;
    size_t capacity; /* a power of two */
    size_t used;
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

static int grow(nd_layer_cache *c)
{
    size_t cap = c->capacity * 2;
    nd_layer_cache_entry *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < c->capacity; i++) {
        if (!c->slots[i].valid) continue;
        size_t j = shape_hash(&c->slots[i].shape) & (cap - 1);
        while (slots[j].valid) j = (j + 1) & (cap - 1);
        slots[j] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->capacity = cap;
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
    e->valid = true;
}

const nd_layer_cache_entry *nd_layer_cache_get(nd_layer_cache *c, const nd_layer_inputs *in,
                                               const nd_layer_shape *shape, nd_layer_cache_entry *scratch)
{
    if (!c) {
        price(in, shape, scratch);
        return scratch;
    }
    size_t j = shape_hash(shape) & (c->capacity - 1);
    while (c->slots[j].valid) {
        if (shape_equal(&c->slots[j].shape, shape)) return &c->slots[j];
        j = (j + 1) & (c->capacity - 1);
    }
    if (2 * (c->used + 1) > c->capacity) {
        if (grow(c)) {
            price(in, shape, scratch);
            return scratch;
        }
        return nd_layer_cache_get(c, in, shape, scratch);
    }
    price(in, shape, &c->slots[j]);
    c->used++;
    return &c->slots[j];
}
