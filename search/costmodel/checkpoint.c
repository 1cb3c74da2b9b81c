/*
 * checkpoint.c — finding a model checkpoint's files on this machine, offline: the
 * directory a HyperParallel train.yaml names (model.pretrained_model_name_or_path), as
 * a path or as a Hugging Face hub id already in the local cache. nd downloads nothing.
 */
#include "nd/checkpoint.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nd/io.h"

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
        if (*p == '/') repo[n++] = '-', repo[n++] = '-';
        else repo[n++] = *p;
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
    for (struct dirent *e; (e = readdir(d)) && count < 64;)
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
        free(dir), free(p);
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
    return nd_error_set(err, ND_EINPUT, "'%s' is no checkpoint directory with a config.json here or in the Hugging "
                        "Face cache, and nd downloads nothing: give the checkpoint's local directory", name);
}
