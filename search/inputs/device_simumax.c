/*
 * device_simumax.c — SimuMax's system file (JSON) as an nd device with kernel tables: the
 * measured GEMM, grouped-GEMM and attention rates per shape, the memory-bound operators'
 * bandwidth per class, the collectives per operation and link tier. What the file does not
 * state (host, runtime and offload figures) comes from the built-in device of the same chip.
 * Field meanings: SimuMax's system-file documentation and its SystemConfig (read, not copied);
 * docs/devices.md §SimuMax system files.
 */
#include "device_simumax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/text.h"
#include "nd/costmodel/kernel_table.h"

/* SimuMax's bandwidths multiply by 2^30 (GiB/s); nd's are GB/s. */
#define GIB_PER_GB 1.073741824
/* A measured fraction of peak above this is a unit slip, not a measurement (SimuMax's own
 * fitted values reach 1.45: p2p over one NVLink hop against the per-direction figure). */
#define EFFICIENCY_MAX   4.0
#define SIMUMAX_FILE_MAX ((size_t)64 << 20)

typedef struct reader {
    const char *path;
    const char *text;
    nd_error *err;
} reader;

/* The line of the first `"key"` after `from` in the text (keys are found in document order,
 * which is how cJSON walks them): for messages only. */
static int line_of(const reader *r, const char *key)
{
    char quoted[320];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(r->text, quoted);
    if (!at) return 1;
    int line = 1;
    for (const char *p = r->text; p < at; p++) line += *p == '\n';
    return line;
}

static int bad(const reader *r, const char *where, const char *key, const char *what)
{
    return nd_error_set(r->err, ND_EINPUT, "%s:%d: %s: '%s' %s", r->path, line_of(r, key), where, key, what);
}

/* A number member of obj in [lo, hi]; absent: *out unchanged and `required` decides. */
static int number(const reader *r, const cJSON *obj, const char *where, const char *key, double lo, double hi,
                  bool required, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v)) return required ? bad(r, where, key, "is missing") : ND_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return bad(r, where, key, "must be a number");
    if (v->valuedouble < lo || v->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "must lie in [%g, %g], not %g", lo, hi, v->valuedouble);
        return bad(r, where, key, what);
    }
    *out = v->valuedouble;
    return ND_OK;
}

static const cJSON *object(const reader *r, const cJSON *obj, const char *where, const char *key,
                           bool required, int *rc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *rc = ND_OK;
    if (!v) {
        if (required) *rc = bad(r, where, key, "is missing");
        return NULL;
    }
    if (!cJSON_IsObject(v)) {
        *rc = bad(r, where, key, "must be an object");
        return NULL;
    }
    return v;
}

/* "b=1, m=4096, k=8192, layout=TN, ..." : where the value of `name` starts, or NULL. */
static const char *key_value(const char *key, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = key; (p = strstr(p, name)) != NULL; p += n) {
        bool starts = p == key || p[-1] == ' ' || p[-1] == ',';
        if (starts && p[n] == '=') return p + n + 1;
    }
    return NULL;
}

/* The value of `name`, copied into out (false: absent, or longer than out holds). */
static bool key_field(const char *key, const char *name, char *out, size_t size)
{
    const char *v = key_value(key, name);
    if (!v) return false;
    const char *end = strchr(v, ',');
    size_t len = end ? (size_t)(end - v) : strlen(v);
    if (len >= size) return false;
    memcpy(out, v, len);
    out[len] = '\0';
    return true;
}

static bool key_number(const char *key, const char *name, double *out)
{
    char text[64];
    int64_t v;
    if (!key_field(key, name, text, sizeof text) || nd_parse_int64(text, 1, (int64_t)1 << 40, &v))
        return false;
    *out = (double)v;
    return true;
}

static int grow(void **items, size_t *cap, size_t count, size_t item, nd_error *err)
{
    if (count < *cap) return ND_OK;
    size_t next = *cap ? 2 * *cap : 64;
    void *p = realloc(*items, next * item);
    if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
    *items = p;
    *cap = next;
    return ND_OK;
}

