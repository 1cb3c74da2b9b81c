/*
 * census.c — ND's -V: nd's model against its checkpoint's tensors (census.h).
 *
 * A tensor's role comes from its name as the Hugging Face families write them
 * (model.layers.N.self_attn.q_proj.weight, ...mlp.experts.E.down_proj.weight, GPT-2's
 * h.N.attn.c_attn, Mixtral's block_sparse_moe.experts.E.w1, DeepSeek's kv_a_proj_with_mqa):
 * the layer index, the block (attention, MLP, routed experts, shared experts, router,
 * norms) and the leaf name. Sizes are compared as element counts, so a transposed
 * layout (GPT-2's Conv1D) matches.
 */
#include "nd/inputs/census.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/costmodel/layer.h"
#include "nd/inputs/model_fields.h"
#include "nd/base/yaml_doc.h"
#include "nd/base/array.h"

typedef enum { P_ATTN, P_NORMS, P_MLP, P_ROUTED, P_SHARED, P_EMBED, P_HEAD, P_MTP, P_OTHER, PARTS } part;

static const char *const part_names[PARTS] = {
    "attention", "norms",       "dense MLP",   "routed experts", "shared experts and router",
    "embedding", "output head", "MTP modules", "other",
};

/* What a tensor's name says. */
typedef struct role {
    int64_t layer; /* -1: not a layer's */
    part p;
    char leaf[64]; /* "q_proj", "w1", "e_score_correction_bias" */
    bool bias;
    bool fused_experts;  /* experts.gate_up_proj: every expert in one 3-D tensor */
    int64_t expert;      /* -1: none */
    char canonical[256]; /* the name with the layer index as '*' */
} role;

static bool has(const char *s, const char *sub)
{
    return strstr(s, sub) != NULL;
}

static bool leaf_is(const char *leaf, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(leaf, *names)) return true;
    return false;
}

/* The layer index after "layers.", "h.", "blocks." or "layer." (as a whole component). */
static int64_t layer_index(const char *name, const char **after_index, size_t *index_at, size_t *index_len)
{
    static const char *const keys[] = {"layers.", "h.", "blocks.", "layer.", NULL};
    for (const char *const *k = keys; *k; k++) {
        for (const char *p = strstr(name, *k); p; p = strstr(p + 1, *k)) {
            if (p != name && p[-1] != '.') continue;
            const char *d = p + strlen(*k);
            if (!isdigit((unsigned char)*d)) continue;
            char *end;
            long long v = strtoll(d, &end, 10);
            if (*end != '.' || v < 0 || v > (1 << 20)) continue;
            *after_index = end + 1;
            *index_at = (size_t)(d - name);
            *index_len = (size_t)(end - d);
            return v;
        }
    }
    *after_index = name;
    return -1;
}

