/*
 * fw_shell.c — bash's words and expansions within the subset nd reads (docs/frameworks.md
 * §Megatron-LM and MindSpeed-LLM arguments): words with their quotes, $(...), ${...} and `...`;
 * the script's variables ($TP, ${TP:-8} and the other ${...} forms); $((...)) integer arithmetic.
 */
#include "fw_shell.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"

#define MAX_DEPTH   16 /* nested ${...:-...} defaults and variables in $((...)) */
#define MAX_NESTING 64 /* nested quotes, $(...), ${...} and arithmetic parentheses */

bool fw_args_name_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Past the group that opens at t[p] ('"', '\'', '`', "$(", "${"), quotes and nested groups
 * inside it included; lines counted. Returns the offset after its close (len when open). */
static size_t skip_group_at(const char *t, size_t len, size_t p, int *line, int nest)
{
    if (nest > MAX_NESTING) return len; /* nested past reason: the rest of the text */
    char open = t[p], close = open;
    size_t i = p + 1;
    if (open == '$') {
        open = t[p + 1];
        close = open == '(' ? ')' : '}';
        i = p + 2;
    }
    int depth = 1;
    while (i < len) {
        char c = t[i];
        if (c == '\n') (*line)++;
        if (open == '\'') {
            if (c == '\'') return i + 1;
            i++;
        } else if (c == '\\' && i + 1 < len) {
            *line += t[i + 1] == '\n';
            i += 2;
        } else if (open == '"' && c == '"') {
            return i + 1;
        } else if (open == '`' && c == '`') {
            return i + 1;
        } else if (c == '$' && i + 1 < len && (t[i + 1] == '(' || t[i + 1] == '{')) {
            i = skip_group_at(t, len, i, line, nest + 1);
        } else if (open != '"' && (c == '"' || c == '\'' || c == '`')) {
            i = skip_group_at(t, len, i, line, nest + 1);
        } else if ((open == '(' || open == '{') && c == open) {
            depth++;
            i++;
        } else if ((open == '(' || open == '{') && c == close) {
            if (--depth == 0) return i + 1;
            i++;
        } else {
            i++;
        }
    }
    return len;
}

size_t fw_shell_skip_group(const char *t, size_t len, size_t p, int *line)
{
    return skip_group_at(t, len, p, line, 0);
}

/* The next shell word in [*p, end): blanks, newlines, `\` continuations and (at the top
 * level) ; | & ( ) < > separate words; quotes, $(...), ${...} and `...` belong to the word
 * they stand in; '#' at a word's start comments out the rest of the line. Inside a quoted
 * value (inner) only blanks separate: its words are what bash splits $VALUE into. */
bool fw_shell_next_word(const char *t, size_t end, size_t *p, int *line, bool inner, word *w)
{
    const char *seps = inner ? " \t\r\n" : " \t\r\n;|&()<>";
    for (;;) {
        while (*p < end && (strchr(seps, t[*p]) || (t[*p] == '\\' && *p + 1 < end && t[*p + 1] == '\n'))) {
            if (t[*p] == '\\') (*p)++;
            *line += t[(*p)++] == '\n';
        }
        if (*p >= end) return false;
        if (t[*p] != '#') break;
        while (*p < end && t[*p] != '\n') (*p)++;
    }
    w->from = *p;
    w->line = *line;
    while (*p < end && !strchr(seps, t[*p])) {
        char c = t[*p];
        if (c == '\\' && *p + 1 < end) {
            if (t[*p + 1] == '\n') break;
            *p += 2;
        } else if (!inner && (c == '"' || c == '\'' || c == '`')) {
            *p = fw_shell_skip_group(t, end, *p, line);
        } else if (c == '$' && *p + 1 < end && (t[*p + 1] == '(' || t[*p + 1] == '{')) {
            *p = fw_shell_skip_group(t, end, *p, line);
        } else {
            (*p)++;
        }
    }
    if (*p > end) *p = end;
    w->to = *p;
    return true;
}

/* The script's last assignment of NAME so far, NULL when it sets none. */
static const var *var_find(const args_doc *d, const char *name, size_t n)
{
    for (int i = d->n_vars - 1; i >= 0; i--)
        if (strlen(d->vars[i].name) == n && !strncmp(d->vars[i].name, name, n)) return &d->vars[i];
    return NULL;
}

