/*
 * toml_internal.h — what the TOML reader (toml.c) and its queries and edits (toml_edit.c)
 * share: a document's values with the bytes they stand at, and its tables as defined.
 */
#ifndef ND_BASE_TOML_INTERNAL_H
#define ND_BASE_TOML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nd/base/toml.h"

#define PATH_MAX_TOML 256

typedef struct entry {
    char table[PATH_MAX_TOML];  /* the table holding the key */
    char key[128];              /* the key's last part */
    char anchor[PATH_MAX_TOML]; /* the [header] the line stands under ("" = top level) */
    char *value;                /* decoded (owned) */
    size_t from, to;            /* the value's bytes in the text */
    int line;
    nd_toml_type type;
    bool int_ok;  /* an integer within int64 */
    int64_t ival; /* ... its value */
} entry;

enum { N_IMPLICIT, N_HEADER, N_DOTTED, N_INLINE, N_ARRAY };

/* A table: how it was defined, for TOML's rules and for adding keys to it. */
typedef struct node {
    char path[PATH_MAX_TOML];
    int kind, line, count;      /* count: the elements of an array of tables */
    size_t line_end;            /* a header: the offset just past its line */
    char anchor[PATH_MAX_TOML]; /* dotted: the header its keys stand under */
    size_t close;               /* inline: the offset of its table's '}' */
    size_t root_len;            /* inline: the length of that table's path */
} node;

struct nd_toml {
    char *text;
    size_t len;
    char path[512];
    entry *items;
    size_t count, cap;
    node *nodes;
    size_t n_nodes, cap_nodes;
};

/* Parses t->text into t->items and t->nodes (cleared first): 0, or ND_EINPUT with the line. */
int nd_toml_parse_text(nd_toml *t, nd_error *err);
/* Drops the values parsed (their text stays). */
void nd_toml_clear(nd_toml *t);
/* The table or the value at a dotted path, NULL when the document has none. */
node *nd_toml_node_at(nd_toml *t, const char *path);
entry *nd_toml_entry_at(nd_toml *t, const char *path);

/* ---- scalars (toml_scalar.c): numbers, booleans and date-times as TOML writes them ---- */

static inline bool toml_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool toml_is_hex(char c)
{
    return toml_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A number, a boolean or inf/nan as TOML writes them: its type (TOML_*), the text nd keeps
 * (integers in decimal, '_' dropped), 0 when s is none of them. */
int toml_classify(const char *s, size_t len, char *out, size_t size, int64_t *ival, bool *int_ok);
/* Whether s[at..at+n) are n digits. */
bool toml_n_digits(const char *s, size_t len, size_t at, int n);
/* The end of a time HH:MM:SS[.frac] starting at s[at], or 0 when there is none. */
size_t toml_time_end(const char *s, size_t len, size_t at);

#endif