static void read_role(const char *name, role *r)
{
    memset(r, 0, sizeof *r);
    r->expert = -1;
    const char *local;
    size_t at = 0, len = 0;
    r->layer = layer_index(name, &local, &at, &len);
    if (r->layer >= 0)
        snprintf(r->canonical, sizeof r->canonical, "%.*s*%s", (int)at, name, name + at + len);
    else
        snprintf(r->canonical, sizeof r->canonical, "%s", name);
    /* the leaf: the last component, or the one before .weight/.bias */
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", local);
    char *last = strrchr(tmp, '.');
    if (last && (!strcmp(last, ".weight") || !strcmp(last, ".bias"))) {
        r->bias = !strcmp(last, ".bias");
        *last = '\0';
        last = strrchr(tmp, '.');
    }
    snprintf(r->leaf, sizeof r->leaf, "%.63s", last ? last + 1 : tmp);
    const char *e = strstr(local, "experts.");
    if (e && (e == local || e[-1] == '.') && !has(local, "shared_expert")) {
        if (isdigit((unsigned char)e[8]))
            r->expert = strtoll(e + 8, NULL, 10);
        else
            r->fused_experts = true;
    }
    if (r->layer < 0) {
        static const char *const embed[] = {"embed_tokens",
                                            "wte",
                                            "word_embeddings",
                                            "tok_embeddings",
                                            "embed_in",
                                            "wpe",
                                            "position_embeddings",
                                            "embed_positions",
                                            NULL};
        static const char *const head[] = {"lm_head",         "embed_out", "output",     "norm", "ln_f",
                                           "final_layernorm", "norm_f",    "final_norm", NULL};
        r->p = has(name, "mtp")          ? P_MTP
               : leaf_is(r->leaf, embed) ? P_EMBED
               : leaf_is(r->leaf, head)  ? P_HEAD
                                         : P_OTHER;
        return;
    }
    /* a norm right under the layer (input_layernorm, post_attention_layernorm, ln_1) */
    if (!strchr(tmp, '.') && (has(r->leaf, "norm") || !strncmp(r->leaf, "ln", 2))) {
        r->p = P_NORMS;
        return;
    }
    bool mlp = has(local, "mlp") || has(local, "block_sparse_moe") || has(local, "feed_forward") ||
               has(local, "ffn.") || has(local, "moe.");
    if (has(local, "shared_expert"))
        r->p = P_SHARED;
    else if (r->expert >= 0 || r->fused_experts)
        r->p = P_ROUTED;
    else if (!strcmp(r->leaf, "e_score_correction_bias") || has(local, "router") ||
             (mlp && !strcmp(r->leaf, "gate")))
        r->p = P_SHARED; /* the router, priced with the shared experts (model.h) */
    else if (has(local, "attn") || has(local, "attention"))
        r->p = P_ATTN;
    else if (mlp)
        r->p = P_MLP;
    else if (has(r->leaf, "norm") || !strncmp(r->leaf, "ln", 2))
        r->p = P_NORMS;
    else
        r->p = P_OTHER;
}

static const char *const Q[] = {"q_proj", "wq", "query", "q", NULL};
static const char *const K[] = {"k_proj", "wk", "key", "k", NULL};
static const char *const V[] = {"v_proj", "wv", "value", "v", NULL};
static const char *const QKV[] = {"qkv_proj",   "query_key_value", "c_attn", "Wqkv",
                                  "linear_qkv", "W_pack",          NULL};
static const char *const O[] = {"o_proj", "wo", "dense", "out_proj", "c_proj", "linear_proj", NULL};
static const char *const QN[] = {"q_norm", "q_layernorm", NULL};
static const char *const KN[] = {"k_norm", "k_layernorm", NULL};
static const char *const GATE[] = {"gate_proj", "w1", "linear_fc1_gate", NULL};
static const char *const UP[] = {"up_proj", "w3", NULL};
static const char *const UP_PLAIN[] = {"up_proj", "c_fc", "dense_h_to_4h", "fc1", "fc_in", NULL};
static const char *const GATE_UP[] = {"gate_up_proj", "linear_fc1", NULL};
static const char *const DOWN[] = {"down_proj", "w2",     "dense_4h_to_h", "fc2",
                                   "c_proj",    "fc_out", "linear_fc2",    NULL};