/* Its value (NULL when the script does not set it), noting in o a value that took a default;
 * *unknown when the script sets it from what nd does not read. */
static const char *var_value(const args_doc *d, const char *name, size_t n, outbuf *o, bool *unknown)
{
    const var *v = var_find(d, name, n);
    if (!v && o && o->unset_empty) {
        if (!o->unset_name[0]) snprintf(o->unset_name, sizeof o->unset_name, "%.*s", (int)n, name);
        *unknown = false;
        return "";
    }
    if (v && v->defaulted && o) o->defaulted = true;
    if (v && v->in_branch && o) o->branch = true;
    *unknown = v && v->unknown;
    return v ? v->value : NULL;
}

static void put(outbuf *o, char c)
{
    if (o->used + 1 < o->size)
        o->s[o->used++] = c;
    else
        o->full = true;
    o->s[o->used] = '\0';
}

static bool expand_into(const args_doc *d, const char *s, size_t n, int depth, outbuf *o);

/* ---- $((...)): bash's integer arithmetic (64-bit, wrapping; / and % by 0 refused) ---- */

typedef struct arith {
    const args_doc *d;
    const char *s;
    size_t i, n;
    int depth;
    bool ok;
    outbuf *o;   /* where a defaulted variable is noted */
    int nesting; /* parentheses, signs and powers open: bounded, so no input runs the stack out */
} arith;

static void blanks(arith *a)
{
    while (a->i < a->n && strchr(" \t\r\n", a->s[a->i])) a->i++;
}

static int64_t arith_sum(arith *a);

static int64_t arith_text(const args_doc *d, const char *s, size_t n, int depth, bool *ok, outbuf *o)
{
    arith a = {d, s, 0, n, depth, true, o, 0};
    if (depth > MAX_DEPTH) { /* nested too deep to evaluate: not a value nd can know */
        *ok = false;
        return 0;
    }
    int64_t v = arith_sum(&a);
    blanks(&a);
    if (a.i != a.n) a.ok = false;
    *ok = a.ok;
    return v;
}

/* A variable in an expression: its value, itself an expression (bash evaluates it so). */
static int64_t arith_var(arith *a, const char *name, size_t len)
{
    bool unknown;
    const char *v = var_value(a->d, name, len, a->o, &unknown);
    if (!v || unknown) {
        a->ok = false; /* not set by the script: its value comes from the environment */
        return 0;
    }
    bool ok = true; /* an empty value is 0 in bash arithmetic */
    int64_t x = *v ? arith_text(a->d, v, strlen(v), a->depth + 1, &ok, a->o) : 0;
    if (!ok) a->ok = false;
    return x;
}

static int64_t arith_primary(arith *a)
{
    blanks(a);
    if (a->i >= a->n) {
        a->ok = false;
        return 0;
    }
    const char *s = a->s;
    char c = s[a->i];
    if (c == '(') {
        a->i++;
        int64_t v = arith_sum(a);
        blanks(a);
        if (a->i < a->n && s[a->i] == ')')
            a->i++;
        else
            a->ok = false;
        return v;
    }
    if (c >= '0' && c <= '9') { /* 0x1f hex, 017 octal, else decimal (base#n is not read) */
        int base = 10;
        if (c == '0' && a->i + 1 < a->n && (s[a->i + 1] == 'x' || s[a->i + 1] == 'X')) {
            base = 16;
            a->i += 2;
        } else if (c == '0') {
            base = 8;
        }
        uint64_t v = 0;
        size_t start = a->i;
        while (a->i < a->n && fw_args_name_char(s[a->i])) {
            char k = s[a->i];
            int digit = k >= '0' && k <= '9'   ? k - '0'
                        : k >= 'a' && k <= 'f' ? k - 'a' + 10
                        : k >= 'A' && k <= 'F' ? k - 'A' + 10
                                               : 99;
            if (digit >= base) a->ok = false;
            v = v * (uint64_t)base + (uint64_t)(digit < base ? digit : 0);
            a->i++;
        }
        if (a->i == start) a->ok = false;
        return (int64_t)v;
    }
    bool dollar = c == '$';
    if (dollar) a->i++;
    bool brace = dollar && a->i < a->n && s[a->i] == '{';
    if (brace) a->i++;
    size_t from = a->i;
    while (a->i < a->n && fw_args_name_char(s[a->i])) a->i++;
    if (a->i == from || (s[from] >= '0' && s[from] <= '9')) { /* $1, $@, ...: the caller's */
        a->ok = false;
        return 0;
    }
    size_t len = a->i - from;
    if (brace) {
        if (a->i < a->n && s[a->i] == '}')
            a->i++;
        else
            a->ok = false;
    }
    return arith_var(a, s + from, len);
}

