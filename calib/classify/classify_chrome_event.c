/* classify_chrome_event.c — one Chrome trace event as its fields arrive (classify_chrome.c
 * drives the parse): which key a field is, what the event's name says (its features, HTA's
 * kernel type, cached by name), its process group and payload, and the record it becomes at
 * its end (classify_chrome_internal.h). */
#include "classify_chrome_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dur of -1 marks an op still open when the profiler stopped (torch's profiler sets an
 * unfinished op's duration to -1; Perfetto reads -1 as "did not end"): -1 us, or -1 ns
 * written as -0.001 us, is skipped, as ND skips it. Any other negative dur is a broken
 * trace (it would shorten what holds the event) and is refused. */
#define UNFINISHED(dur_ns) ((dur_ns) == -1000 || (dur_ns) == -1)

static unsigned long long at(const parse *p)
{
    return nd_classify_json_at(&p->feed);
}

/* Records the error and returns 0, which makes yajl stop. */
int chrome_fail(parse *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nd_error_set(p->err, ND_EINPUT, "%s: byte %llu: %s", p->t->path, at(p), msg);
    return 0;
}

/* A hash of a name or an id, eight bytes a step: every event's name is hashed (the
 * feature cache), and a byte-at-a-time hash of kernel names cost a tenth of the reading. */
static uint64_t fnv(const unsigned char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h ^ (h >> 32);
}

/* The features of a device kernel of this name: a name the user's patterns match is a
 * communication kernel (its collective from its words), beside the families nd knows. */
static uint32_t device_features(const parse *p, const unsigned char *s, size_t n, uint32_t feat)
{
    if (!p->n_comm_res || (feat & F_COMM_KERNEL)) return feat;
    char *name = malloc(n + 1);
    if (!name) return feat;
    memcpy(name, s, n);
    name[n] = '\0';
    bool hit = false;
    for (size_t i = 0; i < p->n_comm_res && !hit; i++) hit = regexec(&p->comm_res[i], name, 0, NULL, 0) == 0;
    free(name);
    if (!hit) return feat;
    feat &= ~((0xfu << F_COLL_SHIFT) | (0xfu << F_KCLASS_SHIFT));
    return feat | F_COMM_KERNEL | ((uint32_t)nd_classify_coll_from_text((const char *)s, n) << F_COLL_SHIFT) |
           ((uint32_t)ND_KC_COMM << F_KCLASS_SHIFT);
}

/* HTA's kernel types (hta/utils/utils.py: is_comm_kernel, is_memory_kernel), for the
 * cross-check with HTA's temporal breakdown. */
static bool contains(const unsigned char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == (unsigned char)lit[0] && !memcmp(s + i, lit, k)) return true;
    return false;
}

static uint8_t hta_type(const unsigned char *s, size_t n)
{
    if (contains(s, n, "ncclKernel")) return REC_HTA_COMM;
    return contains(s, n, "Memcpy") || contains(s, n, "Memset") ? REC_HTA_MEMORY : 0;
}

static void features_cached(parse *p, const unsigned char *s, size_t n, event *e)
{
    if (n >= NAME_CACHE_LEN) {
        memcpy(e->name_cut, s, sizeof e->name_cut);
        e->name = (const unsigned char *)e->name_cut;
        e->name_len = sizeof e->name_cut;
        e->feat = nd_classify_name_features((const char *)s, n);
        e->dev_feat = device_features(p, s, n, e->feat);
        e->hta = hta_type(s, n);
        return;
    }
    uint64_t h = fnv(s, n);
    name_slot *slot = &p->cache[h & (NAME_CACHE - 1)];
    if (!(slot->hash == h && slot->len == n && memcmp(slot->text, s, n) == 0)) {
        slot->hash = h;
        slot->len = (uint16_t)n;
        memcpy(slot->text, s, n);
        slot->feat = nd_classify_name_features((const char *)s, n);
        slot->dev_feat = device_features(p, s, n, slot->feat);
        slot->hta = hta_type(s, n);
    }
    e->name = (const unsigned char *)slot->text;
    e->name_len = n;
    e->feat = slot->feat;
    e->dev_feat = slot->dev_feat;
    e->hta = slot->hta;
}