/* The elements nd's model m gives a layer's tensor of role r, -1 when it has no such role. */
static int64_t expected_in_layer(const nd_model *m, nd_layer_kind kind, const role *r)
{
    int64_t h = m->hidden, a = m->heads, dh = m->head_dim, kv = m->kv_heads;
    const char *l = r->leaf;
    if (r->p == P_ATTN) {
        if (m->attention == ND_ATTN_MLA) {
            int64_t qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
            if (!strcmp(l, "q_a_proj")) return r->bias ? -1 : m->q_lora_rank * h;
            if (!strcmp(l, "q_a_layernorm")) return m->q_lora_rank;
            if (!strcmp(l, "q_b_proj")) return r->bias ? -1 : a * qk * m->q_lora_rank;
            if (!strcmp(l, "q_proj")) return r->bias ? -1 : a * qk * h;
            if (!strcmp(l, "kv_a_proj_with_mqa"))
                return r->bias ? -1 : (m->kv_lora_rank + m->qk_rope_head_dim) * h;
            if (!strcmp(l, "kv_a_layernorm")) return m->kv_lora_rank;
            if (!strcmp(l, "kv_b_proj"))
                return r->bias ? -1 : a * (m->qk_nope_head_dim + m->v_head_dim) * m->kv_lora_rank;
            if (leaf_is(l, O)) return r->bias ? -1 : h * a * m->v_head_dim;
            return -1;
        }
        if (leaf_is(l, QKV)) return r->bias ? (m->qkv_bias ? (a + 2 * kv) * dh : -1) : (a + 2 * kv) * dh * h;
        if (leaf_is(l, Q)) return r->bias ? (m->qkv_bias ? a * dh : -1) : a * dh * h;
        if (leaf_is(l, K) || leaf_is(l, V)) return r->bias ? (m->qkv_bias ? kv * dh : -1) : kv * dh * h;
        if (leaf_is(l, O)) return r->bias ? (m->o_bias ? h : -1) : h * a * dh;
        if (leaf_is(l, QN) || leaf_is(l, KN)) return m->qk_norm && !r->bias ? dh : -1;
        return -1;
    }
    if (r->p == P_NORMS) return r->bias && m->norm != ND_NORM_LAYER ? -1 : h;
    int64_t width = r->p == P_ROUTED   ? m->moe_ffn
                    : r->p == P_SHARED ? m->shared_experts * m->shared_ffn
                                       : m->ffn;
    if (r->p == P_MLP && kind == ND_LAYER_MOE) return -1;
    if ((r->p == P_ROUTED || r->p == P_SHARED) && kind == ND_LAYER_DENSE) return -1;
    if (r->p == P_SHARED) {
        if (!strcmp(l, "e_score_correction_bias")) return m->router_bias ? m->experts : -1;
        if (!strcmp(l, "shared_expert_gate")) return m->shared_expert_gate ? h : -1;
        if (!strcmp(l, "gate") || has(l, "router"))
            return r->bias ? (m->router_bias ? m->experts : -1) : m->experts * h;
        if (!m->shared_experts) return -1;
    }
    int64_t n = r->fused_experts ? m->experts : 1;
    if (r->p != P_MLP && r->p != P_ROUTED && r->p != P_SHARED) return -1;
    if (m->mlp == ND_MLP_GATED) {
        if (leaf_is(l, GATE_UP)) return r->bias ? (m->mlp_bias ? n * 2 * width : -1) : n * 2 * width * h;
        if (leaf_is(l, GATE) || leaf_is(l, UP))
            return r->bias ? (m->mlp_bias ? n * width : -1) : n * width * h;
    } else if (leaf_is(l, UP_PLAIN)) {
        return r->bias ? (m->mlp_bias ? n * width : -1) : n * width * h;
    }
    if (leaf_is(l, DOWN)) return r->bias ? (m->mlp_bias ? n * h : -1) : n * h * width;
    return -1;
}

static int64_t expected_outside(const nd_model *m, const role *r)
{
    int64_t h = m->hidden;
    if (r->p == P_EMBED) {
        bool pos = !strcmp(r->leaf, "wpe") || has(r->leaf, "position");
        return r->bias ? -1 : pos ? (m->max_positions ? m->max_positions * h : -1) : m->vocab * h;
    }
    if (r->p == P_HEAD) {
        bool norm = has(r->leaf, "norm") || !strcmp(r->leaf, "ln_f");
        if (norm) return r->bias && m->norm != ND_NORM_LAYER ? -1 : h;
        return r->bias || m->tied_embeddings ? -1 : m->vocab * h;
    }
    return -1;
}

