/*
 * device_file.c — device files (YAML): devices added to a table or overriding its fields,
 * each checked as the engine's field table says (nd/costmodel/device.h).
 */
#include "nd/inputs/device_file.h"

#include <stdlib.h>
#include <string.h>

#include "device_simumax.h"
#include "device_tables.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/yaml_doc.h"

#define DEVICE_FILE_MAX ((size_t)64 << 20)

/* Names a file the tables were read from (absolute): the first is their source in messages,
 * and all of them are what a fitted device file attaches again. */
static void note_file(nd_kernel_tables *tables, const char *path)
{
    char *absolute = nd_path_absolute(path);
    const char *name = absolute ? absolute : path;
    if (!tables->files_count) nd_text_copy(tables->source, name, sizeof tables->source);
    if (tables->files_count < ND_TABLE_FILES_MAX)
        nd_text_copy(tables->files[tables->files_count++], name, sizeof tables->files[0]);
    free(absolute);
}

/* Reads a SimuMax system file's kernel tables for a device (the table owns them); with
 * `as_device` also its figures, into *d. */
static int read_simumax(nd_device_table *t, const char *path, nd_device *d, bool as_device, nd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = nd_read_file(path, DEVICE_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    nd_device read;
    nd_kernel_tables *tables = NULL;
    rc = nd_kernel_tables_read_simumax(t, path, text, len, &read, &tables, err);
    free(text);
    if (rc) return rc;
    note_file(tables, path);
    if ((rc = nd_device_table_adopt_tables(t, tables, err))) return rc;
    if (as_device) *d = read;
    d->tables = tables;
    d->rates_caveat = NULL; /* measured on the machine */
    return ND_OK;
}

/* One file of `kernel_tables:` into *tables (made by the first file): a SimuMax system file,
 * which brings its own tables and so must come first, or a measured table for d. */
static int read_table_file(nd_device_table *t, const char *path, const nd_device *d,
                           nd_kernel_tables **tables, nd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = nd_read_file(path, DEVICE_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    if (nd_device_file_is_simumax(text, len)) {
        nd_device ignored;
        rc = *tables ? nd_error_set(err, ND_EINPUT,
                                    "%s:1: a SimuMax system file brings its own tables: list it first", path)
                     : nd_kernel_tables_read_simumax(t, path, text, len, &ignored, tables, err);
    } else {
        if (!*tables && !(*tables = calloc(1, sizeof **tables)))
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        if (!rc) rc = nd_kernel_tables_read_measured(path, text, len, d, *tables, err);
    }
    free(text);
    return rc;
}

/* `kernel_tables: FILE` or a list of files, relative to the device file's directory, read once
 * the device's own fields are set (a table's fractions are of the device's peaks and links). */
static int attach_tables(nd_device_table *t, nd_yaml *y, yaml_node_t *value, const char *where, nd_device *d,
                         nd_error *err)
{
    bool list = value->type == YAML_SEQUENCE_NODE;
    size_t count = list ? nd_yaml_size(value) : 1;
    if (!count) return nd_error_set(err, ND_EINPUT, "%s: field 'kernel_tables': an empty list", where);
    if (count > ND_TABLE_FILES_MAX)
        return nd_error_set(err, ND_EINPUT, "%s: field 'kernel_tables': %zu files, at most %d", where, count,
                            ND_TABLE_FILES_MAX);
    nd_kernel_tables *tables = NULL;
    char *dir = nd_path_dir(y->path);
    int rc = ND_OK;
    for (size_t i = 0; i < count && !rc; i++) {
        const char *name = nd_yaml_text(list ? nd_yaml_item(y, value, i) : value);
        if (!name || !name[0]) {
            rc = nd_error_set(err, ND_EINPUT, "%s: field 'kernel_tables': each entry is a file name", where);
            break;
        }
        char *path = name[0] == '/' || !dir ? nd_strdup(name) : nd_path_join(dir, name);
        nd_error inner = {0};
        rc = path ? read_table_file(t, path, d, &tables, &inner)
                  : nd_error_set(&inner, ND_ENOMEM, "out of memory");
        if (rc) rc = nd_error_set(err, rc, "%s: field 'kernel_tables': %s", where, inner.message);
        if (!rc) note_file(tables, path);
        free(path);
    }
    free(dir);
    if (rc) {
        if (tables) nd_kernel_tables_free(tables);
        return rc;
    }
    nd_kernel_tables_index(tables); /* out of memory: no memo, the same answers more slowly */
    if ((rc = nd_device_table_adopt_tables(t, tables, err))) return rc;
    d->tables = tables;
    return ND_OK;
}

/* A new device without a base states every field: the missing ones are listed together. */
static int need_every_field(nd_yaml *y, yaml_node_t *map, const char *name, const bool *seen, nd_error *err)
{
    char missing[768];
    size_t count = nd_device_missing_fields(seen, missing, sizeof missing);
    if (!count) return ND_OK;
    return nd_error_set(err, ND_EINPUT,
                        "%s:%d: new device %s: %zu field%s missing: %s (state every field, or "
                        "`base: A100` to start from a known device)",
                        y->path, nd_yaml_line(map), name, count, count > 1 ? "s" : "", missing);
}

/* One device mapping: fields, optionally `base: NAME` to start from another device. */
static int load_one(nd_device_table *t, nd_yaml *y, const char *name, yaml_node_t *map, nd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(map));
    int rc = nd_yaml_expect_mapping(y, map, name, err);
    if (rc) return rc;
    long chars = nd_text_name_chars(name);
    if (chars < 1 || chars > ND_DEVICE_NAME_CHARS)
        return nd_error_set(err, ND_EINPUT,
                            "%s: device name '%s' must be 1 to %d characters of printable "
                            "UTF-8",
                            where, name, ND_DEVICE_NAME_CHARS);
    nd_device d;
    memset(&d, 0, sizeof d);
    nd_device *existing = (nd_device *)nd_device_table_find(t, name);
    const char *base = nd_yaml_text(nd_yaml_get(y, map, "base"));
    if (base) {
        const nd_device *b = nd_device_table_find(t, base);
        if (!b) {
            char names[256];
            nd_device_table_names(t, names, sizeof names);
            return nd_error_set(err, ND_EINPUT, "%s: field 'base': no device '%s' (known: %s)", where, base,
                                names);
        }
        d = *b;
    } else if (existing) {
        d = *existing;
    }
    /* An override keeps the device's own name even when the file used an alias. */
    nd_text_copy(d.name, existing ? existing->name : name, sizeof d.name);
    bool seen[ND_DEVICE_FIELDS_MAX] = {0};
    yaml_node_t *tables = NULL;
    char tables_where[600] = "";
    for (size_t i = 0; i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i), *v = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(k), *value = nd_yaml_text(v);
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(k));
        if (key && !strcmp(key, "kernel_tables") && v && v->type == YAML_SEQUENCE_NODE) value = "";
        if (!key || !value)
            return nd_error_set(err, ND_EINPUT, "%s: device %s: every field must be `key: value`", where,
                                name);
        if (!strcmp(key, "base") || !strcmp(key, "name")) continue;
        if (!strcmp(key, "kernel_tables")) {
            tables = v;
            nd_text_copy(tables_where, where, sizeof tables_where);
            continue;
        }
        if ((rc = nd_device_set_field(&d, key, value, where, err)) < 0) return rc;
        seen[rc] = true;
        if ((rc = nd_device_validate_field(&d, key, where, err))) return rc; /* at its own line */
        if (nd_device_field_is_rate(key)) d.rates_caveat = NULL;             /* the file's own rates */
    }
    if (!base && !existing && (rc = need_every_field(y, map, name, seen, err))) return rc;
    if (tables && (rc = attach_tables(t, y, tables, tables_where, &d, err))) return rc;
    if (tables) d.rates_caveat = NULL;
    snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(map));
    if ((rc = nd_device_validate(&d, where, err))) return rc;
    return nd_device_table_put(t, &d, where, err);
}