/* A measured efficiency: a number in (0, EFFICIENCY_MAX]. */
static int efficiency_of(const reader *r, const cJSON *e, const char *table, double *out)
{
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble <= 0 ||
        e->valuedouble > EFFICIENCY_MAX) {
        char what[96];
        snprintf(what, sizeof what, "must be a measured fraction of peak in (0, %g]", EFFICIENCY_MAX);
        return bad(r, table, e->string, what);
    }
    *out = e->valuedouble;
    return ND_OK;
}

/* matmul / fp8_matmul: SimuMax keys the three GEMMs of a linear layer by the GEMM each runs:
 * forward TN (m tokens, k in, n out), input gradient NN (m tokens, k out, n in), weight
 * gradient NT (m out, k tokens, n in). The weight gradient's bf16-accumulating variant
 * (grad_reduce_in_bf16) is kept only where the fp32 one is not measured. */
static int read_gemm(const reader *r, const cJSON *table, nd_gemm_precision precision, nd_kernel_tables *t,
                     size_t *cap)
{
    const char *where = precision == ND_GEMM_FP8 ? "fp8_matmul.accurate_efficient_factor"
                                                 : "matmul.accurate_efficient_factor";
    const cJSON *e;
    cJSON_ArrayForEach(e, table)
    {
        double b = 1, m, n, k, eff = 0;
        char layout[8], out_dtype[16] = "bf16";
        if (!key_number(e->string, "m", &m) || !key_number(e->string, "n", &n) ||
            !key_number(e->string, "k", &k) || !key_field(e->string, "layout", layout, sizeof layout))
            return bad(r, where, e->string, "is not a GEMM key (b=, m=, k=, n=, layout=TN|NN|NT, ...)");
        if (key_value(e->string, "b") && !key_number(e->string, "b", &b))
            return bad(r, where, e->string,
                       "has a batch b= that is not a whole number in [1, 2^40] (absent: 1)");
        /* SimuMax's dtypes; another word (or none after the =) was read as bf16 */
        if (key_value(e->string, "out_dtype") &&
            (!key_field(e->string, "out_dtype", out_dtype, sizeof out_dtype) ||
             (strcmp(out_dtype, "bf16") && strcmp(out_dtype, "fp16") && strcmp(out_dtype, "fp32"))))
            return bad(r, where, e->string, "has an out_dtype= other than bf16, fp16 or fp32 (absent: bf16)");
        int rc = efficiency_of(r, e, where, &eff);
        if (rc) return rc;
        /* as nd runs them: forward tokens x out x in, input gradient tokens x in x out,
         * weight gradient in x out x tokens (SimuMax's NT key is its transpose) */
        nd_gemm_point p = {b * m, n, k, eff, ND_PASS_FORWARD, precision, {0}};
        if (!strcmp(layout, "NN")) {
            p.pass = ND_PASS_INPUT_GRAD;
        } else if (!strcmp(layout, "NT")) {
            p = (nd_gemm_point){n, m, b * k, eff, ND_PASS_WEIGHT_GRAD, precision, {0}};
            if (strcmp(out_dtype, "fp32")) p.efficiency = -eff; /* bf16 accumulation: a fallback */
        } else if (strcmp(layout, "TN")) {
            return bad(r, where, e->string, "has a layout other than TN, NN or NT");
        }
        if ((rc = grow((void **)&t->gemm, cap, t->gemm_count, sizeof *t->gemm, r->err))) return rc;
        t->gemm[t->gemm_count++] = p;
    }
    return ND_OK;
}

/* Drops a bf16-accumulation weight gradient where the fp32 one of its shape is measured. */
static void prefer_fp32_accumulation(nd_kernel_tables *t)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->gemm_count; i++) {
        nd_gemm_point p = t->gemm[i];
        bool shadowed = false;
        for (size_t j = 0; p.efficiency < 0 && j < t->gemm_count && !shadowed; j++) {
            const nd_gemm_point *q = &t->gemm[j];
            shadowed = q->efficiency > 0 && q->pass == p.pass && q->precision == p.precision && q->m == p.m &&
                       q->n == p.n && q->k == p.k;
        }
        if (shadowed) continue;
        p.efficiency = fabs(p.efficiency);
        t->gemm[kept++] = p;
    }
    t->gemm_count = kept;
}