static void add_mismatch(nd_census *c, const char *raw, int64_t ckpt, int64_t nd, int64_t layer)
{
    char what[sizeof c->mismatches[0].what]; /* a tensor's name may hold an ESC or a newline */
    nd_text_shown(raw, what, sizeof what);
    for (int i = 0; i < c->n_mismatches; i++) {
        nd_census_mismatch *x = &c->mismatches[i];
        if (strcmp(x->what, what) || x->checkpoint != ckpt || x->nd != nd) continue;
        if (layer >= 0) {
            if (layer < x->first_layer) x->first_layer = layer;
            if (layer > x->last_layer) x->last_layer = layer;
            x->layers++;
        }
        return;
    }
    if (c->n_mismatches == ND_CENSUS_MAX_MISMATCHES) {
        c->more_mismatches++;
        return;
    }
    nd_census_mismatch *x = &c->mismatches[c->n_mismatches++];
    snprintf(x->what, sizeof x->what, "%s", what);
    x->checkpoint = ckpt;
    x->nd = nd;
    x->first_layer = x->last_layer = layer;
    x->layers = layer >= 0;
}

static void shape_text(const nd_tensor_info *t, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < t->dims && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

/* nd's parts of layer kind k (model.h's counts). */
static int64_t layer_part(const nd_param_count *pc, nd_layer_kind k, part p)
{
    switch (p) {
    case P_ATTN: return pc->attention;
    case P_NORMS: return pc->norms;
    case P_MLP: return k == ND_LAYER_DENSE ? pc->dense_mlp : 0;
    case P_ROUTED: return k == ND_LAYER_MOE ? pc->moe_routed : 0;
    case P_SHARED: return k == ND_LAYER_MOE ? pc->moe_shared : 0;
    default: return 0;
    }
}

/* ---- the checkpoint's model: nd's, with what the tensors' sizes say ---------------------- */

static void derive(const nd_model *m, const nd_checkpoint_tensors *t, const role *roles, nd_census *c)
{
    nd_model d = *m;
    int64_t h = m->hidden;
    int64_t max_layer = -1, max_expert = -1, first_moe = -1;
    bool head = false, seen_q = false;
    for (size_t i = 0; i < t->count; i++) {
        const role *r = &roles[i];
        const nd_tensor_info *ti = &t->items[i];
        if (r->p == P_EMBED && !r->bias && !has(r->leaf, "pos") && strcmp(r->leaf, "wpe") && ti->dims == 2) {
            d.vocab = ti->shape[0];
            d.hidden = h = ti->shape[1];
        }
        if (r->p == P_HEAD && !has(r->leaf, "norm") && strcmp(r->leaf, "ln_f") && !r->bias) head = true;
    }
    d.tied_embeddings = !head;
    for (size_t i = 0; i < t->count && h > 0; i++) {
        const role *r = &roles[i];
        const nd_tensor_info *ti = &t->items[i];
        if (r->layer < 0 || r->layer >= m->layers) continue; /* MTP layers follow the body */
        if (r->layer > max_layer) max_layer = r->layer;
        if (r->p == P_ROUTED) {
            if (first_moe < 0 || r->layer < first_moe) first_moe = r->layer;
            if (r->expert > max_expert) max_expert = r->expert;
            if (r->fused_experts && ti->dims == 3) max_expert = ti->shape[0] - 1;
        }
        if (r->bias) continue;
        int64_t n = r->fused_experts && ti->dims == 3 ? ti->shape[0] : 1;
        if (r->p == P_ATTN && m->attention == ND_ATTN_MHA && d.head_dim > 0) {
            if (leaf_is(r->leaf, Q)) {
                d.heads = ti->elements / h / d.head_dim;
                seen_q = true;
            } else if (leaf_is(r->leaf, K))
                d.kv_heads = ti->elements / h / d.head_dim;
        }
        if (r->p == P_ATTN && (leaf_is(r->leaf, QN) || leaf_is(r->leaf, KN))) d.qk_norm = true;
        bool gate_or_up = m->mlp == ND_MLP_GATED ? leaf_is(r->leaf, GATE) || leaf_is(r->leaf, UP)
                                                 : leaf_is(r->leaf, UP_PLAIN);
        int64_t width = gate_or_up                  ? ti->elements / h / n
                        : leaf_is(r->leaf, GATE_UP) ? ti->elements / h / n / 2
                                                    : 0;
        if (width > 0 && r->p == P_MLP) d.ffn = width;
        if (width > 0 && r->p == P_ROUTED) d.moe_ffn = width;
        if (width > 0 && r->p == P_SHARED && m->shared_experts > 0 && strcmp(r->leaf, "gate"))
            d.shared_ffn = width / m->shared_experts;
    }
    for (size_t i = 0; i < t->count; i++)
        if (roles[i].layer >= 0 && roles[i].layer < m->layers && roles[i].bias && roles[i].p == P_ATTN &&
            (leaf_is(roles[i].leaf, Q) || leaf_is(roles[i].leaf, QKV)))
            d.qkv_bias = true;
    if (!seen_q && m->attention == ND_ATTN_MHA) d.heads = m->heads;
    if (max_layer >= 0) d.layers = max_layer + 1;
    if (m->experts && max_expert >= 0) d.experts = max_expert + 1;
    if (m->experts && first_moe >= 0 && m->moe_layer_freq <= 1 && m->moe_sparse_step <= 1)
        d.first_k_dense = first_moe;
    if (d.experts_per_token > d.experts) d.experts_per_token = d.experts;
    nd_error err = {0};
    c->derived = d;
    c->derived_ok = !nd_model_validate(&c->derived, c->dir, &err);
    if (!c->derived_ok) snprintf(c->derived_why, sizeof c->derived_why, "%.255s", err.message);
}

/* Parameters, forward FLOPs and kept activation bytes per token of each layer kind of m. */
static void price_kinds(const nd_model *m, const nd_run *run, const nd_device *device, nd_census *c, int side)
{
    nd_param_count pc;
    nd_model_count_params(m, &pc);
    nd_layer_inputs in = {m, &run->train, device, run->train.seq_len};
    nd_layer_shape sh = {1, 1, 1, 1, 1, false};
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        nd_census_kind *x = &c->kinds[k];
        x->layers[side] = nd_model_count_kind(m, 0, m->layers, (nd_layer_kind)k);
        x->params[side] = pc.layer[k];
        if (!x->layers[side]) continue;
        nd_layer_cost cost;
        nd_layer_cost_decoder(&in, (nd_layer_kind)k, &sh, &cost);
        double tokens = (double)run->train.seq_len;
        x->flops_per_token[side] = cost.model_flops / tokens;
        x->activation_bytes[side] = cost.activation_bytes[ND_RECOMPUTE_OFF] / tokens;
    }
    c->embedding[side] = pc.embedding;
    c->head[side] = pc.head;
    c->mtp[side] = m->mtp_layers * pc.mtp_module;
}

