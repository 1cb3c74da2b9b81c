/*
 * search_space.c — the values each dimension takes and the rules a candidate
 * must satisfy (the same rules as nd_strategy_check, without building messages,
 * because the search checks millions of candidates).
 */
#include "search_internal.h"

#include "nd/costmodel/split.h"
#include "nd/inputs/search_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *refusal_names[ND_REFUSE_REASONS] = {
    "heads do not divide over MP",
    "widths do not divide over MP/ETP",
    "layers do not split over PP x VPP",
    "experts do not divide over EP",
    "sequence does not split over CP",
    "OP does not divide DP x CP",
    "the schedule needs more micro-batches (interleaving: a multiple of PP; DualPipe: 2 x PP)",
    "global batch does not divide over DP",
    "outside the fixed degrees or the search config lists",
    "context parallelism needs fused (flash) attention",
};

const char *nd_refusal_name(nd_refusal r)
{
    return r < ND_REFUSE_REASONS ? refusal_names[r] : "?";
}

bool nd_search_allowed(const nd_search_config *cfg, nd_dim d, int64_t v)
{
    const nd_search_space *sp = &cfg->space;
    if (!(sp->vary & ND_DIM_BIT(d))) {
        return v == nd_strategy_dim(&cfg->base, d);
    }
    if (!sp->allowed[d]) return true;
    for (size_t i = 0; i < sp->n_allowed[d]; i++)
        if (sp->allowed[d][i] == v) return true;
    return false;
}

void nd_search_divisors(const nd_search_config *cfg, nd_dim d, int64_t n, int64_t limit, nd_values *out)
{
    /* Divisors come in pairs (k, n/k) with k <= sqrt(n): collect both halves in order. */
    int64_t small[ND_SEARCH_MAX_VALUES], large[ND_SEARCH_MAX_VALUES];
    int ns = 0, nl = 0;
    for (int64_t k = 1; k * k <= n && ns < ND_SEARCH_MAX_VALUES && nl < ND_SEARCH_MAX_VALUES; k++) {
        if (n % k) continue;
        small[ns++] = k;
        if (k != n / k) large[nl++] = n / k;
    }
    out->n = 0;
    for (int i = 0; i < ns + nl && out->n < ND_SEARCH_MAX_VALUES; i++) {
        int64_t k = i < ns ? small[i] : large[nl - 1 - (i - ns)];
        if (k > limit) break;
        if (nd_search_allowed(cfg, d, k)) out->v[out->n++] = k;
    }
}

void nd_search_range(const nd_search_config *cfg, nd_dim d, int64_t lo, int64_t hi, nd_values *out)
{
    out->n = 0;
    for (int64_t k = lo; k <= hi && out->n < ND_SEARCH_MAX_VALUES; k++)
        if (nd_search_allowed(cfg, d, k)) out->v[out->n++] = k;
}

/* The schedule's VPP values: 1, 2 for the V schedules, 2 .. the units a stage holds for
 * interleaving (the search config's max_vpp and list, and the chunks a rank may hold). A unit is
 * a layer, and the embedding and the loss where the split may count them (the framework's, or
 * the run's own split): Llama 3 405B as Meta ran it, 126 layers + 2 on PP 16, is VPP 8. */
static int schedule_vpps(const nd_search_config *cfg, nd_schedule sc, int64_t pp, int64_t *v, int max)
{
    const nd_strategy *b = &cfg->base;
    bool counted = nd_framework_profile_of(cfg->ctx->train->framework)->split_accounts ||
                   b->embedding_in_split || b->loss_in_split;
    int64_t layers = cfg->ctx->model->layers + (counted ? 2 : 0), hi = layers / pp, n = 0;
    if (cfg->space.max_vpp > 0 && hi > cfg->space.max_vpp) hi = cfg->space.max_vpp;
    if (hi > ND_MAX_CHUNKS_PER_RANK) hi = ND_MAX_CHUNKS_PER_RANK;
    int64_t lo = 1, top = 1;
    if (sc == ND_SCHEDULE_INTERLEAVED) {
        lo = 2;
        top = hi;
    }
    if (sc == ND_SCHEDULE_ZB_V || sc == ND_SCHEDULE_DUALPIPE_V) lo = top = 2;
    for (int64_t k = lo; k <= top && n < max; k++)
        if (nd_search_allowed(cfg, ND_DIM_VPP, k) && pp * k <= ND_MAX_VIRTUAL_STAGES) v[n++] = k;
    return (int)n;
}

