/* Ascend communication.json: the HCCL operators of each step, and ND's apportioning
 * of the exposed communication time over them (reference/nd-calibration.md §3.4). */
#include "classify_ascend.h"

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>
#include "nd/io.h"
#include "nd/text.h"

static int op_error(nd_error *err, const char *path, const char *where, const char *what)
{
    return nd_error_set(err, ND_EINPUT, "%s: %s: %s", path, where, what);
}

static bool num_at(yajl_val v, const char *a, const char *b, double *out)
{
    const char *p[] = {a, b, NULL};
    yajl_val n = yajl_tree_get(v, p, yajl_t_any);
    if (!n) return false;
    if (YAJL_IS_NUMBER(n)) return nd_parse_double(YAJL_GET_NUMBER(n), out) == 0;
    if (YAJL_IS_STRING(n)) return nd_parse_double(YAJL_GET_STRING(n), out) == 0;
    return false;
}

/* The digits of a step key ("step12" -> 12); 0 without digits, -1 (matches no step) when
 * they do not fit a long. */
static long step_digits(const char *key)
{
    long v = 0;
    bool any = false;
    for (const char *p = key; *p; p++) {
        if (!isdigit((unsigned char)*p)) continue;
        if (v > (LONG_MAX - 9) / 10) return -1;
        v = v * 10 + (*p - '0'), any = true;
    }
    return any ? v : 0;
}

static bool is_p2p_name(const char *name)
{
    return !strncmp(name, "hcom_send", 9) || !strncmp(name, "hcom_receive", 12) ||
           !strncmp(name, "hcom_batchsendrecv", 18);
}

/* One operator entry: {"Communication Time Info": {...}, "Communication Bandwidth Info": {...}}. */
static int op_add(ascend_comm *c, const char *path, const char *where, const char *name, yajl_val v,
                  long step, int rank, bool p2p, nd_error *err)
{
    ascend_op op = {.step_num = step, .rank = rank, .p2p = p2p || is_p2p_name(name)};
    const char *letters = name + 5;
    size_t n = 0;
    while (isalpha((unsigned char)letters[n]))
        n++;
    op.kind = n ? nd_classify_coll_from_text(letters, n) : COLL_UNKNOWN;
    if (!YAJL_IS_OBJECT(v)) return op_error(err, path, where, "is not an object");
    if (!num_at(v, "Communication Time Info", "Elapse Time(ms)", &op.elapse_ms))
        return op_error(err, path, where,
                        "'Communication Time Info' / 'Elapse Time(ms)' is missing or not a number");
    num_at(v, "Communication Time Info", "Wait Time(ms)", &op.wait_ms);
    num_at(v, "Communication Time Info", "Transit Time(ms)", &op.transit_ms);
    static const char *links[] = {"RDMA", "SDMA"}; /* HCCS, PCIE, SIO repeat inside SDMA */
    for (int i = 0; i < 2; i++) {
        const char *p[] = {"Communication Bandwidth Info", links[i], "Transit Size(MB)", NULL};
        yajl_val s = yajl_tree_get(v, p, yajl_t_any);
        double mb;
        if (s && YAJL_IS_NUMBER(s) && nd_parse_double(YAJL_GET_NUMBER(s), &mb) == 0)
            op.bytes += mb * 1048576.0;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        ascend_op *ops = realloc(c->ops, cap * sizeof *ops);
        if (!ops) return nd_error_set(err, ND_ENOMEM, "out of memory");
        c->ops = ops, c->cap = cap;
    }
    c->ops[c->n++] = op;
    return ND_OK;
}

/* Operators whose names do not start with hcom_ ("Total Op Info") repeat the others. */
static bool skipped(nd_classify_run *run, const char *path, const char *name)
{
    if (!strncmp(name, "hcom_", 5)) return false;
    nd_classify_run_note(run, "%s: skipped entries that are not hcom_ operators, such as '%s'", path, name);
    return true;
}

