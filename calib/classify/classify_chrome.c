/* Streaming a Chrome trace (torch.profiler .json / .json.gz, torch_npu trace_view.json)
 * with yajl and zlib: each event is reduced to a compact record as it is read, so the
 * parser's memory is a few fixed buffers whatever the size of the file.
 *
 * Accepted: {"traceEvents": [...], "distributedInfo": {...}, ...} or a bare array of
 * events (whose closing ']' may be missing, as the Trace Event Format allows). pid and
 * tid may be numbers or strings; ts and dur numbers or decimal strings (torch_npu).
 * Numbers come raw (yajl_number) so 64-bit ids never overflow, and timestamps are
 * read to exact integer nanoseconds. */
#include "classify_chrome_internal.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/text.h"

static int on_null(void *c)
{
    return chrome_scalar(c, '0', NULL, 0);
}
static int on_bool(void *c, int b)
{
    (void)b;
    return chrome_scalar(c, 'b', NULL, 0);
}
static int on_number(void *c, const char *s, size_t n)
{
    return chrome_scalar(c, 'n', (const unsigned char *)s, n);
}
static int on_string(void *c, const unsigned char *s, size_t n)
{
    return chrome_scalar(c, 's', s, n);
}

static int on_key(void *c, const unsigned char *s, size_t n)
{
    parse *p = c;
    p->feed.calls++;
    if (!p->skip_depth && p->depth < 8) p->key[p->depth] = chrome_key_of(p, s, n);
    return 1;
}

static int open_skipped(parse *p)
{
    p->skip_depth = ++p->depth;
    return 1;
}

static int on_start_map(void *c)
{
    parse *p = c;
    p->feed.calls++;
    if (p->depth >= MAX_DEPTH) return chrome_fail(p, "nested deeper than %d levels", MAX_DEPTH);
    if (p->skip_depth) {
        p->depth++;
        return 1;
    }
    int d = p->depth, ed = p->events_depth;
    if (d + 1 < 8) p->key[d + 1] = K_NONE;
    if (d == 0) {
        p->top = 'o';
        p->depth = 1;
        return 1;
    }
    if (p->top == 'o' && d == 1 && p->key[1] == K_TRACE_EVENTS)
        return chrome_fail(p, "'traceEvents' is an object, expected an array");
    if (p->top == 'o' && d == 1 && p->key[1] == K_DIST_INFO) {
        p->info_depth = 2;
        p->depth = 2;
        return 1;
    }
    if (ed && d == ed) {
        chrome_event_begin(p);
        p->depth++;
        return 1;
    }
    if (ed && d == ed + 1 && p->key[d] == K_ARGS) {
        p->depth++;
        return 1;
    }
    if (ed && d == ed + 1 && (p->key[d] == K_TS || p->key[d] == K_DUR))
        return chrome_fail(p, "event #%llu: '%s' is an object, expected a number", p->n_events + 1,
                           p->key[d] == K_TS ? "ts" : "dur");
    if (p->info_depth && d == p->info_depth + 1 && p->key[p->info_depth] == K_PG_CONFIG) {
        memset(&p->cfg, 0, sizeof p->cfg);
        p->depth++;
        return 1;
    }
    return open_skipped(p);
}

