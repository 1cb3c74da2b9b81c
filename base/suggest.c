/* "Did you mean": the known name nearest to what a user typed.
 *
 * Names are compared as a user means them: case, '-' against '_' and the dashes
 * in front of a flag do not count. The distance is Damerau's (optimal string
 * alignment): an insertion, a deletion, a substitution or two neighbours swapped
 * cost one each, which covers the usual typos ("--real-csv", "--reall_csv",
 * "--raeL_csv"). A name is suggested only when it is close for its length —
 * a third of the letters wrong is a different word, not a typo — or when the
 * typed word is the first three or more letters of it. */
#include "nd/base/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define NAME_MAX_CHARS 64

/* word folded for comparison into out: no leading dashes, lower case, '_' for '-'.
 * Returns its length, or 0 when it is empty or too long to be a name. */
static size_t fold(const char *word, char out[NAME_MAX_CHARS])
{
    while (*word == '-') word++;
    size_t n = 0;
    for (; *word; word++) {
        if (n + 1 >= NAME_MAX_CHARS) return 0;
        out[n++] = *word == '-' ? '_' : (char)tolower((unsigned char)*word);
    }
    out[n] = '\0';
    return n;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance of a[0..n) and b[0..m), both under NAME_MAX_CHARS. */
static size_t distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t d[NAME_MAX_CHARS][NAME_MAX_CHARS];
    for (size_t i = 0; i <= n; i++) d[i][0] = i;
    for (size_t j = 0; j <= m; j++) d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[n][m];
}

/* How wrong a word of n letters may be and still be a typo of a name. */
static size_t allowed(size_t n)
{
    return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

/* A score for name against the folded word (lower is nearer), or (size_t)-1 when not near. */
static size_t score(const char *w, size_t wn, const char *name)
{
    char f[NAME_MAX_CHARS];
    size_t fn = fold(name, f);
    if (!fn) return (size_t)-1;
    if (fn == wn && memcmp(w, f, wn) == 0) return 0; /* the same name spelled differently */
    size_t d = distance(w, wn, f, fn);
    if (d <= allowed(wn)) return 2 * d;
    /* "--budg" for "--budget": a prefix, scored after a one-letter typo. */
    if (wn >= 3 && wn < fn && memcmp(w, f, wn) == 0) return 3;
    return (size_t)-1;
}

const char *nd_text_nearest(const char *word, const char *const *names, size_t n)
{
    char w[NAME_MAX_CHARS];
    size_t wn = word ? fold(word, w) : 0;
    if (!wn) return NULL;
    const char *best = NULL;
    size_t best_score = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (!names[i]) continue;
        size_t s = score(w, wn, names[i]);
        if (s < best_score) {
            best = names[i];
            best_score = s;
        }
    }
    return best;
}

bool nd_text_nearest_in_list(const char *word, const char *list, char *out, size_t size)
{
    char w[NAME_MAX_CHARS];
    size_t wn = word ? fold(word, w) : 0;
    size_t best_score = (size_t)-1;
    if (!wn || !list || !size) return false;
    out[0] = '\0';
    /* Items end at a comma, a space or a parenthesis: "a, b (or c), d". */
    for (const char *p = list; *p;) {
        while (*p && strchr(", ()|/", *p)) p++;
        const char *start = p;
        while (*p && !strchr(", ()|/", *p)) p++;
        size_t len = (size_t)(p - start);
        char name[NAME_MAX_CHARS];
        if (!len || len >= sizeof name) continue;
        memcpy(name, start, len);
        name[len] = '\0';
        size_t s = score(w, wn, name);
        if (s < best_score && len < size) {
            best_score = s;
            memcpy(out, name, len + 1);
        }
    }
    return best_score != (size_t)-1;
}

const char *nd_text_hint(const char *word, const char *list, char buf[ND_TEXT_HINT_MAX])
{
    char near[NAME_MAX_CHARS];
    buf[0] = '\0';
    if (nd_text_nearest_in_list(word, list, near, sizeof near))
        snprintf(buf, ND_TEXT_HINT_MAX, "did you mean '%s'? ", near);
    return buf;
}
