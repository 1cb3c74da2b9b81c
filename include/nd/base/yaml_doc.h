/*
 * yaml_doc.h — a loaded YAML file and the lookups nd's readers need, each
 * keeping line numbers for messages ("run.yaml:12: key 'seq_len': ...").
 *
 * libyaml resolves no types: every scalar is text, converted by the caller
 * with text.h's strict parsers. Nesting deeper than ND_YAML_MAX_DEPTH is refused
 * before the document is built, so a hostile file cannot exhaust the stack.
 */
#ifndef ND_YAML_DOC_H
#define ND_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <yaml.h>
#include "nd/base/error.h"

#define ND_YAML_MAX_DEPTH 64

typedef struct nd_yaml {
    yaml_document_t doc;
    int loaded;
    char *path; /* owned: the file's name, for messages */
} nd_yaml;

/* The largest YAML file nd reads (run files, device files, search configs). */
#define ND_YAML_MAX_BYTES (16u << 20)

/* Parses path (at most ND_YAML_MAX_BYTES). Refused with ND_EINPUT, naming the line: an
 * empty file, a second document (`---`: nd reads one), a value holding a NUL character
 * (C strings would end there: "adamw\0junk" would read as "adamw"), text that is not UTF-8
 * (nd_text_check_encoding), a key repeated in a mapping. Syntax errors name line and
 * column. On failure y needs no nd_yaml_free (a second call is harmless). */
int nd_yaml_load(nd_yaml *y, const char *path, nd_error *err);

/* Parses text already in memory; path names it in messages. */
int nd_yaml_parse(nd_yaml *y, const char *text, size_t len, const char *path, nd_error *err);

/* Where libyaml's parser p (which read text, len bytes) failed: 1-based line and column
 * (in characters). A reader error (bad UTF-8, a control character) is placed by its byte
 * offset, since libyaml leaves its line and column at the start of the text. */
void nd_yaml_problem_at(const yaml_parser_t *p, const char *text, size_t len, size_t *line, size_t *column);

void nd_yaml_free(nd_yaml *y);

/* Refuses (ND_EINPUT, naming both lines) a key of map that repeats an earlier one without
 * regard to ASCII case: for names looked up without case (device names), where X1 and x1
 * would silently be one. nd_yaml_parse already refuses keys repeated exactly. */
int nd_yaml_check_keys_nocase(nd_yaml *y, yaml_node_t *map, nd_error *err);

yaml_node_t *nd_yaml_root(nd_yaml *y);

/* The value under key in a mapping node, or NULL (also when map is not a mapping). Merge
 * keys count as PyYAML reads them: `<<: *base` or `<<: [*a, *b]` supply the keys the mapping
 * does not state itself (explicit keys win, then a before b). nd_yaml_parse refuses a <<
 * that is not a mapping or a list of them. Walking a mapping (nd_yaml_key_at) shows << as
 * a key; nd_yaml_is_merge_key tells it. */
yaml_node_t *nd_yaml_get(nd_yaml *y, yaml_node_t *map, const char *key);

/* Whether a key node is YAML's merge key (a plain <<). */
bool nd_yaml_is_merge_key(const yaml_node_t *key);

/* 1-based line of a node. */
int nd_yaml_line(const yaml_node_t *node);

/* The text of a scalar node, or NULL if node is not a scalar. */
const char *nd_yaml_text(const yaml_node_t *node);

/* Requires node to be a mapping; else ND_EINPUT "path:line: 'what' must be a mapping". */
int nd_yaml_expect_mapping(nd_yaml *y, yaml_node_t *node, const char *what, nd_error *err);

/* The i-th key/value of a mapping (i < nd_yaml_size(node)). */
size_t nd_yaml_size(const yaml_node_t *node);
yaml_node_t *nd_yaml_key_at(nd_yaml *y, yaml_node_t *map, size_t i);
yaml_node_t *nd_yaml_value_at(nd_yaml *y, yaml_node_t *map, size_t i);
/* The i-th item of a sequence. */
yaml_node_t *nd_yaml_item(nd_yaml *y, yaml_node_t *seq, size_t i);

/* One `indent key: value` line of a YAML file nd writes. Text is quoted so that YAML reads
 * names like "yes" or "1e3" as text, control characters escaped (YAML's \xHH): no value
 * can end the line and inject keys. Doubles keep every digit (nd_format_double). */
void nd_yaml_write_int(FILE *fp, const char *indent, const char *key, int64_t v);
void nd_yaml_write_bool(FILE *fp, const char *indent, const char *key, bool v);
void nd_yaml_write_double(FILE *fp, const char *indent, const char *key, double v);
void nd_yaml_write_text(FILE *fp, const char *indent, const char *key, const char *v);

#endif
