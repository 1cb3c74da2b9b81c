/*
 * fw_args.c — a Megatron-LM or MindSpeed-LLM launch script read as bash reads it, within a
 * subset: its variables (TP=8, no cap on their number) and the --flags it passes, each with its
 * value and the bytes it stands at (for write-back); if/elif/else blocks on tests nd reads
 * evaluated as bash takes them. The words and expansions themselves are fw_shell.c's.
 * docs/frameworks.md §Megatron-LM and MindSpeed-LLM arguments (`-f megatron`).
 */
#include "fw_args.h"
#include "fw_shell.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

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
    "tp-2d",
    "fp8-param-gather",
    "ddp-average-in-collective",
    "disable-parameter-transpose-cache",
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

/* Megatron's flags of several values (argparse nargs='+') whose words nd reads or rewrites */
static bool is_list(const char *name)
{
    return !strcmp(name, "hierarchical-context-parallel-sizes");
}

static bool digits_only(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)t[i])) return false;
    return n > 0;
}

/* A list flag's further words, while they are numbers; the first word that is not one is
 * handed back in *next (true: the scan goes on from it). */
static bool take_list(args_doc *d, arg *a, size_t to, size_t *p, int *line, bool inner, word *next)
{
    a->list_count = 1;
    while (fw_shell_next_word(d->text, to, p, line, inner, next)) {
        if (!digits_only(d->text + next->from, next->to - next->from)) return true;
        a->list_to = next->to;
        a->list_count++;
    }
    return false;
}

int fw_args_list_ints(const args_doc *d, const arg *a, int64_t *out, int max)
{
    int n = 0;
    size_t i = a->vfrom;
    while (i < a->list_to && n < max) {
        while (i < a->list_to && !isdigit((unsigned char)d->text[i]) && d->text[i] != '$') i++;
        if (i >= a->list_to) break;
        if (d->text[i] == '$') { /* a variable: not expanded here */
            out[n++] = -1;
            while (i < a->list_to && !isspace((unsigned char)d->text[i])) i++;
            continue;
        }
        int64_t v = 0; /* held at 2^40 past it: no overflow, and far beyond any degree */
        for (; i < a->list_to && isdigit((unsigned char)d->text[i]); i++)
            if (v < ND_ARGS_LIST_MAX) v = v * 10 + (d->text[i] - '0');
        out[n++] = v < ND_ARGS_LIST_MAX ? v : ND_ARGS_LIST_MAX;
    }
    return n;
}

static int scan_range(args_doc *d, const char *path, size_t from, size_t to, int line, bool inner, bool dq,
                      nd_error *err);

/* NAME=value (export NAME=value): a variable, as bash expands its value; a quoted value's
 * words are scanned for flags too (GPT_ARGS="--num-layers 32 ..."). */
static int read_assignment(args_doc *d, const word *w, const char *path, nd_error *err)
{
    const char *t = d->text;
    size_t i = w->from;
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) return ND_OK;
    while (i < w->to && fw_args_name_char(t[i])) i++;
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
                  fw_shell_skip_group(t, vto, vfrom, &(int){0}) == vto;
    size_t size = 2 * (vto - vfrom) + 512;
    char *value = malloc(size);
    if (!value) return nd_error_set(err, ND_ENOMEM, "out of memory");
    bool defaulted, branch;
    bool known = fw_shell_expand(d, t + vfrom, vto - vfrom, false, value, size, &defaulted, NULL, &branch);
    var *v = &d->vars[d->n_vars];
    v->defaulted = defaulted;
    v->in_branch = branch || d->branch_depth > 0;
    v->unknown = !known;
    snprintf(v->name, sizeof v->name, "%.*s", (int)(i - w->from), t + w->from);
    v->value = value;
    v->vfrom = quoted ? vfrom + 1 : vfrom;
    v->vto = quoted ? vto - 1 : vto;
    v->plain = v->vto > v->vfrom;
    for (size_t k = v->vfrom; k < v->vto; k++)
        if (!fw_args_name_char(t[k]) && !strchr(".,:/-+", t[k])) v->plain = false;
    int line = w->line, outer = d->owner;
    d->owner = d->n_vars;
    int rc = quoted ? scan_range(d, path, vfrom + 1, vto - 1, line, true, t[vfrom] == '"', err) : ND_OK;
    d->owner = outer;
    d->n_vars++; /* after its own words: bash expands them before it sets the variable */
    return rc;
}