static int on_start_array(void *c)
{
    parse *p = c;
    p->feed.calls++;
    if (p->depth >= MAX_DEPTH) return chrome_fail(p, "nested deeper than %d levels", MAX_DEPTH);
    if (p->skip_depth) {
        p->depth++;
        return 1;
    }
    int d = p->depth, ed = p->events_depth;
    if (d == 0) {
        p->top = 'a';
        p->events_depth = 1;
        p->saw_events = true;
        p->depth = 1;
        return 1;
    }
    if (p->top == 'o' && d == 1 && p->key[1] == K_TRACE_EVENTS) {
        p->events_depth = 2;
        p->saw_events = true;
        p->depth = 2;
        return 1;
    }
    if (ed && d == ed) return chrome_fail(p, "event #%llu is an array, expected an object", p->n_events + 1);
    if (ed && d == ed + 1 && (p->key[d] == K_TS || p->key[d] == K_DUR))
        return chrome_fail(p, "event #%llu: '%s' is an array, expected a number", p->n_events + 1,
                           p->key[d] == K_TS ? "ts" : "dur");
    if (ed && d == ed + 2 && (p->key[d] == K_IN_DIMS || p->key[d] == K_IN_TYPE || p->key[d] == K_PG_RANKS)) {
        p->depth++;
        return 1;
    }
    if (ed && d == ed + 3 && p->key[ed + 2] == K_IN_DIMS) {
        p->ev.shape_prod = 1;
        p->ev.list_sum = 0;
        p->ev.nested = false;
        if (p->ev.n_inputs < SHAPE_INPUTS) p->ev.dims.nd[p->ev.n_inputs] = 0;
        p->depth++;
        return 1;
    }
    if (ed && d == ed + 4 && p->key[ed + 2] == K_IN_DIMS) {
        p->ev.nested = true;
        p->ev.shape_prod = 1;
        if (p->ev.n_inputs < SHAPE_INPUTS) p->ev.dims.nd[p->ev.n_inputs] = -1; /* a list of tensors */
        p->depth++;
        return 1;
    }
    if (p->info_depth && d == p->info_depth && p->key[d] == K_PG_CONFIG) {
        p->depth++;
        return 1;
    }
    if (p->info_depth && d == p->info_depth + 2 && p->key[d] == K_CFG_RANKS) {
        p->depth++;
        return 1;
    }
    return open_skipped(p);
}

static int close_container(parse *p, bool is_map)
{
    p->feed.calls++;
    if (p->skip_depth) {
        if (p->depth-- == p->skip_depth) p->skip_depth = 0;
        return 1;
    }
    int d = p->depth, ed = p->events_depth;
    if (is_map && ed && d == ed + 1 && !chrome_event_end(p)) return 0;
    if (!is_map && ed && d == ed) p->events_depth = 0;
    if (!is_map && ed && d == ed + 5 && p->key[ed + 2] == K_IN_DIMS) p->ev.list_sum += p->ev.shape_prod;
    if (!is_map && ed && d == ed + 4 && p->key[ed + 2] == K_IN_DIMS && p->ev.n_inputs < MAX_INPUTS) {
        p->ev.elems[p->ev.n_inputs++] = p->ev.nested ? p->ev.list_sum : p->ev.shape_prod;
        if (p->ev.dims.n < SHAPE_INPUTS) p->ev.dims.n = p->ev.n_inputs;
    }
    if (is_map && p->info_depth && d == p->info_depth + 2) {
        trace_ctx *t = p->t;
        if (t->n_cfg == t->cap_cfg) {
            size_t cap = t->cap_cfg ? t->cap_cfg * 2 : 4;
            pg_config *n = realloc(t->cfg, cap * sizeof *n);
            if (!n) {
                nd_error_set(p->err, ND_ENOMEM, "out of memory");
                return 0;
            }
            t->cfg = n;
            t->cap_cfg = cap;
        }
        t->cfg[t->n_cfg++] = p->cfg;
        memset(&p->cfg, 0, sizeof p->cfg);
    }
    if (is_map && p->info_depth && d == p->info_depth) p->info_depth = 0;
    p->depth--;
    return 1;
}

static int on_end_map(void *c)
{
    return close_container(c, true);
}
static int on_end_array(void *c)
{
    return close_container(c, false);
}

static const yajl_callbacks callbacks = {on_null,    on_bool,        NULL,         NULL,
                                         on_number,  on_string,      on_start_map, on_key,
                                         on_end_map, on_start_array, on_end_array};

/* The end of the input: complete, or cut short (accepted only between the events of a
 * bare array, which the Trace Event Format allows to stay open). */
static int finish(parse *p)
{
    yajl_status st = yajl_complete_parse(p->feed.h);
    if (st == yajl_status_client_canceled) return p->err->code;
    if (p->top == 0)
        return nd_error_set(p->err, ND_EINPUT,
                            "%s: no JSON value (empty or only white space); "
                            "expected a Chrome trace",
                            p->t->path);
    if (st != yajl_status_ok && !(p->top == 'a' && p->depth == 1 && !p->skip_depth))
        return nd_error_set(p->err, ND_EINPUT,
                            "%s: byte %llu: the trace ends inside an unfinished JSON value "
                            "(truncated file?)",
                            p->t->path, p->feed.base);
    if (!p->saw_events)
        return nd_error_set(p->err, ND_EINPUT, "%s: no \"traceEvents\" array: not a Chrome trace",
                            p->t->path);
    return ND_OK;
}

/* The user's communication kernels, compiled for this reading (they were checked when
 * given: a failure here is memory). */