/* group_matmul: `ng` experts of M tokens, N out, K in (the forward's shape), per stage. */
static int read_grouped(const reader *r, const cJSON *table, nd_gemm_precision precision, nd_kernel_tables *t,
                        size_t *cap)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, table)
    {
        double g, m, n, k, eff = 0;
        char stage[32];
        if (!key_number(e->string, "ng", &g) || !key_number(e->string, "M", &m) ||
            !key_number(e->string, "N", &n) || !key_number(e->string, "K", &k) ||
            !key_field(e->string, "stage", stage, sizeof stage))
            return bad(r, "group_matmul.accurate_efficient_factor", e->string,
                       "is not a grouped-GEMM key (ng=, M=, N=, K=, ..., stage=fwd|bwd_grad_act|bwd_grad_w)");
        nd_gemm_pass pass = !strcmp(stage, "fwd")            ? ND_PASS_FORWARD
                            : !strcmp(stage, "bwd_grad_act") ? ND_PASS_INPUT_GRAD
                            : !strcmp(stage, "bwd_grad_w")   ? ND_PASS_WEIGHT_GRAD
                                                             : (nd_gemm_pass)-1;
        if ((int)pass < 0)
            return bad(r, "group_matmul.accurate_efficient_factor", e->string,
                       "has a stage other than fwd, bwd_grad_act or bwd_grad_w");
        int rc = efficiency_of(r, e, "group_matmul.accurate_efficient_factor", &eff);
        if (rc) return rc;
        if ((rc = grow((void **)&t->grouped, cap, t->grouped_count, sizeof *t->grouped, r->err))) return rc;
        /* the forward's shape whatever the stage: the GEMM the stage runs, per expert */
        double fwd[3] = {m, n, k}, dgrad[3] = {m, k, n}, wgrad[3] = {k, n, m};
        const double *run = pass == ND_PASS_FORWARD ? fwd : pass == ND_PASS_INPUT_GRAD ? dgrad : wgrad;
        t->grouped[t->grouped_count++] =
            (nd_grouped_point){g, run[0], run[1], run[2], eff, pass, precision, {0}};
    }
    return ND_OK;
}

/* sdp_fwd / sdp_bwd: SimuMax times causal kernels against the full (non-causal) FLOPs, so
 * on nd's causal count the rate is half its factor. It looks up qkv_contiguous=True only. */
static int read_attention(const reader *r, const cJSON *table, bool backward, nd_kernel_tables *t,
                          size_t *cap)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, table)
    {
        double b, s, h, kvh, dqk, dv, eff = 0;
        char contiguous[8] = "True";
        if (!key_number(e->string, "batch", &b) || !key_number(e->string, "seq_len", &s) ||
            !key_number(e->string, "head_num", &h) || !key_number(e->string, "kv_head_num", &kvh) ||
            !key_number(e->string, "qk_head_dim", &dqk) || !key_number(e->string, "v_head_dim", &dv))
            return bad(r,
                       backward ? "sdp_bwd.accurate_efficient_factor" : "sdp_fwd.accurate_efficient_factor",
                       e->string,
                       "is not an attention key (batch=, seq_len=, head_num=, kv_head_num=, qk_head_dim=, "
                       "v_head_dim=)");
        int rc = efficiency_of(r, e, "sdp.accurate_efficient_factor", &eff);
        if (rc) return rc;
        key_field(e->string, "qkv_contiguous", contiguous, sizeof contiguous);
        if (strcmp(contiguous, "True")) continue;
        if ((rc = grow((void **)&t->attention, cap, t->attention_count, sizeof *t->attention, r->err)))
            return rc;
        t->attention[t->attention_count++] =
            (nd_attention_point){b, s, h, kvh, dqk, dv, eff / 2, backward, {0}};
    }
    return ND_OK;
}

