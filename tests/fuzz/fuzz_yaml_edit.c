/* fuzz_yaml_edit.c — libFuzzer target: the YAML write-back path (read → edit → re-read).
 * nd_yaml_edit_open on the input, then the edits nd's MindFormers and HyperParallel writers
 * make: a value set at up to eight of the file's own leaves (scalars at depth 1 or 2, whatever
 * anchors, aliases or merge keys hold them), keys added to present and new sections, the
 * `context` block removed; nd_yaml_edit_finish; then the edited text parsed again. An edit
 * may be refused (ND_EINPUT naming the file), but text nd would write must parse and read
 * back, through nd_yaml_get as the readers look keys up, every value nd set. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/base/error.h"
#include "nd/base/yaml_doc.h"
#include "nd/base/yaml_edit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EDITS 12

typedef struct edit {
    char path[96];
    char value[16];
} edit;

/* A key nd could name in a dotted path: text, no dot, short. */
static const char *usable_key(yaml_node_t *k)
{
    const char *t = nd_yaml_text(k);
    if (!t || !t[0] || strchr(t, '.') || strlen(t) > 40 || nd_yaml_is_merge_key(k) || !strcmp(t, "context"))
        return NULL;
    return t;
}

/* Up to max of the document's scalar leaves at depth 1 and 2. */
static int leaves(nd_yaml *y, edit *out, int max)
{
    yaml_node_t *root = nd_yaml_root(y);
    int n = 0;
    for (size_t i = 0; root && root->type == YAML_MAPPING_NODE && i < nd_yaml_size(root) && n < max; i++) {
        const char *k = usable_key(nd_yaml_key_at(y, root, i));
        yaml_node_t *v = nd_yaml_value_at(y, root, i);
        if (!k) continue;
        if (v->type == YAML_SCALAR_NODE) {
            snprintf(out[n++].path, sizeof out[0].path, "%s", k);
            continue;
        }
        for (size_t j = 0; v->type == YAML_MAPPING_NODE && j < nd_yaml_size(v) && j < 3 && n < max; j++) {
            const char *k2 = usable_key(nd_yaml_key_at(y, v, j));
            if (k2 && nd_yaml_value_at(y, v, j)->type == YAML_SCALAR_NODE)
                snprintf(out[n++].path, sizeof out[0].path, "%s.%s", k, k2);
        }
    }
    return n;
}

/* The scalar at a dotted path, looked up as the readers do (merge keys included). */
static const char *at_path(nd_yaml *y, const char *dotted)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s", dotted);
    yaml_node_t *n = nd_yaml_root(y);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && n; k = strtok_r(NULL, ".", &save))
        n = nd_yaml_get(y, n, k);
    return nd_yaml_text(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_error err = {0};
    nd_yaml_edit *e;
    int rc = nd_yaml_edit_open(&e, fuzz_write("train.yaml", data, size), &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "train.yaml");
        return 0;
    }
    nd_yaml y;
    size_t len;
    const char *text = nd_yaml_edit_text(e, &len);
    edit edits[MAX_EDITS];
    memset(edits, 0, sizeof edits);
    int n = 0;
    if (!nd_yaml_parse(&y, text, len, "train.yaml", &err)) {
        n = leaves(&y, edits, 8);
        nd_yaml_free(&y);
    }
    static const char *const fixed[] = {"parallel_config.data_parallel", "runner_config.batch_size",
                                        "parallel_config.nd_fuzz_added", "nd_fuzz_section.key"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < MAX_EDITS; i++) {
        bool dup = false;
        for (int j = 0; j < n; j++) dup |= !strcmp(edits[j].path, fixed[i]);
        if (!dup) snprintf(edits[n++].path, sizeof edits[0].path, "%s", fixed[i]);
    }
    rc = nd_yaml_edit_remove(e, "context", &err);
    for (int i = 0; i < n && !rc; i++) {
        snprintf(edits[i].value, sizeof edits[i].value, "%d", 1000 + i);
        rc = nd_yaml_edit_set_path(e, edits[i].path, edits[i].value, &err);
        if (rc == ND_EINPUT) { /* refused (a value where a mapping is needed, a flow mapping) */
            fuzz_check_refusal(rc, &err, "train.yaml");
            edits[i].value[0] = '\0';
            rc = ND_OK;
            err.message[0] = '\0';
        }
    }
    if (!rc) rc = nd_yaml_edit_finish(e, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "train.yaml");
        nd_yaml_edit_free(e);
        return 0;
    }
    text = nd_yaml_edit_text(e, &len);
    if (nd_yaml_parse(&y, text, len, "resolved.yaml", &err)) {
        fprintf(stderr, "edited text does not parse: %s\n", err.message);
        abort();
    }
    for (int i = 0; i < n; i++) {
        if (!edits[i].value[0]) continue;
        const char *got = at_path(&y, edits[i].path);
        if (!got || strcmp(got, edits[i].value)) {
            fprintf(stderr, "%s set to %s reads back as %s\n", edits[i].path, edits[i].value,
                    got ? got : "(none)");
            abort();
        }
    }
    nd_yaml_free(&y);
    nd_yaml_edit_free(e);
    return 0;
}
