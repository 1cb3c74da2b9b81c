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

/* A value nd set where the file has an alias (*name): decided at nd_yaml_edit_finish, when
 * every edit is made and the anchor's last value is known. */
typedef struct alias_use {
    size_t at; /* offset of the '*' */
    size_t name_len;
    char *value; /* owned: the YAML text nd wants here */
    bool dead;   /* the alias was spliced away */
} alias_use;

struct nd_yaml_edit {
    char *text;
    size_t len;
    char path[512];
    alias_use *uses;
    size_t n_uses, cap_uses;
};

static size_t offset_of(const nd_yaml_edit *e, yaml_mark_t m);
static size_t break_at(const char *t, size_t len, size_t at);

/* Refuses explicit keys (`? key`, its ':' anywhere after): nd edits `key: value` lines, and
 * framework configs write no other kind. libyaml's KEY token sits on the '?' of one. */
static int check_no_explicit_keys(const nd_yaml_edit *e, nd_error *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)e->text, e->len);
    int rc = ND_OK;
    for (bool done = false; !done && !rc;) {
        yaml_token_t t;
        if (!yaml_parser_scan(&p, &t)) break; /* the parse already passed: cannot happen */
        size_t at = t.type == YAML_KEY_TOKEN ? offset_of(e, t.start_mark) : e->len;
        /* the indicator is '?' and a blank or a break; a plain key may start "?x" */
        if (at < e->len && e->text[at] == '?' &&
            (at + 1 == e->len || e->text[at + 1] == ' ' || e->text[at + 1] == '\t' ||
             break_at(e->text, e->len, at + 1)))
            rc = nd_error_set(err, ND_EINPUT,
                              "%s:%lu: an explicit key (? key): nd writes back `key: value` lines only; "
                              "write it so",
                              e->path, (unsigned long)t.start_mark.line + 1);
        done = t.type == YAML_STREAM_END_TOKEN;
        yaml_token_delete(&t);
    }
    yaml_parser_delete(&p);
    return rc;
}

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
    if ((rc = check_no_explicit_keys(e, err))) {
        nd_yaml_edit_free(e);
        return rc;
    }
    *out = e;
    return ND_OK;
}

void nd_yaml_edit_free(nd_yaml_edit *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->n_uses; i++) free(e->uses[i].value);
    free(e->uses);
    free(e->text);
    free(e);
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
    for (size_t i = 0; i < e->n_uses; i++) {
        alias_use *u = &e->uses[i];
        if (u->at >= to)
            u->at = u->at - (to - from) + add;
        else if (u->at >= from)
            u->dead = true;
    }
    return ND_OK;
}

/* The offset just past a node's last character of content (not the comments or blank
 * lines after it, which belong to what follows). */
static bool alias_value(const nd_yaml_edit *e, yaml_node_t *key, size_t *at);
static size_t name_len(const nd_yaml_edit *e, size_t at);