int nd_census_build(const nd_run *run, const nd_device *device, const nd_checkpoint_tensors *t, nd_census *c,
                    nd_error *err)
{
    memset(c, 0, sizeof *c);
    const nd_model *m = &run->model;
    nd_param_count pc;
    nd_model_count_params(m, &pc);
    c->nd_params = pc.total_with_mtp;
    price_kinds(m, run, device, c, 1);
    if (!t || !t->count) return ND_OK;
    snprintf(c->dir, sizeof c->dir, "%s", t->dir);
    c->files = t->files;
    c->tensors = (int64_t)t->count;
    role *roles = calloc(t->count, sizeof *roles);
    int64_t *sums = calloc((size_t)m->layers * PARTS, sizeof *sums);
    if (!roles || !sums) {
        free(roles);
        free(sums);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int64_t outside[PARTS] = {0};
    for (size_t i = 0; i < t->count; i++) {
        const nd_tensor_info *ti = &t->items[i];
        role *r = &roles[i];
        read_role(ti->name, r);
        /* every other sum is of some of these: checked here, none overflows (the reader also
         * caps the whole at 2^53, checkpoint.c) */
        if (ti->elements < 0 || ti->elements > INT64_MAX - c->params) {
            free(roles);
            free(sums);
            return nd_error_set(err, ND_EINPUT,
                                "%s: the checkpoint's tensors hold more than 2^63 parameters in all (past "
                                "tensor '%s'): not a checkpoint nd reads",
                                t->dir, ti->name);
        }
        c->params += ti->elements;
        if (r->layer >= m->layers) r->p = P_MTP; /* DeepSeek-V3 stores its MTP module as layer 61 */
        if (r->p == P_OTHER) {
            if (!c->unknown++) nd_text_shown(ti->name, c->first_unknown, sizeof c->first_unknown);
            continue;
        }
        if (r->layer < 0 || r->p == P_MTP) {
            outside[r->p] += ti->elements;
            int64_t want = r->p == P_MTP ? -2 : expected_outside(m, r);
            char what[320], shape[96];
            shape_text(ti, shape, sizeof shape);
            snprintf(what, sizeof what, "%.220s %.95s", ti->name, shape);
            if (want == -1)
                add_mismatch(c, what, ti->elements, 0, -1);
            else if (want >= 0 && want != ti->elements)
                add_mismatch(c, what, ti->elements, want, -1);
            continue;
        }
        sums[r->layer * PARTS + r->p] += ti->elements;
        nd_layer_kind kind = nd_model_layer_kind(m, r->layer);
        int64_t want = expected_in_layer(m, kind, r);
        /* experts: one tensor each; their count is the routed part's */
        char what[320], shape[96];
        shape_text(ti, shape, sizeof shape);
        if (r->expert >= 0) {
            char *e = strstr(r->canonical, "experts.");
            char canon[256];
            snprintf(canon, sizeof canon, "%s", r->canonical);
            if (e) {
                size_t at = (size_t)(e - r->canonical) + 8;
                size_t digits = 0;
                while (isdigit((unsigned char)r->canonical[at + digits])) digits++;
                snprintf(canon, sizeof canon, "%.*s*%s", (int)at, r->canonical, r->canonical + at + digits);
            }
            snprintf(what, sizeof what, "%.220s %.95s", canon, shape);
        } else {
            snprintf(what, sizeof what, "%.220s %.95s", r->canonical, shape);
        }
        if (want < 0)
            add_mismatch(c, what, ti->elements, 0, r->layer);
        else if (want != ti->elements)
            add_mismatch(c, what, ti->elements, want, r->layer);
    }
    /* each layer's parts, and the layers the checkpoint lacks */
    for (int64_t l = 0; l < m->layers; l++) {
        nd_layer_kind kind = nd_model_layer_kind(m, l);
        for (int p = P_ATTN; p <= P_SHARED; p++) {
            int64_t got = sums[l * PARTS + p], want = layer_part(&pc, kind, (part)p);
            if (got == want) continue;
            char what[320];
            snprintf(what, sizeof what, "a %s layer's %s (sum of its tensors)", nd_layer_kind_name(kind),
                     part_names[p]);
            add_mismatch(c, what, got, want, l);
        }
    }
    static const part whole[] = {P_EMBED, P_HEAD, P_MTP};
    const int64_t nd_whole[] = {pc.embedding, pc.head, m->mtp_layers * pc.mtp_module};
    for (size_t i = 0; i < ND_ARRAY_LEN(whole); i++)
        if (outside[whole[i]] != nd_whole[i]) {
            char what[320];
            snprintf(what, sizeof what, "the %s (sum of its tensors)", part_names[whole[i]]);
            add_mismatch(c, what, outside[whole[i]], nd_whole[i], -1);
        }
    derive(m, t, roles, c);
    if (c->derived_ok) price_kinds(&c->derived, run, device, c, 0);
    free(roles);
    free(sums);
    return ND_OK;
}

/* ---- printing ----------------------------------------------------------------------------- */

/* 6,738,415,616 */
static const char *grouped(int64_t v, char *buf, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v));
    size_t o = 0;
    if (v < 0 && o + 1 < size) buf[o++] = '-';
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static void row_int(FILE *out, const char *label, int64_t ckpt, int64_t nd, bool has_ckpt)
{
    char a[40], b[40], d[40];
    if (has_ckpt)
        fprintf(out, "  %-34s %18s %18s %18s\n", label, grouped(ckpt, a, sizeof a), grouped(nd, b, sizeof b),
                ckpt == nd ? "" : grouped(ckpt - nd, d, sizeof d));
    else
        fprintf(out, "  %-34s %18s\n", label, grouped(nd, b, sizeof b));
}

