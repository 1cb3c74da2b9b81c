/* GEMM and attention sizes and FLOPs from recorded input shapes.
 *
 * FLOPs (a multiply-add is two):
 *   mm, addmm      a[M,K] b[K,N]              2 M N K
 *   bmm, baddbmm   a[B,M,K] b[B,K,N]          2 B M N K
 *   linear         x[..., K] w[N,K]           2 M N K, M = the product of x's leading dims
 *   matmul         a[..., M, K] b[(...,) K, N] 2 B M N K, B = the product of a's batch dims
 *   _grouped_mm    a[M,K] b[G,K,N]            2 M N K (each of the M rows meets one group)
 *   attention fwd  q, k: B H S D, B H Sk D    4 B H S Sk D   (QK^T and PV)
 *   attention bwd                              10 B H S Sk D  (2.5 x forward)
 * The attention counts are FlashAttention's benchmark convention (flash-attention,
 * benchmarks/benchmark_flash_attention.py: f = 4 batch seqlen^2 nheads headdim, halved
 * when causal; backward 2.5 f): nd counts the full S x Sk scores, since the trace does
 * not say whether the mask was causal, so a causal kernel shows twice its real throughput
 * and half of what nd reports is the figure to compare.
 *
 * Ascend kernels state their own sizes (kernel_details.csv's Input Shapes and Output
 * Shapes, "a0,a1;b0,b1" per row; the transposes are not stated, so K is what the element
 * counts leave, and must agree between the inputs):
 *   MatMul*        out[..., N], M the product of out's leading dims    2 M N K
 *   BatchMatMul*   out[..., M, N], B the product of out's batch dims    2 B M N K
 *   GroupedMatmul  x[M,K], w[G,K,N] (or [G,N,K]), out[M,N]              2 M N K
 *   FlashAttentionScore(Grad)  B, heads, S from the softmax statistics [B, N, S, 8] (an
 *                  output forward, an input backward), D and Sk from q and k in the layout
 *                  that fits (SBH, BSH, BNSD, BSND); counted as above. */
#include "classify_shapes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[] = {"", "fp32", "bf16", "fp16", "fp8", "fp64", "int8"};

uint8_t nd_classify_dtype_of(const char *s, size_t n)
{
#define NAME(lit) lit, sizeof(lit) - 1 /* the length beside the name: no strlen per input */
    static const struct {
        const char *text;
        size_t len;
        uint8_t dtype;
    } map[] = {{NAME("float"), 1},
               {NAME("c10::BFloat16"), 2},
               {NAME("c10::Half"), 3},
               {NAME("c10::Float8_e4m3fn"), 4},
               {NAME("c10::Float8_e5m2"), 4},
               {NAME("double"), 5},
               {NAME("signed char"), 6},
               {NAME("unsigned char"), 6}};
#undef NAME
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].len == n && !memcmp(map[i].text, s, n)) return map[i].dtype;
    return 0;
}

const char *nd_classify_dtype_name(uint8_t dtype)
{
    return dtype < sizeof dtype_names / sizeof dtype_names[0] ? dtype_names[dtype] : "";
}

const char *nd_classify_op_kind_name(op_kind k)
{
    static const char *names[OPK_COUNT] = {"",
                                           "aten::mm",
                                           "aten::addmm",
                                           "aten::bmm",
                                           "aten::baddbmm",
                                           "aten::linear",
                                           "aten::matmul",
                                           "aten::_grouped_mm",
                                           "attention fwd",
                                           "attention bwd",
                                           "attention fwd",
                                           "attention bwd",
                                           "MatMul",
                                           "BatchMatMul",
                                           "GroupedMatmul"};
    return (unsigned)k < OPK_COUNT ? names[k] : "";
}

nd_classify_kernel_class nd_classify_op_kind_class(op_kind k)
{
    switch (k) {
    case OPK_GROUPED_MM:
    case OPK_NPU_GMM: return ND_KC_GROUPED_GEMM;
    case OPK_ATTN_FWD_BHSD:
    case OPK_ATTN_FWD_BSHD: return ND_KC_ATTN_FWD;
    case OPK_ATTN_BWD_BHSD:
    case OPK_ATTN_BWD_BSHD: return ND_KC_ATTN_BWD;
    default: return ND_KC_GEMM;
    }
}

