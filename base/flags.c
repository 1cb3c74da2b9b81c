/* The message for a refused flag; see flags.h. */
#include "nd/base/flags.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"

#define NAMES_MAX 160

/* The flag's name as typed, without dashes and without "=value". */
static void bare_name(const char *typed, char *out, size_t size)
{
    while (*typed == '-') typed++;
    size_t n = strcspn(typed, "=");
    if (n >= size) n = size - 1;
    memcpy(out, typed, n);
    out[n] = '\0';
}

/* Whether two option names are one spelling: long options take '_' and '-' alike, and the
 * table holds them with '-' (nd_cmdline_spell) while a message quotes the flag as typed. */
static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == '_' || *a == '-') && (*b == '_' || *b == '-'))) return false;
    return *a == *b;
}

/* Whether the flag named `name` exists and takes a value: a long option, or a one-letter
 * short option followed by ':' in shorts. */
static bool needs_value(const struct option *longs, const char *shorts, const char *name)
{
    for (const struct option *o = longs; o && o->name; o++)
        if (same_name(o->name, name)) return o->has_arg == required_argument;
    if (strlen(name) == 1 && name[0] != ':') {
        const char *at = strchr(shorts ? shorts : "", name[0]);
        return at && at[1] == ':';
    }
    return false;
}

void nd_flag_refused_message(const struct option *longs, const char *shorts, const char *typed, char *msg,
                             size_t size)
{
    char name[128];
    bare_name(typed ? typed : "", name, sizeof name);
    if (name[0] && needs_value(longs, shorts, name)) {
        snprintf(msg, size, "option '%.200s' needs a value", typed);
        return;
    }
    const char *names[NAMES_MAX];
    size_t n = 0;
    for (const struct option *o = longs; o && o->name && n < NAMES_MAX; o++) names[n++] = o->name;
    const char *near = nd_text_nearest(name, names, n);
    /* A long name is suggested with two dashes, which getopt_long and getopt_long_only both
     * take; ND's one-dash names (-ar, -mem) are accepted that way too. */
    if (near && !same_name(near, name))
        snprintf(msg, size, "unknown option '%.200s' (did you mean '--%s'?)", typed, near);
    else if (near)
        snprintf(msg, size, "unknown option '%.200s' (did you mean '--%s'? it takes no value)", typed, near);
    else
        snprintf(msg, size, "unknown option '%.200s'", typed);
}