/* One accelerator.op entry: its peak, default efficiency and measured table. */
static int read_op(const reader *r, const cJSON *ops, const char *name, double *tflops, double *efficiency,
                   const cJSON **table)
{
    int rc;
    const cJSON *op = object(r, ops, "accelerator.op", name, false, &rc);
    *table = NULL;
    if (!op) return rc;
    char where[64];
    snprintf(where, sizeof where, "accelerator.op.%s", name);
    if ((rc = number(r, op, where, "tflops", 0, 1e6, true, tflops))) return rc;
    if ((rc = number(r, op, where, "efficient_factor", 0, EFFICIENCY_MAX, true, efficiency))) return rc;
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(op, "accurate_efficient_factor");
    if (acc && !cJSON_IsNull(acc) && !cJSON_IsObject(acc))
        return bad(r, where, "accurate_efficient_factor", "must be an object of measured shapes");
    *table = acc && cJSON_IsObject(acc) ? acc : NULL;
    return ND_OK;
}

static int read_compute(const reader *r, const cJSON *ops, nd_device *d, nd_kernel_tables *t)
{
    double tflops = 0, eff = 0;
    const cJSON *table;
    size_t gemm_cap = 0, grouped_cap = 0, attention_cap = 0;
    int rc = read_op(r, ops, "matmul", &tflops, &eff, &table);
    if (rc) return rc;
    if (!(tflops > 0 && eff > 0))
        return bad(r, "accelerator.op", "matmul", "must state tflops and efficient_factor");
    d->peak_tflops = tflops;
    d->gemm_efficiency = eff;
    d->gemm_half_dim = 0;
    d->gemm_fixed_us = 0;
    if (table && (rc = read_gemm(r, table, ND_GEMM_16BIT, t, &gemm_cap))) return rc;
    double dense = eff;
    if ((rc = read_op(r, ops, "fp8_matmul", &tflops, &eff, &table))) return rc;
    if (tflops > 0 && eff > 0) { /* 0: not measured, FP8 stays the built-in chip's */
        d->fp8_tflops = tflops;
        d->fp8_gemm_efficiency = eff;
        d->fp8_gemm_half_dim = 0;
        if (table && (rc = read_gemm(r, table, ND_GEMM_FP8, t, &gemm_cap))) return rc;
    }
    prefer_fp32_accumulation(t);
    if ((rc = read_op(r, ops, "group_matmul", &tflops, &eff, &table))) return rc;
    if (eff > 0) d->grouped_gemm_efficiency = d->grouped_wgrad_efficiency = eff / dense;
    if (table && (rc = read_grouped(r, table, ND_GEMM_16BIT, t, &grouped_cap))) return rc;
    for (int bwd = 0; bwd < 2; bwd++) {
        eff = 0;
        if ((rc = read_op(r, ops, bwd ? "sdp_bwd" : "sdp_fwd", &tflops, &eff, &table))) return rc;
        if (eff > 0) *(bwd ? &d->attention_bwd_efficiency : &d->attention_fwd_efficiency) = eff / 2;
        if (table && (rc = read_attention(r, table, bwd, t, &attention_cap))) return rc;
    }
    d->attention_half_seq = 0;
    d->fa2_fwd_efficiency = d->fa2_bwd_efficiency = 0;
    d->cudnn_fwd_efficiency = d->cudnn_bwd_efficiency = 0;
    d->gemm_training_share = 0; /* its GEMMs and attention are measured at training's shapes and rates */
    d->attention_training_share = 0;
    return ND_OK;
}

/* One memory-bound class: its bandwidth (GiB/s), efficiency and fixed time per operator. */
static int read_memop_class(const reader *r, const cJSON *k, const char *where, nd_memop_rate *m)
{
    int rc;
    if ((rc = number(r, k, where, "gbps", 1e-3, 1e7, true, &m->gbps))) return rc;
    if ((rc = number(r, k, where, "efficient_factor", 1e-6, EFFICIENCY_MAX, true, &m->efficiency))) return rc;
    if ((rc = number(r, k, where, "latency_us", 0, 1e6, false, &m->fixed_us))) return rc;
    m->gbps *= GIB_PER_GB;
    m->stated = true;
    return ND_OK;
}