/* Sizes past 2^31 in one dimension, or a product past 1e18, are no real tensor. */
static bool sane(int64_t v)
{
    return v >= 1 && v <= ((int64_t)1 << 31);
}

static bool gemm(const op_dims *d, int a, int b, bool batched, shape_key *o)
{
    int na = d->nd[a], nb = d->nd[b];
    if (batched) {
        if (na != 3 || nb != 3 || d->dim[a][0] != d->dim[b][0]) return false;
        o->batch = d->dim[a][0];
        o->m = d->dim[a][1];
        o->k = d->dim[a][2];
        o->n = d->dim[b][2];
        return d->dim[b][1] == o->k;
    }
    if (na != 2 || nb != 2) return false;
    o->batch = 1;
    o->m = d->dim[a][0];
    o->k = d->dim[a][1];
    o->n = d->dim[b][1];
    return d->dim[b][0] == o->k;
}

static bool linear(const op_dims *d, shape_key *o)
{
    int nx = d->nd[0];
    if (nx < 1 || d->nd[1] != 2 || d->dim[1][1] != d->dim[0][nx - 1]) return false;
    o->batch = 1;
    o->m = 1;
    o->k = d->dim[0][nx - 1];
    o->n = d->dim[1][0];
    for (int i = 0; i < nx - 1; i++) o->m *= d->dim[0][i];
    return true;
}

static bool matmul(const op_dims *d, shape_key *o)
{
    int na = d->nd[0], nb = d->nd[1];
    if (na < 2 || nb < 2) return false;
    o->batch = 1;
    o->m = d->dim[0][na - 2];
    o->k = d->dim[0][na - 1];
    o->n = d->dim[1][nb - 1];
    for (int i = 0; i < na - 2; i++) o->batch *= d->dim[0][i];
    return d->dim[1][nb - 2] == o->k;
}

static bool attention(const op_dims *d, int q, bool bshd, shape_key *o)
{
    if (d->n <= q + 1 || d->nd[q] != 4 || d->nd[q + 1] != 4) return false;
    const int64_t *x = d->dim[q], *y = d->dim[q + 1];
    int s = bshd ? 1 : 2, h = bshd ? 2 : 1;
    o->batch = x[0];
    o->heads = x[h];
    o->seq_q = x[s];
    o->head_dim = x[3];
    o->seq_kv = y[s];
    return y[0] == x[0] && y[3] == x[3];
}

static bool is_attention(op_kind k)
{
    return k >= OPK_ATTN_FWD_BHSD && k <= OPK_ATTN_BWD_BSHD;
}

double nd_classify_shape_flops(const shape_key *o)
{
    op_kind k = (op_kind)o->op;
    if (k == OPK_GROUPED_MM || k == OPK_NPU_GMM) return 2.0 * (double)o->m * (double)o->n * (double)o->k;
    if (!is_attention(k)) return 2.0 * (double)o->batch * (double)o->m * (double)o->n * (double)o->k;
    bool bwd = k == OPK_ATTN_BWD_BHSD || k == OPK_ATTN_BWD_BSHD;
    return (bwd ? 10.0 : 4.0) * (double)o->batch * (double)o->heads * (double)o->seq_q * (double)o->seq_kv *
           (double)o->head_dim;
}

/* Sizes a real tensor can have, and their FLOPs. */
static bool sized(const shape_key *o, double *flops)
{
    const int64_t *v = is_attention((op_kind)o->op)
                           ? (const int64_t[]){o->batch, o->heads, o->seq_q, o->seq_kv, o->head_dim}
                           : (const int64_t[]){o->batch, o->m, o->n, o->k, 1};
    double f = 1;
    for (int i = 0; i < 5; i++) {
        if (!sane(v[i])) return false;
        f *= (double)v[i];
    }
    if (f > 1e18) return false;
    *flops = nd_classify_shape_flops(o);
    return true;
}

