/*
 * fw_megatron.c — Megatron-LM and MindSpeed-LLM arguments, as a launch script holds them
 * (GPT_ARGS="--num-layers 32 ..." ... torchrun ... pretrain_gpt.py $GPT_ARGS): the model,
 * training and strategy from the --flags, and the chosen strategy written back into a
 * copy of the script (resolved.sh). The script is read as bash reads it, within a subset:
 * shell words (quotes, ${...}, $(...) inside them), variables (TP=8, $TP, ${TP:-8}, no cap on
 * their number), $((...)) arithmetic; comments and line continuations skipped. Write-back edits
 * whole shell words, never inside quotes or a default. docs/frameworks.md §Megatron-LM and
 * MindSpeed-LLM arguments (`-f megatron`) lists what is read and written.
 */
#include "fw_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

#define MAX_ARGS    1024
#define MAX_DEPTH   16 /* nested ${...:-...} defaults and variables in $((...)) */
#define MAX_NESTING 64 /* nested quotes, $(...), ${...} and arithmetic parentheses */

typedef struct arg {
    char name[64];     /* without the dashes, '_' as '-' */
    char value[4096];  /* variables expanded; "" for a switch */
    size_t from, to;   /* the flag word's bytes */
    size_t vfrom, vto; /* the value word's bytes (equal when none) */
    int line;
    bool has_value;
    bool unresolved; /* its value uses a variable the script does not set */
    bool inner;      /* it stands in a quoted variable's value (GPT_ARGS="...") */
    bool defaulted;  /* its value took a default for a variable the script does not set */
    bool too_long;   /* its value does not fit value[] */
} arg;

/* A shell variable the script sets (NAME=value); every assignment is kept, in order. */
typedef struct var {
    char name[64];
    char *value;       /* expanded */
    size_t vfrom, vto; /* the value's bytes (inside its quotes) */
    bool plain;        /* the value is a literal word (no $, no quotes inside) */
    bool defaulted;    /* it took a ${NAME:-default} for a variable the script does not set */
    bool unknown;      /* its value uses what nd does not read (a command's output, $1, ...) */
} var;

typedef struct args_doc {
    char *text;
    size_t len;
    arg items[MAX_ARGS];
    int count;
    var *vars; /* no cap: a script sets as many as it likes */
    int n_vars, cap_vars;
    const arg *needed_unresolved; /* the first value nd needed that uses a variable the script
                                     does not set (reported once reading ends) */
} args_doc;

/* Flags that take no value, where the word after them could be read as one. */
static const char *const switches[] = {
    "sequence-parallel",
    "use-distributed-optimizer",
    "swiglu",
    "bf16",
    "fp16",
    "untie-embeddings-and-output-weights",
    "disable-bias-linear",
    "add-qkv-bias",
    "use-flash-attn",
    "use-mcore-models",
    "use-legacy-models",
    "overlap-grad-reduce",
    "overlap-param-gather",
    "tp-comm-overlap",
    "moe-grouped-gemm",
    "multi-latent-attention",
    "multi-head-latent-attention",
    "group-query-attention",
    "qk-layernorm",
    "recompute-activations",
    "checkpoint-activations",
    "use-rotary-position-embeddings",
    "cross-entropy-loss-fusion",
    "use-torch-fsdp2",
    "use-megatron-fsdp",
    "deepspeed",
    "moe-router-enable-expert-bias",
    "use-fused-rmsnorm",
    "use-fused-swiglu",
    "use-fused-rotary-pos-emb",
    "no-gradient-accumulation-fusion",
    "distribute-checkpointed-activations",
    "use-cpu-initialization",
    "no-masked-softmax-fusion",
    "no-bias-gelu-fusion",
    "no-bias-dropout-fusion",
    "reuse-fp32-param",
    "grad-reduce-in-bf16",
    "account-for-embedding-in-pipeline-split",
    "account-for-loss-in-pipeline-split",
    "swap-optimizer",
    "moe-fb-overlap",
    "seq-aux",
    "norm-topk-prob",
    "moe-tp-extend-ep",
    "mla-fa-without-pad",
    "router-gating-in-fp32",
    "moe-permutation-async-comm",
    "reset-position-ids",
    "mtp-mem-efficient-logits",
};

static bool is_switch(const char *name)
{
    if (!strncmp(name, "no-", 3)) return true;
    for (size_t i = 0; i < ND_ARRAY_LEN(switches); i++)
        if (!strcmp(switches[i], name)) return true;
    return false;
}

typedef struct word {
    size_t from, to;
    int line;
} word;

static bool name_char(char c)
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

static size_t skip_group(const char *t, size_t len, size_t p, int *line)
{
    return skip_group_at(t, len, p, line, 0);
}

/* The next shell word in [*p, end): blanks, newlines, `\` continuations and (at the top
 * level) ; | & ( ) < > separate words; quotes, $(...), ${...} and `...` belong to the word
 * they stand in; '#' at a word's start comments out the rest of the line. Inside a quoted
 * value (inner) only blanks separate: its words are what bash splits $VALUE into. */