static int64_t arith_unary(arith *a);

static int64_t arith_unary_at(arith *a)
{
    blanks(a);
    if (a->i < a->n && (a->s[a->i] == '-' || a->s[a->i] == '+') &&
        !(a->i + 1 < a->n && a->s[a->i + 1] == a->s[a->i])) {
        char op = a->s[a->i++];
        uint64_t v = (uint64_t)arith_unary(a);
        return op == '-' ? (int64_t)(0 - v) : (int64_t)v;
    }
    return arith_primary(a);
}

/* Every nesting (a parenthesis, a sign, a power) passes here, bounded. */
static int64_t arith_unary(arith *a)
{
    if (++a->nesting > MAX_NESTING) {
        a->ok = false;
        a->i = a->n;
        return 0;
    }
    int64_t v = arith_unary_at(a);
    a->nesting--;
    return v;
}

static int64_t arith_power(arith *a)
{
    int64_t b = arith_unary(a);
    blanks(a);
    if (a->i + 1 < a->n && a->s[a->i] == '*' && a->s[a->i + 1] == '*') {
        a->i += 2;
        if (++a->nesting > MAX_NESTING) {
            a->ok = false;
            a->i = a->n;
            return 0;
        }
        int64_t e = arith_power(a);
        a->nesting--;
        if (e < 0) {
            a->ok = false; /* bash: exponent less than 0 */
            return 0;
        }
        uint64_t r = 1;
        for (int64_t k = 0; k < e && k < 64 && r; k++) r *= (uint64_t)b;
        return (int64_t)r;
    }
    return b;
}

static int64_t arith_term(arith *a)
{
    int64_t v = arith_power(a);
    for (;;) {
        blanks(a);
        if (a->i >= a->n || !strchr("*/%", a->s[a->i]) || (a->i + 1 < a->n && a->s[a->i + 1] == '*'))
            return v;
        char op = a->s[a->i++];
        int64_t r = arith_power(a);
        if (op == '*') {
            v = (int64_t)((uint64_t)v * (uint64_t)r);
        } else if (r == 0 || (v == INT64_MIN && r == -1)) {
            a->ok = false; /* bash: division by 0 */
            return 0;
        } else {
            v = op == '/' ? v / r : v % r;
        }
    }
}

static int64_t arith_sum(arith *a)
{
    int64_t v = arith_term(a);
    for (;;) {
        blanks(a);
        if (a->i >= a->n || (a->s[a->i] != '+' && a->s[a->i] != '-')) return v;
        char op = a->s[a->i++];
        uint64_t r = (uint64_t)arith_term(a);
        v = (int64_t)(op == '+' ? (uint64_t)v + r : (uint64_t)v - r);
    }
}

/* ${NAME}, ${NAME:-word}, ${NAME-word}, ${NAME:=word}, ${NAME=word}, ${NAME:+word},
 * ${NAME+word}: body is what stands between the braces. Other forms are not read. */
static bool expand_brace(const args_doc *d, const char *body, size_t n, int depth, outbuf *o)
{
    size_t k = 0;
    while (k < n && fw_args_name_char(body[k])) k++;
    if (k == 0 || (body[0] >= '0' && body[0] <= '9')) return false;
    bool unknown;
    const char *v = var_value(d, body, k, o, &unknown);
    if (unknown) return false; /* set, to a value nd does not know */
    if (k == n) {
        for (const char *q = v ? v : ""; *q; q++) put(o, *q);
        return v != NULL;
    }
    bool colon = body[k] == ':';
    size_t op = k + colon;
    if (op >= n || !strchr("-=+", body[op])) return false;
    char kind = body[op];
    bool set = v && (!colon || *v);
    if (kind == '+') return set ? expand_into(d, body + op + 1, n - op - 1, depth + 1, o) : true;
    if (set) {
        for (const char *q = v; *q; q++) put(o, *q);
        return true;
    }
    if (!v) o->defaulted = true; /* the environment may set it: the default is a guess */
    return expand_into(d, body + op + 1, n - op - 1, depth + 1, o);
}