static int patterns_compile(parse *p, const nd_classify_options *o, nd_error *err)
{
    if (!o->n_comm_kernels) return ND_OK;
    if (!(p->comm_res = calloc(o->n_comm_kernels, sizeof *p->comm_res)))
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    for (; p->n_comm_res < o->n_comm_kernels; p->n_comm_res++)
        if (regcomp(&p->comm_res[p->n_comm_res], o->comm_kernels[p->n_comm_res], REG_EXTENDED | REG_NOSUB))
            return nd_error_set(err, ND_EUSAGE,
                                "--comm-kernel: '%s' is not a POSIX extended regular expression",
                                o->comm_kernels[p->n_comm_res]);
    return ND_OK;
}

/* One reading of the file into t (presets: the steps a first reading found, or NULL). */
static int read_pass(trace_ctx *t, nd_classify_run *run, const char *path, const preset_step *presets,
                     size_t n_presets, nd_error *err)
{
    parse *p = calloc(1, sizeof *p);
    if (!p || nd_classify_trace_ctx_init(t, run, path) != ND_OK) {
        free(p);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int rc = presets ? nd_classify_trace_preset(t, presets, n_presets, err) : ND_OK;
    if (!rc) rc = patterns_compile(p, &run->opts, err);
    p->t = t;
    p->err = err;
    p->cache = calloc(NAME_CACHE, sizeof *p->cache);
    p->feed = (json_feed){.path = path, .err = err};
    p->feed.h = p->cache ? yajl_alloc(&callbacks, NULL, p) : NULL;
    unsigned long long total = 0;
    if (!rc && !p->feed.h) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    } else if (!rc) {
        /* Profiler names are not always valid UTF-8; nd never prints them back. */
        yajl_config(p->feed.h, yajl_dont_validate_strings, 1);
        rc = nd_classify_json_stream(&p->feed, &total);
        if (!rc && total == 0)
            rc = nd_error_set(err, ND_EINPUT, "%s: empty file; expected a Chrome trace", path);
        if (!rc) rc = finish(p);
        if (!rc) rc = nd_classify_trace_drain(t, err);
        t->digest = p->feed.digest;
        t->bytes = total;
    }
    if (p->feed.h) yajl_free(p->feed.h);
    free(p->cfg.name);
    free(p->cfg.desc);
    free(p->cfg.ranks);
    for (size_t i = 0; i < p->n_comm_res; i++) regfree(&p->comm_res[i]);
    free(p->comm_res);
    free(p->cache);
    free(p);
    return rc;
}

/* A second reading is needed when the first could not place every kernel in its step: a
 * step came after launches or kernels of its own (torch_npu writes a step after its
 * events), or the trace has no step (one window over the whole trace, as HTA). */
static bool second_reading(const trace_ctx *t)
{
    return t->n_steps == 0 || t->launch_late || (t->device_late && t->has_kernels);
}

int nd_classify_chrome_read(nd_classify_run *run, const char *path, nd_error *err)
{
    trace_ctx t;
    int rc = read_pass(&t, run, path, NULL, 0, err);
    if (!rc && second_reading(&t)) {
        preset_step *presets = NULL;
        size_t n = 0;
        bool window = t.n_steps == 0;
        rc = nd_classify_trace_presets(&t, &presets, &n) ? nd_error_set(err, ND_ENOMEM, "out of memory")
                                                         : ND_OK;
        nd_classify_trace_ctx_free(&t);
        if (!rc && n)
            rc = read_pass(&t, run, path, presets, n, err);
        else if (!rc)
            nd_classify_trace_ctx_init(&t, run, path);
        if (!rc && window && n)
            nd_classify_trace_note(&t,
                                   "no ProfilerStep# events: the whole trace (%.3f ms, its first event's "
                                   "start to its last event's end) is one window, as HTA reads it",
                                   (double)presets[0].dur / 1e6);
        free(presets);
    }
    int seen = 0;
    if (!rc) {
        int rank = t.rank >= 0 ? t.rank : nd_classify_trace_rank_from_name(path);
        rc = seen = nd_classify_run_input_check(run, path, rank, t.digest, t.bytes, err);
    }
    if (seen == 1)
        rc = ND_OK; /* the same trace as an earlier input: read once */
    else if (!rc)
        rc = nd_classify_trace_samples(&t, err);
    nd_classify_trace_ctx_free(&t);
    return rc;
}