static bool next_word(const char *t, size_t end, size_t *p, int *line, bool inner, word *w)
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
            *p = skip_group(t, end, *p, line);
        } else if (c == '$' && *p + 1 < end && (t[*p + 1] == '(' || t[*p + 1] == '{')) {
            *p = skip_group(t, end, *p, line);
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

typedef struct outbuf {
    char *s;
    size_t used, size;
    bool defaulted; /* a default stood in for a variable the script does not set */
    bool full;      /* a character did not fit */
} outbuf;

/* Its value (NULL when the script does not set it), noting in o a value that took a default;
 * *unknown when the script sets it from what nd does not read. */
static const char *var_value(const args_doc *d, const char *name, size_t n, outbuf *o, bool *unknown)
{
    const var *v = var_find(d, name, n);
    if (v && v->defaulted && o) o->defaulted = true;
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
        while (a->i < a->n && name_char(s[a->i])) {
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
    while (a->i < a->n && name_char(s[a->i])) a->i++;
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
    while (k < n && name_char(body[k])) k++;
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
    bool ok = depth <= MAX_DEPTH, dq = false;
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
            size_t close = skip_group(s, n, i, &line); /* past the outer ')' */
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
            size_t close = skip_group(s, n, i, &line);
            if (close > n || s[close - 1] != '}') {
                ok = false;
                break;
            }
            ok = expand_brace(d, s + i + 2, close - 1 - (i + 2), depth, o);
            i = close - 1;
        } else if (c == '$' && i + 1 < n && (name_char(s[i + 1]) || strchr("@*#?!$-", s[i + 1]))) {
            size_t end = i + 1;
            if (s[end] >= '0' && s[end] <= '9') {
                ok = false; /* the script's arguments */
                break;
            }
            while (end < n && name_char(s[end])) end++;
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

static bool expand(const args_doc *d, const char *s, size_t n, char *out, size_t size, bool *defaulted,
                   bool *full)
{
    outbuf o = {out, 0, size, false, false};
    out[0] = '\0';
    bool ok = expand_into(d, s, n, 0, &o);
    if (defaulted) *defaulted = o.defaulted;
    if (full) *full = o.full;
    return ok && !o.full;
}

static int scan_range(args_doc *d, const char *path, size_t from, size_t to, int line, bool inner,
                      nd_error *err);

/* NAME=value (export NAME=value): a variable, as bash expands its value; a quoted value's
 * words are scanned for flags too (GPT_ARGS="--num-layers 32 ..."). */
static int read_assignment(args_doc *d, const word *w, const char *path, nd_error *err)
{
    const char *t = d->text;
    size_t i = w->from;
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) return ND_OK;
    while (i < w->to && name_char(t[i])) i++;
    if (i >= w->to || t[i] != '=' || i - w->from >= sizeof d->vars[0].name) return ND_OK;
    if (d->n_vars == d->cap_vars) {
        int cap = d->cap_vars ? 2 * d->cap_vars : 64;
        var *grown = realloc(d->vars, (size_t)cap * sizeof *grown);
        if (!grown) return nd_error_set(err, ND_ENOMEM, "out of memory");
        d->vars = grown;
        d->cap_vars = cap;
    }
    size_t vfrom = i + 1, vto = w->to;
    bool quoted = vto - vfrom >= 2 && (t[vfrom] == '"' || t[vfrom] == '\'') && t[vto - 1] == t[vfrom] &&
                  skip_group(t, vto, vfrom, &(int){0}) == vto;
    size_t size = 2 * (vto - vfrom) + 512;
    char *value = malloc(size);
    if (!value) return nd_error_set(err, ND_ENOMEM, "out of memory");
    bool defaulted;
    bool known = expand(d, t + vfrom, vto - vfrom, value, size, &defaulted, NULL);
    var *v = &d->vars[d->n_vars];
    v->defaulted = defaulted;
    v->unknown = !known;
    snprintf(v->name, sizeof v->name, "%.*s", (int)(i - w->from), t + w->from);
    v->value = value;
    v->vfrom = quoted ? vfrom + 1 : vfrom;
    v->vto = quoted ? vto - 1 : vto;
    v->plain = v->vto > v->vfrom;
    for (size_t k = v->vfrom; k < v->vto; k++)
        if (!name_char(t[k]) && !strchr(".,:/-+", t[k])) v->plain = false;
    int line = w->line;
    int rc = quoted ? scan_range(d, path, vfrom + 1, vto - 1, line, true, err) : ND_OK;
    d->n_vars++; /* after its own words: bash expands them before it sets the variable */
    return rc;
}

static int scan_range(args_doc *d, const char *path, size_t from, size_t to, int line, bool inner,
                      nd_error *err)
{
    size_t p = from;
    word w, v;
    bool pending = false;
    while (pending || next_word(d->text, to, &p, &line, inner, &w)) {
        pending = false;
        const char *t = d->text + w.from;
        size_t n = w.to - w.from;
        /* a quoted word holding flags ("--fp8-format hybrid" in an array): ${ARGS[@]} unquoted
         * splits it into its words, so they are read as the command line's */
        if (!inner && n >= 4 && (t[0] == '"' || t[0] == '\'') && t[n - 1] == t[0] &&
            !strncmp(t + 1, "--", 2) && skip_group(d->text, w.to, w.from, &(int){0}) == w.to) {
            int rc = scan_range(d, path, w.from + 1, w.to - 1, w.line, true, err);
            if (rc) return rc;
            continue;
        }
        if (n < 3 || strncmp(t, "--", 2)) {
            int rc = inner ? ND_OK : read_assignment(d, &w, path, err);
            if (rc) return rc;
            continue;
        }
        if (d->count >= MAX_ARGS)
            return nd_error_set(err, ND_EINPUT, "%s: more than %d arguments", path, MAX_ARGS);
        arg *a = &d->items[d->count++];
        memset(a, 0, sizeof *a);
        const char *eq = memchr(t, '=', n);
        size_t name_len = (eq ? (size_t)(eq - t) : n) - 2;
        snprintf(a->name, sizeof a->name, "%.*s", (int)name_len, t + 2);
        for (char *c = a->name; *c; c++) *c = *c == '_' ? '-' : *c;
        a->from = w.from;
        a->to = w.to;
        a->line = w.line;
        a->inner = inner;
        a->vfrom = a->vto = w.to;
        if (eq) {
            a->vfrom = (size_t)(eq + 1 - d->text);
            a->has_value = true;
        } else if (!is_switch(a->name) && next_word(d->text, to, &p, &line, inner, &v)) {
            if (d->text[v.from] == '-' && v.to - v.from > 1 && d->text[v.from + 1] == '-') {
                w = v;
                pending = true; /* the next flag */
            } else {
                a->vfrom = v.from;
                a->vto = v.to;
                a->has_value = true;
            }
        }
        if (a->has_value && !expand(d, d->text + a->vfrom, a->vto - a->vfrom, a->value, sizeof a->value,
                                    &a->defaulted, &a->too_long))
            a->unresolved = true; /* an error only where nd needs the value */
    }
    return ND_OK;
}

static int scan(args_doc *d, const char *path, nd_error *err)
{
    return scan_range(d, path, 0, d->len, 1, false, err);
}

static void unload(args_doc *d)
{
    for (int i = 0; i < d->n_vars; i++) free(d->vars[i].value);
    free(d->vars);
    free(d->text);
    free(d);
}

static int load(args_doc *d, const char *path, nd_error *err)
{
    memset(d, 0, sizeof *d);
    int rc = nd_read_file(path, 4u << 20, &d->text, &d->len, err);
    if (!rc) rc = scan(d, path, err);
    return rc;
}

/* The last occurrence of a flag (a later one wins, as argparse reads them). */
static const arg *find(const args_doc *d, const char *name)
{
    for (int i = d->count - 1; i >= 0; i--)
        if (!strcmp(d->items[i].name, name)) return &d->items[i];
    return NULL;
}

static const char *val(args_doc *d, const char *name, int *line)
{
    const arg *a = find(d, name);
    if (line) *line = a ? a->line : 0;
    if (a && a->unresolved) {
        if (!d->needed_unresolved) d->needed_unresolved = a;
        return NULL;
    }
    return a && a->has_value ? a->value : NULL;
}

static bool on(const args_doc *d, const char *name)
{
    return find(d, name) != NULL;
}

typedef struct rd {
    fw_reader *r;
    args_doc *d;
} rd;

/* --flag's value, when given, as nd's key through set (fw_model or fw_train). */
static int flag_arg(rd *x, const char *flag, const char *key,
                    int (*set)(fw_reader *, const char *, const char *, int, const char *))
{
    int line;
    const char *v = val(x->d, flag, &line);
    if (!v) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return set(x->r, key, v, line, theirs);
}

static int model_arg(rd *x, const char *flag, const char *hf)
{
    return flag_arg(x, flag, hf, fw_model);
}
static int train_arg(rd *x, const char *flag, const char *key)
{
    return flag_arg(x, flag, key, fw_train);
}

static int switch_arg(rd *x, const char *flag, const char *key, const char *value)
{
    const arg *a = find(x->d, flag);
    if (!a) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return fw_train(x->r, key, value, a->line, theirs);
}

/* The vocabulary: --vocab-size, else a default named in a note (the tokenizer holds it). */
static int read_vocab(rd *x)
{
    if (val(x->d, "vocab-size", NULL) || val(x->d, "padded-vocab-size", NULL)) {
        int rc = model_arg(x, "vocab-size", "vocab_size");
        return rc ? rc : model_arg(x, "padded-vocab-size", "vocab_size");
    }
    /* the tokenizer only picks the default, so one nd cannot read is no error */
    const arg *ta = find(x->d, "tokenizer-type"), *ma = find(x->d, "tokenizer-model");
    const char *tok = ta && ta->has_value && !ta->unresolved ? ta->value : NULL;
    const char *model = ma && ma->has_value && !ma->unresolved ? ma->value : NULL;
    const char *vocab = "32000";
    if (tok && strstr(tok, "GPT2")) vocab = "50257";
    if (model && (strstr(model, "llama3") || strstr(model, "Llama-3") || strstr(model, "llama-3")))
        vocab = "128256";
    if (model && (strstr(model, "qwen") || strstr(model, "Qwen"))) vocab = "151936";
    int rc = fw_default(x->r,
                        "no --vocab-size (the tokenizer holds it): a vocabulary of %s, for --tokenizer-type "
                        "%s --tokenizer-model %s",
                        vocab, tok ? tok : "-", model ? model : "-");
    return rc ? rc : fw_model(x->r, "vocab_size", vocab, 0, "--vocab-size");
}

/* --noop-layers 61,62,63 (MindSpeed): layers of --num-layers that are identities. The model
 * has the others; where they stand shapes the pipeline split (read_noop_split). */
static int read_noop_layers(rd *x)
{
    int line;
    const char *v = val(x->d, "noop-layers", &line);
    nd_model *m = &x->r->run->model;
    if (!v) return ND_OK;
    int64_t seen = 0;
    const char *p = v;
    for (;;) {
        char *end;
        long long k = strtoll(p, &end, 10);
        if (end == p || k < 0 || k >= m->layers || (*end && *end != ','))
            return nd_error_set(
                x->r->err, ND_EINPUT,
                "%s:%d: --noop-layers: '%s' is not a list of layer numbers below --num-layers "
                "%lld",
                x->r->path, line, v, (long long)m->layers);
        seen++;
        if (!*end) break;
        p = end + 1;
    }
    if (seen >= m->layers)
        return nd_error_set(x->r->err, ND_EINPUT, "%s:%d: --noop-layers: every layer is a no-op", x->r->path,
                            line);
    char n[32];
    snprintf(n, sizeof n, "%lld", (long long)(m->layers - seen));
    return fw_model(x->r, "num_hidden_layers", n, line, "--noop-layers");
}

/* Whether layer i of --num-layers is in --noop-layers. */
static bool is_noop(const char *list, int64_t i)
{
    for (const char *p = list; p && *p;) {
        char *end;
        if (strtoll(p, &end, 10) == i) return true;
        p = *end == ',' ? end + 1 : end + (*end != '\0');
    }
    return false;
}

/* --moe-layer-freq: an int k (every k-th layer MoE; MindSpeed's -1: every layer), or a
 * Python list expression of 0/1 per layer ("([0]*3+[1]*58)", "[0,1]*16"): dense-first
 * layers and every k-th layer are what nd represents. */
static int read_layer_freq(rd *x)
{
    int line;
    const char *v = val(x->d, "moe-layer-freq", &line);
    fw_reader *r = x->r;
    if (!v) return ND_OK;
    int64_t k;
    if (!nd_parse_int64(v, -1, 1 << 20, &k)) {
        if (k == 0)
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: --moe-layer-freq: 0 is not a frequency", r->path,
                                line);
        return fw_model(r, "moe_layer_freq", k < 0 ? "1" : v, line, "--moe-layer-freq");
    }
    /* the list: terms [a,b,...]*n or [a,...] joined by '+', in optional parentheses */
    int64_t layers = r->run->model.layers, n = 0;
    size_t cap = 1 << 16;
    unsigned char *moe = calloc(cap, 1);
    if (!moe) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    const char *p = v;
    bool ok = true;
    while (*p == ' ' || *p == '(') p++;
    while (ok && *p == '[') {
        const char *close = strchr(p, ']');
        if (!close) {
            ok = false;
            break;
        }
        unsigned char item[256];
        int items = 0;
        for (const char *q = p + 1; ok && q < close;) {
            while (*q == ' ' || *q == ',') q++;
            if (q >= close) break;
            if ((*q != '0' && *q != '1') || items == 256)
                ok = false;
            else
                item[items++] = (unsigned char)(*q++ - '0');
        }
        long times = 1;
        p = close + 1;
        while (*p == ' ') p++;
        if (*p == '*') {
            char *end;
            times = strtol(p + 1, &end, 10);
            ok = ok && end != p + 1 && times >= 0;
            p = end;
        }
        for (long t = 0; ok && t < times; t++)
            for (int i = 0; ok && i < items; i++) {
                if ((size_t)n >= cap)
                    ok = false;
                else
                    moe[n++] = item[i];
            }
        while (*p == ' ') p++;
        if (*p == '+') p++;
        while (*p == ' ') p++;
    }
    while (*p == ' ' || *p == ')') p++;
    ok = ok && !*p && n > 0;
    int rc = ND_OK;
    /* the layers counted before --noop-layers (Megatron's list has one entry a layer) */
    const char *total = val(x->d, "num-layers", NULL);
    int64_t all = layers;
    if (total) nd_parse_int64(total, 1, 1 << 24, &all);
    if (!ok)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --moe-layer-freq: '%s' is neither an int nor a list such as "
                          "([0]*3+[1]*58)",
                          r->path, line, v);
    else if (n != all)
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: --moe-layer-freq: %lld entries for %lld layers", r->path,
                          line, (long long)n, (long long)all);
    int64_t dense = 0;
    while (!rc && dense < n && !moe[dense]) dense++;
    bool tail = true; /* dense first, then every layer MoE */
    for (int64_t i = dense; i < n; i++) tail &= moe[i] == 1;
    int64_t step = 0; /* else every step-th layer, from layer 0 */
    for (int64_t f = 2; !rc && !tail && f <= n && !step; f++) {
        bool fits = true;
        for (int64_t i = 0; i < n && fits; i++) fits = moe[i] == (i % f == 0);
        if (fits) step = f;
    }
    char num[32];
    if (!rc && tail) {
        snprintf(num, sizeof num, "%lld", (long long)dense);
        rc = fw_model(r, "first_k_dense_replace", num, line, "--moe-layer-freq");
    } else if (!rc && step) {
        snprintf(num, sizeof num, "%lld", (long long)step);
        rc = fw_model(r, "moe_layer_freq", num, line, "--moe-layer-freq");
    } else if (!rc) {
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --moe-layer-freq: '%s': nd represents dense first layers then MoE, or "
                          "every k-th layer MoE, not this pattern",
                          r->path, line, v);
    }
    free(moe);
    return rc;
}