bool nd_classify_shape_of(op_kind k, const op_dims *d, shape_key *o, double *flops)
{
    memset(o, 0, sizeof *o);
    o->op = (uint8_t)k;
    o->dtype = d->dtype;
    bool ok;
    switch (k) {
    case OPK_MM: ok = d->n >= 2 && gemm(d, 0, 1, false, o); break;
    case OPK_ADDMM: ok = d->n >= 3 && gemm(d, 1, 2, false, o); break;
    case OPK_BMM: ok = d->n >= 2 && gemm(d, 0, 1, true, o); break;
    case OPK_BADDBMM: ok = d->n >= 3 && gemm(d, 1, 2, true, o); break;
    case OPK_LINEAR: ok = d->n >= 2 && linear(d, o); break;
    case OPK_MATMUL: ok = d->n >= 2 && matmul(d, o); break;
    case OPK_GROUPED_MM:
        ok = d->n >= 2 && d->nd[0] == 2 && d->nd[1] == 3 && d->dim[1][1] == d->dim[0][1];
        if (ok) {
            o->m = d->dim[0][0];
            o->k = d->dim[0][1];
            o->n = d->dim[1][2];
            o->batch = d->dim[1][0];
        }
        break;
    case OPK_ATTN_FWD_BHSD: ok = attention(d, 0, false, o); break;
    case OPK_ATTN_BWD_BHSD: ok = attention(d, 1, false, o); break;
    case OPK_ATTN_FWD_BSHD: ok = attention(d, 0, true, o); break;
    case OPK_ATTN_BWD_BSHD: ok = attention(d, 1, true, o); break;
    default: ok = false;
    }
    return ok && sized(o, flops);
}

static uint64_t key_hash(const shape_key *k)
{
    const int64_t v[] = {k->op, k->dtype, k->batch, k->m,      k->n,
                         k->k,  k->heads, k->seq_q, k->seq_kv, k->head_dim};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = (h ^ (uint64_t)v[i]) * 1099511628211ull;
    return h ^ (h >> 31);
}

static bool same(const shape_key *a, const shape_key *b)
{
    return a->op == b->op && a->dtype == b->dtype && a->batch == b->batch && a->m == b->m && a->n == b->n &&
           a->k == b->k && a->heads == b->heads && a->seq_q == b->seq_q && a->seq_kv == b->seq_kv &&
           a->head_dim == b->head_dim;
}

static int grow(shape_table *t)
{
    size_t n = t->n_slots ? t->n_slots * 2 : 64;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = key_hash(&t->items[i]) & (n - 1);
        while (s[k]) k = (k + 1) & (n - 1);
        s[k] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->n_slots = n;
    return 0;
}

int nd_classify_shape_intern(shape_table *t, const shape_key *key)
{
    if ((t->n + 1) * 2 > t->n_slots && grow(t)) return -1;
    size_t k = key_hash(key) & (t->n_slots - 1);
    for (; t->slots[k]; k = (k + 1) & (t->n_slots - 1))
        if (same(&t->items[t->slots[k] - 1], key)) return (int)t->slots[k] - 1;
    if (t->n >= SHAPE_TABLE_MAX) return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        shape_key *items = realloc(t->items, cap * sizeof *items);
        if (!items) return -1;
        t->items = items;
        t->cap = cap;
    }
    t->items[t->n] = *key;
    t->slots[k] = (uint32_t)++t->n;
    return (int)t->n - 1;
}