/* An args key: by length first, then the text. Every spelling of the input shapes torch
 * has written: "Input Dims", torch <= 1.9's "Input dims". */
static enum key args_key(const unsigned char *s, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
    switch (n) {
    case 4: return IS("name") ? K_META_NAME : K_NONE;
    case 5: return IS("dtype") ? K_DTYPE : K_NONE;
    case 6: return IS("labels") ? K_META_LABELS : K_NONE;
    case 10:
        if (IS("Input Dims") || IS("Input dims")) return K_IN_DIMS;
        if (IS("Input type")) return K_IN_TYPE;
        return IS("Group size") ? K_GROUP_SIZE : K_NONE;
    case 11:
        if (IS("External id")) return K_EXT;
        return IS("correlation") ? K_CORR : K_NONE;
    case 13: return IS("In msg nelems") ? K_NELEMS : K_NONE;
    case 14: return IS("Out msg nelems") ? K_NELEMS : K_NONE;
    case 15: return IS("Collective name") ? K_COLL : K_NONE;
    case 17: return IS("Global rank start") ? K_RANK_START : K_NONE;
    case 18:
        if (IS("Process Group Name")) return K_PG_NAME;
        return IS("Global rank stride") ? K_RANK_STRIDE : K_NONE;
    case 19: return IS("Process Group Ranks") ? K_PG_RANKS : K_NONE;
    case 25: return IS("Process Group Description") ? K_PG_DESC : K_NONE;
    default: return K_NONE;
    }
#undef IS
}

enum key chrome_key_of(const parse *p, const unsigned char *s, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
    int d = p->depth;
    if (p->top == 'o' && d == 1) {
        if (IS("traceEvents")) return K_TRACE_EVENTS;
        if (IS("distributedInfo")) return K_DIST_INFO;
        return K_NONE;
    }
    if (p->events_depth && d == p->events_depth + 1) {
        switch (n) {
        case 2: return IS("ph") ? K_PH : IS("ts") ? K_TS : K_NONE;
        case 3: return IS("cat") ? K_CAT : IS("pid") ? K_PID : IS("tid") ? K_TID : IS("dur") ? K_DUR : K_NONE;
        case 4: return IS("name") ? K_NAME : IS("args") ? K_ARGS : K_NONE;
        default: return K_NONE;
        }
    }
    if (p->events_depth && d == p->events_depth + 2) /* args: most keys are none of these */
        return args_key(s, n);
    if (p->info_depth && d == p->info_depth) {
        if (IS("rank")) return K_RANK;
        if (IS("world_size")) return K_WORLD;
        if (IS("pg_config")) return K_PG_CONFIG;
        return K_NONE;
    }
    if (p->info_depth && d == p->info_depth + 2) {
        if (IS("pg_name")) return K_CFG_NAME;
        if (IS("pg_desc")) return K_CFG_DESC;
        if (IS("pg_size")) return K_CFG_SIZE;
        if (IS("ranks")) return K_CFG_RANKS;
    }
    return K_NONE;
#undef IS
}

/* A trace's text (a collective's or a process group's name) as nd shows it: control bytes
 * escaped (nd_text_shown), so an ESC sequence or a newline never reaches a terminal. */
static void copy_text(char *dst, size_t size, const unsigned char *s, size_t n)
{
    char raw[256];
    if (n >= sizeof raw) n = sizeof raw - 1;
    memcpy(raw, s, n);
    raw[n] = '\0';
    nd_text_shown(raw, dst, size);
}

static void ranks_append(event *e, const char *s, size_t n)
{
    if (e->ranks_len + n + 3 >= sizeof e->ranks) {
        e->ranks_cut = true;
        return;
    }
    if (e->ranks_len == 0)
        e->ranks[e->ranks_len++] = '[';
    else
        e->ranks[e->ranks_len++] = ',';
    memcpy(e->ranks + e->ranks_len, s, n);
    e->ranks_len += n;
    e->ranks[e->ranks_len] = ']';
    e->ranks[e->ranks_len + 1] = '\0';
}

static bool pid_in(const uint64_t *pids, int n, uint64_t pid)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == pid) return true;
    return false;
}

static bool is_device_pid(const parse *p, uint64_t pid)
{
    return pid_in(p->device_pids, p->n_device_pids, pid);
}