static void row_double(FILE *out, const char *label, double ckpt, double nd, bool has_ckpt)
{
    if (has_ckpt) {
        double rel = nd != 0 ? (ckpt - nd) / nd * 100 : 0;
        char d[32] = "";
        if (ckpt != nd) snprintf(d, sizeof d, "%+.2f %%", rel);
        char a[40], b[40];
        fprintf(out, "  %-34s %18s %18s %18s\n", label, grouped(llround(ckpt), a, sizeof a),
                grouped(llround(nd), b, sizeof b), d);
    } else {
        char b[40];
        fprintf(out, "  %-34s %18s\n", label, grouped(llround(nd), b, sizeof b));
    }
}

static void kinds_table(FILE *out, const nd_run *run, const nd_census *c, bool has_ckpt)
{
    if (has_ckpt)
        fprintf(out, "  %-34s %18s %18s %18s\n", "", "checkpoint", "nd", "difference");
    else
        fprintf(out, "  %-34s %18s\n", "", "nd");
    bool ck = has_ckpt && c->derived_ok;
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_census_kind *x = &c->kinds[k];
        if (!x->layers[1] && !(ck && x->layers[0])) continue;
        char label[64];
        snprintf(label, sizeof label, "%s layers", nd_layer_kind_name((nd_layer_kind)k));
        row_int(out, label, x->layers[0], x->layers[1], ck);
        row_int(out, "  parameters each", x->params[0], x->params[1], ck);
        row_double(out, "  forward FLOPs per token", x->flops_per_token[0], x->flops_per_token[1], ck);
        row_double(out, "  activation bytes per token", x->activation_bytes[0], x->activation_bytes[1], ck);
    }
    row_int(out, "embedding", c->embedding[0], c->embedding[1], ck);
    row_int(out, "output head and final norm", c->head[0], c->head[1], ck);
    if (c->mtp[1] || (ck && c->mtp[0])) row_int(out, "MTP modules", c->mtp[0], c->mtp[1], ck);
    (void)run;
}