static int read_model(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    char *stem = nd_path_stem(r->path);
    nd_text_copy(r->run->model.name, stem ? stem : "megatron", sizeof r->run->model.name);
    free(stem);
    bool mla = on(d, "multi-latent-attention") || on(d, "multi-head-latent-attention");
    int rc = fw_model_family(r, mla ? "deepseek_v3" : "custom", 0);
    static const struct {
        const char *flag, *hf;
    } keys[] = {
        {"num-layers", "num_hidden_layers"},
        {"hidden-size", "hidden_size"},
        {"ffn-hidden-size", "intermediate_size"},
        {"num-attention-heads", "num_attention_heads"},
        {"kv-channels", "head_dim"},
        {"max-position-embeddings", "max_position_embeddings"},
        {"num-experts", "num_experts"},
        {"moe-router-topk", "num_experts_per_tok"},
        {"moe-ffn-hidden-size", "moe_intermediate_size"},
        {"moe-intermediate-size", "moe_intermediate_size"}, /* MindSpeed's */
        {"first-k-dense-replace", "first_k_dense_replace"}, /* MindSpeed's */
        {"n-shared-experts", "n_shared_experts"},           /* MindSpeed's */
        {"qk-nope-head-dim", "qk_nope_head_dim"},           /* MindSpeed's */
        {"qk-rope-head-dim", "qk_rope_head_dim"},           /* MindSpeed's */
        {"moe-expert-capacity-factor", "capacity_factor"},
        {"q-lora-rank", "q_lora_rank"},
        {"kv-lora-rank", "kv_lora_rank"},
        {"qk-head-dim", "qk_nope_head_dim"},
        {"qk-pos-emb-head-dim", "qk_rope_head_dim"},
        {"v-head-dim", "v_head_dim"},
        {"mtp-num-layers", "mtp_num_layers"},
    };
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(keys); i++) rc = model_arg(x, keys[i].flag, keys[i].hf);
    if (!rc && on(d, "group-query-attention")) rc = model_arg(x, "num-query-groups", "num_key_value_heads");
    nd_model *m = &r->run->model;
    if (!rc && (val(d, "ffn-hidden-size", NULL) == NULL) && m->hidden) /* Megatron's default */
        m->ffn = on(d, "swiglu") ? 4 * m->hidden * 2 / 3 / 64 * 64 : 4 * m->hidden;
    /* Megatron: the experts are --ffn-hidden-size wide unless --moe-ffn-hidden-size says */
    if (!rc && m->experts && !val(d, "moe-ffn-hidden-size", NULL) && !val(d, "moe-intermediate-size", NULL))
        m->moe_ffn = m->ffn;
    if (!rc) rc = read_noop_layers(x);
    if (!rc) rc = read_vocab(x);
    /* Megatron's defaults unless a flag says otherwise: LayerNorm, GELU, biases, tied
     * embeddings, learned absolute positions */
    int line;
    const char *norm = val(d, "normalization", &line);
    if (!rc)
        rc = fw_model(r, "norm", norm && strstr(norm, "RMS") ? "rmsnorm" : "layernorm", line,
                      "--normalization");
    if (!rc) rc = fw_model(r, "hidden_act", on(d, "swiglu") ? "swiglu" : "gelu", 0, "--swiglu");
    if (!rc)
        rc = fw_model(r, "tie_word_embeddings",
                      on(d, "untie-embeddings-and-output-weights") ? "false" : "true", 0,
                      "--untie-embeddings-and-output-weights");
    bool bias = !on(d, "disable-bias-linear");
    m->qkv_bias = bias || on(d, "add-qkv-bias");
    m->o_bias = m->mlp_bias = bias;
    const char *pos = val(d, "position-embedding-type", NULL);
    bool learned = pos ? !strcmp(pos, "learned_absolute") : !on(d, "use-rotary-position-embeddings");
    if (!rc && learned) {
        const char *rows = val(d, "max-position-embeddings", &line);
        if (!rows) rows = val(d, "seq-length", &line);
        if (rows) rc = fw_model(r, "position_embeddings", rows, line, "--max-position-embeddings");
    }
    if (!rc && on(d, "qk-layernorm")) rc = fw_model(r, "qk_norm", "true", 0, "--qk-layernorm");
    if (!rc && on(d, "moe-router-enable-expert-bias"))
        rc = fw_model(r, "router_bias", "true", 0, "--moe-router-enable-expert-bias");
    const char *shared = val(d, "moe-shared-expert-intermediate-size", &line);
    if (!rc && shared) {
        rc = fw_model(r, "n_shared_experts", "1", line, "--moe-shared-expert-intermediate-size");
        if (!rc)
            rc = fw_model(r, "shared_expert_intermediate_size", shared, line,
                          "--moe-shared-expert-intermediate-size");
    }
    if (!rc) rc = read_layer_freq(x);
    return rc;
}

