/*
 * cmdline_argv.c — ND's spellings of a command line brought to the one getopt reads.
 *
 * ND's run_nd is an argparse program: its long options mix '_' and '-'
 * (--yaml_config, --train-yaml), -l and --recompute take several words, -v takes a
 * number as the next word, and its help prints -mppb's long form with an en dash.
 * getopt_long_only knows none of this, so the words are rewritten first; the
 * caller's argv is never modified (messages quote it as typed).
 */
#include "cmdline_internal.h"

#include <stdlib.h>
#include <string.h>

void nd_cmdline_spell(char *name)
{
    for (; *name && *name != '='; name++)
        if (*name == '_') *name = '-';
}

/* Whether name (up to its '=') is an option of the table or a prefix of one, with or
 * without a "no-" in front. */
static bool names_option(const struct option *options, const char *name)
{
    size_t len = strcspn(name, "=");
    for (int pass = 0; pass < 2; pass++) {
        for (const struct option *o = options; o->name; o++)
            if (!strncmp(o->name, name, len)) return true;
        if (len <= 3 || strncmp(name, "no-", 3)) break;
        name += 3;
        len -= 3;
    }
    return false;
}

/* A copy of word (malloc'd, freed here) in the storage, or NULL when it is full. */
static char *own(nd_cmdline_argv *a, char *word)
{
    size_t len = word ? strlen(word) + 1 : 0;
    char *kept = word && a->used + len <= a->size ? a->storage + a->used : NULL;
    if (kept) {
        memcpy(kept, word, len);
        a->used += len;
    }
    free(word);
    return kept;
}

/* The dashes a word starts with, as getopt reads them: "-" or "--" (ND's en dash, alone
 * or after one hyphen, counts as two). *skip is how many bytes they take. */
static const char *dashes(const char *word, size_t *skip)
{
    static const char en[] = "\xE2\x80\x93"; /* U+2013 */
    if (!strncmp(word, "-", 1) && !strncmp(word + 1, en, 3)) {
        *skip = 4;
        return "--";
    }
    if (!strncmp(word, en, 3)) {
        *skip = 3;
        return "--";
    }
    if (!strncmp(word, "--", 2)) {
        *skip = 2;
        return "--";
    }
    *skip = 1;
    return "-";
}

/* The multi-word option a spelled word names, or NULL. */
static const nd_cmdline_multiword *multiword(const nd_cmdline_multiword *multi, int n, const char *dash,
                                             const char *name)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(dash, "-") && multi[i].short_name && name[0] == multi[i].short_name && !name[1])
            return &multi[i];
        if (!strcmp(name, multi[i].long_name)) return &multi[i];
    }
    return NULL;
}

static bool is_count(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

/* Whether s is a count with a minus ("-1"): no option is spelled so, and after -v it is a
 * level given wrong, which -v's own message should name (not "unknown option '-1'"). */
static bool is_negative_count(const char *s)
{
    return s[0] == '-' && is_count(s + 1);
}

/* One option word spelled for getopt: a new string. */
static char *spell_word(const struct option *options, const char *word, const char **dash_out,
                        char **name_out)
{
    size_t skip;
    const char *dash = dashes(word, &skip);
    char *name = malloc(strlen(word) + 1);
    if (!name) return NULL;
    strcpy(name, word + skip);
    char *spelled = malloc(strlen(name) + 1);
    if (!spelled) {
        free(name);
        return NULL;
    }
    strcpy(spelled, name);
    nd_cmdline_spell(spelled);
    if (names_option(options, spelled)) strcpy(name, spelled);
    free(spelled);
    char *out = malloc(strlen(dash) + strlen(name) + 1);
    if (out) {
        strcpy(out, dash);
        strcat(out, name);
    }
    *dash_out = dash;
    *name_out = name;
    return out;
}

/* The words after a multi-word option, joined with commas: "--NAME=a,b". */
static char *join_words(const char *long_name, char **argv, int from, int to)
{
    size_t len = strlen(long_name) + 4;
    for (int i = from; i < to; i++) len += strlen(argv[i]) + 1;
    char *out = malloc(len);
    if (!out) return NULL;
    strcpy(out, "--");
    strcat(out, long_name);
    strcat(out, "=");
    for (int i = from; i < to; i++) {
        if (i > from) strcat(out, ",");
        strcat(out, argv[i]);
    }
    return out;
}

int nd_cmdline_argv_normalize(const struct option *options, const nd_cmdline_multiword *multi, int n_multi,
                              int argc, char **argv, char *storage, size_t size, nd_cmdline_argv *a)
{
    memset(a, 0, sizeof *a);
    a->storage = storage;
    a->size = size;
    a->argv = calloc((size_t)argc + 1, sizeof *a->argv);
    a->origin = calloc((size_t)argc + 1, sizeof *a->origin);
    if (!a->argv || !a->origin) {
        nd_cmdline_argv_free(a);
        return -1;
    }
    a->argv[0] = argv[0];
    a->argc = 1;
    bool operands = false;
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i];
        int at = a->argc++;
        a->origin[at] = i;
        a->argv[at] = argv[i];
        if (operands || word[0] != '-' || !word[1]) continue;
        if (!strcmp(word, "--")) {
            operands = true;
            continue;
        }
        const char *dash;
        char *name;
        char *spelled = spell_word(options, word, &dash, &name);
        if (!spelled) {
            nd_cmdline_argv_free(a);
            return -1;
        }
        if (!(spelled = own(a, spelled))) {
            free(name);
            nd_cmdline_argv_free(a);
            return -1;
        }
        a->argv[at] = spelled;
        const nd_cmdline_multiword *m = strchr(name, '=') ? NULL : multiword(multi, n_multi, dash, name);
        bool verbosity = !strchr(name, '=') &&
                         (!strcmp(name, "v") || !strcmp(name, "verbosity") || !strcmp(name, "verbose"));
        free(name);
        if (m) {
            int end = i + 1;
            while (end < argc && argv[end][0] != '-') end++;
            if (end == i + 1 && m->short_name != 'l') continue; /* getopt says what is missing */
            if (!(a->argv[at] = own(a, join_words(m->long_name, argv, i + 1, end)))) {
                nd_cmdline_argv_free(a);
                return -1;
            }
            i = end - 1;
        } else if (verbosity && i + 1 < argc && (is_count(argv[i + 1]) || is_negative_count(argv[i + 1]))) {
            char *joined = own(a, join_words("verbosity", argv, i + 1, i + 2));
            if (!joined) {
                nd_cmdline_argv_free(a);
                return -1;
            }
            a->argv[at] = joined;
            i++;
        }
    }
    a->argv[a->argc] = NULL;
    return 0;
}

void nd_cmdline_argv_free(nd_cmdline_argv *a)
{
    free(a->argv);
    free(a->origin);
    a->argv = NULL;
    a->origin = NULL;
}