static bool word_is(const char *t, size_t n, const char *kw)
{
    return strlen(kw) == n && !strncmp(t, kw, n);
}

/* ---- if/elif/else/fi and case/esac: the branch bash takes, where its test is one nd reads ---- */

typedef enum { TEST_FALSE, TEST_TRUE, TEST_UNKNOWN } test_result;

/* A test word as bash expands it, a variable the script does not set read as empty (its name
 * in empty[], when one is); false when it uses what nd does not read or a variable set in a
 * block nd does not evaluate. */
static bool test_word(const args_doc *d, const word *w, char *out, size_t size, char *empty,
                      size_t empty_size)
{
    outbuf o = {out, 0, size, false, false, false, true, ""};
    out[0] = '\0';
    bool ok =
        fw_shell_expand_text(d, d->text + w->from, w->to - w->from, 0, false, &o) && !o.full && !o.branch;
    if (ok && o.unset_name[0] && !empty[0]) nd_text_copy(empty, o.unset_name, empty_size);
    return ok;
}

/* [ X ], [ -z X ], [ -n X ], [ X = Y ] (==, !=, -eq, -ne, -lt, -le, -gt, -ge), [[ ... ]] alike,
 * an optional ! before; anything else (commands, &&, patterns) unknown. */
static test_result eval_test(const args_doc *d, const word *w, int n, char *empty, size_t empty_size)
{
    if (n < 3) return TEST_UNKNOWN;
    const char *t = d->text;
    size_t l0 = w[0].to - w[0].from, ln = w[n - 1].to - w[n - 1].from;
    bool dbl = word_is(t + w[0].from, l0, "[[");
    if (!(dbl ? word_is(t + w[n - 1].from, ln, "]]")
              : word_is(t + w[0].from, l0, "[") && word_is(t + w[n - 1].from, ln, "]")))
        return TEST_UNKNOWN;
    int k = 1, end = n - 1;
    bool negate = end - k > 1 && word_is(t + w[k].from, w[k].to - w[k].from, "!");
    if (negate) k++;
    char a[256], b[256], op[8] = "";
    bool r;
    if (end - k == 1) {
        if (!test_word(d, &w[k], a, sizeof a, empty, empty_size)) return TEST_UNKNOWN;
        r = a[0] != '\0';
    } else if (end - k == 2) {
        snprintf(op, sizeof op, "%.*s", (int)(w[k].to - w[k].from), t + w[k].from);
        if ((strcmp(op, "-z") && strcmp(op, "-n")) ||
            !test_word(d, &w[k + 1], a, sizeof a, empty, empty_size))
            return TEST_UNKNOWN;
        r = !strcmp(op, "-z") ? a[0] == '\0' : a[0] != '\0';
    } else if (end - k == 3) {
        snprintf(op, sizeof op, "%.*s", (int)(w[k + 1].to - w[k + 1].from), t + w[k + 1].from);
        if (!test_word(d, &w[k], a, sizeof a, empty, empty_size) ||
            !test_word(d, &w[k + 2], b, sizeof b, empty, empty_size))
            return TEST_UNKNOWN;
        if (!strcmp(op, "=") || !strcmp(op, "==") || !strcmp(op, "!=")) {
            /* [[ X == pattern ]] matches a glob: not read */
            if (dbl && strpbrk(t + w[k + 2].from, "*?[") &&
                strpbrk(t + w[k + 2].from, "*?[") < t + w[k + 2].to)
                return TEST_UNKNOWN;
            r = (strcmp(a, b) == 0) == (strcmp(op, "!=") != 0);
        } else {
            static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};
            int64_t x, y;
            size_t which = ND_ARRAY_LEN(ops);
            for (size_t i = 0; i < ND_ARRAY_LEN(ops); i++)
                if (!strcmp(op, ops[i])) which = i;
            if (which == ND_ARRAY_LEN(ops) || nd_parse_int64(a, INT64_MIN, INT64_MAX, &x) ||
                nd_parse_int64(b, INT64_MIN, INT64_MAX, &y))
                return TEST_UNKNOWN;
            bool v[] = {x == y, x != y, x<y, x <= y, x> y, x >= y};
            r = v[which];
        }
    } else {
        return TEST_UNKNOWN;
    }
    return r != negate ? TEST_TRUE : TEST_FALSE;
}