/* Which Megatron the arguments are for (train.framework). */
static const char *flavour(const args_doc *d)
{
    if (on(d, "deepspeed") || on(d, "deepspeed-config") || on(d, "deepspeed_config") || on(d, "zero-stage"))
        return "megatron-deepspeed";
    if (on(d, "use-legacy-models") || on(d, "checkpoint-activations") || on(d, "DDP-impl") ||
        on(d, "checkpoint-num-layers"))
        return "megatron-legacy";
    if (strstr(d->text, "mindspeed") || strstr(d->text, "MindSpeed") || on(d, "use-fused-rmsnorm") ||
        on(d, "use-fused-swiglu") || on(d, "use-fused-rotary-pos-emb"))
        return "mindspeed";
    return "megatron";
}

static int read_training(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    int rc = fw_train(r, "framework", flavour(d), 0, "");
    const char *prec = on(d, "bf16") ? "bf16" : on(d, "fp16") ? "fp16" : "fp32";
    if (!rc) rc = fw_train(r, "precision", prec, 0, "--bf16");
    /* Megatron keeps and reduces the gradients in bf16 rather than an fp32 main_grad buffer */
    if (!rc) rc = switch_arg(x, "grad-reduce-in-bf16", "grad_precision", "bf16");
    /* MindSpeed's --swap-optimizer: optimizer states in host memory, swapped in for the step */
    if (!rc) rc = switch_arg(x, "swap-optimizer", "swap_optimizer", "true");
    if (!rc && val(d, "seq-length", NULL))
        rc = train_arg(x, "seq-length", "seq_len");
    else if (!rc)
        rc = fw_default(r, "no --seq-length: the sequence is %lld tokens", (long long)r->run->train.seq_len);
    if (!rc) rc = train_arg(x, "global-batch-size", "global_batch");
    if (!rc) rc = train_arg(x, "hidden-dropout", "dropout");
    if (!rc && !find(d, "hidden-dropout"))
        rc = fw_train(r, "dropout", "0.1", 0, "--hidden-dropout"); /* Megatron's */
    if (!rc) rc = train_arg(x, "make-vocab-size-divisible-by", "vocab_divisible_by");
    if (!rc) rc = switch_arg(x, "overlap-grad-reduce", "overlap_grad_reduce", "true");
    if (!rc) rc = switch_arg(x, "overlap-param-gather", "overlap_param_gather", "true");
    if (!rc) rc = switch_arg(x, "tp-comm-overlap", "tp_comm_overlap", "true");
    if (!rc) rc = switch_arg(x, "moe-grouped-gemm", "moe_grouped_gemm", "true");
    if (!rc) rc = switch_arg(x, "cross-entropy-loss-fusion", "fused_cross_entropy", "true");
    if (!rc) rc = switch_arg(x, "no-gradient-accumulation-fusion", "grad_accumulation_fusion", "false");
    const char *v;
    int line;
    if (!rc && (v = val(d, "fp8-format", &line))) rc = fw_train(r, "fp8", "true", line, "--fp8-format");
    if (!rc && (v = val(d, "fp8-recipe", &line)))
        rc = fw_train(r, "fp8_recipe",
                      !strcmp(v, "delayed")                            ? "delayed"
                      : !strcmp(v, "blockwise") || !strcmp(v, "mxfp8") ? "blockwise"
                                                                       : "current",
                      line, "--fp8-recipe");
    if (!rc && (v = val(d, "cp-comm-type", &line)))
        rc = fw_train(r, "cp_comm", strstr(v, "a2a") ? "a2a" : "ring", line, "--cp-comm-type");
    if (!rc && (v = val(d, "clip-grad", &line))) {
        double clip = 1;
        nd_parse_double(v, &clip);
        rc = fw_train(r, "grad_clip", clip > 0 ? "true" : "false", line, "--clip-grad");
    }
    if (!rc && (v = val(d, "optimizer", &line)))
        rc = fw_train(r, "optimizer", !strcmp(v, "sgd") ? "sgd" : "adamw", line, "--optimizer");
    /* recompute: --recompute-granularity full|selective, --recompute-activations (selective),
     * legacy --checkpoint-activations (full); block recomputes N layers a stage */
    const char *mode = "off";
    if ((v = val(d, "recompute-granularity", &line)))
        mode = v;
    else if (on(d, "recompute-activations"))
        mode = "selective";
    else if (on(d, "checkpoint-activations"))
        mode = "full";
    if (!rc) rc = fw_train(r, "recompute", mode, line, "--recompute-granularity");
    const char *method = val(d, "recompute-method", NULL), *num = val(d, "recompute-num-layers", NULL);
    int64_t n;
    if (!rc && !strcmp(mode, "full") && method && !strcmp(method, "block") && num &&
        !nd_parse_int64(num, 0, 1 << 24, &n)) {
        r->run->layout.has_recompute = true;
        for (int i = 0; i < ND_RUN_MAX_STAGES; i++) r->run->layout.recompute[i] = n;
    }
    return rc;
}

