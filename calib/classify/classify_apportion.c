/* ND's apportioning of an Ascend step (docs/reference/nd-calibration.md §3.4): the step's
 * exposed communication (Communication(Not Overlapped) of step_trace_time.csv) is shared
 * out over the step's HCCL operators of communication.json in proportion to their
 * elapse times (the overlap assumed spread evenly over them). An operator's column is
 * its group's dimension when the file names the group's ranks (msprof-analyze's cluster
 * file: "(0, 1)"), else its type, as ND. */
#include "classify_ascend.h"

#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"

static int site_add(nd_classify_sample *s, int column, const char *label, const ascend_op *op, double scale)
{
    nd_classify_site *x = NULL;
    for (size_t i = 0; i < s->n_sites && !x; i++)
        if ((int)s->sites[i].column == column && !strcmp(s->sites[i].label, label)) x = &s->sites[i];
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
    if (op) {
        x->calls += op->calls;
        x->wait_ms += op->wait_ms * scale;
        x->bytes += op->bytes;
    }
    return 0;
}

/* The first op at or after (step, rank) in the sorted sums. */
static size_t lower_bound(const ascend_comm *c, long step, int rank)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ascend_op *o = &c->ops[mid];
        if (o->step_num < step || (o->step_num == step && o->rank < rank))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The column and label of an operator sum: its group's dimension, else its type. */
static nd_classify_quantity place(const ascend_comm *c, const ascend_op *op, const nd_classify_dims *dims,
                                  char *label, size_t size)
{
    if (op->group >= 0 && (size_t)op->group < c->groups.n) {
        const char *how;
        nd_classify_quantity col =
            nd_classify_group_map(&c->groups.items[op->group], NULL, 0, 0, dims, label, size, &how, NULL);
        if (strcmp(how, "collective type")) return col;
    }
    const char *nd_label;
    nd_classify_quantity col = nd_classify_coll_default_column(op->kind, dims, op->p2p, &nd_label);
    if (col == ND_CQ_UNCLASSIFIED && op->kind != COLL_ALL_GATHER && op->kind != COLL_REDUCE_SCATTER)
        nd_label = nd_classify_coll_label(op->kind);
    snprintf(label, size, "%s", nd_label);
    return col;
}

/* Shares the exposed time of row r out over the op sums in [lo, hi). */
static int apportion(nd_classify_sample *s, const ascend_comm *c, const ascend_row *r,
                     const nd_classify_dims *dims, const size_t range[4], bool *unmatched)
{
    double elapse = 0;
    for (int k = 0; k < 4; k += 2)
        for (size_t i = range[k]; i < range[k + 1]; i++) elapse += c->ops[i].elapse_ms;
    if (elapse <= 0) { /* exposed, but no operator to charge it to: unclassified, not idle */
        if (r->exposed_ms <= 0) return 0;
        *unmatched = true;
        return site_add(s, ND_CQ_UNCLASSIFIED,
                        c->present ? "no operators for this rank and step" : "no communication.json", NULL,
                        r->exposed_ms);
    }
    double scale = r->exposed_ms / elapse;
    char label[192];
    for (int k = 0; k < 4; k += 2)
        for (size_t i = range[k]; i < range[k + 1]; i++) {
            nd_classify_quantity col = place(c, &c->ops[i], dims, label, sizeof label);
            if (site_add(s, (int)col, label, &c->ops[i], scale)) return -1;
        }
    return 0;
}

int nd_classify_ascend_sample(nd_classify_run *run, const char *path, const ascend_comm *c,
                              const ascend_row *r, bool *unmatched, nd_error *err)
{
    nd_classify_sample s = {.rank = r->rank, .step_order = r->order};
    s.input = nd_strdup(path);
    s.step = nd_strdup(r->step);
    for (int q = 0; q < ND_CQ_COUNT; q++) s.view[q] = ND_VIEW_ASCEND;
    s.q[ND_CQ_TIME] = r->time_ms;
    s.q[ND_CQ_COMP_UNSPLIT] = r->comp_ms;
    long step = r->step_num < 0 ? 0 : r->step_num;
    /* a per-rank file's sums (rank -1), and a cluster file's for this rank */
    size_t range[4] = {lower_bound(c, step, -1), lower_bound(c, step, 0), 0, 0};
    if (r->rank >= 0) {
        range[2] = lower_bound(c, step, r->rank);
        range[3] = lower_bound(c, step, r->rank + 1);
    }
    *unmatched = false;
    bool bad = !s.input || !s.step || apportion(&s, c, r, &run->opts.dims, range, unmatched) != 0;
    if (!bad && r->bubble_ms > 0) bad = site_add(&s, ND_CQ_PP_WAIT, "bubble (receive)", NULL, r->bubble_ms);
    nd_classify_sample_complete(&s);
    if (bad) {
        free(s.input);
        free(s.step);
        for (size_t i = 0; i < s.n_sites; i++) free(s.sites[i].label);
        free(s.sites);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    return nd_classify_run_sample_add(run, &s, err);
}