/* accelerator.bandwidth: the memory-bound operators' classes. SimuMax's first system files
 * (its a100_bf16.json) state one class there, flat (gbps, efficient_factor, latency_us): that is
 * the default class; later ones a class a key. Kinds nd has no operator for are not used. */
static int read_bandwidth(const reader *r, const cJSON *bw, nd_device *d, nd_kernel_tables *t)
{
    static const struct {
        const char *kind;
        nd_memop op;
    } kinds[] = {{"default", ND_MEMOP_DEFAULT},
                 {"permute_fwd", ND_MEMOP_PERMUTE_FWD},
                 {"permute_bwd", ND_MEMOP_PERMUTE_BWD},
                 {"ce", ND_MEMOP_CROSS_ENTROPY},
                 {"ce_fusion", ND_MEMOP_CROSS_ENTROPY_FUSED}};
    int rc;
    if (cJSON_GetObjectItemCaseSensitive(bw, "gbps")) {
        if ((rc = read_memop_class(r, bw, "accelerator.bandwidth", &t->memop[ND_MEMOP_DEFAULT]))) return rc;
    } else {
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            const cJSON *k = object(r, bw, "accelerator.bandwidth", kinds[i].kind, i == 0, &rc);
            if (rc) return rc;
            if (!k) continue;
            char where[64];
            snprintf(where, sizeof where, "accelerator.bandwidth.%s", kinds[i].kind);
            if ((rc = read_memop_class(r, k, where, &t->memop[kinds[i].op]))) return rc;
        }
    }
    t->memop[ND_MEMOP_OPTIMIZER] = t->memop[ND_MEMOP_DEFAULT];
    d->hbm_gbps = t->memop[ND_MEMOP_DEFAULT].gbps;
    d->hbm_efficiency = fmin(1.0, t->memop[ND_MEMOP_DEFAULT].efficiency);
    return ND_OK;
}

/* One collective of one network: its efficiency, per-step latency and fixed cost (the link's
 * where the operation states none), and the fixed cost by group size. */
static int read_collective(const reader *r, const cJSON *op, const char *where,
                           const nd_collective_rate *link, nd_collective_rate *c)
{
    *c = *link;
    c->scale = 1;
    c->offset = -1;
    int rc;
    if ((rc = number(r, op, where, "scale", 0, 16, false, &c->scale))) return rc;
    if ((rc = number(r, op, where, "offset", -16, 16, false, &c->offset))) return rc;
    if ((rc = number(r, op, where, "efficient_factor", 1e-6, EFFICIENCY_MAX, false, &c->efficiency)))
        return rc;
    if ((rc = number(r, op, where, "latency_us", 0, 1e6, false, &c->step_us))) return rc;
    if ((rc = number(r, op, where, "fixed_latency_us", 0, 1e6, false, &c->fixed_us))) return rc;
    const cJSON *by = object(r, op, where, "fixed_latency_us_by_comm_num", false, &rc), *e;
    if (rc) return rc;
    cJSON_ArrayForEach(e, by)
    {
        int64_t n;
        if (nd_parse_int64(e->string, 1, 1 << 24, &n))
            return bad(r, where, e->string, "is not a group size (fixed_latency_us_by_comm_num)");
        if (c->sizes_count >= ND_FIXED_BY_SIZE_MAX)
            return bad(r, where, "fixed_latency_us_by_comm_num", "names more group sizes than nd keeps (16)");
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
            return bad(r, where, e->string, "must be a fixed time in us, 0 or more");
        c->sizes[c->sizes_count] = (int)n;
        c->fixed_by_size_us[c->sizes_count++] = e->valuedouble;
    }
    c->stated = true;
    return ND_OK;
}

/* networks.high_intra_node (inside a node) and networks.inter_node (across): SimuMax picks
 * one of these for a group by whether it fits a node; low_intra_node is never picked. The
 * inter-node figure is the node's, shared by its num_per_node NICs. */
