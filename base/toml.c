/*
 * toml.c — a TOML 1.0 reader that remembers where each value is, so a value can be
 * replaced in the user's own text (toml.h). Values are checked by TOML's own grammar
 * (numbers, strings and their escapes, dates, arrays, inline tables), tables by its rules
 * (none defined twice, no header over a dotted or inline table, [x] and [[x]] not both),
 * as Python's tomllib reads them. Parsed again after every edit (toml_edit.c).
 */
#include "toml_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"

typedef struct parser {
    nd_toml *t;
    size_t p;
    int line;
    char table[PATH_MAX_TOML]; /* the current header's table */
    nd_error *err;
    int depth; /* arrays and inline tables nested */
} parser;

static int fail(parser *ps, const char *what)
{
    return nd_error_set(ps->err, ND_EINPUT, "%s:%d: %s", ps->t->path, ps->line, what);
}

static int fail_key(parser *ps, int line, const char *key, const char *what)
{
    return nd_error_set(ps->err, ND_EINPUT, "%s:%d: key '%s': %s", ps->t->path, line, key, what);
}

static char peek(const parser *ps, size_t ahead)
{
    return ps->p + ahead < ps->t->len ? ps->t->text[ps->p + ahead] : '\0';
}

static void skip_blank(parser *ps)
{
    while (peek(ps, 0) == ' ' || peek(ps, 0) == '\t') ps->p++;
}

/* A comment to the end of its line: tab and printable text only (TOML). */
static int skip_comment(parser *ps)
{
    if (peek(ps, 0) != '#') return ND_OK;
    while (ps->p < ps->t->len && peek(ps, 0) != '\n') {
        unsigned char c = (unsigned char)peek(ps, 0);
        if ((c < 0x20 && c != '\t' && !(c == '\r' && peek(ps, 1) == '\n')) || c == 0x7f)
            return fail(ps, "a comment holds a control character");
        ps->p++;
    }
    return ND_OK;
}

/* A line break (\n or \r\n): true and past it. */
static bool newline(parser *ps)
{
    if (peek(ps, 0) == '\n' || (peek(ps, 0) == '\r' && peek(ps, 1) == '\n')) {
        ps->p += peek(ps, 0) == '\r' ? 2 : 1;
        ps->line++;
        return true;
    }
    return false;
}

/* Blanks, comments and line breaks (inside arrays). */
static int skip_space(parser *ps)
{
    for (;;) {
        skip_blank(ps);
        int rc = skip_comment(ps);
        if (rc) return rc;
        if (!newline(ps)) return ND_OK;
    }
}