static int add_choice(nd_pipeline_choice *out, int n, int max, nd_schedule sc, int64_t vpp)
{
    if (n >= max) return n;
    memset(&out[n], 0, sizeof out[n]);
    out[n].schedule = sc;
    out[n].vpp = vpp;
    return n + 1;
}

int nd_search_pipelines(const nd_search_config *cfg, int64_t pp, nd_pipeline_choice *out, int max)
{
    const nd_strategy *b = &cfg->base;
    int64_t layers = cfg->ctx->model->layers;
    if (pp == 1) { /* no pipeline: the run's schedule when it has one chunk a rank, as it does */
        nd_schedule sc = b->schedule;
        bool single = sc == ND_SCHEDULE_1F1B || sc == ND_SCHEDULE_GPIPE || sc == ND_SCHEDULE_ZB_H1 ||
                      sc == ND_SCHEDULE_ZB_H2;
        return add_choice(out, 0, max, single ? sc : ND_SCHEDULE_1F1B, 1);
    }
    bool accounts = nd_framework_profile_of(cfg->ctx->train->framework)->split_accounts;
    int n = 0;
    for (int sc = 0; sc < ND_SCHEDULES; sc++) {
        if (!(cfg->space.schedules & 1u << sc)) continue;
        /* GPipe bubbles as 1F1B does and holds more: tried only when 1F1B is not */
        bool gpipe_needless = sc == ND_SCHEDULE_GPIPE && cfg->space.schedules & 1u << ND_SCHEDULE_1F1B;
        if ((sc == ND_SCHEDULE_DUALPIPE && pp % 2) || gpipe_needless) continue;
        int64_t vpps[ND_MAX_CHUNKS_PER_RANK];
        int nv = schedule_vpps(cfg, (nd_schedule)sc, pp, vpps, ND_MAX_CHUNKS_PER_RANK);
        for (int i = 0; i < nv && n < max; i++) {
            int64_t v = vpps[i];
            bool own_split = b->layout || b->first_stage_layers || b->last_stage_layers ||
                             b->embedding_in_split || b->loss_in_split;
            if (own_split && pp == b->pp && v == b->vpp) { /* the run's own split at its PP and VPP */
                n = add_choice(out, n, max, (nd_schedule)sc, v);
                nd_pipeline_choice *c = &out[n - 1];
                c->layout = b->layout;
                c->first_stage_layers = b->first_stage_layers;
                c->last_stage_layers = b->last_stage_layers;
                c->embedding_in_split = b->embedding_in_split;
                c->loss_in_split = b->loss_in_split;
                continue;
            }
            /* with two chunks in all, counting the embedding and loss changes nothing */
            bool even = layers % (pp * v) == 0,
                 account = accounts && pp * v > 2 && nd_split_accounts(layers, pp, v);
            if (even) n = add_choice(out, n, max, (nd_schedule)sc, v);
            if (account && n < max) {
                n = add_choice(out, n, max, (nd_schedule)sc, v);
                out[n - 1].embedding_in_split = out[n - 1].loss_in_split = true;
            }
            int64_t f, l;
            if (!even && !account && n < max && nd_split_uneven(layers, pp, v, &f, &l)) {
                n = add_choice(out, n, max, (nd_schedule)sc, v);
                out[n - 1].first_stage_layers = f;
                out[n - 1].last_stage_layers = l;
            }
        }
    }
    return n;
}