static int64_t payload_bytes(const event *e)
{
    double best = 0;
    for (int i = 0; i < e->n_inputs; i++) {
        double b = e->elems[i] * (i < e->n_types ? e->type_bytes[i] : 4);
        if (b > best && b <= 1e18) best = b; /* a shape of 1e300 elements is no tensor */
    }
    return (int64_t)best;
}

static bool has_group_info(const event *e)
{
    /* torch writes "Group size": 1 and "[]" for a Work.wait(): no group there. */
    return e->pg_name[0] || e->pg_desc[0] || e->ranks_len > 2 || e->group_size > 1 || e->rank_stride > 0;
}

static int event_group(parse *p, const event *e, bool comm_kernel, int32_t *group)
{
    *group = -1;
    if (!comm_kernel && !has_group_info(e)) return 1;
    comm_group g = {.kind =
                        e->coll[0] ? nd_classify_coll_from_text(e->coll, strlen(e->coll)) : F_COLL(e->feat),
                    .pg_name = e->pg_name[0] ? (char *)e->pg_name : NULL,
                    .pg_desc = e->pg_desc[0] ? (char *)e->pg_desc : NULL,
                    .ranks = e->ranks_len && !e->ranks_cut ? (char *)e->ranks : NULL,
                    .size = e->group_size,
                    .start = e->rank_start,
                    .stride = e->rank_stride};
    int i = nd_classify_group_table_intern(&p->t->groups, &g);
    if (i == -2)
        return chrome_fail(p, "event #%llu: more than %d distinct process groups (and collectives)",
                           p->n_events, GROUP_TABLE_MAX);
    if (i < 0) {
        nd_error_set(p->err, ND_ENOMEM, "out of memory");
        return 0;
    }
    *group = i;
    return 1;
}

/* The group a link carries for a host collective: its own (named) group, else one of its
 * kind alone, so a kernel it launched still learns what collective it ran. */
static int link_group(parse *p, const event *e, int32_t own, int32_t *out)
{
    *out = own;
    if (own >= 0 || !(e->feat & (F_C10D_OP | F_RPC | F_COMM_ANNOT))) return 1;
    coll_kind k = e->coll[0] ? nd_classify_coll_from_text(e->coll, strlen(e->coll)) : F_COLL(e->feat);
    if (k == COLL_UNKNOWN) return 1;
    comm_group g = {.kind = k};
    int i = nd_classify_group_table_intern(&p->t->groups, &g);
    if (i == -2)
        return chrome_fail(p, "event #%llu: more than %d distinct process groups (and collectives)",
                           p->n_events, GROUP_TABLE_MAX);
    if (i < 0) {
        nd_error_set(p->err, ND_ENOMEM, "out of memory");
        return 0;
    }
    *out = i;
    return 1;
}

static void meta_end(parse *p, const event *e)
{
    if (!e->is_proc_name) return;
    /* torch_npu: the device is "Ascend Hardware"; "Overlap Analysis" is the profiler's
     * own compute/communication/free split (labelled NPU too, but no device). */
    if (strstr(e->meta, "Ascend Hardware") && p->n_device_pids < 16 && !is_device_pid(p, e->pid))
        p->device_pids[p->n_device_pids++] = e->pid;
    if (!strcmp(e->meta, "Overlap Analysis") && p->n_summary_pids < 4 &&
        !pid_in(p->summary_pids, p->n_summary_pids, e->pid))
        p->summary_pids[p->n_summary_pids++] = e->pid;
}

/* A time in ns as microseconds for a message: "-1000", "12.5". */
static const char *us_text(nd_ns v, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%.3f", (double)v / 1000.0);
    while (n > 0 && (size_t)n < size && buf[n - 1] == '0') buf[--n] = '\0';
    if (n > 0 && (size_t)n < size && buf[n - 1] == '.') buf[--n] = '\0';
    return buf;
}

/* A complete event that ends before it starts would take its time off whatever holds it
 * (a step shorter than nothing, a negative compute): refused, naming the event. */