/* The world size of the script's launcher (torchrun --nproc_per_node x --nnodes), 0 if not there. */
static int64_t world_size(args_doc *d)
{
    /* a count nd cannot read (GPUS=$(nvidia-smi ...)) is no world size: -d gives it */
    const arg *pa = find(d, "nproc-per-node"), *na = find(d, "nnodes");
    const char *per = pa && pa->has_value && !pa->unresolved ? pa->value : NULL;
    const char *nodes = na && na->has_value && !na->unresolved ? na->value : NULL;
    if (na && na->unresolved) return 0;
    int64_t a = 0, b = 1;
    if (!per || nd_parse_int64(per, 1, 1 << 20, &a)) return 0;
    if (nodes && nd_parse_int64(nodes, 1, 1 << 20, &b)) return 0;
    return a * b;
}

/* The layout text of per-virtual-stage decoder layer counts (Megatron-core's grammar), the
 * MTP layers beside the loss. */
static void layout_text(const int64_t *count, int64_t stages, int64_t mtp, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "E");
    for (int64_t v = 0; v < stages && used < size; v++) {
        if (v) used += (size_t)snprintf(buf + used, size - used, "|");
        if (count[v] && used < size)
            used += (size_t)snprintf(buf + used, size - used, "t*%lld", (long long)count[v]);
    }
    for (int64_t i = 0; i < mtp && used < size; i++) used += (size_t)snprintf(buf + used, size - used, "m");
    if (used < size) snprintf(buf + used, size - used, "L");
}

/* The layers per stage the script states, as nd's explicit layout (docs/run-file.md §train):
 * --pipeline-model-parallel-layout as given; MindSpeed's --num-layer-list (layers per PP
 * stage); MindSpeed's --noop-layers, which empty their places in Megatron's even split of
 * --num-layers over PP x VPP chunks. */
static int read_split(rd *x, int64_t total)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    nd_strategy *s = &r->run->strategy;
    nd_model *m = &r->run->model;
    int line;
    const char *given = val(d, "pipeline-model-parallel-layout", &line);
    if (given) return fw_train(r, "pipeline_layout", given, line, "--pipeline-model-parallel-layout");
    const char *list = val(d, "num-layer-list", &line), *noop = val(d, "noop-layers", NULL);
    int64_t count[ND_MAX_VIRTUAL_STAGES], stages = 0, sum = 0;
    char text[4096];
    if (list) {
        if (s->vpp > 1 || noop)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layer-list with %s: nd does not represent the layers of "
                                "each chunk",
                                r->path, line, noop ? "--noop-layers" : "virtual pipeline stages");
        for (const char *p = list; *p && stages < ND_MAX_VIRTUAL_STAGES;) {
            char *end;
            long long n = strtoll(p, &end, 10);
            if (end == p || n < 0 || (*end && *end != ',')) {
                stages = -1;
                break;
            }
            count[stages++] = n;
            sum += n;
            p = *end ? end + 1 : end;
        }
        if (stages != s->pp || sum != m->layers)
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layer-list %s: not PP=%lld counts that sum to the %lld layers",
                                r->path, line, list, (long long)s->pp, (long long)m->layers);
        layout_text(count, stages, m->mtp_layers, text, sizeof text);
        return fw_train(r, "pipeline_layout", text, line, "--num-layer-list");
    }
    if (!noop || total == m->layers) return ND_OK;
    stages = s->pp * s->vpp;
    if (stages > ND_MAX_VIRTUAL_STAGES || total % stages) {
        fw_note(r->run,
                "%s: --noop-layers %s: %lld layers priced, split as nd splits them (%lld layers do not "
                "split evenly over PP x VPP = %lld chunks, as Megatron splits them)",
                r->path, noop, (long long)m->layers, (long long)total, (long long)stages);
        return ND_OK;
    }
    if (stages == 1) return ND_OK;
    /* chunk b of Megatron's even split is nd's virtual stage b: v = chunk x PP + rank, and
     * along DualPipeV's V, rank r holding b = r and 2 PP - 1 - r (nd_stage_held_chunks) */
    for (int64_t b = 0; b < stages; b++) {
        count[b] = 0;
        for (int64_t i = b * (total / stages); i < (b + 1) * (total / stages); i++)
            count[b] += !is_noop(noop, i);
    }
    layout_text(count, stages, m->mtp_layers, text, sizeof text);
    return fw_train(r, "pipeline_layout", text, 0, "--noop-layers");
}

