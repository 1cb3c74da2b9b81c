/*
 * split.c — which decoder layers each pipeline rank and virtual chunk holds: the even split,
 * Megatron's first/last stage counts, the embedding and loss counted as layers, an explicit
 * layout; the checks each framework makes of them; the split in Megatron's layout grammar.
 */
#include "nd/costmodel/split.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef enum { SPLIT_EVEN, SPLIT_ENDS, SPLIT_ACCOUNT, SPLIT_EXPLICIT } split_kind;

static split_kind kind_of(const nd_strategy *s)
{
    if (s->layout) return SPLIT_EXPLICIT;
    if (s->pp > 1 && (s->first_stage_layers || s->last_stage_layers)) return SPLIT_ENDS;
    if (s->embedding_in_split || s->loss_in_split) return SPLIT_ACCOUNT;
    return SPLIT_EVEN;
}

/* FIRST/LAST: the decoder layers of a middle rank (all its chunks). */
static int64_t middle_rank_layers(const nd_strategy *s, int64_t layers)
{
    int64_t f = s->first_stage_layers, l = s->last_stage_layers;
    int64_t middle = s->pp - (f > 0) - (l > 0);
    return middle > 0 ? (layers - f - l) / middle : 0;
}

/* FIRST/LAST: the decoder layers of rank r (all its chunks). */
static int64_t ends_rank_layers(const nd_strategy *s, int64_t layers, int64_t r)
{
    if (r == 0 && s->first_stage_layers) return s->first_stage_layers;
    if (r == s->pp - 1 && s->last_stage_layers) return s->last_stage_layers;
    return middle_rank_layers(s, layers);
}

/* Embedding and loss counted: decoder layers plus those slots, per chunk. */
static int64_t account_units(const nd_strategy *s, int64_t layers)
{
    return (layers + s->embedding_in_split + s->loss_in_split) / (s->pp * s->vpp);
}

static int64_t chunk_count(const nd_strategy *s, int64_t layers, int64_t r, int64_t c)
{
    switch (kind_of(s)) {
    case SPLIT_EXPLICIT: return s->layout->decoder[c * s->pp + r];
    case SPLIT_ENDS: return ends_rank_layers(s, layers, r) / s->vpp;
    case SPLIT_ACCOUNT:
        return account_units(s, layers) - (s->embedding_in_split && r == 0 && c == 0) -
               (s->loss_in_split && r == s->pp - 1 && c == s->vpp - 1);
    default: return layers / (s->pp * s->vpp);
    }
}

/* Decoder layers of the virtual stages before (rank r, chunk c) in Megatron's order. */
static int64_t chunk_first(const nd_strategy *s, int64_t layers, int64_t r, int64_t c)
{
    switch (kind_of(s)) {
    case SPLIT_EXPLICIT: return s->layout->offset[c * s->pp + r];
    case SPLIT_ENDS: {
        int64_t before =
            r == 0 ? 0 : ends_rank_layers(s, layers, 0) + (r - 1) * middle_rank_layers(s, layers);
        return c * (layers / s->vpp) + before / s->vpp;
    }
    case SPLIT_ACCOUNT: {
        int64_t u = account_units(s, layers), e = s->embedding_in_split;
        return c * s->pp * u - (c > 0 ? e : 0) + r * u - (c == 0 && r > 0 ? e : 0);
    }
    default: return (c * s->pp + r) * (layers / (s->pp * s->vpp));
    }
}

void nd_split_chunk(const nd_strategy *s, int64_t layers, int64_t rank, int64_t chunk, int64_t *first,
                    int64_t *count)
{
    if (s->pp <= 1 && !s->layout) {
        *first = chunk * (layers / s->vpp);
        *count = layers / s->vpp;
        return;
    }
    *first = chunk_first(s, layers, rank, chunk);
    *count = chunk_count(s, layers, rank, chunk);
}

int64_t nd_split_rank_layers(const nd_strategy *s, int64_t layers, int64_t rank)
{
    if (s->pp <= 1 && !s->layout) return layers;
    switch (kind_of(s)) {
    case SPLIT_ENDS: return ends_rank_layers(s, layers, rank);
    case SPLIT_EVEN: return layers / s->pp;
    default: {
        int64_t n = 0;
        for (int64_t c = 0; c < s->vpp; c++) n += chunk_count(s, layers, rank, c);
        return n;
    }
    }
}

