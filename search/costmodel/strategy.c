/*
 * strategy.c — parsing and checking a parallel strategy.
 *
 * The checks are the rules the frameworks (Megatron-LM, MindSpeed) enforce,
 * each reported with the numbers that break it. docs/search.md lists them with
 * the reason for each.
 */
#include "nd/costmodel/strategy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/array.h"
#include "nd/costmodel/split.h"
#include "nd/costmodel/train.h"

#define DEGREE_MAX ((int64_t)1 << 20)

void nd_strategy_init(nd_strategy *s)
{
    memset(s, 0, sizeof *s);
    s->dp = s->tp = s->pp = s->cp = s->ep = s->op = s->vpp = s->mb = s->mbs = 1;
    s->etp = 0;   /* follows tp */
    s->zero = -1; /* follows op */
    s->recompute = ND_RECOMPUTE_OFF;
    s->schedule = ND_SCHEDULE_1F1B;
}

static const char *recompute_names[] = {"off", "selective", "full"};
static const char *schedule_names[] = {"1f1b",  "interleaved", "zb-h1",    "gpipe",
                                       "zb-h2", "zb-v",        "dualpipe", "dualpipev"};
_Static_assert(ND_ARRAY_LEN(schedule_names) == ND_SCHEDULES, "a name per schedule");

const char *nd_recompute_name(nd_recompute r)
{
    return r < ND_RECOMPUTE_MODES ? recompute_names[r] : "?";
}

int nd_recompute_parse(const char *text, nd_recompute *out)
{
    for (int i = 0; i < ND_RECOMPUTE_MODES; i++)
        if (nd_text_equal_nocase(text, recompute_names[i])) {
            *out = (nd_recompute)i;
            return 0;
        }
    /* "none" (older search configs), and "no" and "false", which YAML 1.1 (PyYAML, ND's
     * reader) reads as False: ND's off (HyperParallel's recompute_dimension.py) */
    if (nd_text_equal_nocase(text, "none") || nd_text_equal_nocase(text, "no") ||
        nd_text_equal_nocase(text, "false")) {
        *out = ND_RECOMPUTE_OFF;
        return 0;
    }
    return -1;
}

const char *nd_schedule_name(nd_schedule s)
{
    return s < ND_SCHEDULES ? schedule_names[s] : "?";
}

int nd_schedule_parse(const char *text, nd_schedule *out)
{
    for (int i = 0; i < ND_SCHEDULES; i++)
        if (nd_text_equal_nocase(text, schedule_names[i])) {
            *out = (nd_schedule)i;
            return 0;
        }
    /* other spellings: nd's earlier ones, torchtitan's schedule classes, DeepSeek's */
    static const struct {
        const char *name;
        nd_schedule schedule;
    } aliases[] = {{"zb", ND_SCHEDULE_ZB_H1},
                   {"zbh1", ND_SCHEDULE_ZB_H1},
                   {"zero_bubble", ND_SCHEDULE_ZB_H1},
                   {"vpp", ND_SCHEDULE_INTERLEAVED},
                   {"interleaved1f1b", ND_SCHEDULE_INTERLEAVED},
                   {"zbh2", ND_SCHEDULE_ZB_H2},
                   {"zbv", ND_SCHEDULE_ZB_V},
                   {"zbvzerobubble", ND_SCHEDULE_ZB_V},
                   {"dualpipe_v", ND_SCHEDULE_DUALPIPE_V},
                   {"dualpipe-v", ND_SCHEDULE_DUALPIPE_V}};
    for (size_t i = 0; i < ND_ARRAY_LEN(aliases); i++)
        if (nd_text_equal_nocase(text, aliases[i].name)) {
            *out = aliases[i].schedule;
            return 0;
        }
    return -1;
}

int64_t nd_strategy_dim(const nd_strategy *s, nd_dim d)
{
    switch (d) {
    case ND_DIM_DP: return s->dp;
    case ND_DIM_EP: return s->ep;
    case ND_DIM_MP: return s->tp;
    case ND_DIM_CP: return s->cp;
    case ND_DIM_PP: return s->pp;
    case ND_DIM_VPP: return s->vpp;
    case ND_DIM_MB: return s->mb;
    case ND_DIM_MBS: return s->mbs;
    case ND_DIM_SP: return s->sp;
    case ND_DIM_OP: return s->op;
    case ND_DIM_ETP: return s->etp;
    case ND_DIM_ZERO: return s->zero;
    default: return 0;
    }
}

