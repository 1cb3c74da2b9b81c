/*
 * checkpoint.c — finding a model checkpoint's files on this machine, offline: the
 * directory a HyperParallel train.yaml names (model.pretrained_model_name_or_path), as
 * a path or as a Hugging Face hub id already in the local cache. nd downloads nothing.
 */
#include "nd/inputs/checkpoint.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nd/base/io.h"
#include "nd/base/array.h"

static bool is_file(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A directory holding config.json: dir itself. */
static bool try_dir(const char *dir, char *out, size_t size)
{
    char cfg[1536];
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    if (!is_dir(dir) || !is_file(cfg)) return false;
    snprintf(out, size, "%s", dir);
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The hub cache's snapshot of id ("Org/Name"): models--Org--Name/snapshots/<rev>, the one
 * refs/main names, else the first by name. */
static bool try_cache(const char *cache, const char *id, char *out, size_t size)
{
    char repo[1024], snaps[1200], ref[1300], rev[128] = "";
    size_t n = (size_t)snprintf(repo, sizeof repo, "%s/models--", cache);
    for (const char *p = id; *p && n + 3 < sizeof repo; p++) {
        if (*p == '/') {
            repo[n++] = '-';
            repo[n++] = '-';
        } else
            repo[n++] = *p;
    }
    repo[n] = '\0';
    snprintf(ref, sizeof ref, "%s/refs/main", repo);
    FILE *f = fopen(ref, "r");
    if (f) {
        if (!fgets(rev, sizeof rev, f)) rev[0] = '\0';
        fclose(f);
        rev[strcspn(rev, "\r\n")] = '\0';
    }
    snprintf(snaps, sizeof snaps, "%s/snapshots", repo);
    if (rev[0]) {
        char dir[1400];
        snprintf(dir, sizeof dir, "%s/%s", snaps, rev);
        if (try_dir(dir, out, size)) return true;
    }
    DIR *d = opendir(snaps);
    if (!d) return false;
    char *names[64];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < (int)ND_ARRAY_LEN(names);)
        if (e->d_name[0] != '.') names[count++] = nd_strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, cmp_names);
    bool found = false;
    for (int i = 0; i < count; i++) {
        char dir[1400];
        snprintf(dir, sizeof dir, "%s/%s", snaps, names[i] ? names[i] : "");
        if (!found && names[i]) found = try_dir(dir, out, size);
        free(names[i]);
    }
    return found;
}

int nd_checkpoint_find(const char *name, const char *beside, char *out, size_t size, nd_error *err)
{
    if (name[0] == '/' && try_dir(name, out, size)) return ND_OK;
    if (name[0] != '/' && beside) {
        char *dir = nd_path_dir(beside), *p = dir ? nd_path_join(dir, name) : NULL;
        bool ok = p && try_dir(p, out, size);
        free(dir);
        free(p);
        if (ok) return ND_OK;
    }
    if (try_dir(name, out, size)) return ND_OK;
    const char *hub = getenv("HF_HUB_CACHE"), *home = getenv("HF_HOME"), *user = getenv("HOME");
    char cache[1024];
    if (hub && *hub && try_cache(hub, name, out, size)) return ND_OK;
    if (home && *home) {
        snprintf(cache, sizeof cache, "%s/hub", home);
        if (try_cache(cache, name, out, size)) return ND_OK;
    }
    if (user && *user) {
        snprintf(cache, sizeof cache, "%s/.cache/huggingface/hub", user);
        if (try_cache(cache, name, out, size)) return ND_OK;
    }
    return nd_error_set(err, ND_EINPUT,
                        "'%s' is no checkpoint directory with a config.json here or in the Hugging "
                        "Face cache, and nd downloads nothing: give the checkpoint's local directory",
                        name);
}

/* ---- the tensors of a checkpoint (-V), from the .safetensors headers ----------------------- */

/* A safetensors file: 8 bytes little-endian N, then N bytes of JSON, {name: {dtype, shape,
 * data_offsets}, "__metadata__": {...}}, then the data, which nd never reads. The format
 * caps N at 100 MB. */
#define SAFETENSORS_HEADER_MAX (100u << 20)