static int negative_dur(parse *p, const event *e)
{
    char name[80], ts[32], dur[32];
    if (e->name_len)
        copy_text(name, sizeof name, e->name, e->name_len);
    else
        nd_text_copy(name, "(no name)", sizeof name);
    return chrome_fail(
        p, "event #%llu '%s' at ts %s us: 'dur' is negative (%s us); a complete event lasts 0 or more",
        p->n_events, name, us_text(e->ts, ts, sizeof ts), us_text(e->dur, dur, sizeof dur));
}

int chrome_event_end(parse *p)
{
    event *e = &p->ev;
    p->n_events++;
    if (e->ph == 'M') {
        meta_end(p, e);
        return 1;
    }
    if (e->ph != 'X' || e->cat == CAT_SKIP) return 1;
    if (!e->has_ts) return chrome_fail(p, "event #%llu: complete event ('X') without 'ts'", p->n_events);
    if (!e->has_dur) return chrome_fail(p, "event #%llu: complete event ('X') without 'dur'", p->n_events);
    if (e->dur < 0 && !UNFINISHED(e->dur)) return negative_dur(p, e);
    if (e->dur < 0) return 1; /* an op still open when the profiler stopped; ND cannot place it either */
    bool summary = pid_in(p->summary_pids, p->n_summary_pids, e->pid);
    bool device = !summary && (e->cat == CAT_KERNEL || e->cat == CAT_MEMORY ||
                               (e->cat == CAT_OTHER && is_device_pid(p, e->pid)));
    if (device && e->cat != CAT_MEMORY) e->feat = e->dev_feat;
    bool comm_kernel = device && (e->feat & F_COMM_KERNEL);
    trace_rec r = {.ts = e->ts, .dur = e->dur, .feat = e->feat, .group = -1};
    r.cat = summary ? CAT_SUMMARY : device ? (e->cat == CAT_MEMORY ? CAT_MEMORY : CAT_KERNEL) : e->cat;
    if (e->feat & (F_C10D_OP | F_RPC | F_COMM_ANNOT)) r.bytes = payload_bytes(e);
    if (comm_kernel && e->nelems > 0 && e->nelems * (e->dtype_size ? e->dtype_size : 4) <= 1e18)
        r.bytes = (int64_t)(e->nelems * (e->dtype_size ? e->dtype_size : 4));
    if (device) {
        r.ext = e->ext_id;
        r.corr = e->corr;
        r.flags = (uint8_t)((has_group_info(e) ? REC_OWN_GROUP : 0) | e->hta);
    }
    if (!summary && !(e->feat & F_STEP) && !event_group(p, e, comm_kernel, &r.group)) return 0;
    if (device && (e->feat & F_STEP)) return 1; /* a device-side step marker: not a step */
    trace_extra x = {.device = device,
                     .ext = e->ext_id,
                     .corr = e->corr,
                     .dims = &e->dims,
                     .summary = summary ? e->summary_kind : -1};
    if (!device && !summary && !link_group(p, e, r.group, &x.link_group)) return 0;
    /* record_param_comms and nccl: annotations that name no group: their kind places them */
    if (!device && r.group < 0 && x.link_group >= 0 && (e->feat & (F_RPC | F_COMM_ANNOT))) {
        r.group = x.link_group;
        r.flags |= REC_KIND_ONLY;
    }
    p->t->offset = at(p);
    uint64_t key = e->pid * 1000003u ^ e->tid;
    if (nd_classify_trace_event(p->t, key, &r, e->step_name, &x, p->err)) return 0;
    return 1;
}

void chrome_event_begin(parse *p)
{
    event *e = &p->ev;
    /* Reset only what is read (the big buffers are guarded by their lengths). */
    e->ph = 0;
    e->cat = CAT_OTHER;
    e->is_meta_proc = e->is_proc_name = false;
    e->feat = e->dev_feat = 0;
    e->hta = 0;
    e->pid = e->tid = 0;
    e->has_ts = e->has_dur = false;
    e->ts = e->dur = 0;
    e->step_name[0] = '\0';
    e->name_len = 0;
    e->n_inputs = e->n_types = 0;
    e->coll[0] = e->pg_name[0] = e->pg_desc[0] = e->meta[0] = '\0';
    e->ranks_len = 0;
    e->ranks_cut = false;
    e->group_size = e->rank_start = e->rank_stride = 0;
    e->ext_id = e->corr = 0;
    e->nelems = 0;
    e->dtype_size = 0;
    e->summary_kind = -1;
    e->dims.n = 0;
    e->dims.dtype = 0;
}

