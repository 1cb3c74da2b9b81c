/* classify_json.h — feeding a JSON file (plain or gzip) to a yajl parser in chunks, with
 * bounded memory whatever the file holds (internal). The Chrome trace reader and the
 * Ascend communication.json reader stream through it. */
#ifndef ND_CLASSIFY_JSON_H
#define ND_CLASSIFY_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>
#include "nd/base/error.h"

/* A single string or number token longer than this is refused: yajl buffers a token
 * split between chunks and re-reads it from its start at every chunk, so a 300 MB
 * literal would cost its size in memory and its square in time. Real names and numbers
 * are under a kilobyte. */
#define ND_JSON_TOKEN_MAX ((size_t)1 << 20)
#define ND_JSON_CHUNK     ((size_t)1 << 18)

typedef struct json_feed {
    yajl_handle h;            /* the reader's parser */
    const char *path;         /* for messages */
    nd_error *err;            /* where the reader's callbacks leave their error */
    unsigned long long base;  /* bytes of the file before the chunk being parsed */
    unsigned long long calls; /* the reader's callbacks add one per call */
    uint64_t digest;          /* of the first ND_DIGEST_BYTES of the content (decompressed) */
} json_feed;

/* Two inputs are the same trace when their content has one length and one digest of its
 * first MiB (a trace given twice, or as .json and .json.gz; docs/classify.md). */
#define ND_DIGEST_BYTES ((size_t)1 << 20)
/* Adds the bytes of s at offset `at` of a content to the digest *h (only those before
 * ND_DIGEST_BYTES count). Start from ND_DIGEST_SEED. */
#define ND_DIGEST_SEED 1469598103934665603ull
void nd_classify_digest_add(uint64_t *h, unsigned long long at, const unsigned char *s, size_t n);

/* The byte the parser has reached (for messages). */
unsigned long long nd_classify_json_at(const json_feed *j);

/* Opens path (a regular file, plain or gzip: zlib reads both), feeds all of it to j->h
 * and closes it; *total gets the bytes read (0: an empty file). yajl_complete_parse is
 * left to the caller. A callback that returns 0 must have set j->err; its code is
 * returned. ND_EINPUT for text that is not JSON ("byte N: not valid JSON (...)"), a
 * token past ND_JSON_TOKEN_MAX, a read error, a gzip stream cut short or corrupt. */
int nd_classify_json_stream(json_feed *j, unsigned long long *total);

#endif