/* A word as bash expands it: quotes removed, $NAME and ${...} replaced by the script's
 * values, $((...)) evaluated; false when it uses a variable the script does not set, a
 * command's output ($(...), `...`) or the script's own arguments ($1, $@). */
static bool expand_into(const args_doc *d, const char *s, size_t n, int depth, outbuf *o)
{
    return fw_shell_expand_text(d, s, n, depth, false, o);
}

/* expand_into from inside double quotes (dq): a word of GPT_ARGS="..." is expanded as bash
 * expands the quoted value, its single quotes literal and its $VAR taken */
bool fw_shell_expand_text(const args_doc *d, const char *s, size_t n, int depth, bool dq, outbuf *o)
{
    bool ok = depth <= MAX_DEPTH;
    int line = 0;
    for (size_t i = 0; ok && i < n; i++) {
        char c = s[i];
        if (c == '\'' && !dq) {
            while (++i < n && s[i] != '\'') put(o, s[i]);
        } else if (c == '"') {
            dq = !dq;
        } else if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            if (dq && !strchr("$`\"\\\n", e)) put(o, c);
            if (e != '\n') put(o, e);
        } else if (c == '`') {
            ok = false;
        } else if (c == '$' && i + 2 < n && s[i + 1] == '(' && s[i + 2] == '(') {
            size_t close = fw_shell_skip_group(s, n, i, &line); /* past the outer ')' */
            if (close < i + 5 || s[close - 1] != ')' || s[close - 2] != ')') {
                ok = false;
                break;
            }
            char num[32];
            int64_t v = arith_text(d, s + i + 3, close - 2 - (i + 3), depth + 1, &ok, o);
            snprintf(num, sizeof num, "%lld", (long long)v);
            for (const char *q = num; *q; q++) put(o, *q);
            i = close - 1;
        } else if (c == '$' && i + 1 < n && s[i + 1] == '(') {
            ok = false; /* a command's output */
        } else if (c == '$' && i + 1 < n && s[i + 1] == '{') {
            size_t close = fw_shell_skip_group(s, n, i, &line);
            if (close > n || s[close - 1] != '}') {
                ok = false;
                break;
            }
            ok = expand_brace(d, s + i + 2, close - 1 - (i + 2), depth, o);
            i = close - 1;
        } else if (c == '$' && i + 1 < n && (fw_args_name_char(s[i + 1]) || strchr("@*#?!$-", s[i + 1]))) {
            size_t end = i + 1;
            if (s[end] >= '0' && s[end] <= '9') {
                ok = false; /* the script's arguments */
                break;
            }
            while (end < n && fw_args_name_char(s[end])) end++;
            if (end == i + 1) {
                ok = false; /* $@, $#, ... */
                break;
            }
            bool unknown;
            const char *v = var_value(d, s + i + 1, end - i - 1, o, &unknown);
            for (const char *q = v ? v : ""; *q; q++) put(o, *q);
            ok = v != NULL && !unknown;
            i = end - 1;
        } else {
            put(o, c);
        }
    }
    return ok;
}

bool fw_shell_expand(const args_doc *d, const char *s, size_t n, bool dq, char *out, size_t size,
                     bool *defaulted, bool *full, bool *branch)
{
    outbuf o = {out, 0, size, false, false, false, false, ""};
    out[0] = '\0';
    bool ok = fw_shell_expand_text(d, s, n, 0, dq, &o);
    /* '1' left literal by the double quotes: the script evals the command (eval ${run_cmd}),
     * which removes them; without eval the trainer could not parse it either */
    if (dq && o.used >= 2 && out[0] == '\'' && out[o.used - 1] == '\'' &&
        !memchr(out + 1, '\'', o.used - 2)) {
        memmove(out, out + 1, o.used - 2);
        out[o.used - 2] = '\0';
    }
    if (defaulted) *defaulted = o.defaulted;
    if (full) *full = o.full;
    if (branch) *branch = o.branch;
    return ok && !o.full;
}