void nd_classify_shape_table_free(shape_table *t)
{
    free(t->items);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

void nd_classify_shape_label(const shape_key *k, char *buf, size_t size)
{
    const char *op = nd_classify_op_kind_name((op_kind)k->op), *dt = nd_classify_dtype_name(k->dtype);
    if (is_attention((op_kind)k->op))
        snprintf(buf, size, "%s%s%s B=%lld H=%lld S=%lld Sk=%lld D=%lld", op, *dt ? " " : "", dt,
                 (long long)k->batch, (long long)k->heads, (long long)k->seq_q, (long long)k->seq_kv,
                 (long long)k->head_dim);
    else if (k->batch > 1)
        snprintf(buf, size, "%s%s%s B=%lld M=%lld N=%lld K=%lld", op, *dt ? " " : "", dt, (long long)k->batch,
                 (long long)k->m, (long long)k->n, (long long)k->k);
    else
        snprintf(buf, size, "%s%s%s M=%lld N=%lld K=%lld", op, *dt ? " " : "", dt, (long long)k->m,
                 (long long)k->n, (long long)k->k);
}

/* ---- Ascend kernels ------------------------------------------------------------------------ */

#define NPU_TENSORS 16 /* a FlashAttentionScoreGrad row lists about a dozen */

/* "4096,12288;4608,12288" (quotes and spaces passed over): the dims of each tensor; an empty
 * one (an absent optional input, a scalar) has none; one that is not plain dims, -1. */
typedef struct npu_dims {
    int n;
    int nd[NPU_TENSORS];
    int64_t dim[NPU_TENSORS][SHAPE_DIMS];
} npu_dims;

static void npu_dims_parse(const char *s, size_t len, npu_dims *d)
{
    memset(d, 0, sizeof *d);
    d->n = 1;
    int64_t v = -1; /* the number being read; -1 none */
    for (size_t i = 0; i <= len && d->n <= NPU_TENSORS; i++) {
        char c = i < len ? s[i] : ';';
        int *nd = &d->nd[d->n - 1];
        if (c >= '0' && c <= '9') {
            v = v < 0 ? 0 : v;
            if (v > ((int64_t)1 << 40))
                *nd = -1; /* no tensor is that long: stop before the number overflows */
            else
                v = v * 10 + (c - '0');
        } else if (c == ',' || c == ';') {
            if (v >= 0 && *nd >= 0 && *nd < SHAPE_DIMS)
                d->dim[d->n - 1][(*nd)++] = v;
            else if (v >= 0 || c == ',')
                *nd = -1; /* too many dims, or a size missing */
            v = -1;
            if (c == ';' && i < len) d->n++;
        } else if (c != '"' && c != ' ' && c != '\t')
            *nd = -1;
    }
    if (d->n > NPU_TENSORS) d->n = NPU_TENSORS;
}

static double npu_numel(const npu_dims *d, int t)
{
    if (t >= d->n || d->nd[t] <= 0) return 0;
    double n = 1;
    for (int i = 0; i < d->nd[t]; i++) n *= (double)d->dim[t][i];
    return n;
}

/* The count of a that M rows leave (K), when it is whole. */
static bool npu_inner(double numel, double rows, int64_t *k)
{
    if (rows <= 0 || numel <= 0) return false;
    double q = numel / rows;
    if (q != floor(q) || q > (double)((int64_t)1 << 31)) return false;
    *k = (int64_t)q;
    return true;
}

static bool npu_matmul(const npu_dims *in, const npu_dims *out, bool batched, shape_key *o)
{
    int no = out->nd[0];
    if (no < (batched ? 3 : 2)) return false;
    const int64_t *x = out->dim[0];
    double lead = 1; /* the product of out's leading dims: B batched, else M */
    for (int i = 0; i < no - (batched ? 2 : 1); i++) lead *= (double)x[i];
    if (lead > (double)((int64_t)1 << 31)) return false; /* no tensor; and int64 would overflow */
    o->batch = batched ? (int64_t)lead : 1;
    o->m = batched ? x[no - 2] : (int64_t)lead;
    o->n = x[no - 1];
    double bm = (double)o->batch * (double)o->m, b = npu_numel(in, 1);
    if (!npu_inner(npu_numel(in, 0), bm, &o->k)) return false;
    double kn = (double)o->k * (double)o->n;
    return b == kn * (double)o->batch || (batched && b == kn); /* b shared by the batch */
}

static bool npu_grouped(const npu_dims *in, const npu_dims *out, shape_key *o)
{
    if (in->nd[0] != 2 || in->nd[1] != 3 || out->nd[0] != 2) return false;
    o->m = in->dim[0][0];
    o->k = in->dim[0][1];
    o->n = out->dim[0][1];
    o->batch = in->dim[1][0];
    return out->dim[0][0] == o->m && npu_numel(in, 1) == (double)o->batch * (double)o->k * (double)o->n;
}

/* The softmax statistics [B, N, S, 8] among ts: the first 4-dim tensor ending in 8. */
static int npu_stats(const npu_dims *ts)
{
    for (int t = 0; t < ts->n; t++)
        if (ts->nd[t] == 4 && ts->dim[t][3] == 8) return t;
    return -1;
}

static bool npu_attention(const npu_dims *in, const npu_dims *out, bool bwd, shape_key *o)
{
    const npu_dims *st = bwd ? in : out;
    int s = npu_stats(st);
    if (s < 0 || in->nd[0] < 3 || in->nd[1] != in->nd[0]) return false;
    const int64_t *x = st->dim[s], *q = in->dim[0], *k = in->dim[1];
    int64_t b = x[0], heads = x[1], sq = x[2];
    o->batch = b;
    o->heads = heads;
    o->seq_q = sq;
    if (!npu_inner(npu_numel(in, 0), (double)b * (double)heads * (double)sq, &o->head_dim)) return false;
    int kv = -1; /* k's sequence dim, by the layout q's dims fit */
    if (in->nd[0] == 3) {
        bool sbh = q[0] == sq && q[1] == b, bsh = q[0] == b && q[1] == sq;
        kv = sbh == bsh ? -1 : (sbh ? 0 : 1);
    } else if (in->nd[0] == 4) {
        bool bnsd = q[0] == b && q[1] == heads && q[2] == sq, bsnd = q[0] == b && q[1] == sq && q[2] == heads;
        kv = bnsd == bsnd ? -1 : (bnsd ? 2 : 1);
    }
    if (kv < 0) return false;
    o->seq_kv = k[kv];
    return true;
}

static op_kind npu_kind(const char *type, size_t n)
{
    static const struct {
        const char *prefix;
        op_kind kind;
    } kinds[] = {{"MatMul", OPK_NPU_MATMUL},
                 {"BatchMatMul", OPK_NPU_BMM},
                 {"GroupedMatmul", OPK_NPU_GMM},
                 {"FlashAttentionScoreGrad", OPK_ATTN_BWD_BSHD},
                 {"FlashAttentionScore", OPK_ATTN_FWD_BSHD}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t p = strlen(kinds[i].prefix);
        if (n < p || memcmp(type, kinds[i].prefix, p)) continue;
        size_t j = p;
        if (j < n && type[j] == 'V') /* MatMulV2, BatchMatMulV3: a version, nothing else */
            for (j++; j < n && type[j] >= '0' && type[j] <= '9'; j++) {
            }
        if (j == n) return kinds[i].kind;
    }
    return OPK_NONE;
}

/* "DT_BF16;DT_BF16" -> bf16: the first input's type. */
static uint8_t npu_dtype(const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len] != ';') len++;
    if (len > 3 && !memcmp(s, "DT_", 3)) {
        s += 3;
        len -= 3;
    }
    static const struct {
        const char *text;
        uint8_t dtype;
    } map[] = {{"BF16", 2},     {"FLOAT16", 3}, {"FP16", 3},          {"FLOAT", 1},      {"FLOAT32", 1},
               {"HIFLOAT8", 4}, {"INT8", 6},    {"FLOAT8_E4M3FN", 4}, {"FLOAT8_E5M2", 4}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].text) == len && !memcmp(map[i].text, s, len)) return map[i].dtype;
    return 0;
}

bool nd_classify_npu_has_shape(const char *type, size_t n)
{
    return npu_kind(type, n) != OPK_NONE;
}

bool nd_classify_npu_shape_of(const nd_classify_npu_row *row, shape_key *o, double *flops)
{
    memset(o, 0, sizeof *o);
    op_kind k = npu_kind(row->type, row->type_len);
    if (k == OPK_NONE) return false;
    npu_dims in, out;
    npu_dims_parse(row->inputs, row->inputs_len, &in);
    npu_dims_parse(row->outputs, row->outputs_len, &out);
    o->op = (uint8_t)k;
    o->dtype = npu_dtype(row->dtypes, row->dtypes_len);
    bool ok;
    switch (k) {
    case OPK_NPU_MATMUL: ok = npu_matmul(&in, &out, false, o); break;
    case OPK_NPU_BMM: ok = npu_matmul(&in, &out, true, o); break;
    case OPK_NPU_GMM: ok = npu_grouped(&in, &out, o); break;
    default: ok = npu_attention(&in, &out, k == OPK_ATTN_BWD_BSHD, o);
    }
    return ok && sized(o, flops);
}
