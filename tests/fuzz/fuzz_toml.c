/* fuzz_toml.c — libFuzzer target: nd_toml_load (base/toml.c, torchtitan's job configs), then
 * read → edit → re-read: every value is asked for as an integer, and every key is set to 8
 * where it stands; the edited text must parse again and give 8 back for that key and every other
 * key its value unchanged (an edit never changes what another key means). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/base/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_KEYS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_toml *t;
    nd_error err = {0};
    int rc = nd_toml_load(&t, fuzz_write("job.toml", data, size), &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "job.toml");
        return 0;
    }
    size_t n = nd_toml_count(t);
    char *tables[MAX_KEYS], *keys[MAX_KEYS], *values[MAX_KEYS];
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < MAX_KEYS; i++) {
        const char *table, *key, *value;
        nd_toml_entry(t, i, &table, &key, &value, NULL);
        int64_t v = 0;
        int line;
        nd_error ierr = {0};
        int irc = nd_toml_int(t, table, key, INT64_MIN, INT64_MAX, &v, &line, &ierr);
        if (irc) fuzz_check_refusal(irc, &ierr, "job.toml");
        if (strchr(table, '[') || nd_toml_type_of(t, table, key) == ND_TOML_TABLE) continue;
        if (strchr(key, '.') || strchr(table, '"')) continue; /* a quoted key with a dot: not addressable */
        tables[kept] = strdup(table);
        keys[kept] = strdup(key);
        values[kept] = strdup(value);
        kept++;
    }
    for (size_t i = 0; i < kept; i++) {
        nd_error serr = {0};
        const char *before = nd_toml_get(t, tables[i], keys[i], NULL);
        if (!before || strcmp(before, values[i])) continue; /* an earlier edit set it (a shared name) */
        if (nd_toml_set(t, tables[i], keys[i], "8", &serr)) continue;
        const char *after = nd_toml_get(t, tables[i], keys[i], NULL);
        if (!after || strcmp(after, "8")) {
            fprintf(stderr, "fuzz: %s.%s set to 8 reads back as %s\n", tables[i], keys[i],
                    after ? after : "(none)");
            abort();
        }
        free(values[i]);
        values[i] = strdup("8");
        for (size_t j = 0; j < kept; j++) {
            const char *other = nd_toml_get(t, tables[j], keys[j], NULL);
            if (!other || strcmp(other, values[j])) {
                fprintf(stderr, "fuzz: setting %s.%s changed %s.%s from %s to %s\n", tables[i], keys[i],
                        tables[j], keys[j], values[j], other ? other : "(none)");
                abort();
            }
        }
    }
    /* a key added to a table the file has, and to a new one */
    nd_error aerr = {0};
    if (kept && !nd_toml_get(t, tables[0], "nd_fuzz_added", NULL) &&
        !nd_toml_set(t, tables[0], "nd_fuzz_added", "4", &aerr)) {
        const char *v = nd_toml_get(t, tables[0], "nd_fuzz_added", NULL);
        if (!v || strcmp(v, "4")) {
            fprintf(stderr, "fuzz: a key added to [%s] reads back as %s\n", tables[0], v ? v : "(none)");
            abort();
        }
    }
    for (size_t i = 0; i < kept; i++) {
        free(tables[i]);
        free(keys[i]);
        free(values[i]);
    }
    nd_toml_free(t);
    return 0;
}