static int read_networks(const reader *r, const cJSON *nets, nd_device *d, nd_kernel_tables *t)
{
    static const char *const tiers[ND_LINK_TIERS] = {"high_intra_node", "inter_node"};
    static const char *const ops[ND_COLLECTIVES] = {"all_reduce", "reduce_scatter", "all_gather", "all2all",
                                                    "p2p"};
    int rc;
    const cJSON *pcie = cJSON_GetObjectItemCaseSensitive(nets, "intra_with_pcie");
    if (cJSON_IsTrue(pcie))
        return bad(r, "networks", "intra_with_pcie",
                   "is true: SimuMax's PCIe networks (intra_node_pcie_2x/4x/8x) are not read by nd");
    for (int tier = 0; tier < ND_LINK_TIERS; tier++) {
        const cJSON *net = object(r, nets, "networks", tiers[tier], true, &rc);
        if (!net) return rc;
        char where[96];
        snprintf(where, sizeof where, "networks.%s", tiers[tier]);
        const cJSON *bw = object(r, net, where, "bandwidth", true, &rc);
        if (!bw) return rc;
        nd_collective_rate link = {0};
        link.efficiency = 1;
        snprintf(where, sizeof where, "networks.%s.bandwidth", tiers[tier]);
        if ((rc = number(r, bw, where, "gbps", 1e-3, 1e7, true, &link.gbps))) return rc;
        if ((rc = number(r, bw, where, "efficient_factor", 1e-6, EFFICIENCY_MAX, false, &link.efficiency)))
            return rc;
        if ((rc = number(r, bw, where, "latency_us", 0, 1e6, false, &link.step_us))) return rc;
        if ((rc = number(r, bw, where, "fixed_latency", 0, 1e6, false, &link.fixed_us))) return rc;
        link.gbps *= GIB_PER_GB;
        if (tier == ND_TIER_INTER) link.gbps /= d->devices_per_node; /* one NIC's share */
        snprintf(where, sizeof where, "networks.%s", tiers[tier]);
        const cJSON *opmap = object(r, net, where, "op", false, &rc);
        if (rc) return rc;
        for (int c = 0; c < ND_COLLECTIVES; c++) {
            const cJSON *op = opmap ? cJSON_GetObjectItemCaseSensitive(opmap, ops[c]) : NULL;
            snprintf(where, sizeof where, "networks.%s.op.%s", tiers[tier], ops[c]);
            if (op && !cJSON_IsObject(op)) return bad(r, where, ops[c], "must be an object");
            if ((rc = read_collective(r, op, where, &link, &t->collective[tier][c]))) return rc;
            if (!op && c == ND_COLLECTIVES - 1) t->collective[tier][c].offset = 0; /* p2p moves its bytes */
        }
        if (tier == ND_TIER_INTRA) {
            d->intra_gbps = link.gbps;
            d->intra_efficiency = fmin(1.0, link.efficiency);
            d->intra_latency_us = link.step_us;
            d->intra_base_us = link.fixed_us;
            d->intra_link_gbps = 0;
        } else {
            d->inter_gbps = link.gbps;
            d->inter_efficiency = fmin(1.0, link.efficiency);
            d->inter_latency_us = link.step_us;
            d->inter_base_us = link.fixed_us;
        }
    }
    return ND_OK;
}

/* The built-in device the file describes: the longest built-in name sys_name starts with
 * ("b200_bf16_ceperm" is a B200), else the one of the same 16-bit peak. */
static const nd_device *chip_of(const nd_device_table *table, const char *sys_name, double peak)
{
    const nd_device *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < table->count; i++) {
        const char *name = table->items[i].name;
        size_t n = strlen(name);
        bool prefix = n <= strlen(sys_name) && n > best_len;
        for (size_t j = 0; prefix && j < n; j++)
            prefix = (name[j] | 0x20) == (sys_name[j] | 0x20) || name[j] == sys_name[j];
        if (prefix && (sys_name[n] == '\0' || sys_name[n] == '_' || sys_name[n] == '-')) {
            best = &table->items[i];
            best_len = n;
        }
    }
    for (int i = 0; !best && i < table->count; i++)
        if (table->items[i].peak_tflops == peak) best = &table->items[i];
    return best;
}

