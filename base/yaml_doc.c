/* yaml_doc.c — a YAML file loaded whole with libyaml, every node with its line, lookups by
 * key, checked scalars, duplicate and case-twin keys refused, a depth bound. */
#include "nd/base/yaml_doc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"

void nd_yaml_problem_at(const yaml_parser_t *p, const char *text, size_t len, size_t *line, size_t *column)
{
    *line = p->problem_mark.line + 1;
    *column = p->problem_mark.column + 1;
    if (p->error != YAML_READER_ERROR || !text) return;
    /* libyaml's reader (bad UTF-8, a control character) states only the byte offset: its
     * mark stays at the start, which would name line 1 wherever the byte is */
    size_t end = p->problem_offset < len ? p->problem_offset : len;
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < end; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
            ++*line;
            *column = 1;
        } else if ((c & 0xc0) != 0x80) {
            ++*column; /* a character, as libyaml's columns count (not a continuation byte) */
        }
    }
}

static int parse_error(const yaml_parser_t *p, const char *text, size_t len, const char *path, nd_error *err)
{
    size_t line, column;
    nd_yaml_problem_at(p, text, len, &line, &column);
    return nd_error_set(err, ND_EINPUT, "%s:%zu:%zu: %s%s%s", path, line, column,
                        p->problem ? p->problem : "not valid YAML", p->context ? " " : "",
                        p->context ? p->context : "");
}

/* Walks the events once to bound the nesting before libyaml builds the tree. */
static int check_depth(const char *text, size_t len, const char *path, nd_error *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return nd_error_set(err, ND_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0, rc = ND_OK;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = parse_error(&p, text, len, path, err);
            break;
        }
        yaml_event_type_t t = ev.type;
        size_t line = ev.start_mark.line + 1;
        yaml_event_delete(&ev);
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
            if (++depth > ND_YAML_MAX_DEPTH) {
                rc = nd_error_set(err, ND_EINPUT, "%s:%zu: nested deeper than %d levels", path, line,
                                  ND_YAML_MAX_DEPTH);
                break;
            }
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            depth--;
        } else if (t == YAML_STREAM_END_EVENT) {
            break;
        }
    }
    yaml_parser_delete(&p);
    return rc;
}

typedef struct key_ref {
    const char *text;
    int line;
} key_ref;

/* strcmp, or ASCII case-insensitive; ties by line, so the first of two equal keys sorts first */
static int compare_keys(const key_ref *x, const key_ref *y, bool nocase)
{
    int c = 0;
    for (const char *p = x->text, *q = y->text; !c; p++, q++) {
        c = nocase ? (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p) - (*q >= 'A' && *q <= 'Z' ? *q + 32 : *q)
                   : *p - *q;
        if (!*p || !*q) break;
    }
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_key_ref(const void *a, const void *b)
{
    return compare_keys(a, b, false);
}

static int cmp_key_ref_nocase(const void *a, const void *b)
{
    return compare_keys(a, b, true);
}

/* A key of mapping n that repeats an earlier one (as text, or without case): its message. */
static int check_mapping(nd_yaml *y, yaml_node_t *n, bool nocase, nd_error *err)
{
    size_t count = nd_yaml_size(n);
    if (n->type != YAML_MAPPING_NODE || count < 2) return ND_OK;
    key_ref *keys = malloc(count * sizeof *keys);
    if (!keys) return nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, n, i);
        if (nd_yaml_text(kn)) keys[k++] = (key_ref){nd_yaml_text(kn), nd_yaml_line(kn)};
    }
    qsort(keys, k, sizeof *keys, nocase ? cmp_key_ref_nocase : cmp_key_ref);
    int rc = ND_OK;
    for (size_t i = 1; i < k && !rc; i++) {
        if (compare_keys(&(key_ref){keys[i].text, 0}, &(key_ref){keys[i - 1].text, 0}, nocase)) continue;
        if (!strcmp(keys[i].text, keys[i - 1].text))
            rc = nd_error_set(err, ND_EINPUT, "%s:%d: key '%s' repeats the one on line %d", y->path,
                              keys[i].line, keys[i].text, keys[i - 1].line);
        else
            rc = nd_error_set(err, ND_EINPUT,
                              "%s:%d: key '%s' repeats '%s' of line %d (compared without "
                              "case)",
                              y->path, keys[i].line, keys[i].text, keys[i - 1].text, keys[i - 1].line);
    }
    free(keys);
    return rc;
}