/* ---- strings ---------------------------------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t n, cap;
    bool failed;
} buf;

static void put(buf *b, char c)
{
    if (b->n + 2 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    b->s[b->n++] = c;
    b->s[b->n] = '\0';
}

static void put_utf8(buf *b, uint32_t u)
{
    if (u < 0x80) {
        put(b, (char)u);
    } else if (u < 0x800) {
        put(b, (char)(0xC0 | (u >> 6)));
        put(b, (char)(0x80 | (u & 0x3F)));
    } else if (u < 0x10000) {
        put(b, (char)(0xE0 | (u >> 12)));
        put(b, (char)(0x80 | ((u >> 6) & 0x3F)));
        put(b, (char)(0x80 | (u & 0x3F)));
    } else {
        put(b, (char)(0xF0 | (u >> 18)));
        put(b, (char)(0x80 | ((u >> 12) & 0x3F)));
        put(b, (char)(0x80 | ((u >> 6) & 0x3F)));
        put(b, (char)(0x80 | (u & 0x3F)));
    }
}

/* A string at the quote, any of TOML's four forms, decoded into out (may be NULL). */
static int read_string(parser *ps, buf *out, bool allow_multi)
{
    char q = peek(ps, 0);
    bool multi = allow_multi && peek(ps, 1) == q && peek(ps, 2) == q;
    ps->p += multi ? 3 : 1;
    buf scratch = {0};
    buf *b = out ? out : &scratch;
    put(b, '\0');
    b->n = 0;
    if (multi && !newline(ps) && peek(ps, 0) == '\r') return fail(ps, "a lone carriage return");
    int rc = ND_OK;
    for (;;) {
        char c = peek(ps, 0);
        unsigned char u = (unsigned char)c;
        if (ps->p >= ps->t->len || (!multi && (c == '\n' || c == '\r'))) {
            rc = fail(ps, "a string is not closed");
            break;
        }
        if (c == q && (!multi || (peek(ps, 1) == q && peek(ps, 2) == q))) {
            if (!multi) {
                ps->p++;
                break;
            }
            /* up to two more quotes belong to the string: """a"""" is 'a"' */
            int extra = peek(ps, 3) == q ? (peek(ps, 4) == q ? 2 : 1) : 0;
            for (int i = 0; i < extra; i++) put(b, q);
            ps->p += 3 + (size_t)extra;
            break;
        }
        if (multi && (c == '\n' || c == '\r')) {
            if (!newline(ps)) {
                rc = fail(ps, "a lone carriage return");
                break;
            }
            put(b, '\n');
            continue;
        }
        if ((u < 0x20 && c != '\t') || u == 0x7f) {
            rc = fail(ps, "a string holds a control character (write it as an escape)");
            break;
        }
        if (c != '\\' || q == '\'') {
            put(b, c);
            ps->p++;
            continue;
        }
        char e = peek(ps, 1);
        ps->p += 2;
        if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) { /* a line-ending backslash */
            ps->p--;
            skip_blank(ps);
            if (!newline(ps)) {
                rc = fail(ps, "a backslash in a \"\"\" string is not at the end of its line");
                break;
            }
            for (;;) {
                skip_blank(ps);
                if (!newline(ps)) break;
            }
            continue;
        }
        const char *simple = "b\bt\tn\nf\fr\r\"\"\\\\";
        const char *hit = NULL;
        for (const char *s = simple; *s; s += 2)
            if (*s == e) hit = s;
        if (hit) {
            put(b, hit[1]);
            continue;
        }
        if (e == 'u' || e == 'U') {
            int n = e == 'u' ? 4 : 8;
            uint32_t v = 0;
            for (int i = 0; i < n; i++) {
                char h = peek(ps, (size_t)i);
                if (!toml_is_hex(h)) {
                    v = UINT32_MAX;
                    break;
                }
                v = v * 16 + (uint32_t)(toml_is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
            }
            if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
                rc = fail(ps, "a \\u or \\U escape is not a Unicode scalar value");
                break;
            }
            ps->p += (size_t)n;
            put_utf8(b, v);
            continue;
        }
        rc = fail(ps, "a string has an escape TOML does not know (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX "
                      "\\UXXXXXXXX)");
        break;
    }
    if (!rc && b->failed) rc = nd_error_set(ps->err, ND_ENOMEM, "out of memory");
    free(scratch.s);
    return rc;
}

/* ---- keys ------------------------------------------------------------------------------- */

