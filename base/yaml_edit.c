/*
 * yaml_edit.c — editing a YAML file's text where libyaml's marks say its values are,
 * so everything nd does not change stays byte for byte (yaml_edit.h).
 *
 * Each edit parses the text again: nd changes a dozen values of a file of a few hundred
 * lines, and offsets never go stale that way.
 */
#include "nd/base/yaml_edit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/yaml_doc.h"

struct nd_yaml_edit {
    char *text;
    size_t len;
    char path[512];
};

int nd_yaml_edit_open(nd_yaml_edit **out, const char *path, nd_error *err)
{
    nd_yaml_edit *e = calloc(1, sizeof *e);
    if (!e) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = nd_read_file(path, 16u << 20, &e->text, &e->len, err);
    if (rc) {
        free(e);
        return rc;
    }
    snprintf(e->path, sizeof e->path, "%s", path);
    nd_yaml y;
    if ((rc = nd_yaml_parse(&y, e->text, e->len, path, err))) {
        nd_yaml_edit_free(e);
        return rc;
    }
    nd_yaml_free(&y);
    *out = e;
    return ND_OK;
}

void nd_yaml_edit_free(nd_yaml_edit *e)
{
    if (!e) return;
    free(e->text);
    free(e);
}

const char *nd_yaml_edit_text(const nd_yaml_edit *e, size_t *len)
{
    if (len) *len = e->len;
    return e->text;
}

int nd_yaml_edit_write(const nd_yaml_edit *e, const char *path, nd_error *err)
{
    return nd_write_file_atomic(path, e->text, e->len, err);
}

/* The bytes of the line break at `at`, 0 when there is none: the breaks libyaml counts
 * (its scanner's IS_BREAK and IS_CRLF): "\r\n" as one, a lone "\r", "\n", U+0085 (NEL),
 * U+2028 and U+2029. Counting fewer would put every mark after one of them a line off. */
static size_t break_at(const char *t, size_t len, size_t at)
{
    if (at >= len) return 0;
    unsigned char c = (unsigned char)t[at];
    if (c == '\r') return at + 1 < len && t[at + 1] == '\n' ? 2 : 1;
    if (c == '\n') return 1;
    if (c == 0xC2 && at + 1 < len && (unsigned char)t[at + 1] == 0x85) return 2;
    if (c == 0xE2 && at + 2 < len && (unsigned char)t[at + 1] == 0x80 &&
        ((unsigned char)t[at + 2] == 0xA8 || (unsigned char)t[at + 2] == 0xA9))
        return 3;
    return 0;
}

/* Whether the bytes just before `at` end a line break (of any kind break_at knows). */
static size_t break_before(const char *t, size_t at)
{
    if (at >= 1 && t[at - 1] == '\n') return at >= 2 && t[at - 2] == '\r' ? 2 : 1;
    if (at >= 1 && t[at - 1] == '\r') return 1;
    if (at >= 2 && (unsigned char)t[at - 2] == 0xC2 && (unsigned char)t[at - 1] == 0x85) return 2;
    if (at >= 3 && (unsigned char)t[at - 3] == 0xE2 && (unsigned char)t[at - 2] == 0x80 &&
        ((unsigned char)t[at - 1] == 0xA8 || (unsigned char)t[at - 1] == 0xA9))
        return 3;
    return 0;
}

/* The byte offset of a libyaml mark: its line (breaks counted as libyaml counts them), then
 * its column in characters (UTF-8). */