/* YAML requires a mapping's keys to be unique, but libyaml does not check, and nd would
 * read the first of two equal keys where it looks one up and the last where it walks
 * the mapping. Sorted per mapping, so a mapping of a million keys costs n log n. */
static int check_unique_keys(nd_yaml *y, nd_error *err)
{
    int rc = ND_OK;
    for (yaml_node_t *n = y->doc.nodes.start; n < y->doc.nodes.top && !rc; n++)
        rc = check_mapping(y, n, false, err);
    return rc;
}

int nd_yaml_check_keys_nocase(nd_yaml *y, yaml_node_t *map, nd_error *err)
{
    return map ? check_mapping(y, map, true, err) : ND_OK;
}

/* A scalar whose length runs past its first NUL: the rest would be invisible to readers. */
static int check_no_nul(nd_yaml *y, nd_error *err)
{
    for (yaml_node_t *n = y->doc.nodes.start; n < y->doc.nodes.top; n++)
        if (n->type == YAML_SCALAR_NODE &&
            strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: a value holds a NUL character (\\0), which "
                                "would cut it short",
                                y->path, nd_yaml_line(n));
    return ND_OK;
}

/* A << whose value is not a mapping or a sequence of mappings: PyYAML refuses it
 * ("expected a mapping or list of mappings for merging"), so nd does too. */
static int check_merges(nd_yaml *y, nd_error *err)
{
    for (yaml_node_t *n = y->doc.nodes.start; n < y->doc.nodes.top; n++) {
        for (size_t i = 0; n->type == YAML_MAPPING_NODE && i < nd_yaml_size(n); i++) {
            if (!nd_yaml_is_merge_key(nd_yaml_key_at(y, n, i))) continue;
            yaml_node_t *v = nd_yaml_value_at(y, n, i);
            bool ok = v->type == YAML_MAPPING_NODE || v->type == YAML_SEQUENCE_NODE;
            for (size_t j = 0; ok && v->type == YAML_SEQUENCE_NODE && j < nd_yaml_size(v); j++)
                ok = nd_yaml_item(y, v, j)->type == YAML_MAPPING_NODE;
            if (!ok)
                return nd_error_set(err, ND_EINPUT,
                                    "%s:%d: a merge key (<<) takes a mapping or a list of "
                                    "mappings (an alias *name of one)",
                                    y->path, nd_yaml_line(nd_yaml_key_at(y, n, i)));
        }
    }
    return ND_OK;
}

/* libyaml loads one document at a time: a second one would be silently ignored. */
static int check_one_document(yaml_parser_t *p, const char *text, size_t len, const char *path, nd_error *err)
{
    yaml_document_t next;
    if (!yaml_parser_load(p, &next)) return parse_error(p, text, len, path, err);
    yaml_node_t *root = yaml_document_get_root_node(&next);
    int line = root ? (int)next.start_mark.line + 1 : 0;
    yaml_document_delete(&next);
    if (root)
        return nd_error_set(err, ND_EINPUT,
                            "%s:%d: a second YAML document ('---'); nd reads "
                            "one document per file",
                            path, line);
    return ND_OK;
}

int nd_yaml_parse(nd_yaml *y, const char *text, size_t len, const char *path, nd_error *err)
{
    memset(y, 0, sizeof *y);
    int rc = nd_text_check_encoding(text, len, path, err);
    if (!rc) rc = check_depth(text, len, path, err);
    if (rc) return rc;
    if (!(y->path = nd_strdup(path))) return nd_error_set(err, ND_ENOMEM, "out of memory");
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        nd_yaml_free(y);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &y->doc)) {
        rc = parse_error(&p, text, len, path, err);
        yaml_parser_delete(&p);
        nd_yaml_free(y);
        return rc;
    }
    y->loaded = 1;
    if (!yaml_document_get_root_node(&y->doc))
        rc = nd_error_set(err, ND_EINPUT, "%s: the file is empty", path);
    if (!rc) rc = check_one_document(&p, text, len, path, err);
    yaml_parser_delete(&p);
    if (!rc) rc = check_no_nul(y, err);
    if (!rc) rc = check_unique_keys(y, err);
    if (!rc) rc = check_merges(y, err);
    if (rc) nd_yaml_free(y);
    return rc;
}

int nd_yaml_load(nd_yaml *y, const char *path, nd_error *err)
{
    char *text;
    size_t len;
    memset(y, 0, sizeof *y);
    int rc = nd_read_file(path, ND_YAML_MAX_BYTES, &text, &len, err);
    if (rc) return rc;
    rc = nd_yaml_parse(y, text, len, path, err);
    free(text);
    return rc;
}