static int read_strategy(rd *x)
{
    fw_reader *r = x->r;
    args_doc *d = x->d;
    static const struct {
        const char *flag, *dim;
    } degrees[] = {
        {"tensor-model-parallel-size", "MP"},
        {"pipeline-model-parallel-size", "PP"},
        {"context-parallel-size", "CP"},
        {"expert-model-parallel-size", "EP"},
        {"expert-tensor-parallel-size", "ETP"},
        {"micro-batch-size", "MBS"},
        {"num-virtual-stages-per-pipeline-rank", "VPP"},
        {"decoder-first-pipeline-num-layers", "FIRST"},
        {"decoder-last-pipeline-num-layers", "LAST"},
    };
    int rc = ND_OK, line;
    const char *v;
    r->run->has_strategy = true;
    for (size_t i = 0; !rc && i < ND_ARRAY_LEN(degrees); i++) {
        v = val(d, degrees[i].flag, &line);
        char theirs[80];
        snprintf(theirs, sizeof theirs, "--%s", degrees[i].flag);
        if (v) rc = fw_strategy(r, degrees[i].dim, v, line, theirs);
    }
    nd_strategy *s = &r->run->strategy;
    if (!rc && (v = val(d, "virtual-pipeline-model-parallel-size", &line)))
        rc = fw_strategy(r, "VPP", v, line, "--virtual-pipeline-model-parallel-size");
    if (!rc && (v = val(d, "schedules-method", &line))) { /* MindSpeed's DualPipeV: two chunks a rank */
        if (strcmp(v, "dualpipev"))
            return nd_error_set(r->err, ND_EINPUT, "%s:%d: --schedules-method: '%s' is not dualpipev",
                                r->path, line, v);
        rc = fw_train(r, "schedule", "dualpipev", line, "--schedules-method");
        if (!rc) rc = fw_degree(r, "VPP", 2, line, "--schedules-method");
    }
    /* Megatron counts --num-layers (with MindSpeed's no-op layers) in the VPP split */
    int64_t total = r->run->model.layers, k;
    const char *all = val(d, "num-layers", NULL);
    if (all) nd_parse_int64(all, 1, 1 << 24, &total);
    const char *per_chunk = val(d, "num-layers-per-virtual-pipeline-stage", &line);
    if (!rc && per_chunk) {
        if (nd_parse_int64(per_chunk, 1, 1 << 20, &k) || total % (s->pp * k))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s:%d: --num-layers-per-virtual-pipeline-stage %s: %lld layers do not split "
                                "into PP=%lld stages of chunks of that many",
                                r->path, line, per_chunk, (long long)total, (long long)s->pp);
        rc = fw_degree(r, "VPP", total / (s->pp * k), line, "--num-layers-per-virtual-pipeline-stage");
    }
    if (!rc && s->vpp > 1 && r->run->train.schedule != ND_SCHEDULE_DUALPIPE_V)
        rc = fw_train(r, "schedule", "interleaved", 0, "");
    if (!rc)
        rc = switch_arg(x, "account-for-embedding-in-pipeline-split",
                        "account_for_embedding_in_pipeline_split", "true");
    if (!rc)
        rc =
            switch_arg(x, "account-for-loss-in-pipeline-split", "account_for_loss_in_pipeline_split", "true");
    if (!rc) rc = read_split(x, total);
    /* MindSpeed's --moe-tp-extend-ep: the experts spread over the TP ranks too, unsharded */
    if (!rc && on(d, "moe-tp-extend-ep") && r->run->model.experts && s->tp > 1) {
        line = find(d, "moe-tp-extend-ep")->line;
        rc = fw_degree(r, "EP", s->ep * s->tp, line, "--moe-tp-extend-ep");
        if (!rc) rc = fw_degree(r, "ETP", 1, line, "--moe-tp-extend-ep");
    }
    if (!rc && on(d, "sequence-parallel"))
        rc = fw_strategy(r, "SP", "1", find(d, "sequence-parallel")->line, "--sequence-parallel");
    /* the distributed optimizer shards over the DP x CP ranks; torch FSDP2 shards everything */
    bool fsdp = on(d, "use-torch-fsdp2") || on(d, "use-megatron-fsdp");
    if (!rc && (on(d, "use-distributed-optimizer") || fsdp)) {
        r->run->strategy.zero = fsdp ? 3 : 1;
        r->run->op_spans_dp = true; /* all of DP x CP, once DP is known */
        const char *inst = val(d, "num-distributed-optimizer-instances", NULL);
        if (inst && (nd_parse_int64(inst, 1, 1 << 20, &r->run->op_instances)))
            return nd_error_set(r->err, ND_EINPUT,
                                "%s: --num-distributed-optimizer-instances: '%s' is not a whole "
                                "number",
                                r->path, inst);
    }
    /* the launcher's world size: the device count. Stated by the script and dividing TP x PP x
     * CP, it states DP, as the script runs (a search at another -d still searches); taken from an
     * environment default (${SLURM_NNODES:-"1"}) or not dividing, it is a count -d overrides and
     * DP follows from the count (nd_session), as it does without a launcher */
    int64_t world = world_size(d);
    const arg *per = find(d, "nproc-per-node"), *nodes = find(d, "nnodes");
    bool guessed = (per && per->defaulted) || (nodes && nodes->defaulted);
    int64_t model = s->tp * s->pp * s->cp;
    r->run->derive_dp = !world || guessed || model <= 0 || world % model != 0;
    if (!rc && world) r->run->devices = world;
    if (!rc && !r->run->derive_dp) s->dp = world / model;
    return rc;
}

static int fw_megatron_read(fw_reader *r)
{
    args_doc *d = malloc(sizeof *d);
    if (!d) return nd_error_set(r->err, ND_ENOMEM, "out of memory");
    int rc = load(d, r->path, r->err);
    rd x = {r, d};
    if (!rc && !find(d, "num-layers"))
        rc = nd_error_set(r->err, ND_EINPUT, "%s: no --num-layers: not Megatron arguments", r->path);
    if (!rc) rc = read_model(&x);
    if (!rc) rc = read_training(&x);
    if (!rc) rc = read_strategy(&x);
    const arg *u = d->needed_unresolved;
    if (!rc && u && u->too_long)
        rc = nd_error_set(r->err, ND_EINPUT, "%s:%d: --%s: its value is longer than the %zu bytes nd reads",
                          r->path, u->line, u->name, sizeof u->value - 1);
    else if (!rc && u)
        rc = nd_error_set(r->err, ND_EINPUT,
                          "%s:%d: --%s: '%.*s' uses a shell value nd does not read (a variable the script "
                          "does not set, a command's output or the script's arguments)",
                          r->path, u->line, u->name, (int)(u->vto - u->vfrom), d->text + u->vfrom);
    if (!rc) {
        r->run->derive_mb = true; /* Megatron: global batch / (DP x micro-batch size) */
        if (!r->run->derive_dp) rc = nd_config_derive(r->run, r->err);
        if (!rc) rc = fw_finish(r);
    }
    unload(d);
    return rc;
}

/* ---- writing back ---------------------------------------------------------------------- */

#define MAX_EDITS 64

typedef struct edit {
    size_t from, to;
    char with[4800];
} edit;

typedef struct plan {
    const args_doc *d;
    edit *e;
    int n;
} plan;

static int cmp_edit(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return (x->from < y->from) - (x->from > y->from); /* last first */
}

static edit *add_edit(plan *p, size_t from, size_t to)
{
    for (int i = 0; i < p->n; i++) /* one edit a place: the later one wins */
        if (p->e[i].from == from && p->e[i].to == to) return &p->e[i];
    if (p->n >= MAX_EDITS) return NULL;
    edit *e = &p->e[p->n++];
    e->from = from;
    e->to = to;
    e->with[0] = '\0';
    return e;
}

/* Whether only blanks stand between the start of the line and `at`; *line_start gets it. */
static bool starts_line(const args_doc *d, size_t at, size_t *line_start)
{
    size_t i = at;
    while (i > 0 && (d->text[i - 1] == ' ' || d->text[i - 1] == '\t')) i--;
    *line_start = i;
    return i == 0 || d->text[i - 1] == '\n';
}

/* The variable a value word names alone ($TP, ${TP}, "$TP", "${TP}"): its one plain
 * assignment, when the script sets it once and uses it nowhere else; else NULL (the value
 * word itself is then replaced). */
static const var *sole_variable(const args_doc *d, const arg *a)
{
    const char *t = d->text + a->vfrom;
    size_t n = a->vto - a->vfrom;
    if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
        t++;
        n -= 2;
    }
    if (n < 2 || t[0] != '$') return NULL;
    size_t from = 1, to = n;
    if (t[1] == '{') {
        if (t[n - 1] != '}') return NULL;
        from = 2;
        to = n - 1;
    }
    for (size_t i = from; i < to; i++)
        if (!name_char(t[i])) return NULL;
    const var *found = NULL;
    for (int i = 0; i < d->n_vars; i++)
        if (strlen(d->vars[i].name) == to - from && !strncmp(d->vars[i].name, t + from, to - from)) {
            if (found) return NULL; /* set twice */
            found = &d->vars[i];
        }
    if (!found || !found->plain) return NULL;
    int uses = 0; /* the name as a whole word anywhere: its assignment and this use only */
    size_t len = to - from;
    for (const char *q = d->text; (q = strstr(q, found->name)) != NULL; q += len) {
        bool left = q == d->text || !name_char(q[-1]), right = !name_char(q[len]);
        uses += left && right;
    }
    return uses == 2 ? found : NULL;
}