static int read_system(reader *r, const cJSON *root, nd_device_table *table, nd_kernel_tables *t,
                       nd_device *d)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "sys_name");
    if (!cJSON_IsString(name)) return bad(r, "the SimuMax system file", "sys_name", "must be a string");
    long chars = nd_text_name_chars(name->valuestring);
    if (chars < 1 || chars > ND_DEVICE_NAME_CHARS)
        return bad(r, "the SimuMax system file", "sys_name", "must be 1 to 31 characters of printable UTF-8");
    int rc;
    const cJSON *acc = object(r, root, "the SimuMax system file", "accelerator", true, &rc);
    if (!acc) return rc;
    const cJSON *ops = object(r, acc, "accelerator", "op", true, &rc);
    if (!ops) return rc;
    double peak = 0, ignored;
    const cJSON *matmul = cJSON_GetObjectItemCaseSensitive(ops, "matmul");
    if (cJSON_IsObject(matmul) &&
        (rc = number(r, matmul, "accelerator.op.matmul", "tflops", 0, 1e6, true, &peak)))
        return rc;
    const nd_device *chip = chip_of(table, name->valuestring, peak);
    if (!chip) {
        char names[512];
        nd_device_table_names(table, names, sizeof names);
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: sys_name '%s' names no known chip and no device has its %g TFLOP/s: "
                            "state it in a YAML device file (base: CHIP, kernel_tables: %s; known: %s)",
                            r->path, line_of(r, "sys_name"), name->valuestring, peak, r->path, names);
    }
    *d = *chip;
    nd_text_copy(d->name, name->valuestring, sizeof d->name);
    snprintf(d->description, sizeof d->description, "SimuMax system file (%.31s figures beyond it)",
             chip->name);
    double per_node = 8, mem_gib = 0;
    if ((rc = number(r, root, "the SimuMax system file", "num_per_node", 1, 1 << 20, true, &per_node)))
        return rc;
    d->devices_per_node = (int)per_node;
    if ((rc = number(r, acc, "accelerator", "mem_gbs", 1, 1 << 20, false, &mem_gib))) return rc;
    if (mem_gib > 0) d->hbm_gib = mem_gib;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(acc, "mode");
    if (mode && !(cJSON_IsString(mode) && !strcmp(mode->valuestring, "roofline")))
        return bad(r, "accelerator", "mode", "must be \"roofline\" (nd prices every kernel on its roofline)");
    if ((rc = read_compute(r, ops, d, t))) return rc;
    const cJSON *bw = object(r, acc, "accelerator", "bandwidth", true, &rc);
    if (!bw) return rc;
    if ((rc = read_bandwidth(r, bw, d, t))) return rc;
    const cJSON *nets = object(r, root, "the SimuMax system file", "networks", true, &rc);
    if (!nets) return rc;
    if ((rc = read_networks(r, nets, d, t))) return rc;
    (void)ignored;
    /* the file's per-operator fixed time stands for each kernel's launch and ramp */
    d->kernel_launch_us = 0;
    return ND_OK;
}

bool nd_device_file_is_simumax(const char *text, size_t len)
{
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    return i < len && text[i] == '{';
}

int nd_kernel_tables_read_simumax(nd_device_table *table, const char *path, const char *text, size_t len,
                                  nd_device *device, nd_kernel_tables **tables, nd_error *err)
{
    cJSON *root = NULL;
    *tables = NULL;
    int rc = nd_json_parse(text, len, path, &root, err);
    if (rc) return rc;
    nd_kernel_tables *t = calloc(1, sizeof *t);
    if (!t) {
        cJSON_Delete(root);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    nd_text_copy(t->source, path, sizeof t->source);
    reader r = {path, text, err};
    if (!cJSON_IsObject(root))
        rc = nd_error_set(err, ND_EINPUT, "%s:1: a SimuMax system file is one JSON object", path);
    else
        rc = read_system(&r, root, table, t, device);
    cJSON_Delete(root);
    if (rc) {
        nd_kernel_tables_free(t);
        return rc;
    }
    nd_kernel_tables_index(t); /* out of memory: no memo, the same answers more slowly */
    *tables = t;
    return ND_OK;
}