void nd_yaml_free(nd_yaml *y)
{
    if (y->loaded) yaml_document_delete(&y->doc);
    y->loaded = 0;
    free(y->path);
    y->path = NULL;
}

yaml_node_t *nd_yaml_root(nd_yaml *y)
{
    return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

size_t nd_yaml_size(const yaml_node_t *node)
{
    if (!node) return 0;
    if (node->type == YAML_MAPPING_NODE)
        return (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    if (node->type == YAML_SEQUENCE_NODE)
        return (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    return 0;
}

yaml_node_t *nd_yaml_key_at(nd_yaml *y, yaml_node_t *map, size_t i)
{
    return yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].key);
}

yaml_node_t *nd_yaml_value_at(nd_yaml *y, yaml_node_t *map, size_t i)
{
    return yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].value);
}

yaml_node_t *nd_yaml_item(nd_yaml *y, yaml_node_t *seq, size_t i)
{
    return yaml_document_get_node(&y->doc, seq->data.sequence.items.start[i]);
}

bool nd_yaml_is_merge_key(const yaml_node_t *key)
{
    /* PyYAML resolves a plain << (never a quoted one) to tag:yaml.org,2002:merge */
    return key && key->type == YAML_SCALAR_NODE && key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           !strcmp((const char *)key->data.scalar.value, "<<");
}

/* key in map, then in what map's << merges (a mapping, or a sequence of them, the
 * earlier winning), as PyYAML's flatten_mapping reads it: explicit keys win. */
static yaml_node_t *get_merged(nd_yaml *y, yaml_node_t *map, const char *key, int depth)
{
    if (!map || map->type != YAML_MAPPING_NODE || depth > ND_YAML_MAX_DEPTH) return NULL;
    size_t n = nd_yaml_size(map);
    yaml_node_t *merge = NULL;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *kn = nd_yaml_key_at(y, map, i);
        if (nd_yaml_is_merge_key(kn)) {
            merge = nd_yaml_value_at(y, map, i);
            continue;
        }
        const char *k = nd_yaml_text(kn);
        if (k && !strcmp(k, key)) return nd_yaml_value_at(y, map, i);
    }
    if (!merge) return NULL;
    if (merge->type == YAML_MAPPING_NODE) return get_merged(y, merge, key, depth + 1);
    for (size_t i = 0; merge->type == YAML_SEQUENCE_NODE && i < nd_yaml_size(merge); i++) {
        yaml_node_t *v = get_merged(y, nd_yaml_item(y, merge, i), key, depth + 1);
        if (v) return v;
    }
    return NULL;
}

yaml_node_t *nd_yaml_get(nd_yaml *y, yaml_node_t *map, const char *key)
{
    return get_merged(y, map, key, 0);
}

int nd_yaml_line(const yaml_node_t *node)
{
    return node ? (int)node->start_mark.line + 1 : 0;
}

const char *nd_yaml_text(const yaml_node_t *node)
{
    if (!node || node->type != YAML_SCALAR_NODE) return NULL;
    return (const char *)node->data.scalar.value;
}

int nd_yaml_expect_mapping(nd_yaml *y, yaml_node_t *node, const char *what, nd_error *err)
{
    if (node && node->type == YAML_MAPPING_NODE) return ND_OK;
    return nd_error_set(err, ND_EINPUT, "%s:%d: '%s' must be a mapping of key: value", y->path,
                        nd_yaml_line(node), what);
}

/* ---- writing ------------------------------------------------------------------------ */

void nd_yaml_write_int(FILE *fp, const char *indent, const char *key, int64_t v)
{
    fprintf(fp, "%s%s: %lld\n", indent, key, (long long)v);
}

void nd_yaml_write_bool(FILE *fp, const char *indent, const char *key, bool v)
{
    fprintf(fp, "%s%s: %s\n", indent, key, v ? "true" : "false");
}

void nd_yaml_write_double(FILE *fp, const char *indent, const char *key, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fprintf(fp, "%s%s: %s\n", indent, key, nd_format_double(v, buf));
}

/* Quoted so YAML reads names like "yes" or "1e3" as text; control characters escaped
 * (YAML's \xHH), so no name can end the line and inject keys. */
void nd_yaml_write_text(FILE *fp, const char *indent, const char *key, const char *v)
{
    fprintf(fp, "%s%s: \"", indent, key);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fprintf(fp, "\\x%02x", *p);
            continue;
        }
        if (*p == '"' || *p == '\\') fputc('\\', fp);
        fputc(*p, fp);
    }
    fputs("\"\n", fp);
}