/* A new flag beside `near`: on a line of its own in a script that gives a flag a line (with
 * the line's " \" continuation), else after it; always after the value word, so never
 * inside its quotes or a ${...:-...} default. */
static void insert_after(plan *p, const arg *near, const char *flag, const char *value)
{
    const args_doc *d = p->d;
    size_t at = near->vto > near->to ? near->vto : near->to, start;
    const char *sep = value ? " " : "";
    edit *e = add_edit(p, at, at);
    if (!e) return;
    size_t used = strlen(e->with); /* after the flags already put beside this one */
    if (!starts_line(d, near->from, &start)) {
        snprintf(e->with + used, sizeof e->with - used, " --%s%s%s", flag, sep, value ? value : "");
        return;
    }
    size_t i = at;
    while (i < d->len && d->text[i] == ' ') i++;
    bool continued = i < d->len && d->text[i] == '\\';
    int indent = (int)(near->from - start);
    snprintf(e->with + used, sizeof e->with - used, "%s\n%.*s--%s%s%s", continued ? " \\" : "", indent,
             d->text + start, flag, sep, value ? value : "");
}

/* A value as a shell word where the flag stands: quoted at the top level when it holds
 * characters the shell reads (a layout's | ( ) *); bare inside a quoted variable. */
static void shell_value(const arg *where, const char *value, char *buf, size_t size)
{
    bool special = strpbrk(value, "|()*;&<> \t$\"'\\`") != NULL;
    if (!special || (where && where->inner))
        snprintf(buf, size, "%s", value);
    else
        snprintf(buf, size, "'%s'", value);
}

/* The flag the new ones go beside: `near`, else the degrees' own, else --num-layers (always
 * there), never the last flag (it may stand in an `if` block). */
static const arg *beside(const args_doc *d, const char *near)
{
    static const char *const fallback[] = {"tensor-model-parallel-size", "pipeline-model-parallel-size",
                                           "num-layers"};
    const arg *a = near ? find(d, near) : NULL;
    for (size_t i = 0; !a && i < ND_ARRAY_LEN(fallback); i++) a = find(d, fallback[i]);
    return a;
}

/* Sets --flag value; value NULL: a switch on; "": the flag off (removed, with its line when
 * it has one of its own). A value given through a variable used nowhere else is changed at
 * its assignment. `near` names a flag to put a new one beside. */
static void plan_edit(plan *p, const char *flag, const char *value, bool present_only, const char *near)
{
    const args_doc *d = p->d;
    for (int k = 0; k < d->count; k++) { /* every occurrence: argparse takes the last, so each must agree */
        const arg *a = &d->items[k];
        if (strcmp(a->name, flag)) continue;
        if (value && value[0] && a->has_value) {
            if (!strcmp(a->value, value) && !a->unresolved) continue; /* already so */
            const var *v = sole_variable(d, a);
            edit *e = v ? add_edit(p, v->vfrom, v->vto) : add_edit(p, a->vfrom, a->vto);
            if (e) shell_value(v ? NULL : a, value, e->with, sizeof e->with);
        } else if (value && !value[0]) {
            size_t start, end = a->vto > a->to ? a->vto : a->to, from, to;
            if (starts_line(d, a->from, &start)) {
                size_t i = end;
                while (i < d->len && (d->text[i] == ' ' || d->text[i] == '\\')) i++;
                if (i >= d->len || d->text[i] == '\n') {
                    from = start;
                    to = i < d->len ? i + 1 : i;
                } else {
                    from = a->from;
                    to = end;
                }
            } else {
                from = a->from > 0 && d->text[a->from - 1] == ' ' ? a->from - 1 : a->from;
                to = end;
            }
            edit *e = add_edit(p, from, to);
            if (e) e->with[0] = '\0';
        }
    }
    if (!find(d, flag) && !present_only && (!value || value[0]) && d->count > 0) {
        const arg *at = beside(d, near);
        if (at) {
            char shown[4100];
            if (value) shell_value(at, value, shown, sizeof shown);
            insert_after(p, at, flag, value ? shown : NULL);
        }
    }
}

static void plan_number(plan *p, const char *flag, int64_t x, bool present_only, const char *near)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)x);
    plan_edit(p, flag, v, present_only, near);
}

/* The pipeline split: VPP in the script's form, MindSpeed's DualPipeV, the uneven end stages,
 * the account flags and explicit layouts (--pipeline-model-parallel-layout, MindSpeed's
 * --num-layer-list), stale ones removed (docs/frameworks.md §Megatron-LM and MindSpeed-LLM
 * arguments (`-f megatron`)). */
static void plan_split(plan *p, const nd_run *run, const nd_strategy *s)
{
    const args_doc *d = p->d;
    const char *par = "pipeline-model-parallel-size";
    const char *per_chunk = "num-layers-per-virtual-pipeline-stage",
               *chunks = "num-virtual-stages-per-pipeline-rank",
               *old_vpp = "virtual-pipeline-model-parallel-size", *layout = "pipeline-model-parallel-layout",
               *list = "num-layer-list", *first = "decoder-first-pipeline-num-layers",
               *last = "decoder-last-pipeline-num-layers";
    bool v_shape = s->schedule == ND_SCHEDULE_DUALPIPE_V;
    if (v_shape)
        plan_edit(p, "schedules-method", "dualpipev", false, par);
    else
        plan_edit(p, "schedules-method", "", false, NULL);
    if (s->layout) return; /* the run's own layout: the flags that state it stand as they are */
    /* MindSpeed's no-op layers pad the run's own split; another split is the choice's own, of
     * the real layers (--num-layers without them) */
    int64_t total = run->model.layers;
    if (find(d, "noop-layers")) {
        plan_number(p, "num-layers", run->model.layers, false, NULL);
        plan_edit(p, "noop-layers", "", false, NULL);
    }
    bool ends = s->first_stage_layers || s->last_stage_layers, stated = false;
    if (find(d, layout)) { /* the script writes layouts: the choice's, in Megatron's grammar */
        char text[4096];
        nd_split_layout_text(s, run->model.layers, run->model.mtp_layers, text, sizeof text);
        plan_edit(p, layout, text, false, par);
        plan_edit(p, list, "", false, NULL);
        stated = true;
    } else if (find(d, list) && ends && s->vpp == 1 && !v_shape && !s->embedding_in_split &&
               !s->loss_in_split) { /* MindSpeed's list: the choice's layers per stage */
        char text[4096];
        size_t used = 0;
        text[0] = '\0';
        for (int64_t r = 0; r < s->pp && used < sizeof text; r++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%lld", r ? "," : "",
                                     (long long)nd_split_rank_layers(s, run->model.layers, r));
        plan_edit(p, list, text, false, par);
        stated = true;
    } else {
        plan_edit(p, list, "", false, NULL);
    }
    /* VPP: a layout and DualPipeV state it; else in the script's form */
    if (stated || v_shape || s->vpp == 1) {
        plan_edit(p, per_chunk, "", false, NULL);
        plan_edit(p, chunks, "", false, NULL);
        plan_edit(p, old_vpp, "", false, NULL);
    } else {
        bool even = !ends && !s->embedding_in_split && !s->loss_in_split && total % (s->pp * s->vpp) == 0;
        bool mindspeed = !strcmp(flavour(d), "mindspeed"); /* MindSpeed-LLM's form */
        const char *form = find(d, chunks)                             ? chunks
                           : find(d, old_vpp)                          ? old_vpp
                           : even && (find(d, per_chunk) || mindspeed) ? per_chunk
                                                                       : chunks;
        if (form == per_chunk)
            plan_number(p, per_chunk, total / (s->pp * s->vpp), false, par);
        else
            plan_number(p, form, s->vpp, false, par);
        if (form != per_chunk) plan_edit(p, per_chunk, "", false, NULL);
        if (form != chunks) plan_edit(p, chunks, "", false, NULL);
        if (form != old_vpp) plan_edit(p, old_vpp, "", false, NULL);
    }
    bool keep_ends = !stated && s->first_stage_layers, keep_last = !stated && s->last_stage_layers;
    if (keep_ends)
        plan_number(p, first, s->first_stage_layers, false, par);
    else
        plan_edit(p, first, "", false, NULL);
    if (keep_last)
        plan_number(p, last, s->last_stage_layers, false, par);
    else
        plan_edit(p, last, "", false, NULL);
    bool emb = !stated && s->embedding_in_split, loss = !stated && s->loss_in_split;
    plan_edit(p, "account-for-embedding-in-pipeline-split", emb ? NULL : "", false, par);
    plan_edit(p, "account-for-loss-in-pipeline-split", loss ? NULL : "", false, par);
}