static size_t content_end(const nd_yaml_edit *e, nd_yaml *y, yaml_node_t *n)
{
    size_t count = nd_yaml_size(n), at;
    if (n->type == YAML_MAPPING_NODE && count > 0 && n->data.mapping.style != YAML_FLOW_MAPPING_STYLE) {
        /* the last value an alias: its node is the anchor's, elsewhere; the alias ends here */
        if (alias_value(e, nd_yaml_key_at(y, n, count - 1), &at)) return at + 1 + name_len(e, at + 1);
        return content_end(e, y, nd_yaml_value_at(y, n, count - 1));
    }
    yaml_node_t *last = n->type == YAML_SEQUENCE_NODE && count > 0 ? nd_yaml_item(y, n, count - 1) : NULL;
    if (last && n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE &&
        offset_of(e, last->start_mark) >= offset_of(e, n->start_mark))
        return content_end(e, y, last);
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

/* The offset of the first byte of a key's value: past the ':' after the key, blanks, and
 * (for a value on a later line) line breaks and comments. *colon gets the ':'. */
static size_t value_at(const nd_yaml_edit *e, yaml_node_t *key, size_t *colon)
{
    size_t at = offset_of(e, key->end_mark);
    while (at < e->len && e->text[at] != ':') at++;
    *colon = at;
    if (at < e->len) at++;
    for (;;) {
        size_t b = break_at(e->text, e->len, at);
        if (b)
            at += b;
        else if (at < e->len && (e->text[at] == ' ' || e->text[at] == '\t'))
            at++;
        else if (at < e->len && e->text[at] == '#')
            while (at < e->len && !break_at(e->text, e->len, at)) at++;
        else
            break;
    }
    return at;
}

/* The length of an anchor's or alias's name at `at`: libyaml's anchor characters (its
 * scanner's IS_ALPHA: letters, digits, '_' and '-'). */
static bool anchor_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static size_t name_len(const nd_yaml_edit *e, size_t at)
{
    size_t n = 0;
    while (at + n < e->len && anchor_char(e->text[at + n])) n++;
    return n;
}

/* Past the node properties (&anchor, !tag) at `at`; *anchored tells whether one was an anchor. */
static size_t past_properties(const nd_yaml_edit *e, size_t at, bool *anchored)
{
    *anchored = false;
    while (at < e->len && (e->text[at] == '&' || e->text[at] == '!')) {
        if (e->text[at] == '&') {
            *anchored = true;
            at += 1 + name_len(e, at + 1);
        } else { /* a tag: up to a blank or a break */
            while (at < e->len && e->text[at] != ' ' && e->text[at] != '\t' && !break_at(e->text, e->len, at))
                at++;
        }
        while (at < e->len && (e->text[at] == ' ' || e->text[at] == '\t' || break_at(e->text, e->len, at)))
            at += break_at(e->text, e->len, at) ? break_at(e->text, e->len, at) : 1;
    }
    return at;
}

/* Whether a key's value is an alias (*name): its '*' at *at. libyaml's document shares the
 * anchor's node, whose marks lie where the anchor is, so the text after the key decides. */
static bool alias_value(const nd_yaml_edit *e, yaml_node_t *key, size_t *at)
{
    size_t colon;
    *at = value_at(e, key, &colon);
    return *at < e->len && e->text[*at] == '*';
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
    int rc = ND_OK;
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
    rc = ND_OK;
    if (at == e->len && e->len > 0 && !break_before(e->text, e->len)) {
        rc = splice(e, e->len, e->len, "\n", err);
        at++;
    }
    if (!rc) rc = splice(e, at, at, lines, err);
    free(lines);
    return rc;
}

/* Records that nd wants `value` where the alias at `at` is (nd_yaml_edit_finish decides). */
static int add_use(nd_yaml_edit *e, size_t at, const char *value, nd_error *err)
{
    char *v = nd_strdup(value);
    if (!v) return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (size_t i = 0; i < e->n_uses; i++)
        if (!e->uses[i].dead && e->uses[i].at == at) { /* set twice: the last value */
            free(e->uses[i].value);
            e->uses[i].value = v;
            return ND_OK;
        }
    if (e->n_uses == e->cap_uses) {
        size_t cap = e->cap_uses ? 2 * e->cap_uses : 8;
        alias_use *u = realloc(e->uses, cap * sizeof *u);
        if (!u) {
            free(v);
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        }
        e->uses = u;
        e->cap_uses = cap;
    }
    e->uses[e->n_uses++] = (alias_use){at, name_len(e, at + 1), v, false};
    return ND_OK;
}

/* Puts `lead value` in place of [from, to). What follows a quoted scalar may touch it
 * (`'x'#c` is a scalar and a comment); after a plain scalar it would join the value, so a
 * blank goes between. */
static int splice_value(nd_yaml_edit *e, size_t from, size_t to, const char *lead, const char *value,
                        nd_error *err)
{
    bool touching =
        to < e->len && e->text[to] != ' ' && e->text[to] != '\t' && !break_at(e->text, e->len, to);
    char *with = malloc(strlen(lead) + strlen(value) + 2);
    if (!with) return nd_error_set(err, ND_ENOMEM, "out of memory");
    sprintf(with, "%s%s%s", lead, value, touching ? " " : "");
    int rc = splice(e, from, to, with, err);
    free(with);
    return rc;
}

/* Replaces a present key's value: from the end of the key to the end of the value's
 * content, so a trailing comment stays. An anchor (&name) and a tag before the value stay
 * too, so the aliases of the anchor take the new value; an alias (*name) is left for
 * nd_yaml_edit_finish. */
static int replace_value(nd_yaml_edit *e, nd_yaml *y, yaml_node_t *key, yaml_node_t *val, const char *value,
                         nd_error *err)
{
    size_t colon, at = value_at(e, key, &colon);
    if (at < e->len && e->text[at] == '*') return add_use(e, at, value, err);
    bool anchored;
    size_t start = past_properties(e, at, &anchored);
    size_t from = offset_of(e, key->end_mark);
    size_t to = is_empty_value(val) ? from : content_end(e, y, val);
    if (to < from) to = from;
    if (anchored && start <= to) {
        /* `&name::x` holds the scalar "::x": a new value needs a blank after the name */
        bool blank = start > 0 && (e->text[start - 1] == ' ' || e->text[start - 1] == '\t' ||
                                   break_before(e->text, start));
        return splice_value(e, start, to, blank ? "" : " ", value, err);
    }
    return splice_value(e, colon < to ? colon : from, to, ": ", value, err);
}

/* `key: *name` holding a mapping nd writes into: becomes `key:` with `<<: *name` under it,
 * so the keys nd adds override the anchor's here and nowhere else (PyYAML's merge). */
static int expand_mapping_alias(nd_yaml_edit *e, yaml_node_t *key, size_t at, nd_error *err)
{
    size_t colon;
    value_at(e, key, &colon);
    size_t n = name_len(e, at + 1), indent = key->start_mark.column + 2;
    char *with = malloc(indent + n + 16);
    if (!with) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int used = sprintf(with, ":\n%*s<<: *", (int)indent, "");
    memcpy(with + used, e->text + at + 1, n);
    with[used + (int)n] = '\0';
    int rc = splice(e, colon, at + 1 + n, with, err);
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
        if (!key && i < depth - 1 && node && nd_yaml_get(&y, node, keys[i])) {
            rc = nd_error_set(err, ND_EINPUT,
                              "%s:%d: '%s' comes from a merge key (<<): nd does not copy a merged mapping "
                              "to write '%s' into it; state '%s' in the file",
                              e->path, nd_yaml_line(node), keys[i], keys[i + 1], keys[i]);
            break;
        }
        if (!key) { /* added: also where << supplies it, since stated keys win */
            rc = insert_keys(e, &y, node, keys, i, depth, value, err);
            break;
        }
        yaml_node_t *val = nd_yaml_value_at(&y, node, index);
        size_t alias_at;
        if (i < depth - 1 && val->type == YAML_MAPPING_NODE && alias_value(e, key, &alias_at)) {
            if (node->data.mapping.style == YAML_FLOW_MAPPING_STYLE) {
                rc = nd_error_set(err, ND_EINPUT,
                                  "%s:%d: '%s' is an alias inside a {...} mapping; write it in block style",
                                  e->path, nd_yaml_line(key), keys[i]);
                break;
            }
            rc = expand_mapping_alias(e, key, alias_at, err);
            nd_yaml_free(&y);
            return rc ? rc : nd_yaml_edit_set(e, keys, depth, value, err);
        }
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

/* An anchor as the events give it: its name, where it is defined, and its scalar (NULL for a
 * mapping or a sequence). */
typedef struct anchor_def {
    char *name, *value;
    size_t at;
    bool plain;
} anchor_def;

static void free_anchors(anchor_def *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].value);
    }
    free(a);
}