static size_t offset_of(const nd_yaml_edit *e, yaml_mark_t m)
{
    size_t at = e->len >= 3 && !memcmp(e->text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (size_t line = 0; line < m.line && at < e->len;) {
        size_t b = break_at(e->text, e->len, at);
        if (b) line++;
        at += b ? b : 1;
    }
    for (size_t col = 0; col < m.column && at < e->len && !break_at(e->text, e->len, at); col++) {
        at++;
        while (at < e->len && ((unsigned char)e->text[at] & 0xC0) == 0x80) at++;
    }
    return at;
}

/* Replaces bytes [from, to) with `with`. */
static int splice(nd_yaml_edit *e, size_t from, size_t to, const char *with, nd_error *err)
{
    size_t add = strlen(with), len = e->len - (to - from) + add;
    char *t = malloc(len + 1);
    if (!t) return nd_error_set(err, ND_ENOMEM, "out of memory");
    memcpy(t, e->text, from);
    memcpy(t + from, with, add);
    memcpy(t + from + add, e->text + to, e->len - to);
    t[len] = '\0';
    free(e->text);
    e->text = t;
    e->len = len;
    return ND_OK;
}

/* The offset just past a node's last character of content (not the comments or blank
 * lines after it, which belong to what follows). */
static size_t content_end(const nd_yaml_edit *e, nd_yaml *y, yaml_node_t *n)
{
    size_t count = nd_yaml_size(n);
    if (n->type == YAML_MAPPING_NODE && count > 0 && n->data.mapping.style != YAML_FLOW_MAPPING_STYLE)
        return content_end(e, y, nd_yaml_value_at(y, n, count - 1));
    if (n->type == YAML_SEQUENCE_NODE && count > 0 && n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE)
        return content_end(e, y, nd_yaml_item(y, n, count - 1));
    size_t end = offset_of(e, n->end_mark);
    for (;;) {
        size_t b = break_before(e->text, end);
        if (b)
            end -= b;
        else if (end > 0 && (e->text[end - 1] == ' ' || e->text[end - 1] == '\t'))
            end--;
        else
            break;
    }
    return end;
}

/* The offset of the line after the one holding `at` (the end of the text when there is none). */
static size_t next_line(const nd_yaml_edit *e, size_t at)
{
    while (at < e->len && !break_at(e->text, e->len, at)) at++;
    return at + break_at(e->text, e->len, at);
}

/* The key node of `key` in a mapping, or NULL. */
static yaml_node_t *key_node(nd_yaml *y, yaml_node_t *map, const char *key, size_t *index)
{
    for (size_t i = 0; map && map->type == YAML_MAPPING_NODE && i < nd_yaml_size(map); i++) {
        const char *k = nd_yaml_text(nd_yaml_key_at(y, map, i));
        if (k && !strcmp(k, key)) {
            *index = i;
            return nd_yaml_key_at(y, map, i);
        }
    }
    return NULL;
}

/* Appends "<indent>key:" lines for keys[from..depth), the last with its value. */
static char *block_lines(const char *const *keys, int from, int depth, size_t indent, const char *value)
{
    size_t len = strlen(value) + 1;
    for (int i = from; i < depth; i++) len += indent + 2 * (size_t)(i - from) + strlen(keys[i]) + 4;
    char *out = malloc(len + 1), *p = out;
    if (!out) return NULL;
    for (int i = from; i < depth; i++) {
        size_t pad = indent + 2 * (size_t)(i - from);
        memset(p, ' ', pad);
        p += pad;
        p += sprintf(p, "%s:%s%s\n", keys[i], i == depth - 1 ? " " : "", i == depth - 1 ? value : "");
    }
    return out;
}

static bool is_empty_value(const yaml_node_t *v)
{
    return v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0 &&
           v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* Adds keys[from..depth) under mapping `map` (or, with map NULL, at the end of the file). */
static int insert_keys(nd_yaml_edit *e, nd_yaml *y, yaml_node_t *map, const char *const *keys, int from,
                       int depth, const char *value, nd_error *err)
{
    size_t indent = 0, at = e->len;
    if (map) {
        if (map->data.mapping.style == YAML_FLOW_MAPPING_STYLE)
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: '%s' cannot be added to a {...} mapping; write it in "
                                "block style",
                                e->path, nd_yaml_line(map), keys[from]);
        if (nd_yaml_size(map) > 0) {
            indent = nd_yaml_key_at(y, map, 0)->start_mark.column;
            at = next_line(e, content_end(e, y, map));
        }
    }
    char *lines = block_lines(keys, from, depth, indent, value);
    if (!lines) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    if (at == e->len && e->len > 0 && !break_before(e->text, e->len)) {
        rc = splice(e, e->len, e->len, "\n", err);
        at++;
    }
    if (!rc) rc = splice(e, at, at, lines, err);
    free(lines);
    return rc;
}

/* Replaces a present key's value: from the end of the key to the end of the value's
 * content, so a trailing comment stays. */
static int replace_value(nd_yaml_edit *e, nd_yaml *y, yaml_node_t *key, yaml_node_t *val, const char *value,
                         nd_error *err)
{
    size_t from = offset_of(e, key->end_mark);
    size_t to = is_empty_value(val) ? from : content_end(e, y, val);
    if (to < from) to = from;
    /* keep what sits between the key and ':' (a space before the colon is legal) */
    size_t colon = from;
    while (colon < to && e->text[colon] != ':') colon++;
    char *with = malloc(strlen(value) + 3);
    if (!with) return nd_error_set(err, ND_ENOMEM, "out of memory");
    sprintf(with, ": %s", value);
    int rc = splice(e, colon < to ? colon : from, to, with, err);
    free(with);
    return rc;
}

int nd_yaml_edit_set(nd_yaml_edit *e, const char *const *keys, int depth, const char *value, nd_error *err)
{
    nd_yaml y;
    int rc = nd_yaml_parse(&y, e->text, e->len, e->path, err);
    if (rc) return rc;
    yaml_node_t *node = nd_yaml_root(&y);
    if (node && node->type != YAML_MAPPING_NODE) {
        nd_yaml_free(&y);
        return nd_error_set(err, ND_EINPUT, "%s: the file is not a mapping of keys", e->path);
    }
    for (int i = 0; i < depth && !rc; i++) {
        size_t index;
        yaml_node_t *key = node ? key_node(&y, node, keys[i], &index) : NULL;
        if (!key) {
            rc = insert_keys(e, &y, node, keys, i, depth, value, err);
            break;
        }
        yaml_node_t *val = nd_yaml_value_at(&y, node, index);
        if (i == depth - 1) {
            rc = replace_value(e, &y, key, val, value, err);
        } else if (is_empty_value(val)) { /* `parallel_config:` with nothing under it */
            char *lines = block_lines(keys, i + 1, depth, key->start_mark.column + 2, value);
            char *with = lines ? malloc(strlen(lines) + 3) : NULL;
            if (with) sprintf(with, ":\n%s", lines);
            size_t from = offset_of(e, key->end_mark), to = next_line(e, from);
            if (with) {
                while (from < to && e->text[from] != ':') from++;
                rc = splice(e, from, to, with, err);
            } else {
                rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            }
            free(lines);
            free(with);
            break;
        } else if (val->type != YAML_MAPPING_NODE) {
            rc = nd_error_set(err, ND_EINPUT, "%s:%d: '%s' holds a value where nd writes '%s' under it",
                              e->path, nd_yaml_line(key), keys[i], keys[i + 1]);
        } else {
            node = val;
        }
    }
    nd_yaml_free(&y);
    return rc;
}

int nd_yaml_edit_set_path(nd_yaml_edit *e, const char *dotted, const char *value, nd_error *err)
{
    char buf[256];
    const char *keys[8];
    int depth = 0;
    snprintf(buf, sizeof buf, "%s", dotted);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && depth < 8; k = strtok_r(NULL, ".", &save))
        keys[depth++] = k;
    return nd_yaml_edit_set(e, keys, depth, value, err);
}

int nd_yaml_edit_remove(nd_yaml_edit *e, const char *key, nd_error *err)
{
    nd_yaml y;
    int rc = nd_yaml_parse(&y, e->text, e->len, e->path, err);
    if (rc) return rc;
    size_t index;
    yaml_node_t *root = nd_yaml_root(&y), *k = key_node(&y, root, key, &index);
    if (k && root->data.mapping.style != YAML_FLOW_MAPPING_STYLE) {
        size_t from = offset_of(e, k->start_mark);
        while (from > 0 && !break_before(e->text, from)) from--;
        size_t to = next_line(e, content_end(e, &y, nd_yaml_value_at(&y, root, index)));
        rc = splice(e, from, to, "", err);
    }
    nd_yaml_free(&y);
    return rc;
}