/* Whether an enclosing block puts the scan in a branch bash does not take. */
static bool skipping(const args_doc *d)
{
    for (int i = 0; i < d->n_frames; i++)
        if (d->frames[i].evaluated && !d->frames[i].active) return true;
    return false;
}

/* The words of an if/elif test, up to its `then` (read and dropped); a variable it read as
 * empty is noted in the frame f. */
static test_result read_test(const args_doc *d, size_t to, size_t *p, int *line, branch_frame *f)
{
    word w[16];
    int n = 0, at = *line;
    word x;
    char empty[48] = "";
    while (fw_shell_next_word(d->text, to, p, line, false, &x)) {
        if (word_is(d->text + x.from, x.to - x.from, "then")) {
            test_result r = eval_test(d, w, n, empty, sizeof empty);
            if (r != TEST_UNKNOWN && empty[0] && !f->empty_line) {
                f->empty_line = at;
                nd_text_copy(f->empty_var, empty, sizeof f->empty_var);
            }
            return r;
        }
        if (n < (int)ND_ARRAY_LEN(w)) w[n++] = x;
    }
    return TEST_UNKNOWN;
}

/* A flag word under blocks chosen on an empty variable: kept for fw_args_empty_test. */
static void note_empty_flag(args_doc *d, const char *t, size_t n)
{
    for (int i = d->n_frames - 1; i >= 0; i--) {
        const branch_frame *f = &d->frames[i];
        if (!f->empty_line || d->n_empty_flags >= (int)ND_ARRAY_LEN(d->empty_flags)) continue;
        empty_flag *e = &d->empty_flags[d->n_empty_flags++];
        size_t len = 0;
        while (len < n && !strchr("= \t\n\"'", t[len])) len++;
        snprintf(e->name, sizeof e->name, "%.*s", (int)(len > 2 ? len - 2 : 0), t + 2);
        for (char *c = e->name; *c; c++) *c = *c == '_' ? '-' : *c;
        e->test_line = f->empty_line;
        nd_text_copy(e->var, f->empty_var, sizeof e->var);
        return;
    }
}

/* if / elif / else / fi / case / esac at the scan's word t (n bytes): true when it was one. */
static bool branch_keyword(args_doc *d, const char *t, size_t n, size_t to, size_t *p, int *line)
{
    bool opens_if = word_is(t, n, "if"), opens_case = word_is(t, n, "case");
    if (opens_if || opens_case) {
        bool outer_skip = skipping(d);
        branch_frame f = {true, false, true, 0, ""}; /* under a branch not taken: stays skipped */
        if (!outer_skip) {
            test_result r = opens_if ? read_test(d, to, p, line, &f) : TEST_UNKNOWN;
            f.evaluated = r != TEST_UNKNOWN;
            f.active = r != TEST_FALSE;
            f.taken = r == TEST_TRUE;
        }
        if (d->n_frames < MAX_BRANCH_DEPTH) d->frames[d->n_frames++] = f;
        if (!f.evaluated) d->branch_depth++;
        return true;
    }
    if (!d->n_frames) return false;
    branch_frame *f = &d->frames[d->n_frames - 1];
    if (word_is(t, n, "elif")) {
        d->n_frames--; /* the test is read under the block's parent */
        test_result r =
            f->evaluated && !f->taken && !skipping(d) ? read_test(d, to, p, line, f) : TEST_UNKNOWN;
        d->n_frames++;
        if (f->evaluated && !f->taken && r != TEST_UNKNOWN) {
            f->active = f->taken = r == TEST_TRUE;
        } else if (f->evaluated && f->taken) {
            f->active = false;
        } else if (f->evaluated) { /* a test nd does not read: every branch from here is read */
            f->evaluated = false;
            f->active = true;
            d->branch_depth++;
        }
        return true;
    }
    if (word_is(t, n, "else")) {
        if (f->evaluated) f->active = !f->taken;
        f->taken = true;
        return true;
    }
    if (word_is(t, n, "fi") || word_is(t, n, "esac")) {
        if (!f->evaluated && d->branch_depth > 0) d->branch_depth--;
        d->n_frames--;
        return true;
    }
    return false;
}

