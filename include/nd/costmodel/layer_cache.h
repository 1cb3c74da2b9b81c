/*
 * layer_cache.h — priced layer kinds, memoised by sharding (one cache per thread).
 */
#ifndef ND_LAYER_CACHE_H
#define ND_LAYER_CACHE_H

#include "nd/costmodel/layer.h"

/* A cache of priced layer kinds. One per thread; nd_layer_cache_free releases it. */
typedef struct nd_layer_cache nd_layer_cache;

nd_layer_cache *nd_layer_cache_alloc(void);
void nd_layer_cache_free(nd_layer_cache *cache);

typedef struct nd_layer_cache_entry {
    nd_layer_shape shape;
    nd_layer_cost layer[ND_LAYER_KINDS];
    nd_layer_cost embedding, head;
} nd_layer_cache_entry;

/* The costs of every layer kind at `shape`, priced on first use. The pointer stays
 * valid until the next call with the same cache. With cache NULL (or when the cache
 * cannot grow) the costs are priced into scratch, which is returned. */
const nd_layer_cache_entry *nd_layer_cache_get(nd_layer_cache *cache, const nd_layer_inputs *in,
                                               const nd_layer_shape *shape, nd_layer_cache_entry *scratch);

/* How many shardings the cache has priced (each once). */
size_t nd_layer_cache_count(const nd_layer_cache *cache);

#endif
