/* The user's own communication kernels: POSIX extended regular expressions, from
 * --comm-kernel or a file of them (--comm-kernel-file), checked as they are read so a bad
 * one is refused at once, naming it (docs/classify.md, "Communication kernels"). */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "nd/classify/classify.h"
#include "nd/base/io.h"

/* Patterns a file may hold: each kernel name is tried against every one. */
#define MAX_PATTERNS     256
#define MAX_PATTERN_FILE ((size_t)1 << 20)

static int compile_error(const char *where, const char *re, int code, const regex_t *rx, int status,
                         nd_error *err)
{
    char why[160];
    regerror(code, rx, why, sizeof why);
    return nd_error_set(err, status, "%s'%s' is not a POSIX extended regular expression: %s", where, re, why);
}

int nd_classify_pattern_check(const char *re, nd_error *err)
{
    regex_t rx;
    int code = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
    if (code) return compile_error("--comm-kernel: ", re, code, &rx, ND_EUSAGE, err);
    regfree(&rx);
    return ND_OK;
}

/* Trims spaces from both ends of line (in place). */
static char *trimmed(char *line)
{
    while (isspace((unsigned char)*line)) line++;
    size_t n = strlen(line);
    while (n && isspace((unsigned char)line[n - 1])) line[--n] = '\0';
    return line;
}

static int add_pattern(char ***out, size_t *n, const char *path, size_t line_no, char *re, nd_error *err)
{
    regex_t rx;
    int code = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
    if (code) {
        char where[512];
        snprintf(where, sizeof where, "%s:%zu: ", path, line_no);
        return compile_error(where, re, code, &rx, ND_EINPUT, err);
    }
    regfree(&rx);
    if (*n == MAX_PATTERNS)
        return nd_error_set(err, ND_EINPUT, "%s:%zu: more than %d patterns", path, line_no, MAX_PATTERNS);
    char **m = realloc(*out, (*n + 1) * sizeof *m);
    if (!m) return nd_error_set(err, ND_ENOMEM, "out of memory");
    *out = m;
    if (!(m[*n] = nd_strdup(re))) return nd_error_set(err, ND_ENOMEM, "out of memory");
    (*n)++;
    return ND_OK;
}

int nd_classify_patterns_read(const char *path, char ***out, size_t *n, nd_error *err)
{
    *out = NULL;
    *n = 0;
    char *data;
    size_t len;
    int rc = nd_read_file(path, MAX_PATTERN_FILE, &data, &len, err);
    if (rc) return rc;
    size_t line_no = 0;
    for (char *line = data, *next; line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line_no++;
        char *re = trimmed(line);
        if (*re && *re != '#') rc = add_pattern(out, n, path, line_no, re, err);
    }
    free(data);
    if (rc) {
        for (size_t i = 0; i < *n; i++) free((*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
