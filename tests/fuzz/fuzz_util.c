/* fuzz_util.c — scratch files for nd's libFuzzer targets (fuzz_util.h). */
#include "fuzz_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd/base/error.h"

static char dir_path[256];
static char file_path[512];

/* Removes the scratch directory and what is in it (one level: targets make no more). */
static void remove_dir(void)
{
    DIR *d = opendir(dir_path);
    if (d) {
        char p[768];
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", dir_path, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir_path);
}

const char *fuzz_dir(void)
{
    if (dir_path[0]) return dir_path;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : NULL;
    if (!base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(dir_path, sizeof dir_path, "%s/nd-fuzz.XXXXXX", base);
    if (!mkdtemp(dir_path)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(remove_dir);
    return dir_path;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    snprintf(file_path, sizeof file_path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(file_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("fuzz: writing the input");
        abort();
    }
    return file_path;
}

const char *fuzz_write_text(const char *name, const char *text)
{
    return fuzz_write(name, (const uint8_t *)text, strlen(text));
}

void *fuzz_null_stream(void)
{
    static FILE *null_stream;
    if (!null_stream && !(null_stream = fopen("/dev/null", "w"))) {
        perror("fuzz: /dev/null");
        abort();
    }
    return null_stream;
}

void fuzz_check_refusal(int rc, const nd_error *err, const char *name)
{
    const char *why = NULL;
    if (rc != ND_EINPUT && rc != ND_ENOMEM)
        why = "not ND_EINPUT";
    else if (err->code != rc)
        why = "err->code differs from the return code";
    else if (!err->message[0])
        why = "no message";
    else if (strchr(err->message, '\n'))
        why = "a message of several lines";
    else if (rc == ND_EINPUT && name && !strstr(err->message, name))
        why = "the message does not name the file";
    if (!why) return;
    fprintf(stderr, "fuzz: bad refusal (%s): rc %d, code %d, message '%s'\n", why, rc, err->code,
            err->message);
    abort();
}