static bool bare_key_char(char c)
{
    return c == '_' || c == '-' || toml_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One key part: bare, "quoted" or 'literal'. */
static int read_key_part(parser *ps, char *out, size_t size)
{
    char q = peek(ps, 0);
    if (q == '"' || q == '\'') {
        buf b = {0};
        int rc = read_string(ps, &b, false);
        if (!rc && b.n + 1 > size) rc = fail(ps, "a key is too long for nd");
        if (!rc) snprintf(out, size, "%s", b.s ? b.s : "");
        free(b.s);
        return rc;
    }
    size_t n = 0;
    while (bare_key_char(peek(ps, 0))) {
        if (n + 1 >= size) return fail(ps, "a key is too long for nd");
        out[n++] = peek(ps, 0);
        ps->p++;
    }
    if (!n) return fail(ps, "expected a key");
    out[n] = '\0';
    return ND_OK;
}

#define MAX_PARTS 16

/* A dotted key "a.b.c" as its parts. */
static int read_key(parser *ps, char parts[][128], int *n)
{
    for (*n = 0;;) {
        if (*n == MAX_PARTS) return fail(ps, "a dotted key has too many parts for nd");
        int rc = read_key_part(ps, parts[*n], sizeof parts[0]);
        if (rc) return rc;
        ++*n;
        skip_blank(ps);
        if (peek(ps, 0) != '.') return ND_OK;
        ps->p++;
        skip_blank(ps);
    }
}

static int join(parser *ps, char *out, const char *base, const char *part)
{
    int n = snprintf(out, PATH_MAX_TOML, "%s%s%s", base, base[0] ? "." : "", part);
    return n < 0 || n >= PATH_MAX_TOML ? fail(ps, "a table path is too long for nd") : ND_OK;
}

/* ---- tables and keys defined ------------------------------------------------------------ */

node *nd_toml_node_at(nd_toml *t, const char *path)
{
    for (size_t i = 0; i < t->n_nodes; i++)
        if (!strcmp(t->nodes[i].path, path)) return &t->nodes[i];
    return NULL;
}

entry *nd_toml_entry_at(nd_toml *t, const char *path)
{
    for (size_t i = 0; i < t->count; i++) {
        char have[2 * PATH_MAX_TOML];
        entry *e = &t->items[i];
        snprintf(have, sizeof have, "%s%s%s", e->table, e->table[0] ? "." : "", e->key);
        if (!strcmp(have, path)) return e;
    }
    return NULL;
}

static node *add_node(parser *ps, const char *path, int kind)
{
    nd_toml *t = ps->t;
    if (t->n_nodes == t->cap_nodes) {
        size_t cap = t->cap_nodes ? 2 * t->cap_nodes : 16;
        node *grown = realloc(t->nodes, cap * sizeof *grown);
        if (!grown) return NULL;
        t->nodes = grown;
        t->cap_nodes = cap;
    }
    node *n = &t->nodes[t->n_nodes++];
    memset(n, 0, sizeof *n);
    snprintf(n->path, sizeof n->path, "%s", path);
    n->kind = kind;
    n->line = ps->line;
    return n;
}

/* The table base.part reached on the way to a longer path (a header's or a dotted key's):
 * created when new, an array of tables standing for its last element. */
static int walk(parser *ps, char *path, const char *part, bool dotted, long inl)
{
    char next[PATH_MAX_TOML];
    int rc = join(ps, next, path, part);
    if (rc) return rc;
    entry *e = nd_toml_entry_at(ps->t, next);
    if (e && e->type != ND_TOML_TABLE) {
        char what[PATH_MAX_TOML + 80];
        snprintf(what, sizeof what, "'%s' is a value (line %d), not a table", next, e->line);
        return fail(ps, what);
    }
    node *n = nd_toml_node_at(ps->t, next);
    if (!n) {
        if (!(n = add_node(ps, next, inl >= 0 ? N_INLINE : dotted ? N_DOTTED : N_IMPLICIT)))
            return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        if (inl >= 0) {
            n->close = ps->t->nodes[inl].close;
            n->root_len = ps->t->nodes[inl].root_len;
        }
        if (dotted) snprintf(n->anchor, sizeof n->anchor, "%s", ps->table);
    } else if (n->kind == N_INLINE && (inl < 0 || n->root_len == strlen(n->path))) {
        return fail(ps, "an inline table cannot be extended (TOML)");
    } else if (dotted && inl < 0 && n->kind != N_DOTTED) {
        char what[PATH_MAX_TOML + 80];
        snprintf(what, sizeof what, "dotted keys cannot add to table '%s', defined on line %d", next,
                 n->line);
        return fail(ps, what);
    }
    if (n->kind == N_ARRAY) {
        if (dotted) return fail(ps, "dotted keys cannot add to an array of tables");
        snprintf(next + strlen(next), sizeof next - strlen(next), "[%d]", n->count);
    }
    memcpy(path, next, sizeof next);
    return ND_OK;
}

static int read_header(parser *ps)
{
    bool array = peek(ps, 1) == '[';
    int line = ps->line;
    ps->p += array ? 2 : 1;
    skip_blank(ps);
    char parts[MAX_PARTS][128];
    int n, rc = read_key(ps, parts, &n);
    if (rc) return rc;
    if (peek(ps, 0) != ']' || (array && peek(ps, 1) != ']'))
        return fail(ps, "a [table] header is not closed");
    ps->p += array ? 2 : 1;
    char path[PATH_MAX_TOML] = "";
    for (int i = 0; i + 1 < n; i++)
        if ((rc = walk(ps, path, parts[i], false, -1))) return rc;
    char full[PATH_MAX_TOML];
    if ((rc = join(ps, full, path, parts[n - 1]))) return rc;
    nd_toml *t = ps->t;
    entry *e = nd_toml_entry_at(t, full);
    if (e && e->type != ND_TOML_TABLE) {
        char what[PATH_MAX_TOML + 80];
        snprintf(what, sizeof what, "[%s]: the key is already a value (line %d)", full, e->line);
        return fail(ps, what);
    }
    node *h = nd_toml_node_at(t, full);
    char what[3 * PATH_MAX_TOML + 120];
    if (h && array && h->kind != N_ARRAY) {
        snprintf(what, sizeof what, "[[%s]]: '%s' is already a table (line %d), not an array of tables", full,
                 full, h->line);
        return fail(ps, what);
    }
    if (h && !array && h->kind != N_IMPLICIT) {
        snprintf(what, sizeof what, "[%s]: the table is already defined (line %d%s)", full, h->line,
                 h->kind == N_ARRAY    ? ", as an array of tables"
                 : h->kind == N_DOTTED ? ", by dotted keys"
                 : h->kind == N_INLINE ? ", as an inline table"
                                       : "");
        return fail(ps, what);
    }
    if (!h && !(h = add_node(ps, full, array ? N_ARRAY : N_HEADER)))
        return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
    h->line = line;
    if (array) {
        h->count++;
        char elem[PATH_MAX_TOML + 16];
        snprintf(elem, sizeof elem, "%s[%d]", full, h->count);
        if (strlen(elem) >= PATH_MAX_TOML) return fail(ps, "a table path is too long for nd");
        if (!(h = add_node(ps, elem, N_HEADER))) return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        snprintf(full, sizeof full, "%s", elem);
    } else {
        h->kind = N_HEADER;
    }
    size_t end = ps->p;
    while (end < t->len && t->text[end] != '\n') end++;
    h->line_end = end < t->len ? end + 1 : end;
    snprintf(ps->table, sizeof ps->table, "%s", full);
    return ND_OK;
}

/* ---- values ----------------------------------------------------------------------------- */
/* A date, date-time or time at the parser: its length, or 0. */
static size_t datetime_len(const parser *ps)
{
    const char *s = ps->t->text;
    size_t len = ps->t->len, at = ps->p;
    if (toml_n_digits(s, len, at, 4) && at + 4 < len && s[at + 4] == '-') {
        if (!toml_n_digits(s, len, at + 5, 2) || at + 7 >= len || s[at + 7] != '-' ||
            !toml_n_digits(s, len, at + 8, 2))
            return 0;
        size_t p = at + 10;
        if (p < len && (s[p] == 'T' || s[p] == 't' || (s[p] == ' ' && toml_time_end(s, len, p + 1)))) {
            size_t e = toml_time_end(s, len, p + 1);
            if (!e) return 0;
            p = e;
            if (p < len && (s[p] == 'Z' || s[p] == 'z')) {
                p++;
            } else if (p < len && (s[p] == '+' || s[p] == '-')) {
                if (!toml_n_digits(s, len, p + 1, 2) || p + 3 >= len || s[p + 3] != ':' ||
                    !toml_n_digits(s, len, p + 4, 2))
                    return 0;
                p += 6;
            }
        }
        return p - at;
    }
    size_t e = toml_time_end(s, len, at);
    return e ? e - at : 0;
}

static int add_entry(parser *ps, const char *table, const char *key, size_t from, size_t to, int line,
                     nd_toml_type type, char *value, int64_t ival, bool int_ok)
{
    nd_toml *t = ps->t;
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        entry *items = realloc(t->items, cap * sizeof *items);
        if (!items) {
            free(value);
            return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        }
        t->items = items;
        t->cap = cap;
    }
    entry *e = &t->items[t->count++];
    memset(e, 0, sizeof *e);
    snprintf(e->table, sizeof e->table, "%s", table);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->anchor, sizeof e->anchor, "%s", ps->table);
    e->from = from;
    e->to = to;
    e->line = line;
    e->type = type;
    e->value = value;
    e->ival = ival;
    e->int_ok = int_ok;
    return ND_OK;
}

