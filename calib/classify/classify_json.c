/* Streaming a JSON file through yajl with zlib's gzread (which reads plain files too),
 * in fixed chunks: memory is the chunk and yajl's small state, whatever the file holds. */
#include "classify_json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "nd/base/io.h"
#include "nd/base/text.h"

unsigned long long nd_classify_json_at(const json_feed *j)
{
    return j->base + yajl_get_bytes_consumed(j->h);
}

static int parse_error(json_feed *j, const unsigned char *chunk, size_t n)
{
    unsigned char *msg = yajl_get_error(j->h, 0, chunk, n);
    char text[256];
    nd_text_copy(text, msg ? (const char *)msg : "parse error", sizeof text);
    text[strcspn(text, "\n")] = '\0';
    if (msg) yajl_free_error(j->h, msg);
    return nd_error_set(j->err, ND_EINPUT, "%s: byte %llu: not valid JSON (%s)", j->path,
                        nd_classify_json_at(j), text);
}

static int read_error(json_feed *j, gzFile f, int n)
{
    int code = Z_OK;
    const char *msg = gzerror(f, &code);
    if (n >= 0 && code == Z_OK) return ND_OK;
    if (!strncmp(msg, "<fd:", 4) && strstr(msg, ": ")) msg = strstr(msg, ": ") + 2; /* gzdopen's name */
    bool cut = code == Z_BUF_ERROR || code == Z_DATA_ERROR;
    return nd_error_set(j->err, ND_EINPUT, "%s: byte %llu: cannot read: %s%s", j->path, j->base,
                        code == Z_ERRNO ? strerror(errno) : msg,
                        cut ? " (a truncated or corrupt gzip file; nd does not read it as a "
                              "shorter run)"
                            : "");
}

void nd_classify_digest_add(uint64_t *h, unsigned long long at, const unsigned char *s, size_t n)
{
    if (at >= ND_DIGEST_BYTES) return;
    if (n > ND_DIGEST_BYTES - at) n = (size_t)(ND_DIGEST_BYTES - at);
    for (size_t i = 0; i < n; i++) /* a MiB a file: a byte at a time costs nothing */
        *h = (*h ^ s[i]) * 1099511628211ull;
}

/* Parses one chunk of n bytes; *quiet counts the bytes since the last callback. */
static int feed_chunk(json_feed *j, unsigned char *buf, size_t n, unsigned long long *total, size_t *quiet)
{
    /* yajl refuses a UTF-8 BOM; offsets in messages still count it */
    size_t skip = *total == 0 && n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
    if (*total == 0) j->digest = ND_DIGEST_SEED;
    nd_classify_digest_add(&j->digest, *total, buf, n);
    *total += n;
    j->base += skip;
    unsigned long long calls = j->calls;
    yajl_status st = yajl_parse(j->h, buf + skip, n - skip);
    if (st == yajl_status_client_canceled) return j->err->code;
    if (st != yajl_status_ok) return parse_error(j, buf + skip, n - skip);
    j->base += n - skip;
    *quiet = j->calls == calls ? *quiet + n : 0;
    if (*quiet > ND_JSON_TOKEN_MAX)
        return nd_error_set(j->err, ND_EINPUT,
                            "%s: byte %llu: more than %zu bytes without a complete JSON "
                            "value (one huge string or number, or blank space); refused "
                            "to keep memory bounded",
                            j->path, j->base, ND_JSON_TOKEN_MAX);
    return ND_OK;
}

static int feed(json_feed *j, gzFile f, unsigned char *buf, unsigned long long *total)
{
    int n, rc = ND_OK;
    size_t quiet = 0; /* bytes parsed since the last callback: inside one token */
    while (!rc && (n = gzread(f, buf, (unsigned)ND_JSON_CHUNK)) > 0)
        rc = feed_chunk(j, buf, (size_t)n, total, &quiet);
    return rc ? rc : read_error(j, f, n);
}

/* A plain file read straight into the chunk: zlib's transparent reading copies every byte
 * once more, a few percent of the time on a trace of a gigabyte. */
static int feed_plain(json_feed *j, int fd, unsigned char *buf, unsigned long long *total)
{
    int rc = ND_OK;
    size_t quiet = 0;
    ssize_t n;
    while (!rc && (n = read(fd, buf, ND_JSON_CHUNK)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return nd_error_set(j->err, ND_EINPUT, "%s: byte %llu: cannot read: %s", j->path, j->base,
                                strerror(errno));
        rc = feed_chunk(j, buf, (size_t)n, total, &quiet);
    }
    return rc;
}

/* True when fd's file starts with gzip's magic bytes; fd is left at its start. */
static bool is_gzip(int fd)
{
    unsigned char magic[2];
    ssize_t n = pread(fd, magic, 2, 0);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

int nd_classify_json_stream(json_feed *j, unsigned long long *total)
{
    *total = 0;
    unsigned char *buf = malloc(ND_JSON_CHUNK);
    if (!buf) return nd_error_set(j->err, ND_ENOMEM, "out of memory");
    int fd = nd_open_regular(j->path, j->err);
    if (fd >= 0 && !is_gzip(fd)) {
        int rc = feed_plain(j, fd, buf, total);
        close(fd);
        free(buf);
        return rc;
    }
    gzFile f = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    int rc = fd;
    if (fd >= 0 && !f) {
        close(fd);
        rc = nd_error_set(j->err, ND_ENOMEM, "out of memory");
    }
    if (f) {
        gzbuffer(f, 1 << 17);
        rc = feed(j, f, buf, total);
        /* gzclose reports a gzip stream cut short (no trailer) that gzread let through. */
        if (gzclose(f) != Z_OK && !rc)
            rc = nd_error_set(j->err, ND_EINPUT,
                              "%s: the gzip file ends early (its trailer is missing or wrong): "
                              "a truncated file is not read as a shorter run",
                              j->path);
    }
    free(buf);
    return rc;
}
