/*
 * toml.c — a TOML reader that remembers where each value is, so a value can be
 * replaced in the user's own text (toml.h). Parsed again after every edit.
 */
#include "nd/base/toml.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"

typedef struct entry {
    char table[192];
    char key[128];
    char *value;     /* decoded (owned) */
    size_t from, to; /* the value's bytes in the text */
    int line;
} entry;

typedef struct header {
    char name[192];
    size_t line_end; /* offset just past the header's line */
    bool array;
} header;

struct nd_toml {
    char *text;
    size_t len;
    char path[512];
    entry *items;
    size_t count, cap;
    header *headers;
    size_t n_headers, cap_headers;
};

typedef struct parser {
    nd_toml *t;
    size_t p;
    int line;
    char table[192];
    nd_error *err;
} parser;

static int fail(parser *ps, const char *what)
{
    return nd_error_set(ps->err, ND_EINPUT, "%s:%d: %s", ps->t->path, ps->line, what);
}

static char peek(const parser *ps, size_t ahead)
{
    return ps->p + ahead < ps->t->len ? ps->t->text[ps->p + ahead] : '\0';
}

static void skip_blank(parser *ps)
{
    while (peek(ps, 0) == ' ' || peek(ps, 0) == '\t') ps->p++;
}

static void skip_comment(parser *ps)
{
    if (peek(ps, 0) == '#')
        while (ps->p < ps->t->len && peek(ps, 0) != '\n') ps->p++;
}