/* Every anchor of the text, in order. */
static int list_anchors(const nd_yaml_edit *e, anchor_def **out, size_t *count, nd_error *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)e->text, e->len);
    anchor_def *a = NULL;
    size_t n = 0, cap = 0;
    int rc = ND_OK;
    for (bool done = false; !done && !rc;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            size_t line, column;
            nd_yaml_problem_at(&p, e->text, e->len, &line, &column);
            rc = nd_error_set(err, ND_EINPUT, "%s:%zu: the edited text is not valid YAML: %s", e->path, line,
                              p.problem ? p.problem : "?");
            break;
        }
        const unsigned char *name = ev.type == YAML_SCALAR_EVENT           ? ev.data.scalar.anchor
                                    : ev.type == YAML_MAPPING_START_EVENT  ? ev.data.mapping_start.anchor
                                    : ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                                           : NULL;
        if (name && n == cap) {
            cap = cap ? 2 * cap : 16;
            anchor_def *b = realloc(a, cap * sizeof *b);
            if (!b) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            if (b) a = b;
        }
        if (name && !rc) {
            anchor_def d = {nd_strdup((const char *)name), NULL, offset_of(e, ev.start_mark), false};
            if (ev.type == YAML_SCALAR_EVENT) {
                d.value = nd_strdup((const char *)ev.data.scalar.value);
                d.plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            }
            a[n++] = d;
            if (!d.name || (ev.type == YAML_SCALAR_EVENT && !d.value))
                rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (rc) {
        free_anchors(a, n);
        return rc;
    }
    *out = a;
    *count = n;
    return ND_OK;
}