static int read_pairs_inline(parser *ps, const char *path, long self);

/* A value at the parser. When table/key are given, it is recorded as that entry (an inline
 * table's keys too); inside an array, only checked. */
static int read_value(parser *ps, const char *table, const char *key, int line)
{
    size_t from = ps->p;
    char c = peek(ps, 0);
    nd_toml_type type;
    char *value = NULL;
    int64_t ival = 0;
    bool int_ok = false;
    int rc = ND_OK;
    if (++ps->depth > 64) return fail(ps, "arrays or inline tables nested too deep for nd");
    if (c == '"' || c == '\'') {
        buf b = {0};
        rc = read_string(ps, &b, true);
        value = b.s;
        if (!rc && !value && !(value = calloc(1, 1))) rc = nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        type = ND_TOML_STRING;
    } else if (c == '[') {
        ps->p++;
        type = ND_TOML_ARRAY;
        for (;;) {
            if ((rc = skip_space(ps))) break;
            if (peek(ps, 0) == ']') break;
            if ((rc = read_value(ps, NULL, NULL, ps->line))) break;
            if ((rc = skip_space(ps))) break;
            if (peek(ps, 0) == ',') {
                ps->p++;
                continue;
            }
            if (peek(ps, 0) != ']')
                rc = fail(ps, "an array's values are not separated by ',' or closed by ']'");
            break;
        }
        if (!rc) ps->p++;
    } else if (c == '{') {
        type = ND_TOML_TABLE;
        if (table) {
            char path[PATH_MAX_TOML];
            rc = join(ps, path, table, key);
            node *n = rc ? NULL : add_node(ps, path, N_INLINE);
            if (!rc && !n) rc = nd_error_set(ps->err, ND_ENOMEM, "out of memory");
            if (!rc) {
                n->root_len = strlen(path);
                n->line = line;
                rc = read_pairs_inline(ps, path, (long)(n - ps->t->nodes));
            }
        } else {
            rc = read_pairs_inline(ps, NULL, -1);
        }
    } else {
        size_t dt = datetime_len(ps);
        if (dt) {
            ps->p += dt;
            type = ND_TOML_DATETIME;
        } else {
            while (ps->p < ps->t->len && !strchr(" \t\r\n#,]}", peek(ps, 0))) ps->p++;
            size_t len = ps->p - from;
            char text[400];
            type = len && len < 390 ? (nd_toml_type)toml_classify(ps->t->text + from, len, text, sizeof text,
                                                                  &ival, &int_ok)
                                    : (nd_toml_type)0;
            if (!len) {
                rc = fail(ps, "a key has no value");
            } else if (!type) {
                char what[200];
                const char *tx = ps->t->text + from;
                bool zero = len > 1 && tx[0] == '0' && toml_is_digit(tx[1]);
                if (zero)
                    snprintf(what, sizeof what, "'%.*s' has a leading zero, which TOML refuses",
                             (int)(len < 60 ? len : 60), tx);
                else
                    snprintf(what, sizeof what,
                             "'%.*s' is not a TOML value (a number, true/false, a \"string\", a date, "
                             "an [array] or an {inline table})",
                             (int)(len < 60 ? len : 60), ps->t->text + from);
                rc = table ? fail_key(ps, line, key, what) : fail(ps, what);
            } else if (table && !(value = malloc(strlen(text) + 1))) {
                rc = nd_error_set(ps->err, ND_ENOMEM, "out of memory");
            } else if (table) {
                strcpy(value, text);
            }
        }
    }
    ps->depth--;
    if (rc || !table) {
        free(value);
        return rc;
    }
    if (!value) {
        size_t n = ps->p - from;
        if (!(value = malloc(n + 1))) return nd_error_set(ps->err, ND_ENOMEM, "out of memory");
        memcpy(value, ps->t->text + from, n);
        value[n] = '\0';
    }
    return add_entry(ps, table, key, from, ps->p, line, type, value, ival, int_ok);
}