void nd_census_print_nd(FILE *out, const nd_run *run, const nd_census *c)
{
    char a[40];
    fprintf(out, "Census of %s (nd's model, sequence %lld, no recompute, one device): %s parameters\n",
            run->model.name, (long long)run->train.seq_len, grouped(c->nd_params, a, sizeof a));
    kinds_table(out, run, c, false);
}

void nd_census_print(FILE *out, const nd_run *run, const nd_census *c)
{
    char a[40], b[40], d[40], dir[sizeof c->dir];
    fprintf(out, "Census of %s against %s (%d file%s, %lld tensors): %s parameters, nd's model %s\n",
            run->model.name, nd_text_shown(c->dir, dir, sizeof dir), c->files, c->files == 1 ? "" : "s",
            (long long)c->tensors, grouped(c->params, a, sizeof a), grouped(c->nd_params, b, sizeof b));
    if (!c->derived_ok)
        fprintf(out, "The tensors' sizes are no model nd can price (%s): nd's side only below.\n",
                c->derived_why);
    kinds_table(out, run, c, true);
    if (c->unknown)
        fprintf(out, "%lld tensor%s nd gives no role (not priced), the first %s\n", (long long)c->unknown,
                c->unknown == 1 ? "" : "s", c->first_unknown);
    if (!c->n_mismatches) {
        fprintf(out, "No mismatch: every tensor is the size nd's model gives it.\n");
        return;
    }
    fprintf(out, "\nMismatches (elements; a tensor nd has no role for counts 0 on nd's side):\n");
    fprintf(out, "  %-72s %14s %14s %14s  %s\n", "tensor or part", "checkpoint", "nd", "difference",
            "layers");
    for (int i = 0; i < c->n_mismatches; i++) {
        const nd_census_mismatch *x = &c->mismatches[i];
        char layers[48] = "";
        if (x->layers == 1)
            snprintf(layers, sizeof layers, "%lld", (long long)x->first_layer);
        else if (x->layers > 1)
            snprintf(layers, sizeof layers, "%lld of %lld-%lld", (long long)x->layers,
                     (long long)x->first_layer, (long long)x->last_layer);
        fprintf(out, "  %-72s %14s %14s %14s  %s\n", x->what, grouped(x->checkpoint, a, sizeof a),
                grouped(x->nd, b, sizeof b), grouped(x->checkpoint - x->nd, d, sizeof d), layers);
    }
    if (c->more_mismatches) fprintf(out, "  ... and %lld more\n", (long long)c->more_mismatches);
}