void nd_pipeline_choice_apply(const nd_pipeline_choice *c, nd_strategy *s)
{
    s->schedule = c->schedule;
    s->vpp = c->vpp;
    s->first_stage_layers = c->first_stage_layers;
    s->last_stage_layers = c->last_stage_layers;
    s->embedding_in_split = c->embedding_in_split;
    s->loss_in_split = c->loss_in_split;
    s->layout = c->layout;
}

int nd_search_check(const nd_search_config *cfg, nd_strategy *s)
{
    const nd_model *m = cfg->ctx->model;
    if (m->heads % s->tp || (m->attention == ND_ATTN_MHA && m->kv_heads % s->tp)) return ND_REFUSE_HEADS;
    if (s->etp == 0) s->etp = s->tp;
    if (!m->experts) s->etp = s->tp;
    if ((m->ffn && m->ffn % s->tp) || (m->experts && m->moe_ffn % s->etp) ||
        (m->experts && m->shared_experts && (m->shared_experts * m->shared_ffn) % s->tp))
        return ND_REFUSE_WIDTH;
    if (m->experts && (m->experts % s->ep || (s->tp * s->cp * s->dp) % (s->ep * s->etp)))
        return ND_REFUSE_EXPERTS;
    if (s->cp > 1 && cfg->ctx->train->seq_len % (2 * s->cp)) return ND_REFUSE_SEQUENCE;
    if (s->cp > 1 && !cfg->ctx->train->flash_attention) return ND_REFUSE_ATTENTION;
    if ((s->dp * s->cp) % s->op) return ND_REFUSE_SHARDING;
    /* What the schedules need of the micro-batches (strategy.c's check_pipeline) */
    switch (s->schedule) {
    case ND_SCHEDULE_INTERLEAVED:
        if (s->mb % s->pp) return ND_REFUSE_SCHEDULE;
        break;
    case ND_SCHEDULE_DUALPIPE:
        if (s->mb % 2 || s->mb < 2 * s->pp) return ND_REFUSE_SCHEDULE;
        break;
    case ND_SCHEDULE_ZB_V:
    case ND_SCHEDULE_DUALPIPE_V:
        if (s->mb < 2 * s->pp) return ND_REFUSE_SCHEDULE;
        break;
    default: break;
    }
    s->zero = s->op > 1 ? (cfg->base.zero > 0 ? cfg->base.zero : 1) : 0;
    if (s->tp == 1) s->sp = false;
    return -1;
}

static int64_t smallest_factor(int64_t n)
{
    for (int64_t p = 2; p * p <= n; p++)
        if (n % p == 0) return p;
    return n;
}

/* Whether some data-parallel degree in the list dps divides the global batch. */
static bool batch_reachable(const nd_search_config *cfg, const char *dps)
{
    for (const char *p = dps; *p;) {
        char *end;
        long long dp = strtoll(p, &end, 10);
        if (end == p) break;
        if (dp > 0 && cfg->global_batch % dp == 0) return true;
        p = end + strspn(end, ", ");
    }
    return false;
}

/* The batch is reachable, so the limits (-l, the search config) or the rules refused all. */
static int explain_refusals(const nd_search_config *cfg, const nd_search_stats *st, nd_error *err)
{
    if (st->enumerated == 0)
        return nd_error_set(err, ND_EINPUT,
                            "no MP x PP x CP layout of the %lld devices is within the search's limits "
                            "(the run's fixed degrees, or the search config's mp/pp/cp lists)",
                            (long long)cfg->ctx->devices);
    char reasons[512] = "";
    size_t used = 0;
    bool taken[ND_REFUSE_REASONS] = {false};
    for (int k = 0; k < 3; k++) {
        int top = -1;
        for (int r = 0; r < ND_REFUSE_REASONS; r++)
            if (!taken[r] && st->refused[r] && (top < 0 || st->refused[r] > st->refused[top])) top = r;
        if (top < 0) break;
        taken[top] = true;
        used += (size_t)snprintf(reasons + used, sizeof reasons - used, "%s%s (%llu)", used ? "; " : "",
                                 nd_refusal_name((nd_refusal)top), (unsigned long long)st->refused[top]);
    }
    return nd_error_set(err, ND_EINPUT,
                        "no valid strategy within the search's limits: all %llu candidates were "
                        "refused, most often because %s",
                        (unsigned long long)st->enumerated, reasons);
}

