/*
 * toml_edit.c — a parsed TOML document asked and edited (toml.h): a value by table and key, its
 * type and integer, the tables defined; a value replaced or a key added in the user's own text,
 * which is then parsed again (toml.c), so every edit is checked by TOML's own rules.
 */
#include "toml_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"

/* The entry of table.key. */
static const entry *find(const nd_toml *t, const char *table, const char *key)
{
    char full[2 * PATH_MAX_TOML];
    snprintf(full, sizeof full, "%s%s%s", table, table[0] ? "." : "", key);
    return nd_toml_entry_at((nd_toml *)t, full);
}

const char *nd_toml_get(const nd_toml *t, const char *table, const char *key, int *line)
{
    const entry *e = find(t, table, key);
    if (e && line) *line = e->line;
    return e ? e->value : NULL;
}

nd_toml_type nd_toml_type_of(const nd_toml *t, const char *table, const char *key)
{
    const entry *e = find(t, table, key);
    return e ? e->type : ND_TOML_NONE;
}

static const char *type_name(nd_toml_type type)
{
    return type == ND_TOML_STRING     ? "a string"
           : type == ND_TOML_FLOAT    ? "a float"
           : type == ND_TOML_BOOL     ? "a boolean"
           : type == ND_TOML_DATETIME ? "a date"
           : type == ND_TOML_ARRAY    ? "an array"
           : type == ND_TOML_TABLE    ? "a table"
                                      : "an integer";
}

int nd_toml_int(const nd_toml *t, const char *table, const char *key, int64_t min, int64_t max, int64_t *out,
                int *line, nd_error *err)
{
    const entry *e = find(t, table, key);
    if (line) *line = e ? e->line : 0;
    if (!e) return ND_OK;
    char name[2 * PATH_MAX_TOML];
    snprintf(name, sizeof name, "%s%s%s", table, table[0] ? "." : "", key);
    if (e->type != ND_TOML_INTEGER)
        return nd_error_set(err, ND_EINPUT, "%s:%d: key '%s': %s%.40s%s is %s, not an integer", t->path,
                            e->line, name, e->type == ND_TOML_STRING ? "\"" : "", e->value,
                            e->type == ND_TOML_STRING ? "\"" : "", type_name(e->type));
    if (!e->int_ok || e->ival < min || e->ival > max)
        return nd_error_set(err, ND_EINPUT, "%s:%d: key '%s': %.40s is out of range (%lld to %lld)", t->path,
                            e->line, name, e->value, (long long)min, (long long)max);
    *out = e->ival;
    return ND_OK;
}