int nd_census_write_spec(const char *dir, const nd_run *run, const nd_census *c, char *path, size_t size,
                         nd_error *err)
{
    int rc = nd_make_dir(dir, err);
    if (rc) return rc;
    snprintf(path, size, "%s/census_spec.yaml", dir);
    nd_outfile f;
    if ((rc = nd_outfile_open(&f, path, err))) return rc;
    FILE *fp = f.fp;
    const nd_model *m = c->derived_ok ? &c->derived : &run->model;
    fprintf(fp,
            "# nd -V: the census of %s against its checkpoint. model: is the model its tensors\n"
            "# state (nd's where they say nothing), as a run file's model keys: nd-estimate -y reads\n"
            "# this file with --strategy.\n",
            run->model.name);
    fputs("model:\n", fp);
    nd_model_write_yaml(fp, m, "  ");
    fputs("census:\n", fp);
    nd_yaml_write_text(fp, "  ", "checkpoint", c->dir);
    nd_yaml_write_int(fp, "  ", "files", c->files);
    nd_yaml_write_int(fp, "  ", "tensors", c->tensors);
    nd_yaml_write_int(fp, "  ", "parameters", c->params);
    nd_yaml_write_int(fp, "  ", "nd_parameters", c->nd_params);
    nd_yaml_write_int(fp, "  ", "tensors_without_role", c->unknown);
    nd_yaml_write_int(fp, "  ", "seq_len", run->train.seq_len);
    fputs("  layers:\n", fp);
    for (int k = 0; k < ND_LAYER_KINDS; k++) {
        const nd_census_kind *x = &c->kinds[k];
        if (!x->layers[0] && !x->layers[1]) continue;
        fprintf(fp, "    %s:\n", nd_layer_kind_name((nd_layer_kind)k));
        fprintf(fp, "      count: [%lld, %lld]  # [checkpoint, nd]\n", (long long)x->layers[0],
                (long long)x->layers[1]);
        fprintf(fp, "      parameters: [%lld, %lld]\n", (long long)x->params[0], (long long)x->params[1]);
        fprintf(fp, "      flops_per_token: [%.17g, %.17g]\n", x->flops_per_token[0], x->flops_per_token[1]);
        fprintf(fp, "      activation_bytes_per_token: [%.17g, %.17g]\n", x->activation_bytes[0],
                x->activation_bytes[1]);
    }
    fputs("  mismatches:\n", fp);
    if (!c->n_mismatches) fputs("    []\n", fp);
    for (int i = 0; i < c->n_mismatches; i++) {
        const nd_census_mismatch *x = &c->mismatches[i];
        fputs("    - ", fp);
        nd_yaml_write_text(fp, "", "what", x->what);
        fprintf(fp, "      checkpoint: %lld\n      nd: %lld\n      layers: %lld\n", (long long)x->checkpoint,
                (long long)x->nd, (long long)x->layers);
    }
    return nd_outfile_commit(&f, err);
}
