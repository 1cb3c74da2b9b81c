/*
 * fw_json.h — helpers of the JSON framework readers (fw_json.c).
 */
#ifndef ND_FW_JSON_H
#define ND_FW_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "fw_common.h"

/* Loads path as a JSON object under nd's JSON rules (a NUL or raw control byte in a string, a
 * repeated key: refused); *root is the caller's to cJSON_Delete. */
int fw_json_load(const char *path, cJSON **root, nd_error *err);
/* A JSON value as text for the key setters (buf holds a number's); NULL for null, objects and
 * arrays. */
const char *fw_json_scalar(const cJSON *v, char *buf, size_t size);
/* A JSON number that must be a whole number in [min, max]: 0 and *out set; 1 when v is absent
 * or null; an error (< 0) naming r's file and the key otherwise. */
int fw_json_whole(fw_reader *r, const cJSON *v, const char *key, int64_t min, int64_t max, int64_t *out);

/* A refusal of one key of the JSON file at path ("PATH: KEY: ..."), given the key's line
 * ("PATH:LINE: KEY: ..."): cJSON keeps no lines, so the file's text is searched for the first
 * `"KEY":`. Any other message is left as it is. */
void fw_json_locate(const char *path, nd_error *err);

#endif