void nd_strategy_set_dim(nd_strategy *s, nd_dim d, int64_t v)
{
    switch (d) {
    case ND_DIM_DP: s->dp = v; break;
    case ND_DIM_EP: s->ep = v; break;
    case ND_DIM_MP: s->tp = v; break;
    case ND_DIM_CP: s->cp = v; break;
    case ND_DIM_PP: s->pp = v; break;
    case ND_DIM_VPP: s->vpp = v; break;
    case ND_DIM_MB: s->mb = v; break;
    case ND_DIM_MBS: s->mbs = v; break;
    case ND_DIM_SP: s->sp = v != 0; break;
    case ND_DIM_OP: s->op = v; break;
    case ND_DIM_ETP: s->etp = v; break;
    case ND_DIM_ZERO: s->zero = (int)v; break;
    default: break;
    }
}

int64_t nd_strategy_dim_resolved(const nd_strategy *s, nd_dim d)
{
    int64_t v = nd_strategy_dim(s, d);
    if (d == ND_DIM_ETP && v == 0) return s->tp;
    if (d == ND_DIM_ZERO && v < 0) return 0;
    return v;
}

static int parse_whole(const char *key, const char *value, int64_t min, int64_t *v, nd_error *err)
{
    if (!nd_parse_int64(value, min, DEGREE_MAX, v)) return ND_OK;
    return nd_error_set(err, ND_EINPUT, "strategy %s=%s: not a whole number in [%d, %lld]", key, value,
                        (int)min, (long long)DEGREE_MAX);
}

/* "DP MP/TP PP ... SP FIRST LAST recompute schedule": every key nd_strategy_set takes. */
static void known_keys(char *buf, size_t size)
{
    size_t used = 0;
    for (int i = 0; i < ND_DIMS && used < size; i++) {
        const nd_dim_info *d = &nd_dims[nd_dim_strategy_order[i]];
        used += (size_t)snprintf(buf + used, size - used, "%s%s%s ", d->name, d->synonym ? "/" : "",
                                 d->synonym ? d->synonym : "");
    }
    if (used < size)
        snprintf(buf + used, size - used, "%s %s %s %s", nd_strategy_keys.first, nd_strategy_keys.last,
                 nd_strategy_keys.recompute, nd_strategy_keys.schedule);
}

int nd_strategy_set(nd_strategy *s, const char *key, const char *value, nd_error *err)
{
    int d = nd_dim_from_name(key), rc;
    int64_t v;
    if (d == ND_DIM_ZERO) {
        if (nd_parse_int64(value, 0, 3, &v))
            return nd_error_set(err, ND_EINPUT,
                                "strategy ZERO=%s: must be 0 (no sharding), 1 (optimizer states), "
                                "2 (+ gradients) or 3 (+ parameters, FSDP)",
                                value);
        s->zero = (int)v;
        return ND_OK;
    }
    if (d == ND_DIM_SP) {
        if (nd_parse_bool(value, &s->sp))
            return nd_error_set(err, ND_EINPUT, "strategy SP=%s: must be 1/0 (true/false)", value);
        return ND_OK;
    }
    if (d >= 0) {
        /* ETP 0 means "as MP" */
        if ((rc = parse_whole(nd_dim_spelling((nd_dim)d, key), value, d == ND_DIM_ETP ? 0 : 1, &v, err)))
            return rc;
        nd_strategy_set_dim(s, (nd_dim)d, v);
        return ND_OK;
    }
    /* Uneven first and last pipeline stages; 0 = the even split. */
    int64_t *stage = nd_text_equal_nocase(key, nd_strategy_keys.first)  ? &s->first_stage_layers
                     : nd_text_equal_nocase(key, nd_strategy_keys.last) ? &s->last_stage_layers
                                                                        : NULL;
    if (stage) {
        const char *name = stage == &s->first_stage_layers ? nd_strategy_keys.first : nd_strategy_keys.last;
        if ((rc = parse_whole(name, value, 0, &v, err))) return rc;
        *stage = v;
        return ND_OK;
    }
    if (nd_text_equal_nocase(key, nd_strategy_keys.recompute)) {
        if (nd_recompute_parse(value, &s->recompute))
            return nd_error_set(err, ND_EINPUT, "strategy recompute=%s: must be off, selective or full",
                                value);
        return ND_OK;
    }
    if (nd_text_equal_nocase(key, nd_strategy_keys.schedule)) {
        if (nd_schedule_parse(value, &s->schedule))
            return nd_error_set(
                err, ND_EINPUT,
                "strategy schedule=%s: must be 1f1b, interleaved, zb-h1, zb-h2, zb-v, gpipe, dualpipe or "
                "dualpipev",
                value);
        return ND_OK;
    }
    char known[160];
    known_keys(known, sizeof known);
    char hint_buf[ND_TEXT_HINT_MAX];
    return nd_error_set(err, ND_EINPUT, "strategy key '%s' is unknown (%sknown: %s)", key,
                        nd_text_hint(key, known, hint_buf), known);
}