static const char *kind_word(int kind)
{
    switch (kind) {
    case 's': return "string";
    case 'n': return "number";
    case 'b': return "boolean";
    case 'm': return "object";
    case 'a': return "array";
    default: return "null";
    }
}

static int time_field(parse *p, const char *field, int kind, const unsigned char *s, size_t n, nd_ns *out,
                      bool *has)
{
    if (kind == '0') return 1; /* null: as if absent */
    if (kind != 'n' && kind != 's')
        return chrome_fail(p, "event #%llu: '%s' is a %s, expected a number", p->n_events + 1, field,
                           kind_word(kind));
    int rc = nd_classify_us_to_ns((const char *)s, n, out);
    if (rc == -2)
        return chrome_fail(p, "event #%llu: '%s' is out of range: \"%.*s\" (at most 4e15 microseconds)",
                           p->n_events + 1, field, (int)(n > 40 ? 40 : n), (const char *)s);
    if (rc != 0)
        return chrome_fail(p, "event #%llu: '%s' is not a number: \"%.*s\"", p->n_events + 1, field,
                           (int)(n > 40 ? 40 : n), (const char *)s);
    *has = true;
    return 1;
}

static int event_field(parse *p, int kind, const unsigned char *s, size_t n)
{
    event *e = &p->ev;
    switch (p->key[p->depth]) {
    case K_PH: e->ph = kind == 's' && n == 1 ? (char)s[0] : '?'; return 1;
    case K_CAT: e->cat = kind == 's' ? nd_classify_event_cat(s, n) : CAT_OTHER; return 1;
    case K_NAME:
        if (kind != 's') return 1;
        features_cached(p, s, n, e);
        if (e->feat & F_STEP) copy_text(e->step_name, sizeof e->step_name, s, n);
        e->is_proc_name = n == 12 && !memcmp(s, "process_name", 12);
        e->is_meta_proc = e->is_proc_name || (n == 14 && !memcmp(s, "process_labels", 14));
        e->summary_kind = nd_classify_summary_kind((const char *)s, n);
        return 1;
    case K_PID: e->pid = fnv(s, n); return 1;
    case K_TID: e->tid = fnv(s, n); return 1;
    case K_TS: return time_field(p, "ts", kind, s, n, &e->ts, &e->has_ts);
    case K_DUR: return time_field(p, "dur", kind, s, n, &e->dur, &e->has_dur);
    default: return 1;
    }
}

static int args_field(parse *p, int kind, const unsigned char *s, size_t n)
{
    event *e = &p->ev;
    bool str = kind == 's', num = kind == 'n';
    switch (p->key[p->depth]) {
    case K_COLL:
        if (str) copy_text(e->coll, sizeof e->coll, s, n);
        return 1;
    case K_PG_NAME:
        if (str || num) copy_text(e->pg_name, sizeof e->pg_name, s, n);
        return 1;
    case K_PG_DESC:
        if (str) copy_text(e->pg_desc, sizeof e->pg_desc, s, n);
        return 1;
    case K_PG_RANKS:
        if (!str) return 1;
        if (n + 1 >= sizeof e->ranks)
            e->ranks_cut = true;
        else {
            copy_text(e->ranks, sizeof e->ranks, s, n);
            e->ranks_len = n;
        }
        return 1;
    case K_GROUP_SIZE:
        if (num) e->group_size = nd_classify_text_int((const char *)s, n);
        return 1;
    case K_RANK_START:
        if (num) e->rank_start = nd_classify_text_int((const char *)s, n);
        return 1;
    case K_RANK_STRIDE:
        if (num) e->rank_stride = nd_classify_text_int((const char *)s, n);
        return 1;
    case K_EXT:
        if (num) e->ext_id = nd_classify_text_u64((const char *)s, n);
        return 1;
    case K_CORR:
        if (num) e->corr = nd_classify_text_u64((const char *)s, n);
        return 1;
    case K_NELEMS:
        if (num && (double)nd_classify_text_int((const char *)s, n) > e->nelems)
            e->nelems = (double)nd_classify_text_int((const char *)s, n);
        return 1;
    case K_DTYPE:
        if (str) e->dtype_size = nd_classify_coll_dtype_bytes(s, n);
        return 1;
    case K_META_NAME:
    case K_META_LABELS:
        if (str) copy_text(e->meta, sizeof e->meta, s, n);
        return 1;
    default: return 1;
    }
}