/* key = value, the key dotted relative to base (the header's table or an inline table's). */
static int read_pair(parser *ps, const char *base, long inl)
{
    char parts[MAX_PARTS][128];
    int n, line = ps->line, rc = read_key(ps, parts, &n);
    if (rc) return rc;
    if (peek(ps, 0) != '=') return fail(ps, "expected `key = value`");
    ps->p++;
    skip_blank(ps);
    char path[PATH_MAX_TOML];
    snprintf(path, sizeof path, "%s", base);
    for (int i = 0; i + 1 < n; i++)
        if ((rc = walk(ps, path, parts[i], true, inl))) return rc;
    char full[PATH_MAX_TOML];
    if ((rc = join(ps, full, path, parts[n - 1]))) return rc;
    const entry *e = nd_toml_entry_at(ps->t, full);
    const node *nd = nd_toml_node_at(ps->t, full);
    if (e || nd) {
        char what[PATH_MAX_TOML + 80];
        snprintf(what, sizeof what, "key '%s' is stated twice (first on line %d)", parts[n - 1],
                 e ? e->line : nd->line);
        return nd_error_set(ps->err, ND_EINPUT, "%s:%d: %s", ps->t->path, line, what);
    }
    if (!peek(ps, 0) || peek(ps, 0) == '\n' || peek(ps, 0) == '\r' || peek(ps, 0) == '#')
        return fail(ps, "a key has no value");
    return read_value(ps, path, parts[n - 1], line);
}