/* One key part: bare, "quoted" or 'literal'. */
static int read_key_part(parser *ps, char *out, size_t size)
{
    size_t n = 0;
    char q = peek(ps, 0);
    if (q == '"' || q == '\'') {
        ps->p++;
        while (peek(ps, 0) && peek(ps, 0) != q && peek(ps, 0) != '\n') {
            if (n + 1 < size) out[n++] = peek(ps, 0);
            ps->p++;
        }
        if (peek(ps, 0) != q) return fail(ps, "a quoted key is not closed");
        ps->p++;
    } else {
        char c;
        while ((c = peek(ps, 0)) && (c == '_' || c == '-' || (c >= '0' && c <= '9') ||
                                     (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            if (n + 1 < size) out[n++] = c;
            ps->p++;
        }
        if (!n) return fail(ps, "expected a key");
    }
    out[n] = '\0';
    return ND_OK;
}

/* A dotted key "a.b.c" into out (parts joined by '.'). */
static int read_key(parser *ps, char *out, size_t size)
{
    out[0] = '\0';
    for (;;) {
        char part[128];
        int rc = read_key_part(ps, part, sizeof part);
        if (rc) return rc;
        if (out[0]) strncat(out, ".", size - strlen(out) - 1);
        strncat(out, part, size - strlen(out) - 1);
        skip_blank(ps);
        if (peek(ps, 0) != '.') return ND_OK;
        ps->p++;
        skip_blank(ps);
    }
}

/* Skips a string starting at the quote; multi-line forms too. */
static int skip_string(parser *ps)
{
    char q = peek(ps, 0);
    bool multi = peek(ps, 1) == q && peek(ps, 2) == q;
    ps->p += multi ? 3 : 1;
    for (;;) {
        char c = peek(ps, 0);
        if (!c || (!multi && c == '\n')) return fail(ps, "a string is not closed");
        if (c == '\n') ps->line++;
        if (c == '\\' && q == '"') {
            ps->p += 2;
            continue;
        }
        if (c == q && (!multi || (peek(ps, 1) == q && peek(ps, 2) == q))) {
            ps->p += multi ? 3 : 1;
            return ND_OK;
        }
        ps->p++;
    }
}

/* Skips an array or inline table, nested, with strings and comments inside. */
static int skip_bracketed(parser *ps)
{
    int depth = 0;
    do {
        char c = peek(ps, 0);
        if (!c) return fail(ps, "an array or inline table is not closed");
        if (c == '"' || c == '\'') {
            if (skip_string(ps)) return ND_EINPUT;
            continue;
        }
        if (c == '#') {
            skip_comment(ps);
            continue;
        }
        if (c == '\n') ps->line++;
        if (c == '[' || c == '{') depth++;
        if (c == ']' || c == '}') depth--;
        ps->p++;
    } while (depth > 0);
    return ND_OK;
}

/* The decoded text of a value in [from, to). */
static char *decode(const char *s, size_t from, size_t to)
{
    char *out = malloc(to - from + 1);
    if (!out) return NULL;
    size_t n = 0;
    char q = s[from];
    if (q == '"' || q == '\'') {
        size_t quotes = to - from >= 6 && s[from + 1] == q && s[from + 2] == q ? 3 : 1;
        from += quotes;
        to -= quotes;
        if (quotes == 3 && from < to && s[from] == '\n') from++;
        for (size_t i = from; i < to; i++) {
            if (q == '"' && s[i] == '\\' && i + 1 < to) {
                char c = s[++i];
                out[n++] = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            } else {
                out[n++] = s[i];
            }
        }
    } else {
        memcpy(out, s + from, to - from);
        n = to - from;
    }
    out[n] = '\0';
    return out;
}

static int add_entry(parser *ps, const char *key, size_t from, size_t to, int line)
{
    nd_toml *t = ps->t;
    for (size_t i = 0; i < t->count; i++)
        if (!strcmp(t->items[i].table, ps->table) && !strcmp(t->items[i].key, key))
            return nd_error_set(ps->err, ND_EINPUT, "%s:%d: key '%s' is stated twice (first on line %d)",
                                t->path, line, key, t->items[i].line);
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        entry *items = realloc(t->items, cap * sizeof *items);
        if (!items) return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        t->items = items;
        t->cap = cap;
    }
    entry *e = &t->items[t->count];
    memset(e, 0, sizeof *e);
    snprintf(e->table, sizeof e->table, "%s", ps->table);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->from = from;
    e->to = to;
    e->line = line;
    if (!(e->value = decode(t->text, from, to))) return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
    t->count++;
    return ND_OK;
}

static int read_header(parser *ps)
{
    bool array = peek(ps, 1) == '[';
    ps->p += array ? 2 : 1;
    skip_blank(ps);
    char name[180];
    int rc = read_key(ps, name, sizeof name);
    if (rc) return rc;
    if (peek(ps, 0) != ']' || (array && peek(ps, 1) != ']'))
        return fail(ps, "a [table] header is not closed");
    ps->p += array ? 2 : 1;
    nd_toml *t = ps->t;
    for (size_t i = 0; i < t->n_headers && !array; i++)
        if (!t->headers[i].array && !strcmp(t->headers[i].name, name))
            return fail(ps, "a [table] is stated twice");
    if (t->n_headers == t->cap_headers) {
        size_t cap = t->cap_headers ? 2 * t->cap_headers : 16;
        header *h = realloc(t->headers, cap * sizeof *h);
        if (!h) return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        t->headers = h;
        t->cap_headers = cap;
    }
    header *h = &t->headers[t->n_headers++];
    snprintf(h->name, sizeof h->name, "%s", name);
    h->array = array;
    size_t end = ps->p;
    while (end < t->len && t->text[end] != '\n') end++;
    h->line_end = end < t->len ? end + 1 : end;
    snprintf(ps->table, sizeof ps->table, "%s%s", name, array ? "[]" : "");
    return ND_OK;
}

static int read_pair(parser *ps)
{
    char key[128];
    int rc = read_key(ps, key, sizeof key), line = ps->line;
    if (rc) return rc;
    if (peek(ps, 0) != '=') return fail(ps, "expected `key = value`");
    ps->p++;
    skip_blank(ps);
    size_t from = ps->p;
    char c = peek(ps, 0);
    if (c == '"' || c == '\'')
        rc = skip_string(ps);
    else if (c == '[' || c == '{')
        rc = skip_bracketed(ps);
    else
        while (peek(ps, 0) && !strchr(" \t\r\n#", peek(ps, 0))) ps->p++;
    if (rc) return rc;
    size_t to = ps->p;
    while (to > from && (ps->t->text[to - 1] == ' ' || ps->t->text[to - 1] == '\t')) to--;
    if (to == from) return fail(ps, "a key has no value");
    return add_entry(ps, key, from, to, line);
}

static void clear(nd_toml *t)
{
    for (size_t i = 0; i < t->count; i++) free(t->items[i].value);
    t->count = 0;
    t->n_headers = 0;
}

static int parse(nd_toml *t, nd_error *err)
{
    clear(t);
    parser ps = {t, 0, 1, "", err};
    if (t->len >= 3 && !memcmp(t->text, "\xEF\xBB\xBF", 3)) ps.p = 3;
    for (;;) {
        skip_blank(&ps);
        skip_comment(&ps);
        char c = peek(&ps, 0);
        if (!c) return ND_OK;
        if (c == '\r' || c == '\n') {
            ps.line += c == '\n';
            ps.p++;
            continue;
        }
        int rc = c == '[' ? read_header(&ps) : read_pair(&ps);
        if (rc) return rc;
        skip_blank(&ps);
        skip_comment(&ps);
        if (peek(&ps, 0) == '\r') ps.p++;
        if (peek(&ps, 0) && peek(&ps, 0) != '\n') return fail(&ps, "expected the end of the line");
    }
}

int nd_toml_load(nd_toml **out, const char *path, nd_error *err)
{
    nd_toml *t = calloc(1, sizeof *t);
    if (!t) return nd_error_set(err, ND_ENOMEM, "out of memory");
    snprintf(t->path, sizeof t->path, "%s", path);
    int rc = nd_read_file(path, 4u << 20, &t->text, &t->len, err);
    if (!rc && memchr(t->text, '\0', t->len)) rc = nd_error_set(err, ND_EINPUT, "%s: holds a NUL byte", path);
    if (!rc) rc = parse(t, err);
    if (rc) {
        nd_toml_free(t);
        return rc;
    }
    *out = t;
    return ND_OK;
}

void nd_toml_free(nd_toml *t)
{
    if (!t) return;
    clear(t);
    free(t->items);
    free(t->headers);
    free(t->text);
    free(t);
}

/* The entry of a key, looked up with its dotted part in the table or in the key. */
static const entry *find(const nd_toml *t, const char *table, const char *key)
{
    char full[400];
    snprintf(full, sizeof full, "%s%s%s", table, table[0] ? "." : "", key);
    for (size_t i = 0; i < t->count; i++) {
        const entry *e = &t->items[i];
        char have[400];
        snprintf(have, sizeof have, "%s%s%s", e->table, e->table[0] ? "." : "", e->key);
        if (!strcmp(have, full)) return e;
    }
    return NULL;
}

const char *nd_toml_get(const nd_toml *t, const char *table, const char *key, int *line)
{
    const entry *e = find(t, table, key);
    if (e && line) *line = e->line;
    return e ? e->value : NULL;
}

int nd_toml_has_table(const nd_toml *t, const char *table)
{
    size_t n = strlen(table);
    for (size_t i = 0; i < t->n_headers; i++)
        if (!strcmp(t->headers[i].name, table)) return 1;
    for (size_t i = 0; i < t->count; i++)
        if (!strncmp(t->items[i].table, table, n) && (!t->items[i].table[n] || t->items[i].table[n] == '.'))
            return 1;
    return 0;
}

size_t nd_toml_count(const nd_toml *t)
{
    return t->count;
}

void nd_toml_entry(const nd_toml *t, size_t i, const char **table, const char **key, const char **value,
                   int *line)
{
    const entry *e = &t->items[i];
    if (table) *table = e->table;
    if (key) *key = e->key;
    if (value) *value = e->value;
    if (line) *line = e->line;
}

static int splice(nd_toml *t, size_t from, size_t to, const char *with, nd_error *err)
{
    size_t add = strlen(with), len = t->len - (to - from) + add;
    char *s = malloc(len + 1);
    if (!s) return nd_error_set(err, ND_ENOMEM, "out of memory");
    memcpy(s, t->text, from);
    memcpy(s + from, with, add);
    memcpy(s + from + add, t->text + to, t->len - to);
    s[len] = '\0';
    free(t->text);
    t->text = s;
    t->len = len;
    return parse(t, err);
}

int nd_toml_set(nd_toml *t, const char *table, const char *key, const char *value, nd_error *err)
{
    const entry *e = find(t, table, key);
    if (e) return splice(t, e->from, e->to, value, err);
    size_t at = (size_t)-1;
    for (size_t i = 0; i < t->n_headers; i++)
        if (!t->headers[i].array && !strcmp(t->headers[i].name, table)) at = t->headers[i].line_end;
    if (!table[0]) at = 0;
    for (size_t i = 0; i < t->count; i++) /* after the table's last key */
        if (!strcmp(t->items[i].table, table) && t->items[i].to >= (at == (size_t)-1 ? 0 : at)) {
            size_t end = t->items[i].to;
            while (end < t->len && t->text[end] != '\n') end++;
            at = end < t->len ? end + 1 : end;
        }
    char line[512];
    if (at == (size_t)-1) { /* a new table at the end */
        snprintf(line, sizeof line, "%s[%s]\n%s = %s\n",
                 t->len && t->text[t->len - 1] != '\n' ? "\n\n" : "\n", table, key, value);
        return splice(t, t->len, t->len, line, err);
    }
    bool newline_first = at == t->len && t->len && t->text[t->len - 1] != '\n';
    snprintf(line, sizeof line, "%s%s = %s\n", newline_first ? "\n" : "", key, value);
    return splice(t, at, at, line, err);
}

const char *nd_toml_text(const nd_toml *t, size_t *len)
{
    if (len) *len = t->len;
    return t->text;
}

int nd_toml_write(const nd_toml *t, const char *path, nd_error *err)
{
    return nd_write_file_atomic(path, t->text, t->len, err);
}