static int fw_megatron_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                             size_t size, nd_error *err)
{
    args_doc *d = malloc(sizeof *d);
    edit *edits = malloc(MAX_EDITS * sizeof *edits);
    if (!d || !edits) {
        free(d);
        free(edits);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int rc = load(d, run->source, err);
    if (rc) {
        unload(d);
        free(edits);
        return rc;
    }
    const nd_strategy *s = &c->s;
    plan pl = {d, edits, 0}, *p = &pl;
    const char *par = "tensor-model-parallel-size", *rec = "recompute-granularity", *mb = "micro-batch-size";
    plan_number(p, "tensor-model-parallel-size", s->tp, false, "pipeline-model-parallel-size");
    plan_number(p, "pipeline-model-parallel-size", s->pp, false, par);
    plan_number(p, "context-parallel-size", s->cp, s->cp == 1, par);
    int64_t etp = s->etp ? s->etp : s->tp; /* Megatron's default: TP */
    /* MindSpeed's --moe-tp-extend-ep stays where the choice is its shape (ETP 1, EP over TP) */
    bool extend = find(d, "moe-tp-extend-ep") && etp == 1 && s->tp > 1 && s->ep % s->tp == 0;
    if (find(d, "moe-tp-extend-ep") && !extend) plan_edit(p, "moe-tp-extend-ep", "", false, NULL);
    plan_number(p, "expert-model-parallel-size", extend ? s->ep / s->tp : s->ep, s->ep == 1, par);
    if (!extend)
        plan_number(p, "expert-tensor-parallel-size", etp, run->model.experts == 0 || etp == s->tp, par);
    plan_number(p, "micro-batch-size", s->mbs, false, "global-batch-size");
    plan_number(p, "global-batch-size", c->global_batch, false, mb);
    plan_split(p, run, s);
    plan_edit(p, "sequence-parallel", s->sp ? NULL : "", false, par);
    if (s->op > 1 && s->zero < 3) plan_edit(p, "use-distributed-optimizer", NULL, false, par);
    if (s->op <= 1) plan_edit(p, "use-distributed-optimizer", "", false, par);
    /* the distributed optimizer shards over DP x CP / instances ranks */
    int64_t instances = s->op > 1 && (s->dp * s->cp) % s->op == 0 ? s->dp * s->cp / s->op : 1;
    plan_number(p, "num-distributed-optimizer-instances", instances, instances == 1,
                "use-distributed-optimizer");
    /* the launcher's nodes, when the chosen strategy needs another device count (-d) */
    int64_t devices = s->dp * s->tp * s->pp * s->cp, per = 0;
    const char *per_text = val(d, "nproc-per-node", NULL);
    int64_t world = world_size(d);
    if (per_text && !nd_parse_int64(per_text, 1, 1 << 20, &per) && world && world != devices) {
        if (devices % per)
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: the choice's %lld devices are not whole nodes of the launcher's "
                              "--nproc_per_node %lld: nd cannot write the launcher for it (give -d a "
                              "multiple of %lld)",
                              run->source, (long long)devices, (long long)per, (long long)per);
        else
            plan_number(p, "nnodes", devices / per, false, "nproc-per-node");
    }
    nd_recompute m = fw_choice_mode(c);
    if (m == ND_RECOMPUTE_OFF) {
        plan_edit(p, rec, "", false, NULL);
        plan_edit(p, "recompute-activations", "", false, NULL);
    } else {
        plan_edit(p, rec, nd_recompute_name(m), false, mb);
    }
    if (m == ND_RECOMPUTE_FULL) {
        int64_t full = c->plan ? c->plan[0][0][2] + c->plan[0][1][2] : 0;
        const char *near = find(d, rec) ? rec : mb;
        plan_edit(p, "recompute-method", c->plan ? "block" : "uniform", false, near);
        plan_number(p, "recompute-num-layers", c->plan ? full : 1, false, near);
    } else {
        plan_edit(p, "recompute-method", "", false, NULL);
        plan_edit(p, "recompute-num-layers", "", false, NULL);
    }
    int n = pl.n;
    if (!rc && n >= MAX_EDITS)
        rc = nd_error_set(err, ND_EINPUT, "%s: more than %d edits to write back", run->source, MAX_EDITS);
    qsort(edits, (size_t)n, sizeof *edits, cmp_edit);
    for (int i = 0; !rc && i + 1 < n; i++) /* sorted last first: each must end before the later one starts */
        if (edits[i + 1].to > edits[i].from)
            rc = nd_error_set(err, ND_EINPUT, "%s: two edits overlap at byte %zu: nd cannot write it back",
                              run->source, edits[i].from);
    size_t extra = 0;
    for (int i = 0; i < n; i++) extra += strlen(edits[i].with);
    char *out = rc ? NULL : malloc(d->len + extra + 1);
    if (!rc && !out) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t len = d->len;
    if (out) memcpy(out, d->text, d->len + 1);
    for (int i = 0; out && i < n; i++) { /* from the end, so earlier offsets hold */
        size_t add = strlen(edits[i].with);
        memmove(out + edits[i].from + add, out + edits[i].to, len - edits[i].to + 1);
        memcpy(out + edits[i].from, edits[i].with, add);
        len = len - (edits[i].to - edits[i].from) + add;
    }
    const char *ext = strrchr(run->source, '.'), *slash = strrchr(run->source, '/');
    char name[64], path[1024];
    snprintf(name, sizeof name, "resolved%s",
             ext && (!slash || ext > slash) && strlen(ext) < 16 ? ext : ".sh");
    if (!rc)
        rc = nd_write_file_atomic(fw_output_path(dir, name, path, sizeof path, written, size), out, len, err);
    free(out);
    free(edits);
    unload(d);
    return rc;
}

static int read_megatron(fw_reader *r, const nd_config_input *in)
{
    (void)in;
    return fw_megatron_read(r);
}

const fw_format fw_megatron_format = {ND_CONFIG_MEGATRON, read_megatron, fw_megatron_write};