/* Which field key names: a dimension, or one of the four other strategy keys; -1 if none. */
static int field_of(const char *key)
{
    int d = nd_dim_from_name(key);
    if (d >= 0) return d;
    const char *others[] = {nd_strategy_keys.first, nd_strategy_keys.last, nd_strategy_keys.recompute,
                            nd_strategy_keys.schedule};
    for (size_t i = 0; i < ND_ARRAY_LEN(others); i++)
        if (nd_text_equal_nocase(key, others[i])) return ND_DIMS + (int)i;
    return -1;
}

int nd_strategy_set_once(nd_strategy *s, const char *key, const char *value, uint64_t *seen, nd_error *err)
{
    int f = field_of(key);
    if (f >= 0 && f < 64 && (*seen >> f & 1))
        return nd_error_set(err, ND_EINPUT,
                            "strategy key '%s' sets %s a second time (one field, "
                            "several spellings: state it once)",
                            key, f < ND_DIMS ? nd_dim_name((nd_dim)f) : key);
    if (f >= 0 && f < 64) *seen |= (uint64_t)1 << f;
    return nd_strategy_set(s, key, value, err);
}

int nd_strategy_parse(nd_strategy *s, const char *text, nd_error *err)
{
    uint64_t seen = 0;
    const char *p = text;
    for (;;) {
        while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
        if (!*p) return ND_OK;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p) && *p != ',') p++;
        char item[128];
        size_t n = (size_t)(p - start);
        if (n >= sizeof item) return nd_error_set(err, ND_EINPUT, "strategy item too long: %.40s...", start);
        memcpy(item, start, n);
        item[n] = '\0';
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1])
            return nd_error_set(err, ND_EINPUT, "strategy item '%s' is not KEY=VALUE", item);
        *eq = '\0';
        int rc = nd_strategy_set_once(s, item, eq + 1, &seen, err);
        if (rc) return rc;
    }
}

int64_t nd_strategy_devices(const nd_strategy *s)
{
    /* four degrees of up to 2^20 multiply to 2^80: the product is bounded in double first */
    double p = (double)s->dp * (double)s->tp * (double)s->pp * (double)s->cp;
    return p >= 1 && p <= ND_STRATEGY_DEVICES_MAX ? s->dp * s->tp * s->pp * s->cp : -1;
}

int64_t nd_strategy_expert_dp(const nd_strategy *s)
{
    return s->dp * s->cp * s->tp / (s->ep * s->etp);
}