static int scan_range(args_doc *d, const char *path, size_t from, size_t to, int line, bool inner, bool dq,
                      nd_error *err)
{
    size_t p = from;
    word w, v;
    bool pending = false;
    while (pending || fw_shell_next_word(d->text, to, &p, &line, inner, &w)) {
        pending = false;
        const char *t = d->text + w.from;
        size_t n = w.to - w.from;
        /* a block's keywords, and the words of a branch bash does not take, passed over */
        if (!inner && branch_keyword(d, t, n, to, &p, &line)) continue;
        if (n >= 3 && !strncmp(t, "--", 2)) note_empty_flag(d, t, n);
        if (!inner && skipping(d)) {
            /* the flags of a quoted value set in the skipped branch (vp_options=" --flag ...") */
            for (size_t k = 0; k + 2 < n; k++)
                if ((k == 0 || strchr(" \t\n\"'=", t[k - 1])) && t[k] == '-' && t[k + 1] == '-')
                    note_empty_flag(d, t + k, n - k);
            continue;
        }
        /* a quoted word holding flags ("--fp8-format hybrid" in an array): ${ARGS[@]} unquoted
         * splits it into its words, so they are read as the command line's */
        if (!inner && n >= 4 && (t[0] == '"' || t[0] == '\'') && t[n - 1] == t[0] &&
            !strncmp(t + 1, "--", 2) && fw_shell_skip_group(d->text, w.to, w.from, &(int){0}) == w.to) {
            int rc = scan_range(d, path, w.from + 1, w.to - 1, w.line, true, t[0] == '"', err);
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
        a->owner = inner ? d->owner : -1;
        a->in_branch = d->branch_depth > 0;
        a->vfrom = a->vto = w.to;
        if (eq) {
            a->vfrom = (size_t)(eq + 1 - d->text);
            a->has_value = true;
        } else if (!is_switch(a->name) && fw_shell_next_word(d->text, to, &p, &line, inner, &v)) {
            if (d->text[v.from] == '-' && v.to - v.from > 1 && d->text[v.from + 1] == '-') {
                w = v;
                pending = true; /* the next flag */
            } else {
                a->vfrom = v.from;
                a->vto = v.to;
                a->has_value = true;
                if (is_list(a->name)) pending = take_list(d, a, to, &p, &line, inner, &w);
            }
        }
        if (a->list_to < a->vto) a->list_to = a->vto;
        if (a->has_value && !a->list_count) a->list_count = 1;
        bool branch = false;
        if (a->has_value && !fw_shell_expand(d, d->text + a->vfrom, a->vto - a->vfrom, inner && dq, a->value,
                                             sizeof a->value, &a->defaulted, &a->too_long, &branch))
            a->unresolved = true; /* an error only where nd needs the value */
        a->in_branch |= branch;
    }
    return ND_OK;
}

/* Whether the text at p, past a '$', names the variable `name`: $NAME or ${NAME...}. */
static bool names_variable(const args_doc *d, size_t p, const char *name)
{
    size_t n = strlen(name);
    if (p < d->len && d->text[p] == '{') p++;
    if (p + n > d->len || strncmp(d->text + p, name, n)) return false;
    return p + n == d->len || !fw_args_name_char(d->text[p + n]);
}

/* Whether byte p stands in the value of an assignment to `name` (GPT_ARGS="$GPT_ARGS ..."
 * extends the variable; it does not pass it anywhere). */
static bool in_own_value(const args_doc *d, size_t p, const char *name)
{
    for (int i = 0; i < d->n_vars; i++)
        if (!strcmp(d->vars[i].name, name) && p >= d->vars[i].vfrom && p < d->vars[i].vto) return true;
    return false;
}

/* A variable no command or other variable expands ($NAME, ${NAME}, ${NAME[@]}) passes its
 * flags nowhere: MindSpeed's scripts define optional *_ARGS blocks they leave out. */
static void mark_unused(args_doc *d)
{
    for (int i = 0; i < d->n_vars; i++) {
        var *v = &d->vars[i];
        v->unused = true;
        for (const char *s = d->text; v->unused && (s = memchr(s, '$', d->len - (size_t)(s - d->text)));
             s++) {
            size_t p = (size_t)(s - d->text);
            if (names_variable(d, p + 1, v->name) && !in_own_value(d, p, v->name)) v->unused = false;
        }
    }
}

static int scan(args_doc *d, const char *path, nd_error *err)
{
    int rc = scan_range(d, path, 0, d->len, 1, false, false, err);
    if (!rc) mark_unused(d);
    return rc;
}

void fw_args_unload(args_doc *d)
{
    for (int i = 0; i < d->n_vars; i++) free(d->vars[i].value);
    free(d->vars);
    free(d->text);
    free(d);
}

int fw_args_load(args_doc *d, const char *path, nd_error *err)
{
    memset(d, 0, sizeof *d);
    d->owner = -1;
    int rc = nd_read_file(path, 4u << 20, &d->text, &d->len, err);
    if (!rc) rc = scan(d, path, err);
    return rc;
}

/* The last occurrence of a flag (a later one wins, as argparse reads them). */
const arg *fw_args_find(const args_doc *d, const char *name)
{
    for (int i = d->count - 1; i >= 0; i--) {
        const arg *a = &d->items[i];
        /* in a branch, on a variable the script does not set: in the empty environment nd
         * reads the script in, the branch not taken (if [ -z ${MP_VP} ] ... else --flag ${MP_VP}),
         * so absent for the reader and the writer alike */
        if (a->unresolved && a->in_branch) continue;
        if (fw_args_unpassed(d, a)) continue;
        if (!strcmp(a->name, name)) return a;
    }
    return NULL;
}

bool fw_args_asked(const args_doc *d, const char *name)
{
    for (int i = 0; i < d->n_asked; i++)
        if (!strcmp(d->asked[i], name)) return true;
    return false;
}

bool fw_args_unpassed(const args_doc *d, const arg *a)
{
    return a->owner >= 0 && a->owner < d->n_vars && d->vars[a->owner].unused;
}

const arg *fw_args_get(args_doc *d, const char *name)
{
    bool known = false;
    for (int i = 0; i < d->n_asked && !known; i++) known = !strcmp(d->asked[i], name);
    if (!known && d->n_asked < (int)ND_ARRAY_LEN(d->asked))
        nd_text_copy(d->asked[d->n_asked++], name, sizeof d->asked[0]);
    const arg *a = fw_args_find(d, name);
    if (a) d->items[a - d->items].looked_up = true;
    return a;
}

const char *fw_args_val(args_doc *d, const char *name, int *line)
{
    const arg *a = fw_args_get(d, name);
    if (line) *line = a ? a->line : 0;
    if (a && a->unresolved) {
        if (!d->needed_unresolved) d->needed_unresolved = a;
        return NULL;
    }
    return a && a->has_value ? a->value : NULL;
}

bool fw_args_on(args_doc *d, const char *name)
{
    return fw_args_get(d, name) != NULL;
}

/* Which Megatron the arguments are for (train.framework). */
const char *fw_args_flavour(const args_doc *d)
{
    if (fw_args_find(d, "deepspeed") || fw_args_find(d, "deepspeed-config") ||
        fw_args_find(d, "deepspeed_config") || fw_args_find(d, "zero-stage"))
        return "megatron-deepspeed";
    if (fw_args_find(d, "use-legacy-models") || fw_args_find(d, "checkpoint-activations") ||
        fw_args_find(d, "DDP-impl") || fw_args_find(d, "checkpoint-num-layers"))
        return "megatron-legacy";
    if (strstr(d->text, "mindspeed") || strstr(d->text, "MindSpeed") ||
        fw_args_find(d, "use-fused-rmsnorm") || fw_args_find(d, "use-fused-swiglu") ||
        fw_args_find(d, "use-fused-rotary-pos-emb"))
        return "mindspeed";
    return "megatron";
}

/* The world size of the script's launcher (torchrun --nproc_per_node x --nnodes), 0 if not there. */
int64_t fw_args_world_size(args_doc *d)
{
    /* a count nd cannot read (GPUS=$(nvidia-smi ...)) is no world size: -d gives it */
    const arg *pa = fw_args_find(d, "nproc-per-node"), *na = fw_args_find(d, "nnodes");
    const char *per = pa && pa->has_value && !pa->unresolved ? pa->value : NULL;
    const char *nodes = na && na->has_value && !na->unresolved ? na->value : NULL;
    if (na && na->unresolved) return 0;
    int64_t a = 0, b = 1;
    if (!per || nd_parse_int64(per, 1, 1 << 20, &a)) return 0;
    if (nodes && nd_parse_int64(nodes, 1, 1 << 20, &b)) return 0;
    return a * b;
}

const empty_flag *fw_args_empty_test(const args_doc *d)
{
    for (int i = 0; i < d->n_empty_flags; i++)
        for (int k = 0; k < d->n_asked; k++)
            if (!strcmp(d->empty_flags[i].name, d->asked[k])) return &d->empty_flags[i];
    return NULL;
}
