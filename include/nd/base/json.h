/*
 * json.h — how nd writes JSON documents (cJSON underneath): numbers as the
 * shortest text that reads back exactly, two-space indentation like ND's files,
 * and files written atomically through nd_outfile.
 */
#ifndef ND_JSON_H
#define ND_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include "nd/base/error.h"

/* Adds a number printed as the shortest text that reads back exactly (null if not finite).
 * Returns the item, or NULL when out of memory. */
cJSON *nd_json_add_number(cJSON *obj, const char *key, double value);

/* Prints a JSON document (2-space indentation, numbers as added) and a newline.
 * Returns 0, or -1 when printing or writing failed. */
int nd_json_print(FILE *fp, const cJSON *doc);

/* nd_json_print for a document with one large array: the member array_key of doc is an
 * empty array, printed with the n items make_item(i, ctx) returns, each printed and freed
 * before the next is made, so 100,000 rows never sit in memory as one tree. The text is
 * the same as nd_json_print's of the whole document. Returns 0, or -1. */
int nd_json_print_streamed(FILE *fp, const cJSON *doc, const char *array_key, size_t n,
                           cJSON *(*make_item)(size_t i, const void *ctx), const void *ctx);

/* Writes a JSON document to path atomically (nd_outfile). ND_EIO naming path. */
int nd_json_write_file(const char *path, const cJSON *doc, nd_error *err);

/* Parses the len bytes of text (NUL-terminated; a UTF-8 BOM is skipped) into *root, which
 * the caller frees with cJSON_Delete. Refused with ND_EINPUT, naming path and the line:
 * text that is UTF-16, UTF-32 or binary (nd_text_check_encoding), invalid JSON, a string
 * holding \u0000 (C strings would end there: "adamw\u0000junk" would read as "adamw"), a NUL
 * byte anywhere or a raw control byte (below 0x20) inside a string (RFC 8259 refuses both; cJSON
 * would take them, a NUL cutting the string), naming the line, and
 * a key repeated in one object at any depth (cJSON keeps both, and which one a reader sees
 * is an accident). Out of memory is ND_ENOMEM, not "not valid JSON". */
int nd_json_parse(const char *text, size_t len, const char *path, cJSON **root, nd_error *err);

#endif