/* { key = value, ... } on one line (TOML 1.0): the keys of path (NULL: in an array), whose
 * node is self (-1: none). */
static int read_pairs_inline(parser *ps, const char *path, long self)
{
    ps->p++;
    skip_blank(ps);
    size_t first_node = ps->t->n_nodes;
    int rc = ND_OK;
    while (peek(ps, 0) != '}') {
        if (path) {
            rc = read_pair(ps, path, self);
        } else { /* an inline table inside an array: checked, not recorded */
            char parts[MAX_PARTS][128];
            int n;
            rc = read_key(ps, parts, &n);
            if (!rc && peek(ps, 0) != '=') rc = fail(ps, "expected `key = value`");
            if (!rc) {
                ps->p++;
                skip_blank(ps);
                rc = read_value(ps, NULL, NULL, ps->line);
            }
        }
        if (rc) return rc;
        skip_blank(ps);
        if (peek(ps, 0) == ',') {
            ps->p++;
            skip_blank(ps);
            if (peek(ps, 0) == '}') return fail(ps, "an inline table ends with ',' (TOML 1.0 refuses it)");
            continue;
        }
        if (peek(ps, 0) != '}') return fail(ps, "an inline table is not closed by '}' on its line");
    }
    if (self >= 0) { /* its keys' tables are its own: new keys go before this '}' */
        node *nodes = ps->t->nodes;
        nodes[self].close = ps->p;
        for (size_t i = first_node; i < ps->t->n_nodes; i++)
            if (nodes[i].kind == N_INLINE && (!nodes[i].close || nodes[i].root_len == nodes[self].root_len)) {
                nodes[i].close = ps->p;
                nodes[i].root_len = nodes[self].root_len;
            }
    }
    ps->p++;
    return ND_OK;
}

