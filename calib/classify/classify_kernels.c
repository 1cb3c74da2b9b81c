/* The kernel view: per rank-step, kernel time by class, collectives by type and the
 * GEMM and attention shapes; over the run, their means. The numbers come from the device
 * sweep (classify_device.c), which clips every kernel to the step windows. */
#include "classify_kernels.h"

#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"

_Static_assert(ND_CLASSIFY_COLLS == COLL_COUNT, "one kernel-view row per collective kind");

/* NCCL-tests (doc/PERFORMANCE.md): busBw = algBw x 2(n-1)/n for all-reduce, (n-1)/n for
 * all-gather, reduce-scatter and all-to-all, 1 for broadcast, reduce and send/receive. */
double nd_classify_bus_factor(int coll, int64_t n)
{
    switch ((coll_kind)coll) {
    case COLL_ALL_REDUCE: return n > 0 ? 2.0 * (double)(n - 1) / (double)n : -1;
    case COLL_ALL_GATHER:
    case COLL_REDUCE_SCATTER:
    case COLL_ALL_TO_ALL: return n > 0 ? (double)(n - 1) / (double)n : -1;
    case COLL_BROADCAST:
    case COLL_REDUCE:
    case COLL_P2P: return 1;
    default: return -1;
    }
}

bool nd_classify_coll_mib(const nd_classify_kernels *k, int c, double *mib)
{
    *mib = k->coll_bytes[c] / 1048576.0;
    return k->coll_bytes[c] > 0;
}

bool nd_classify_coll_algbw(const nd_classify_kernels *k, int c, double *gbps)
{
    *gbps = k->coll_ms[c] > 0 ? k->coll_bytes[c] / (k->coll_ms[c] * 1e-3) / 1e9 : 0;
    return k->coll_ms[c] > 0 && k->coll_bytes[c] > 0;
}

bool nd_classify_coll_busbw(const nd_classify_kernels *k, int c, double *gbps)
{
    *gbps = k->coll_bus_ms[c] > 0 ? k->coll_bus_bytes[c] / (k->coll_bus_ms[c] * 1e-3) / 1e9 : 0;
    return k->coll_bus_ms[c] > 0 && k->coll_bus_bytes[c] > 0;
}

void nd_classify_kernels_clear(nd_classify_kernels *k)
{
    for (size_t i = 0; i < k->n_shapes; i++) free(k->shapes[i].label);
    free(k->shapes);
    memset(k, 0, sizeof *k);
}

void nd_classify_kernels_free(nd_classify_kernels *k)
{
    if (!k) return;
    nd_classify_kernels_clear(k);
    free(k);
}

static void collectives_of(nd_classify_kernels *k, const trace_ctx *t, const trace_step *st, const placed *pl)
{
    for (size_t g = 0; g < st->n_dev_groups && g < t->groups.n; g++) {
        const step_group *x = &st->dev_groups[g];
        int kind = (int)t->groups.items[g].kind;
        double ms = x->kernel_ns / 1e6;
        k->coll_calls[kind] += x->calls;
        k->coll_bytes[kind] += x->bytes;
        k->coll_ms[kind] += ms;
        k->coll_exposed_ms[kind] += x->exposed_ns / 1e6;
        double f = nd_classify_bus_factor(kind, pl[g].size);
        if (f >= 0 && x->bytes > 0) {
            k->coll_bus_bytes[kind] += x->bytes * f;
            k->coll_bus_ms[kind] += ms;
        }
    }
}

static int shapes_of(nd_classify_kernels *k, const trace_ctx *t, const trace_step *st)
{
    if (!st->n_shapes) return 0;
    if (!(k->shapes = calloc(st->n_shapes, sizeof *k->shapes))) return -1;
    for (size_t i = 0; i < st->n_shapes; i++) {
        const step_shape *x = &st->shapes[i];
        const shape_key *sk = &t->shapes.items[x->shape];
        nd_classify_shape *o = &k->shapes[k->n_shapes];
        char label[160];
        nd_classify_shape_label(sk, label, sizeof label);
        if (!(o->label = nd_strdup(label))) return -1;
        k->n_shapes++;
        snprintf(o->op, sizeof o->op, "%s", nd_classify_op_kind_name((op_kind)sk->op));
        snprintf(o->dtype, sizeof o->dtype, "%s", nd_classify_dtype_name(sk->dtype));
        o->cls = nd_classify_op_kind_class((op_kind)sk->op);
        o->batch = sk->batch;
        o->m = sk->m;
        o->n = sk->n;
        o->k = sk->k;
        o->heads = sk->heads;
        o->seq_q = sk->seq_q;
        o->seq_kv = sk->seq_kv;
        o->head_dim = sk->head_dim;
        o->calls = x->calls;
        o->ms = x->ns / 1e6;
        o->flops = x->flops;
    }
    return 0;
}

