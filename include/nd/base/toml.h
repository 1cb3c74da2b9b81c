/*
 * toml.h — reading a TOML file (torchtitan's job configs) and changing a few of its
 * values in place, keeping its comments and layout.
 *
 * The TOML nd reads: [table] and [table.sub] headers, [[array.of.tables]] (read, but
 * their keys are not looked up), `key = value` with bare, quoted or dotted keys, and
 * values that are strings ("..." with escapes, '...', and the multi-line forms),
 * integers (with '_'), floats, booleans, dates, arrays (over several lines) and inline
 * tables. Every value keeps its line for messages and its byte span for edits.
 */
#ifndef ND_TOML_H
#define ND_TOML_H

#include <stddef.h>
#include "nd/base/error.h"

typedef struct nd_toml nd_toml; /* opaque */

/* Reads and parses path (at most 4 MiB). ND_EINPUT naming file and line for anything that is
 * not TOML as above, or a key stated twice. The caller frees *t with nd_toml_free; on failure
 * *t is untouched and there is nothing to free. */
int nd_toml_load(nd_toml **t, const char *path, nd_error *err);

void nd_toml_free(nd_toml *t);

/* The value of key in table ("" = the top level), or NULL when absent: strings without
 * their quotes and escapes decoded, anything else as written. *line (may be NULL) gets
 * its 1-based line. Owned by t. */
const char *nd_toml_get(const nd_toml *t, const char *table, const char *key, int *line);

/* Whether a [table] header or a key under it exists. */
int nd_toml_has_table(const nd_toml *t, const char *table);

/* Number of key = value entries, and the i-th one's table, key and value. */
size_t nd_toml_count(const nd_toml *t);
void nd_toml_entry(const nd_toml *t, size_t i, const char **table, const char **key, const char **value,
                   int *line);

/* Sets table.key to `value`, TOML text as written ("8", "true", "\"full\""): replaced where
 * the key is, added at the end of its table otherwise, or in a new [table] at the end. */
int nd_toml_set(nd_toml *t, const char *table, const char *key, const char *value, nd_error *err);

/* The text as edited, and writing it to path atomically. */
const char *nd_toml_text(const nd_toml *t, size_t *len);
int nd_toml_write(const nd_toml *t, const char *path, nd_error *err);

#endif