static int dtype_bytes(const char *dtype)
{
    static const struct {
        const char *name;
        int bytes;
    } t[] = {
        {"F64", 8},     {"I64", 8},     {"U64", 8},  {"F32", 4}, {"I32", 4},
        {"U32", 4},     {"F16", 2},     {"BF16", 2}, {"I16", 2}, {"U16", 2},
        {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I8", 1},   {"U8", 1},  {"BOOL", 1},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(t); i++)
        if (!strcmp(dtype, t[i].name)) return t[i].bytes;
    return 0;
}

static int add_tensor(nd_checkpoint_tensors *t, const char *file, const cJSON *item, nd_error *err)
{
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > ND_TENSOR_MAX_DIMS)
        return nd_error_set(err, ND_EINPUT,
                            "%s: tensor '%s' has no dtype and shape of at most %d dimensions "
                            "(not a safetensors header)",
                            file, item->string, ND_TENSOR_MAX_DIMS);
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        nd_tensor_info *items = realloc(t->items, cap * sizeof *items);
        if (!items) return nd_error_set(err, ND_ENOMEM, "out of memory");
        t->items = items;
        t->cap = cap;
    }
    nd_tensor_info *ti = &t->items[t->count];
    memset(ti, 0, sizeof *ti);
    snprintf(ti->name, sizeof ti->name, "%s", item->string);
    snprintf(ti->dtype, sizeof ti->dtype, "%s", dtype->valuestring);
    ti->elements = 1;
    const cJSON *d;
    cJSON_ArrayForEach(d, shape)
    {
        if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 1e12)
            return nd_error_set(err, ND_EINPUT, "%s: tensor '%s': a dimension that is not a size", file,
                                item->string);
        ti->shape[ti->dims++] = (int64_t)d->valuedouble;
        if (ti->elements > (INT64_MAX >> 20) / ((int64_t)d->valuedouble + 1))
            return nd_error_set(err, ND_EINPUT, "%s: tensor '%s' is too large", file, item->string);
        ti->elements *= (int64_t)d->valuedouble;
    }
    ti->bytes = dtype_bytes(ti->dtype);
    t->count++;
    return ND_OK;
}

int nd_checkpoint_header_parse(nd_checkpoint_tensors *t, const unsigned char *data, size_t len,
                               const char *path, nd_error *err)
{
    if (len < 8) return nd_error_set(err, ND_EINPUT, "%s: shorter than a safetensors header", path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | data[i];
    if (n < 2 || n > SAFETENSORS_HEADER_MAX)
        return nd_error_set(err, ND_EINPUT, "%s: a header of %llu bytes: not a safetensors file", path,
                            (unsigned long long)n);
    if (len - 8 < n)
        return nd_error_set(err, ND_EINPUT, "%s: the header says %llu bytes, the file is shorter", path,
                            (unsigned long long)n);
    cJSON *root = cJSON_ParseWithLength((const char *)data + 8, (size_t)n);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return nd_error_set(err, ND_EINPUT, "%s: the safetensors header is not a JSON object", path);
    }
    int rc = ND_OK;
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        if (!item->string || !strcmp(item->string, "__metadata__")) continue;
        if ((rc = add_tensor(t, path, item, err))) break;
    }
    cJSON_Delete(root);
    if (!rc) t->files++;
    return rc;
}

/* The first 8 + N bytes of the file: its header, never its data. */
static int read_header(nd_checkpoint_tensors *t, const char *path, nd_error *err)
{
    FILE *fp = nd_fopen_regular(path, err);
    if (!fp) return err->code ? err->code : ND_EIO;
    unsigned char *buf = malloc(8);
    int rc = ND_OK;
    size_t got = buf ? fread(buf, 1, 8, fp) : 0;
    if (!buf) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    } else if (got == 8) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--) n = n << 8 | buf[i];
        if (n >= 2 && n <= SAFETENSORS_HEADER_MAX) { /* else the parse says why */
            unsigned char *more = realloc(buf, 8 + (size_t)n);
            if (!more)
                rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            else {
                buf = more;
                got += fread(buf + 8, 1, (size_t)n, fp);
            }
        }
    }
    if (!rc) rc = nd_checkpoint_header_parse(t, buf, got, path, err);
    free(buf);
    fclose(fp);
    return rc;
}

/* The files read so far, by device and inode: a shard named through several symlinks (or
 * hard links) is opened and parsed once, so memory grows with the files, not their names. */
typedef struct file_ids {
    dev_t dev[4096];
    ino_t ino[4096];
    int n;
} file_ids;

/* true when path is a file already read (or the list is full, which the callers' own
 * limits of 4096 and 256 files prevent); else remembers it. */
static bool seen_file(file_ids *ids, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return false; /* the open says why */
    for (int i = 0; i < ids->n; i++)
        if (ids->dev[i] == st.st_dev && ids->ino[i] == st.st_ino) return true;
    if (ids->n < (int)ND_ARRAY_LEN(ids->dev)) {
        ids->dev[ids->n] = st.st_dev;
        ids->ino[ids->n++] = st.st_ino;
    }
    return false;
}