int64_t nd_strategy_expert_op(const nd_strategy *s)
{
    int64_t a = s->op, b = nd_strategy_expert_dp(s);
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int check_layers(const nd_strategy *s, const nd_model *m, nd_error *err)
{
    char why[320];
    if (nd_split_check(s, m->layers, why, sizeof why)) return nd_error_set(err, ND_EINPUT, "%s", why);
    return ND_OK;
}

static int check_heads_and_widths(const nd_strategy *s, const nd_model *m, nd_error *err)
{
    if (m->heads % s->tp)
        return nd_error_set(err, ND_EINPUT,
                            "MP=%lld: the %lld attention heads do not divide over %lld "
                            "tensor-parallel ranks",
                            (long long)s->tp, (long long)m->heads, (long long)s->tp);
    if (m->attention == ND_ATTN_MHA && m->kv_heads % s->tp)
        return nd_error_set(err, ND_EINPUT,
                            "MP=%lld: the %lld KV heads (query groups) do not divide over %lld "
                            "tensor-parallel ranks",
                            (long long)s->tp, (long long)m->kv_heads, (long long)s->tp);
    if (m->ffn && m->ffn % s->tp)
        return nd_error_set(err, ND_EINPUT, "MP=%lld: the MLP width %lld does not divide over %lld ranks",
                            (long long)s->tp, (long long)m->ffn, (long long)s->tp);
    if (m->experts && m->shared_experts && (m->shared_experts * m->shared_ffn) % s->tp)
        return nd_error_set(err, ND_EINPUT,
                            "MP=%lld: the shared-expert width does not divide over %lld ranks",
                            (long long)s->tp, (long long)s->tp);
    return ND_OK;
}

static int check_experts(nd_strategy *s, const nd_model *m, nd_error *err)
{
    if (s->etp == 0) s->etp = s->tp;
    if (!m->experts) {
        if (s->ep > 1)
            return nd_error_set(err, ND_EINPUT, "EP=%lld: the model has no experts", (long long)s->ep);
        s->etp = s->tp;
        return ND_OK;
    }
    if (m->experts % s->ep)
        return nd_error_set(err, ND_EINPUT,
                            "EP=%lld: the %lld experts do not divide over %lld "
                            "expert-parallel ranks",
                            (long long)s->ep, (long long)m->experts, (long long)s->ep);
    if (m->moe_ffn % s->etp)
        return nd_error_set(err, ND_EINPUT, "ETP=%lld: the expert width %lld does not divide over %lld ranks",
                            (long long)s->etp, (long long)m->moe_ffn, (long long)s->etp);
    int64_t domain = s->tp * s->cp * s->dp;
    if (domain % (s->ep * s->etp))
        return nd_error_set(err, ND_EINPUT,
                            "EP=%lld ETP=%lld: experts fold over the MP*CP*DP = %lld ranks of a "
                            "stage, which EP*ETP = %lld does not divide",
                            (long long)s->ep, (long long)s->etp, (long long)domain,
                            (long long)(s->ep * s->etp));
    return ND_OK;
}

/* The schedules that run two chunks a rank in a V (ZB-V, DualPipeV) and DualPipe's two
 * directions, with what each needs (Qi et al. 2024; DeepSeek-AI 2024, §3.2.1 and its DualPipe
 * repository). */
static bool v_shaped(nd_schedule sc)
{
    return sc == ND_SCHEDULE_ZB_V || sc == ND_SCHEDULE_DUALPIPE_V;
}

static int check_pipeline(nd_strategy *s, nd_error *err)
{
    long long pp = (long long)s->pp, vpp = (long long)s->vpp, mb = (long long)s->mb;
    if (s->vpp > 1 && s->schedule == ND_SCHEDULE_1F1B) s->schedule = ND_SCHEDULE_INTERLEAVED;
    if (v_shaped(s->schedule) && s->vpp == 1) s->vpp = 2; /* its two chunks a rank */
    const char *name = nd_schedule_name(s->schedule);
    if (s->vpp > ND_MAX_CHUNKS_PER_RANK || s->pp * s->vpp > ND_MAX_VIRTUAL_STAGES)
        return nd_error_set(err, ND_EINPUT, "VPP=%lld: at most %d chunks a rank and %d virtual stages in all",
                            vpp, ND_MAX_CHUNKS_PER_RANK, ND_MAX_VIRTUAL_STAGES);
    switch (s->schedule) {
    case ND_SCHEDULE_INTERLEAVED:
        if (s->vpp < 2 || s->pp < 2)
            return nd_error_set(err, ND_EINPUT,
                                "schedule=interleaved needs PP >= 2 and VPP >= 2 (here PP=%lld VPP=%lld)", pp,
                                vpp);
        if (s->mb % s->pp)
            return nd_error_set(err, ND_EINPUT,
                                "VPP=%lld: the interleaved schedule runs micro-batches in groups of "
                                "PP=%lld, which MB=%lld is not a multiple of",
                                vpp, pp, mb);
        return ND_OK;
    case ND_SCHEDULE_ZB_V:
    case ND_SCHEDULE_DUALPIPE_V:
        if (s->vpp != 2 || s->pp < 2)
            return nd_error_set(err, ND_EINPUT,
                                "schedule=%s runs two chunks on each of PP >= 2 ranks (here PP=%lld "
                                "VPP=%lld)",
                                name, pp, vpp);
        if (s->mb < 2 * s->pp)
            return nd_error_set(err, ND_EINPUT,
                                "schedule=%s needs at least 2 x PP = %lld micro-batches (MB=%lld)", name,
                                2 * pp, mb);
        return ND_OK;
    case ND_SCHEDULE_DUALPIPE:
        if (s->vpp != 1 || s->pp < 2 || s->pp % 2)
            return nd_error_set(err, ND_EINPUT,
                                "schedule=dualpipe needs an even PP >= 2 and VPP 1 (here PP=%lld VPP=%lld)",
                                pp, vpp);
        if (s->mb < 2 * s->pp || s->mb % 2)
            return nd_error_set(err, ND_EINPUT,
                                "schedule=dualpipe feeds half the micro-batches from each end: MB=%lld "
                                "must be even and at least 2 x PP = %lld",
                                mb, 2 * pp);
        return ND_OK;
    default:
        if (s->vpp > 1)
            return nd_error_set(err, ND_EINPUT,
                                "VPP=%lld needs schedule=interleaved, zb-v or dualpipev, not %s", vpp, name);
        return ND_OK;
    }
}

int nd_strategy_check_cp_heads(int64_t tp, int64_t cp, const nd_model *m, const nd_train *t, nd_error *err)
{
    int64_t ulysses = nd_train_cp_head_split(t, cp), split = tp * ulysses;
    if (ulysses == 1) return ND_OK; /* MP's own split is check_heads_and_widths' */
    const char *form = t->cp_comm == ND_CP_A2A ? "a2a" : "hybrid";
    if (m->heads % split)
        return nd_error_set(err, ND_EINPUT,
                            "CP=%lld with its all-to-alls (cp_comm %s): the %lld attention heads do not "
                            "divide over MP x the all-to-all group = %lld ranks, each of which computes "
                            "whole heads",
                            (long long)cp, form, (long long)m->heads, (long long)split);
    /* Transformer Engine's all-to-all splits K and V by head too (MLA: a K/V head per head) */
    int64_t kv = m->attention == ND_ATTN_MHA ? m->kv_heads : m->heads;
    if (t->framework == ND_FRAMEWORK_MEGATRON && kv % split)
        return nd_error_set(err, ND_EINPUT,
                            "CP=%lld with its all-to-alls (cp_comm %s): the %lld K/V heads do not divide "
                            "over MP x the all-to-all group = %lld ranks (Transformer Engine's all-to-all "
                            "splits K and V by head too)",
                            (long long)cp, form, (long long)kv, (long long)split);
    return ND_OK;
}

int nd_strategy_check(nd_strategy *s, const nd_model *m, int64_t devices, int64_t global_batch,
                      int64_t seq_len, nd_error *err)
{
    int rc;
    const int64_t *degrees[] = {&s->dp, &s->tp, &s->pp, &s->cp, &s->ep, &s->op, &s->vpp, &s->mb, &s->mbs};
    for (size_t i = 0; i < ND_ARRAY_LEN(degrees); i++)
        if (*degrees[i] < 1 || *degrees[i] > DEGREE_MAX)
            return nd_error_set(err, ND_EINPUT, "strategy degrees must be whole numbers in [1, %lld]",
                                (long long)DEGREE_MAX);
    if (nd_strategy_devices(s) < 0)
        return nd_error_set(err, ND_EINPUT, "DP*MP*PP*CP = %lld*%lld*%lld*%lld is more than %.0f devices",
                            (long long)s->dp, (long long)s->tp, (long long)s->pp, (long long)s->cp,
                            ND_STRATEGY_DEVICES_MAX);
    if (devices > 0 && nd_strategy_devices(s) != devices)
        return nd_error_set(err, ND_EINPUT,
                            "DP*MP*PP*CP = %lld*%lld*%lld*%lld = %lld devices, but the cluster has %lld",
                            (long long)s->dp, (long long)s->tp, (long long)s->pp, (long long)s->cp,
                            (long long)nd_strategy_devices(s), (long long)devices);
    if (global_batch > 0 && s->dp * s->mb * s->mbs != global_batch)
        return nd_error_set(err, ND_EINPUT,
                            "DP*MB*MBS = %lld*%lld*%lld = %lld sequences per step, but the global "
                            "batch is %lld",
                            (long long)s->dp, (long long)s->mb, (long long)s->mbs,
                            (long long)(s->dp * s->mb * s->mbs), (long long)global_batch);
    if ((rc = check_heads_and_widths(s, m, err))) return rc;
    if (v_shaped(s->schedule) && s->vpp == 1) s->vpp = 2;
    if ((rc = check_layers(s, m, err))) return rc;
    if ((rc = check_experts(s, m, err))) return rc;
    if (s->cp > 1 && seq_len % (2 * s->cp))
        return nd_error_set(err, ND_EINPUT,
                            "CP=%lld: the sequence of %lld tokens does not split into 2*CP = %lld "
                            "load-balanced chunks",
                            (long long)s->cp, (long long)seq_len, (long long)(2 * s->cp));
    if ((s->dp * s->cp) % s->op)
        return nd_error_set(err, ND_EINPUT,
                            "OP=%lld: optimizer sharding spans the DP*CP = %lld ranks holding the "
                            "same parameters, which %lld does not divide",
                            (long long)s->op, (long long)(s->dp * s->cp), (long long)s->op);
    if (s->zero < 0) s->zero = s->op > 1 ? 1 : 0;
    if (s->zero > 0 && s->op == 1) s->zero = 0; /* one shard holds everything */
    if (s->tp == 1) s->sp = false;              /* nothing to shard the sequence over */
    return check_pipeline(s, err);
}

void nd_strategy_stage_layers(const nd_strategy *s, int64_t layers, int64_t stage, int64_t *first,
                              int64_t *count)
{
    int64_t chunk_count;
    nd_split_chunk(s, layers, stage, 0, first, &chunk_count);
    *count = nd_split_rank_layers(s, layers, stage);
}

void nd_strategy_format(const nd_strategy *s, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < ND_DIMS && used < size; i++) {
        nd_dim d = nd_dim_strategy_order[i];
        used += (size_t)snprintf(buf + used, size - used, "%s=%lld ", nd_dim_name(d),
                                 (long long)nd_strategy_dim_resolved(s, d));
    }
    if (used < size)
        used += (size_t)snprintf(buf + used, size - used, "%s=%s %s=%s", nd_strategy_keys.recompute,
                                 nd_recompute_name(s->recompute), nd_strategy_keys.schedule,
                                 nd_schedule_name(s->schedule));
    if (used < size && (s->first_stage_layers || s->last_stage_layers))
        snprintf(buf + used, size - used, " %s=%lld %s=%lld", nd_strategy_keys.first,
                 (long long)s->first_stage_layers, nd_strategy_keys.last, (long long)s->last_stage_layers);
}

void nd_strategy_label(const nd_strategy *s, char *buf, size_t size)
{
    int64_t degree[ND_DIMS_SEARCHED];
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) degree[d] = nd_strategy_dim(s, (nd_dim)d);
    nd_dim_label(degree, buf, size);
}

bool nd_strategy_uneven_split(int64_t layers, int64_t pp, int64_t *first, int64_t *last)
{
    return nd_split_uneven(layers, pp, 1, first, last);
}