/* A SimuMax system file read as a device of its own, named by its sys_name. */
static int load_simumax(nd_device_table *table, const char *path, nd_error *err)
{
    nd_device d;
    int rc = read_simumax(table, path, &d, true, err);
    if (rc) return rc;
    char where[600];
    snprintf(where, sizeof where, "%s:1", path);
    if ((rc = nd_device_validate(&d, where, err))) return rc;
    return nd_device_table_put(table, &d, where, err);
}

int nd_device_table_load(nd_device_table *table, const char *path, nd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = nd_read_file(path, DEVICE_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    bool json = nd_device_file_is_simumax(text, len);
    if (json) {
        free(text);
        return load_simumax(table, path, err);
    }
    nd_yaml y;
    rc = nd_yaml_parse(&y, text, len, path, err);
    free(text);
    if (rc) return rc;
    yaml_node_t *root = nd_yaml_root(&y);
    if ((rc = nd_yaml_expect_mapping(&y, root, "the device file", err))) goto done;
    yaml_node_t *devices = nd_yaml_get(&y, root, "devices");
    if (devices) {
        if ((rc = nd_yaml_expect_mapping(&y, devices, "devices", err))) goto done;
        /* looked up without case (-A h100 finds H100): X1 and x1 would silently be one */
        if ((rc = nd_yaml_check_keys_nocase(&y, devices, err))) goto done;
        for (size_t i = 0; i < nd_yaml_size(devices) && !rc; i++) {
            const char *name = nd_yaml_text(nd_yaml_key_at(&y, devices, i));
            rc = load_one(table, &y, name ? name : "", nd_yaml_value_at(&y, devices, i), err);
        }
    } else {
        const char *name = nd_yaml_text(nd_yaml_get(&y, root, "name"));
        if (!name)
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: a device file holds `devices: {NAME: {...}}` or one device with `name:`",
                              path);
        else
            rc = load_one(table, &y, name, root, err);
    }
done:
    nd_yaml_free(&y);
    return rc;
}