static int info_field(parse *p, int kind, const unsigned char *s, size_t n)
{
    int d = p->depth - p->info_depth;
    trace_ctx *t = p->t;
    if (kind != 'n' && kind != 's') return 1;
    if (d == 0 && p->key[p->depth] == K_RANK && kind == 'n')
        t->rank = (int)nd_classify_text_int((const char *)s, n);
    if (d == 0 && p->key[p->depth] == K_WORLD && kind == 'n')
        t->world_size = nd_classify_text_int((const char *)s, n);
    if (d == 2) {
        char **dst = p->key[p->depth] == K_CFG_NAME   ? &p->cfg.name
                     : p->key[p->depth] == K_CFG_DESC ? &p->cfg.desc
                                                      : NULL;
        if (dst && !*dst && (*dst = malloc(n + 1))) {
            memcpy(*dst, s, n);
            (*dst)[n] = '\0';
        }
        if (p->key[p->depth] == K_CFG_SIZE && kind == 'n')
            p->cfg.size = nd_classify_text_int((const char *)s, n);
    }
    if (d == 3 && kind == 'n' && p->key[p->info_depth + 2] == K_CFG_RANKS) {
        size_t old = p->cfg.ranks ? strlen(p->cfg.ranks) : 0;
        char *r = realloc(p->cfg.ranks, old + n + 3);
        if (!r) return 1;
        if (old == 0)
            r[old++] = '[';
        else
            r[old - 1] = ',';
        memcpy(r + old, s, n);
        r[old + n] = ']';
        r[old + n + 1] = '\0';
        p->cfg.ranks = r;
    }
    return 1;
}

static bool in_dims(const parse *p)
{
    return p->events_depth && p->depth >= p->events_depth + 3 && p->key[p->events_depth + 2] == K_IN_DIMS;
}

int chrome_scalar(parse *p, int kind, const unsigned char *s, size_t n)
{
    p->feed.calls++;
    if (p->skip_depth) return 1;
    int d = p->depth, ed = p->events_depth;
    if (d == 0)
        return chrome_fail(p,
                           "the top level is a %s; expected an object with \"traceEvents\" or an "
                           "array of events",
                           kind_word(kind));
    if (p->top == 'o' && d == 1 && p->key[1] == K_TRACE_EVENTS)
        return chrome_fail(p, "'traceEvents' is a %s, expected an array", kind_word(kind));
    if (ed && d == ed)
        return chrome_fail(p, "event #%llu is a %s, expected an object", p->n_events + 1, kind_word(kind));
    if (ed && d == ed + 1) return event_field(p, kind, s, n);
    if (ed && d == ed + 2) return args_field(p, kind, s, n);
    if (ed && d == ed + 3 && p->key[ed + 2] == K_IN_TYPE && kind == 's' && p->ev.n_types < MAX_INPUTS) {
        if (p->ev.n_types == 0) p->ev.dims.dtype = nd_classify_dtype_of((const char *)s, n);
        p->ev.type_bytes[p->ev.n_types++] = nd_classify_dtype_bytes(s, n);
    }
    if (ed && d == ed + 3 && p->key[ed + 2] == K_PG_RANKS && kind == 'n')
        ranks_append(&p->ev, (const char *)s, n);
    if (kind == 'n' && in_dims(p) && d >= ed + 4) {
        int64_t v = nd_classify_text_int((const char *)s, n);
        p->ev.shape_prod *= (double)v;
        op_dims *od = &p->ev.dims;
        int i = p->ev.n_inputs; /* the input being read */
        if (d == ed + 4 && i < SHAPE_INPUTS && od->nd[i] >= 0)
            od->nd[i] < SHAPE_DIMS ? (void)(od->dim[i][od->nd[i]++] = v) : (void)(od->nd[i] = -1);
    }
    if (p->info_depth && d >= p->info_depth) return info_field(p, kind, s, n);
    return 1;
}
