/*
 * toml.h — reading a TOML file (torchtitan's job configs) and changing a few of its
 * values in place, keeping its comments and layout.
 *
 * The TOML nd reads is TOML 1.0, checked as Python's tomllib checks it: [table] and
 * [table.sub] headers, [[array.of.tables]] (read, but their keys are not looked up: they
 * stand in tables "name[1]", "name[2]", ...), `key = value` with bare, quoted or dotted keys
 * (a dotted key's table is the table it names: `parallelism.x = 8` is [parallelism] x), and
 * values by TOML's grammar: strings ("..." with TOML's escapes, \uXXXX and \UXXXXXXXX
 * decoded to UTF-8, '...', and the multi-line forms), integers (decimal with '_' between
 * digits, 0x, 0o, 0b; a leading zero refused), floats (with inf and nan), booleans, dates and
 * times, arrays (over several lines) and inline tables, whose keys are read as keys of the
 * table they define. Refused, naming the line: a table or key defined twice, [x] after [[x]]
 * or the reverse, a header over a table dotted keys or an inline table defined, a raw control
 * character in a string or comment, a lone carriage return, UTF-16 text. Every value keeps
 * its line for messages and its byte span for edits.
 */
#ifndef ND_TOML_H
#define ND_TOML_H

#include <stddef.h>
#include <stdint.h>
#include "nd/base/error.h"

typedef struct nd_toml nd_toml; /* opaque */

/* Reads and parses path (at most 4 MiB). ND_EINPUT naming file and line for anything that is
 * not TOML as above, or a key stated twice. The caller frees *t with nd_toml_free; on failure
 * *t is untouched and there is nothing to free. */
int nd_toml_load(nd_toml **t, const char *path, nd_error *err);

void nd_toml_free(nd_toml *t);

/* The value of key in table ("" = the top level; dotted for a sub-table), or NULL when
 * absent: strings without their quotes and escapes decoded, integers in decimal ("1_0",
 * "0xa" are "10"), floats without '_', anything else as written. *line (may be NULL) gets
 * its 1-based line. Owned by t. */
const char *nd_toml_get(const nd_toml *t, const char *table, const char *key, int *line);

typedef enum nd_toml_type {
    ND_TOML_NONE,
    ND_TOML_INTEGER,
    ND_TOML_FLOAT,
    ND_TOML_BOOL,
    ND_TOML_STRING,
    ND_TOML_DATETIME,
    ND_TOML_ARRAY,
    ND_TOML_TABLE, /* an inline table */
} nd_toml_type;

/* The TOML type of table.key's value, ND_TOML_NONE when absent. */
nd_toml_type nd_toml_type_of(const nd_toml *t, const char *table, const char *key);

/* An integer key: *out gets it, or keeps its value when the key is absent (*line 0). ND_EINPUT
 * "file:line: key 'table.key': ..." when the value is not a TOML integer (a float such as 8e0
 * or 4.5, a boolean, a string, an array) or is outside [min, max]. */
int nd_toml_int(const nd_toml *t, const char *table, const char *key, int64_t min, int64_t max, int64_t *out,
                int *line, nd_error *err);

/* Whether a [table] header or a key under it exists. */
int nd_toml_has_table(const nd_toml *t, const char *table);

/* Number of key = value entries, and the i-th one's table, key and value. */
size_t nd_toml_count(const nd_toml *t);
void nd_toml_entry(const nd_toml *t, size_t i, const char **table, const char **key, const char **value,
                   int *line);

/* Sets table.key to `value`, TOML text as written ("8", "true", "\"full\""): replaced where
 * the key is (inside an inline table, on a dotted line), else added where its table is
 * defined: inside an inline table's braces, as another dotted line after the table's last,
 * at the end of its [table], or in a new [table] at the end. An edit that would not parse
 * (a key added to an array of tables) is refused and the text stays as it was. */
int nd_toml_set(nd_toml *t, const char *table, const char *key, const char *value, nd_error *err);

/* The text as edited, and writing it to path atomically. */
const char *nd_toml_text(const nd_toml *t, size_t *len);
int nd_toml_write(const nd_toml *t, const char *path, nd_error *err);

#endif