int nd_toml_has_table(const nd_toml *t, const char *table)
{
    size_t n = strlen(table);
    for (size_t i = 0; i < t->n_nodes; i++)
        if (!strcmp(t->nodes[i].path, table)) return 1;
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

/* Replaces [from, to) by with and parses again; on a failure the text stays as it was. */
static int splice(nd_toml *t, size_t from, size_t to, const char *with, nd_error *err)
{
    size_t add = strlen(with), len = t->len - (to - from) + add;
    char *s = malloc(len + 1);
    if (!s) return nd_error_set(err, ND_ENOMEM, "out of memory");
    memcpy(s, t->text, from);
    memcpy(s + from, with, add);
    memcpy(s + from + add, t->text + to, t->len - to);
    s[len] = '\0';
    char *old = t->text;
    size_t old_len = t->len;
    t->text = s;
    t->len = len;
    int rc = nd_toml_parse_text(t, err);
    if (rc) {
        nd_error ignored = {0};
        t->text = old;
        t->len = old_len;
        free(s);
        nd_toml_parse_text(t, &ignored);
        return rc;
    }
    free(old);
    return ND_OK;
}

/* The offset just past the line holding offset at. */
static size_t line_after(const nd_toml *t, size_t at)
{
    while (at < t->len && t->text[at] != '\n') at++;
    return at < t->len ? at + 1 : at;
}

/* A dotted path as TOML keys: each part bare when it can be, else a quoted basic string (a
 * table named " l" is written ' " l".key', not ' l.key', which would name "l"). False when the
 * path does not fit `size` (a cut path would name another table). */
static bool key_path(const char *dotted, char *out, size_t size)
{
    size_t o = 0;
    out[0] = '\0';
    const char *p = dotted;
    while (*p && o + 8 < size) {
        size_t n = strcspn(p, ".");
        bool bare = n > 0;
        for (size_t i = 0; i < n; i++)
            bare = bare && (isalnum((unsigned char)p[i]) || p[i] == '_' || p[i] == '-');
        if (o) out[o++] = '.';
        if (!bare) out[o++] = '"';
        for (size_t i = 0; i < n && o + 8 < size; i++) {
            unsigned char c = (unsigned char)p[i];
            if (!bare && (c == '"' || c == '\\')) out[o++] = '\\';
            if (!bare && (c < 0x20 || c == 0x7f))
                o += (size_t)snprintf(out + o, size - o, "\\u%04x", c);
            else
                out[o++] = (char)c;
        }
        if (!bare) out[o++] = '"';
        out[o] = '\0';
        p += n + (p[n] == '.');
    }
    return !*p && o + 8 < size;
}

/* The line nd would add, refused whole when the table's path or the line does not fit. */
static int line_too_long(const nd_toml *t, const char *table, nd_error *err)
{
    return nd_error_set(err, ND_EINPUT,
                        "%s: table '%.60s...': a key nd cannot write under it (its name is too long)",
                        t->path, table);
}

int nd_toml_set(nd_toml *t, const char *table, const char *key, const char *value, nd_error *err)
{
    const entry *e = find(t, table, key);
    if (e) return splice(t, e->from, e->to, value, err);
    /* a quoted part that is empty or holds a dot ('.e') joins into a path no keys can name again */
    size_t tl = strlen(table);
    if (tl && (table[0] == '.' || table[tl - 1] == '.' || strstr(table, "..")))
        return nd_error_set(err, ND_EINPUT,
                            "%s: table '%s': a key nd cannot write under it (an empty key part)", t->path,
                            table);
    const node *n = table[0] ? nd_toml_node_at(t, table) : NULL;
    char line[1024];
    if (n && n->kind == N_INLINE) { /* inside its braces: an inline table is not extended later */
        size_t back = n->close;
        while (back > 0 && (t->text[back - 1] == ' ' || t->text[back - 1] == '\t')) back--;
        bool empty = back > 0 && t->text[back - 1] == '{';
        char rel[512];
        if (!key_path(table + n->root_len + (table[n->root_len] == '.' ? 1 : 0), rel, sizeof rel) ||
            snprintf(line, sizeof line, "%s%s%s%s = %s", empty ? "" : ", ", rel, rel[0] ? "." : "", key,
                     value) >= (int)sizeof line)
            return line_too_long(t, table, err);
        return splice(t, back, back, line, err);
    }
    if (n && n->kind == N_DOTTED) { /* another dotted line after the table's last one */
        size_t at = 0;
        for (size_t i = 0; i < t->count; i++) {
            size_t m = strlen(table);
            const char *tb = t->items[i].table;
            if (!strcmp(t->items[i].anchor, n->anchor) && !strncmp(tb, table, m) && (!tb[m] || tb[m] == '.'))
                at = line_after(t, t->items[i].to);
        }
        char rel[512];
        bool newline_first = at == t->len && t->len && t->text[t->len - 1] != '\n';
        if (!key_path(table + strlen(n->anchor) + (n->anchor[0] ? 1 : 0), rel, sizeof rel) ||
            snprintf(line, sizeof line, "%s%s.%s = %s\n", newline_first ? "\n" : "", rel, key, value) >=
                (int)sizeof line)
            return line_too_long(t, table, err);
        return splice(t, at, at, line, err);
    }
    size_t at = (size_t)-1;
    if (n && n->kind == N_HEADER) at = n->line_end;
    if (!table[0]) at = 0;
    for (size_t i = 0; at != (size_t)-1 && i < t->count; i++) /* after the table's last key */
        if (!strcmp(t->items[i].anchor, table) && t->items[i].to >= at) at = line_after(t, t->items[i].to);
    if (at == (size_t)-1) { /* a new table at the end */
        char header[512];
        if (!key_path(table, header, sizeof header) ||
            snprintf(line, sizeof line, "%s[%s]\n%s = %s\n",
                     t->len && t->text[t->len - 1] != '\n' ? "\n\n" : "\n", header, key,
                     value) >= (int)sizeof line)
            return line_too_long(t, table, err);
        return splice(t, t->len, t->len, line, err);
    }
    bool newline_first = at == t->len && t->len && t->text[t->len - 1] != '\n';
    if (snprintf(line, sizeof line, "%s%s = %s\n", newline_first ? "\n" : "", key, value) >= (int)sizeof line)
        return line_too_long(t, table, err);
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