int nd_search_explain_none(const nd_search_config *cfg, const nd_search_stats *st, nd_error *err)
{
    const nd_model *m = cfg->ctx->model;
    int64_t n = cfg->ctx->devices, gbs = cfg->global_batch;
    /* The data-parallel degrees some valid MP x PP x CP leaves. */
    char dps[512] = "", factors[128] = "";
    size_t used = 0;
    for (int64_t dp = 1; dp <= n && used < sizeof dps - 16; dp++) {
        if (n % dp) continue;
        bool ok = false;
        int64_t rest = n / dp;
        for (int64_t tp = 1; tp <= rest && !ok; tp++) {
            if (rest % tp || m->heads % tp || (m->attention == ND_ATTN_MHA && m->kv_heads % tp)) continue;
            for (int64_t pp = 1; pp <= rest / tp && !ok; pp++) {
                if ((rest / tp) % pp || pp > m->layers) continue;
                int64_t cp = rest / tp / pp;
                ok = cp == 1 || cfg->ctx->train->seq_len % (2 * cp) == 0;
            }
        }
        if (ok)
            used +=
                (size_t)snprintf(dps + used, sizeof dps - used, "%s%lld", used ? ", " : "", (long long)dp);
    }
    used = 0;
    for (int64_t r = n; r > 1 && used < sizeof factors - 16;) {
        int64_t p = smallest_factor(r);
        used += (size_t)snprintf(factors + used, sizeof factors - used, "%s%lld", used ? " x " : "",
                                 (long long)p);
        r /= p;
    }
    if (!dps[0])
        return nd_error_set(err, ND_EINPUT,
                            "no strategy uses exactly %lld devices (= %s): no MP, PP and CP can take "
                            "those factors (%lld heads, %lld layers, sequence %lld); choose a device "
                            "count with smaller factors",
                            (long long)n, factors[0] ? factors : "1", (long long)m->heads,
                            (long long)m->layers, (long long)cfg->ctx->train->seq_len);
    if (batch_reachable(cfg, dps)) return explain_refusals(cfg, st, err);
    return nd_error_set(err, ND_EINPUT,
                        "no strategy reaches a global batch of %lld on %lld devices: the data-parallel "
                        "degrees this model allows are %s, and the global batch must be a multiple "
                        "of DP (DP x MB x MBS)",
                        (long long)gbs, (long long)n, dps);
}

void nd_search_config_apply(const nd_search_config_file *f, nd_search_space *space, nd_strategy *base)
{
    /* ND's search-config path: MBS (model.local_batch_size, else 1), VPP and SP are fixed
     * unless the config lists them; with a train_yaml every dimension it does not declare
     * is the train_yaml's (ND: inherited as fixed). */
    if (!f->declared[ND_DIM_MBS] && (f->local_batch_size || !f->train_yaml[0]))
        base->mbs = f->local_batch_size ? f->local_batch_size : 1;
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        if (!f->declared[d] && (f->train_yaml[0] || d == ND_DIM_MBS || d == ND_DIM_VPP || d == ND_DIM_SP))
            space->vary &= ~ND_DIM_BIT(d);
    if (f->etp) base->etp = f->etp;
    for (int d = 0; d < ND_DIMS_SEARCHED; d++) {
        if (f->fixed[d]) {
            space->vary &= ~ND_DIM_BIT(d);
            nd_strategy_set_dim(base, (nd_dim)d, f->fixed_value[d]);
        } else if (f->n_list[d]) {
            space->vary |= ND_DIM_BIT(d);
            space->allowed[d] = f->list[d];
            space->n_allowed[d] = f->n_list[d];
        }
    }
    if (f->n_modes) {
        space->n_modes = f->n_modes;
        memcpy(space->modes, f->modes, sizeof f->modes);
    }
    if (f->per_layer) space->per_layer = true;
    if (f->has_schedule) base->schedule = f->schedule;
}