nd_classify_kernels *nd_classify_kernels_of_step(const trace_ctx *t, const trace_step *st, const placed *pl)
{
    nd_classify_kernels *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    for (int c = 0; c < ND_KC_COUNT; c++) k->class_ms[c] = st->kclass_ns[c] / 1e6;
    collectives_of(k, t, st, pl);
    if (shapes_of(k, t, st)) {
        nd_classify_kernels_free(k);
        return NULL;
    }
    return k;
}

static nd_classify_shape *shape_find(nd_classify_kernels *m, const char *label)
{
    for (size_t i = 0; i < m->n_shapes; i++)
        if (!strcmp(m->shapes[i].label, label)) return &m->shapes[i];
    return NULL;
}

/* Adds a sample's view to the sums in m. */
static int add(nd_classify_kernels *m, const nd_classify_kernels *k)
{
    for (int c = 0; c < ND_KC_COUNT; c++) m->class_ms[c] += k->class_ms[c];
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        m->coll_calls[c] += k->coll_calls[c];
        m->coll_bytes[c] += k->coll_bytes[c];
        m->coll_ms[c] += k->coll_ms[c];
        m->coll_exposed_ms[c] += k->coll_exposed_ms[c];
        m->coll_bus_bytes[c] += k->coll_bus_bytes[c];
        m->coll_bus_ms[c] += k->coll_bus_ms[c];
    }
    for (size_t i = 0; i < k->n_shapes; i++) {
        const nd_classify_shape *x = &k->shapes[i];
        nd_classify_shape *y = shape_find(m, x->label);
        if (!y) {
            nd_classify_shape *n = realloc(m->shapes, (m->n_shapes + 1) * sizeof *n);
            if (!n) return -1;
            m->shapes = n;
            y = &m->shapes[m->n_shapes];
            *y = *x;
            y->calls = y->ms = y->flops = 0;
            if (!(y->label = nd_strdup(x->label))) return -1;
            m->n_shapes++;
        }
        y->calls += x->calls;
        y->ms += x->ms;
        y->flops += x->flops;
    }
    return 0;
}

static int cmp_shape(const void *a, const void *b)
{
    const nd_classify_shape *x = a, *y = b;
    if (x->ms != y->ms) return x->ms < y->ms ? 1 : -1;
    return strcmp(x->label, y->label);
}

/* Sums per kind are divided by the samples (per rank-step means); bandwidth figures use
 * the sums' ratios, which the division leaves as they are. Shapes: most time first. */
int nd_classify_kernels_summarize(const nd_classify_run *run, const bool *keep, nd_classify_summary *m)
{
    nd_classify_kernels *s = &m->kernels;
    nd_classify_kernels_clear(s);
    m->n_kernel_samples = 0;
    for (size_t i = 0; i < run->n_samples; i++) {
        if (!keep[i] || !run->samples[i].kernels) continue;
        if (add(s, run->samples[i].kernels)) return ND_ENOMEM;
        m->n_kernel_samples++;
    }
    double n = (double)m->n_kernel_samples;
    if (n == 0) return ND_OK;
    for (int c = 0; c < ND_KC_COUNT; c++) s->class_ms[c] /= n;
    for (int c = 0; c < ND_CLASSIFY_COLLS; c++) {
        s->coll_calls[c] /= n;
        s->coll_bytes[c] /= n;
        s->coll_ms[c] /= n;
        s->coll_exposed_ms[c] /= n;
        s->coll_bus_bytes[c] /= n;
        s->coll_bus_ms[c] /= n;
    }
    for (size_t i = 0; i < s->n_shapes; i++) {
        s->shapes[i].calls /= n;
        s->shapes[i].ms /= n;
        s->shapes[i].flops /= n;
    }
    if (s->n_shapes) qsort(s->shapes, s->n_shapes, sizeof *s->shapes, cmp_shape);
    return ND_OK;
}