static int per_rank(nd_classify_run *run, const char *path, yajl_val root, ascend_comm *c,
                    nd_error *err)
{
    char where[512];
    for (size_t i = 0; i < root->u.object.len; i++) {
        const char *step = root->u.object.keys[i];
        yajl_val sections = root->u.object.values[i];
        if (!YAJL_IS_OBJECT(sections)) return op_error(err, path, step, "is not an object");
        for (size_t j = 0; j < sections->u.object.len; j++) {
            const char *sec = sections->u.object.keys[j];
            yajl_val ops = sections->u.object.values[j];
            snprintf(where, sizeof where, "%s/%s", step, sec);
            if (!YAJL_IS_OBJECT(ops)) return op_error(err, path, where, "is not an object");
            for (size_t k = 0; k < ops->u.object.len; k++) {
                const char *name = ops->u.object.keys[k];
                if (skipped(run, path, name)) continue;
                snprintf(where, sizeof where, "%s/%s/%s", step, sec, name);
                int rc = op_add(c, path, where, name, ops->u.object.values[k], step_digits(step),
                                -1, !strcmp(sec, "p2p"), err);
                if (rc) return rc;
            }
        }
    }
    return ND_OK;
}

/* msprof-analyze: group -> step -> operator -> rank -> entry. */
static int cluster(nd_classify_run *run, const char *path, yajl_val root, ascend_comm *c,
                   nd_error *err)
{
    char where[512];
    for (size_t i = 0; i < root->u.object.len; i++) {
        yajl_val steps = root->u.object.values[i];
        if (!YAJL_IS_OBJECT(steps))
            return op_error(err, path, root->u.object.keys[i], "is not an object");
        for (size_t j = 0; j < steps->u.object.len; j++) {
            yajl_val ops = steps->u.object.values[j];
            long step = step_digits(steps->u.object.keys[j]);
            if (!YAJL_IS_OBJECT(ops)) continue;
            for (size_t k = 0; k < ops->u.object.len; k++) {
                const char *name = ops->u.object.keys[k];
                yajl_val ranks = ops->u.object.values[k];
                if (skipped(run, path, name) || !YAJL_IS_OBJECT(ranks)) continue;
                for (size_t r = 0; r < ranks->u.object.len; r++) {
                    int64_t rank;
                    if (nd_parse_int64(ranks->u.object.keys[r], 0, INT32_MAX, &rank)) continue;
                    snprintf(where, sizeof where, "%s/%s/%s/%s", root->u.object.keys[i],
                             steps->u.object.keys[j], name, ranks->u.object.keys[r]);
                    int rc = op_add(c, path, where, name, ranks->u.object.values[r], step,
                                    (int)rank, false, err);
                    if (rc) return rc;
                }
            }
        }
    }
    return ND_OK;
}

/* yajl_tree_free recurses once per level, so a file of a million '[' would overflow the
 * stack. The deepest layout (cluster: group, step, operator, rank, entry, link, size
 * distribution) has 8 levels. The byte past MAX_JSON_DEPTH levels, or 0 when within. */
#define MAX_JSON_DEPTH 64
#define MAX_JSON_BYTES ((size_t)256 << 20)

static size_t too_deep(const char *text)
{
    int depth = 0;
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '[' || *p == '{') {
            if (++depth > MAX_JSON_DEPTH) return (size_t)(p - text) + 1;
        } else if (*p == ']' || *p == '}') {
            depth--;
        }
    }
    return 0;
}