/* 2^53 parameters in all (9.0e15, a thousand times the largest model published): every sum
 * the census makes of them stays exact in a double and far from int64's 9.2e18. */
#define CHECKPOINT_MAX_ELEMENTS ((int64_t)1 << 53)

static int check_total(const nd_checkpoint_tensors *t, nd_error *err)
{
    int64_t total = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (t->items[i].elements > CHECKPOINT_MAX_ELEMENTS - total)
            return nd_error_set(err, ND_EINPUT,
                                "%s: the checkpoint's tensors hold more than 2^53 parameters in all (past "
                                "tensor '%s', the %zu-th): not a checkpoint nd reads",
                                t->dir, t->items[i].name, i + 1);
        total += t->items[i].elements;
    }
    return ND_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const nd_tensor_info *)a)->name, ((const nd_tensor_info *)b)->name);
}

/* The shard files model.safetensors.index.json's weight_map names, each once. */
static int read_index(nd_checkpoint_tensors *t, const char *dir, const char *index, file_ids *ids,
                      nd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = nd_read_file(index, 64u << 20, &text, &len, err);
    if (rc) return rc;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map"), *e;
    if (!cJSON_IsObject(map)) {
        cJSON_Delete(root);
        return nd_error_set(err, ND_EINPUT, "%s: no weight_map object", index);
    }
    const char *seen[4096];
    int n_seen = 0;
    cJSON_ArrayForEach(e, map)
    {
        if (!cJSON_IsString(e) || strchr(e->valuestring, '/') || !strcmp(e->valuestring, "..")) {
            rc = nd_error_set(err, ND_EINPUT, "%s: weight_map['%s'] is not a file beside the index", index,
                              e->string);
            break;
        }
        bool dup = false;
        for (int i = 0; i < n_seen && !dup; i++) dup = !strcmp(seen[i], e->valuestring);
        if (dup) continue;
        if (n_seen == (int)(ND_ARRAY_LEN(seen))) {
            rc = nd_error_set(err, ND_EINPUT, "%s: more than %d shard files", index, n_seen);
            break;
        }
        seen[n_seen++] = e->valuestring;
        char path[2048];
        if (snprintf(path, sizeof path, "%.1023s/%.1000s", dir, e->valuestring) >= (int)sizeof path) {
            rc = nd_error_set(err, ND_EINPUT, "%s: weight_map names a file of too long a name", index);
            break;
        }
        if (seen_file(ids, path)) continue;
        if ((rc = read_header(t, path, err))) break;
    }
    cJSON_Delete(root);
    return rc;
}

int nd_checkpoint_tensors_read(const char *dir, nd_checkpoint_tensors *t, nd_error *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    char index[2048];
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    int rc = ND_OK;
    file_ids *ids = calloc(1, sizeof *ids);
    if (!ids) return nd_error_set(err, ND_ENOMEM, "out of memory");
    if (is_file(index)) {
        rc = read_index(t, dir, index, ids, err);
    } else {
        DIR *d = opendir(dir);
        if (!d) {
            free(ids);
            return nd_error_set(err, ND_EIO, "%s: cannot read the directory: %s", dir, strerror(errno));
        }
        /* every *.safetensors, in name order so that the census is the same on every machine */
        char names[256][256];
        int n = 0;
        struct dirent *e;
        while ((e = readdir(d)) && n < 256) {
            size_t l = strlen(e->d_name);
            if (l > 12 && l < sizeof names[0] && !strcmp(e->d_name + l - 12, ".safetensors"))
                memcpy(names[n++], e->d_name, l + 1);
        }
        closedir(d);
        qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
        for (int i = 0; !rc && i < n; i++) {
            char path[2048];
            if (snprintf(path, sizeof path, "%.1023s/%.255s", dir, names[i]) >= (int)sizeof path) continue;
            if (!seen_file(ids, path)) rc = read_header(t, path, err);
        }
    }
    free(ids);
    if (!rc) rc = check_total(t, err);
    if (rc) {
        nd_checkpoint_tensors_free(t);
        return rc;
    }
    if (t->count) qsort(t->items, t->count, sizeof *t->items, by_name);
    return ND_OK;
}

void nd_checkpoint_tensors_free(nd_checkpoint_tensors *t)
{
    free(t->items);
    t->items = NULL;
    t->count = t->cap = 0;
}