int nd_yaml_edit_finish(nd_yaml_edit *e, nd_error *err)
{
    anchor_def *a = NULL;
    size_t n = 0;
    int rc = e->n_uses ? list_anchors(e, &a, &n, err) : ND_OK;
    /* last alias first, so each splice leaves the offsets of those before it */
    while (!rc && e->n_uses) {
        size_t last = 0;
        for (size_t i = 1; i < e->n_uses; i++)
            if (e->uses[i].dead || (!e->uses[last].dead && e->uses[i].at > e->uses[last].at)) last = i;
        alias_use u = e->uses[last];
        e->uses[last] = e->uses[--e->n_uses];
        if (!u.dead) {
            const anchor_def *d = NULL; /* the anchor the alias names: the last defined before it */
            for (size_t i = 0; i < n && a[i].at < u.at; i++)
                if (strlen(a[i].name) == u.name_len && !memcmp(a[i].name, e->text + u.at + 1, u.name_len))
                    d = &a[i];
            bool same = d && d->value && d->plain && !strcmp(d->value, u.value);
            if (!same) rc = splice(e, u.at, u.at + 1 + u.name_len, u.value, err);
        }
        free(u.value);
    }
    free_anchors(a, n);
    nd_yaml y;
    if (!rc && !(rc = nd_yaml_parse(&y, e->text, e->len, e->path, err))) nd_yaml_free(&y);
    return rc;
}

const char *nd_yaml_edit_text(nd_yaml_edit *e, size_t *len)
{
    nd_error ignored;
    nd_yaml_edit_finish(e, &ignored);
    if (len) *len = e->len;
    return e->text;
}

int nd_yaml_edit_write(nd_yaml_edit *e, const char *path, nd_error *err)
{
    int rc = nd_yaml_edit_finish(e, err);
    return rc ? rc : nd_write_file_atomic(path, e->text, e->len, err);
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
        /* kept when it defines an anchor that an alias after it uses: the rest would not parse */
        char *rest = malloc(e->len - (to - from) + 1);
        if (!rest) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        nd_yaml trial;
        nd_error ignored;
        if (rest) {
            memcpy(rest, e->text, from);
            memcpy(rest + from, e->text + to, e->len - to);
            if (!nd_yaml_parse(&trial, rest, e->len - (to - from), e->path, &ignored)) {
                nd_yaml_free(&trial);
                rc = splice(e, from, to, "", err);
            }
        }
        free(rest);
    }
    nd_yaml_free(&y);
    return rc;
}