int nd_classify_ascend_comm_load(nd_classify_run *run, const char *csv_path, ascend_comm *c, nd_error *err)
{
    memset(c, 0, sizeof *c);
    char *dir = nd_path_dir(csv_path), *stem = nd_path_stem(csv_path);
    if (!dir || !stem) return free(dir), free(stem), nd_error_set(err, ND_ENOMEM, "out of memory");
    bool is_cluster = !strncmp(stem, "cluster_", 8);
    char *path =
        nd_path_join(dir, is_cluster ? "cluster_communication.json" : "communication.json");
    free(dir), free(stem);
    if (!path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    char *text;
    struct stat st;
    int rc = stat(path, &st) != 0 && errno == ENOENT ? ND_EINPUT : ND_OK;
    if (rc) { /* absent: ND attributes no collective, only the Bubble term */
        nd_classify_run_note(run,
                 "%s: no %s beside it: exposed communication is not attributed (it stays "
                 "in idle); only Bubble goes to pp_wait",
                 csv_path, is_cluster ? "cluster_communication.json" : "communication.json");
        free(path);
        return ND_OK;
    }
    /* yajl's tree takes many times the text: bounded well below the machine */
    if ((rc = nd_read_file(path, MAX_JSON_BYTES, &text, NULL, err))) return free(path), rc;
    char msg[256] = "";
    size_t deep = too_deep(text);
    const char *json = strncmp(text, "\xEF\xBB\xBF", 3) ? text : text + 3; /* yajl refuses a BOM */
    yajl_val root = deep ? NULL : yajl_tree_parse(json, msg, sizeof msg);
    free(text);
    c->present = true;
    if (deep) {
        rc = nd_error_set(err, ND_EINPUT, "%s: byte %zu: nested deeper than %d levels", path, deep,
                          MAX_JSON_DEPTH);
    } else if (!root) {
        msg[strcspn(msg, "\n")] = '\0';
        rc = nd_error_set(err, ND_EINPUT, "%s: not valid JSON (%s)", path,
                          msg[0] ? msg : "parse error");
    } else if (!YAJL_IS_OBJECT(root)) {
        rc = nd_error_set(err, ND_EINPUT, "%s: the top level is not an object of steps", path);
    } else {
        bool steps_first = root->u.object.len == 0 || !strncmp(root->u.object.keys[0], "step", 4);
        rc = steps_first ? per_rank(run, path, root, c, err) : cluster(run, path, root, c, err);
    }
    yajl_tree_free(root);
    free(path);
    if (rc) nd_classify_ascend_comm_free(c);
    return rc;
}

void nd_classify_ascend_comm_free(ascend_comm *c)
{
    free(c->ops);
    memset(c, 0, sizeof *c);
}

static int site_add(nd_classify_sample *s, int column, const char *label, const ascend_op *op,
                    double scale)
{
    nd_classify_site *x = NULL;
    for (size_t i = 0; i < s->n_sites && !x; i++)
        if ((int)s->sites[i].column == column && !strcmp(s->sites[i].label, label))
            x = &s->sites[i];
    if (!x) {
        nd_classify_site *n = realloc(s->sites, (s->n_sites + 1) * sizeof *n);
        if (!n) return -1;
        s->sites = n;
        x = &s->sites[s->n_sites];
        memset(x, 0, sizeof *x);
        if (!(x->label = nd_strdup(label))) return -1;
        x->column = (nd_classify_quantity)column;
        s->n_sites++;
    }
    double ms = op ? op->elapse_ms * scale : scale;
    x->ms += ms;
    s->q[column] += ms;
    if (op) x->calls += 1, x->wait_ms += op->wait_ms * scale, x->bytes += op->bytes;
    return 0;
}

int nd_classify_ascend_sample(nd_classify_run *run, const char *path, const ascend_comm *c, const ascend_row *r,
                  nd_error *err)
{
    nd_classify_sample s = {.rank = r->rank, .step_order = r->order};
    s.input = nd_strdup(path), s.step = nd_strdup(r->step);
    for (int q = 0; q < ND_CQ_COUNT; q++)
        s.view[q] = ND_VIEW_ASCEND;
    s.q[ND_CQ_TIME] = r->time_ms;
    s.q[ND_CQ_COMP_UNSPLIT] = r->comp_ms;
    long step = r->step_num < 0 ? 0 : r->step_num;
    double elapse = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->ops[i].step_num == step && (c->ops[i].rank < 0 || c->ops[i].rank == r->rank))
            elapse += c->ops[i].elapse_ms;
    double scale = elapse > 0 ? r->exposed_ms / elapse : 0;
    bool bad = !s.input || !s.step;
    const nd_classify_dims *dims = &run->opts.dims;
    for (size_t i = 0; i < c->n && !bad; i++) {
        const ascend_op *op = &c->ops[i];
        if (op->step_num != step || (op->rank >= 0 && op->rank != r->rank)) continue;
        const char *label;
        nd_classify_quantity col = nd_classify_coll_default_column(op->kind, dims, op->p2p, &label);
        char text[96];
        if (col == ND_CQ_UNCLASSIFIED && op->kind != COLL_ALL_GATHER &&
            op->kind != COLL_REDUCE_SCATTER)
            label = nd_classify_coll_label(op->kind);
        snprintf(text, sizeof text, "%s", label);
        bad = site_add(&s, (int)col, text, op, scale) != 0;
    }
    if (!bad && r->bubble_ms > 0)
        bad = site_add(&s, ND_CQ_PP_WAIT, "bubble (receive)", NULL, r->bubble_ms);
    nd_classify_sample_complete(&s);
    if (bad) {
        free(s.input), free(s.step);
        for (size_t i = 0; i < s.n_sites; i++)
            free(s.sites[i].label);
        free(s.sites);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    return nd_classify_run_sample_add(run, &s, err);
}