static int why_not(char *why, size_t size, const char *fmt, ...) ND_PRINTF(3, 4);
static int why_not(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

static int check_ends(const nd_strategy *s, int64_t layers, char *why, size_t size)
{
    int64_t f = s->first_stage_layers, l = s->last_stage_layers, v = s->vpp;
    if (s->embedding_in_split || s->loss_in_split)
        return why_not(why, size,
                       "FIRST=%lld LAST=%lld: with first/last stage layers Megatron takes no embedding or "
                       "loss account in the split (give one or the other)",
                       (long long)f, (long long)l);
    int64_t set = (f > 0) + (l > 0), rest = layers - f - l, middle = s->pp - set;
    if (f < 0 || l < 0 || rest < 0 || (middle == 0 && rest != 0) ||
        (middle > 0 && (rest <= 0 || rest % middle)))
        return why_not(why, size,
                       "FIRST=%lld LAST=%lld: the other %lld layers do not divide evenly over the other %lld "
                       "stages",
                       (long long)f, (long long)l, (long long)rest, (long long)middle);
    int64_t per = middle > 0 ? rest / middle : 0;
    if (v > 1 && (f % v || l % v || per % v))
        return why_not(why, size,
                       "VPP=%lld: a stage's layers split evenly over its virtual chunks, which the first "
                       "stage's %lld, the last's %lld or a middle stage's %lld layers do not",
                       (long long)v, (long long)(f ? f : per), (long long)(l ? l : per), (long long)per);
    return 0;
}

int nd_split_check(const nd_strategy *s, int64_t layers, char *why, size_t size)
{
    int64_t chunks = s->pp * s->vpp;
    why[0] = '\0';
    switch (kind_of(s)) {
    case SPLIT_EXPLICIT:
        if (s->layout->pp != s->pp || s->layout->vpp != s->vpp)
            return why_not(
                why, size, "pipeline_layout: written for PP=%lld VPP=%lld, the strategy has PP=%lld VPP=%lld",
                (long long)s->layout->pp, (long long)s->layout->vpp, (long long)s->pp, (long long)s->vpp);
        return 0;
    case SPLIT_ENDS: return check_ends(s, layers, why, size);
    case SPLIT_ACCOUNT: {
        int64_t units = layers + s->embedding_in_split + s->loss_in_split;
        if (units % chunks)
            return why_not(why, size,
                           "PP=%lld VPP=%lld: the %lld layers with the embedding and loss counted as layers "
                           "(%lld) do not divide into equal chunks",
                           (long long)s->pp, (long long)s->vpp, (long long)layers, (long long)units);
        return 0;
    }
    default:
        if (s->pp > layers)
            return why_not(why, size, "PP=%lld: more pipeline stages than the %lld layers", (long long)s->pp,
                           (long long)layers);
        if (layers % chunks)
            return why_not(why, size,
                           "PP=%lld VPP=%lld: the %lld layers do not divide into %lld equal chunks (give "
                           "FIRST=/LAST=, account_for_embedding/loss_in_pipeline_split or pipeline_layout)",
                           (long long)s->pp, (long long)s->vpp, (long long)layers, (long long)chunks);
        return 0;
    }
}

bool nd_split_uneven(int64_t layers, int64_t pp, int64_t vpp, int64_t *first, int64_t *last)
{
    if (pp < 2 || vpp < 1) return false;
    if (pp == 2) {
        *first = (layers / vpp + 1) / 2 * vpp;
        *last = layers - *first;
        return *last >= vpp && *last % vpp == 0 && *last <= *first;
    }
    /* Middle ranks of equal size, as many layers as an even split gives them or one chunk
     * more; the rest over the two ends, which also carry the embedding and the loss, so no
     * more than a middle rank, the first no fewer than the last. */
    int64_t base = layers / pp / vpp * vpp;
    for (int64_t per = base > 0 ? base : vpp; per <= base + vpp; per += vpp) {
        int64_t rest = layers - (pp - 2) * per;
        if (rest < 2 * vpp || rest > 2 * per || rest % vpp) continue;
        *first = (rest / vpp + 1) / 2 * vpp;
        *last = rest - *first;
        if (*last >= vpp && *first <= per) return true;
    }
    return false;
}

bool nd_split_accounts(int64_t layers, int64_t pp, int64_t vpp)
{
    return pp > 1 && (layers + 2) % (pp * vpp) == 0;
}

int64_t nd_pipeline_layout_finish(nd_pipeline_layout *l)
{
    int64_t n = l->pp * l->vpp, sum = 0;
    for (int64_t v = 0; v < n; v++) {
        l->offset[v] = (int32_t)sum;
        sum += l->decoder[v];
    }
    return sum;
}

/* The text of virtual stage v: E first, t per decoder layer (t*n for more than two), then m per
 * MTP layer and L on the last. */
static void stage_text(const nd_strategy *s, int64_t layers, int64_t mtp, int64_t v, char *buf, size_t size)
{
    int64_t rank = v % s->pp, chunk = v / s->pp, first, count;
    nd_split_chunk(s, layers, rank, chunk, &first, &count);
    size_t used = (size_t)snprintf(buf, size, "%s", v == 0 ? "E" : "");
    if (count > 2)
        used += (size_t)snprintf(buf + used, size - used, "t*%lld", (long long)count);
    else
        for (int64_t i = 0; i < count && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "t");
    if (v < s->pp * s->vpp - 1) return;
    for (int64_t i = 0; i < mtp && used < size; i++) used += (size_t)snprintf(buf + used, size - used, "m");
    if (used < size) snprintf(buf + used, size - used, "L");
}

void nd_split_layout_text(const nd_strategy *s, int64_t layers, int64_t mtp, char *buf, size_t size)
{
    int64_t n = s->pp * s->vpp;
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t v = 0; v < n && used < size;) {
        char a[64], b[64];
        stage_text(s, layers, mtp, v, a, sizeof a);
        if (v == n - 1) {
            snprintf(buf + used, size - used, "%s", a);
            break;
        }
        /* a run of equal stages before the last one is written once: (tt|)*30 */
        int64_t run = 1;
        for (; v + run < n - 1; run++) {
            stage_text(s, layers, mtp, v + run, b, sizeof b);
            if (strcmp(a, b)) break;
        }
        if (run > 1)
            used += (size_t)snprintf(buf + used, size - used, "(%s|)*%lld", a, (long long)run);
        else
            used += (size_t)snprintf(buf + used, size - used, "%s|", a);
        v += run;
    }
}