void nd_toml_clear(nd_toml *t)
{
    for (size_t i = 0; i < t->count; i++) free(t->items[i].value);
    t->count = 0;
    t->n_nodes = 0;
}

int nd_toml_parse_text(nd_toml *t, nd_error *err)
{
    nd_toml_clear(t);
    parser ps = {t, 0, 1, "", err, 0};
    if (t->len >= 3 && !memcmp(t->text, "\xEF\xBB\xBF", 3)) ps.p = 3;
    for (;;) {
        skip_blank(&ps);
        int rc = skip_comment(&ps);
        if (rc) return rc;
        char c = peek(&ps, 0);
        if (ps.p >= t->len) return ND_OK;
        if (newline(&ps)) continue;
        if (c == '\r') return fail(&ps, "a lone carriage return");
        rc = c == '[' ? read_header(&ps) : read_pair(&ps, ps.table, -1);
        if (rc) return rc;
        skip_blank(&ps);
        if ((rc = skip_comment(&ps))) return rc;
        if (ps.p < t->len && !newline(&ps)) return fail(&ps, "expected the end of the line");
    }
}

/* UTF-16 text: a byte-order mark, or NULs in every other byte of its start. */
static bool utf16(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) return true;
    size_t n = len < 64 ? len : 64, odd = 0, even = 0;
    for (size_t i = 0; i < n; i++) {
        if (u[i]) continue;
        if (i % 2)
            odd++;
        else
            even++;
    }
    return n >= 2 && (odd >= n / 2 || even >= n / 2);
}

/* The offset of the first byte that is not UTF-8 (an overlong form, a surrogate, past
 * U+10FFFF, a cut sequence), or len when all is. */
static size_t utf8_error(const unsigned char *u, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned c = u[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (!n || i + n > len) return i;
        uint32_t v = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
        for (size_t k = 1; k < n; k++) {
            if ((u[i + k] & 0xC0) != 0x80) return i;
            v = v << 6 | (u[i + k] & 0x3F);
        }
        static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return i;
        i += n;
    }
    return len;
}

int nd_toml_load(nd_toml **out, const char *path, nd_error *err)
{
    nd_toml *t = calloc(1, sizeof *t);
    if (!t) return nd_error_set(err, ND_ENOMEM, "out of memory");
    snprintf(t->path, sizeof t->path, "%s", path);
    int rc = nd_read_file(path, 4u << 20, &t->text, &t->len, err);
    if (!rc && utf16(t->text, t->len))
        rc = nd_error_set(err, ND_EINPUT, "%s: UTF-16: TOML files are UTF-8 (save it as UTF-8)", path);
    if (!rc && memchr(t->text, '\0', t->len)) rc = nd_error_set(err, ND_EINPUT, "%s: holds a NUL byte", path);
    size_t bad = rc ? 0 : utf8_error((const unsigned char *)t->text, t->len);
    if (!rc && bad < t->len) {
        int line = 1;
        for (size_t i = 0; i < bad; i++) line += t->text[i] == '\n';
        rc = nd_error_set(err, ND_EINPUT, "%s:%d: byte 0x%02x is not UTF-8: TOML files are UTF-8", path, line,
                          (unsigned char)t->text[bad]);
    }
    if (!rc) rc = nd_toml_parse_text(t, err);
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
    nd_toml_clear(t);
    free(t->items);
    free(t->nodes);
    free(t->text);
    free(t);
}
