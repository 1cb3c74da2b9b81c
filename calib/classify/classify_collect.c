/* A classification run's store: its options, the rank-step samples the readers add, and
 * the notes they leave for the user. */
#include "classify_internal.h"
#include "classify_kernels.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

/* The classified CSV's columns are the quantities from time to optimizer, in order. */
_Static_assert(ND_CQ_CSV_COLUMNS == 1 + ND_MEAS_COUNT && ND_CQ_ND_COLUMNS == 1 + ND_MEAS_ND,
               "time, then the classified CSV's measured columns");
_Static_assert(ND_CQ_OPTIMIZER - ND_CQ_COMP == ND_MEAS_OPTIMIZER && ND_CQ_IDLE - ND_CQ_COMP == ND_MEAS_IDLE,
               "the quantities in nd_measured's order");

const char *nd_classify_quantity_name(nd_classify_quantity q)
{
    /* comp split by phase: columns of the --detail file only */
    static const char *phases[ND_CQ_COUNT - ND_CQ_CSV_COLUMNS] = {"comp_fw",  "comp_bw",    "comp_rec",
                                                                  "comp_opt", "comp_other", "comp_unsplit"};
    if (q == ND_CQ_TIME) return nd_classified_csv.time;
    if (q >= ND_CQ_COMP && q < ND_CQ_CSV_COLUMNS) return nd_classified_csv.measured[q - ND_CQ_COMP];
    return (unsigned)q < ND_CQ_COUNT ? phases[q - ND_CQ_CSV_COLUMNS] : "?";
}

const char *nd_classify_view_name(nd_classify_view v)
{
    static const char *names[] = {"auto", "host", "device", "ascend", "mixed"};
    return (unsigned)v <= ND_VIEW_MIXED ? names[v] : "?";
}

void nd_classify_options_init(nd_classify_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->view = ND_VIEW_AUTO;
    opts->stat = ND_STAT_MEAN;
    opts->dims_from_trace = true;
}

nd_classify_run *nd_classify_run_alloc(const nd_classify_options *opts)
{
    nd_classify_run *run = calloc(1, sizeof *run);
    if (run) run->opts = *opts;
    if (run && opts->has_dims) snprintf(run->dims_source, sizeof run->dims_source, "--dims");
    return run;
}

static void messages_free(nd_classify_messages *m)
{
    for (size_t i = 0; i < m->n; i++) free(m->items[i]);
    free(m->items);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static void sample_free(nd_classify_sample *s)
{
    nd_classify_kernels_free(s->kernels);
    free(s->input);
    free(s->step);
    for (size_t i = 0; i < s->n_sites; i++) free(s->sites[i].label);
    free(s->sites);
}

void nd_classify_summary_free(nd_classify_summary *m)
{
    for (size_t i = 0; i < m->n_sites; i++) free(m->sites[i].label);
    free(m->sites);
    nd_classify_kernels_clear(&m->kernels);
    memset(m, 0, sizeof *m);
}

int nd_classify_run_input_check(nd_classify_run *run, const char *path, int rank, uint64_t digest,
                                unsigned long long bytes, nd_error *err)
{
    for (size_t i = 0; i < run->n_ids; i++) {
        const nd_classify_input_id *x = &run->ids[i];
        if (x->digest == digest && x->bytes == bytes) {
            if (!strcmp(path, x->path))
                nd_classify_run_warn(run, "%s is given twice: read once", path);
            else
                nd_classify_run_warn(run, "%s holds the same trace as %s (same content): read once", path,
                                     x->path);
            return 1;
        }
        if (rank >= 0 && x->rank == rank)
            return nd_error_set(err, ND_EINPUT,
                                "%s: rank %d was read already, from %s: two traces of one rank in "
                                "one run would count it twice; give one of them, or classify each "
                                "as a run of its own",
                                path, rank, x->path);
    }
    nd_classify_input_id *n = realloc(run->ids, (run->n_ids + 1) * sizeof *n);
    if (!n) return nd_error_set(err, ND_ENOMEM, "out of memory");
    run->ids = n;
    nd_classify_input_id id = {nd_strdup(path), rank, digest, bytes};
    if (!id.path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    run->ids[run->n_ids++] = id;
    return 0;
}

void nd_classify_run_free(nd_classify_run *run)
{
    if (!run) return;
    for (size_t i = 0; i < run->n_ids; i++) free(run->ids[i].path);
    free(run->ids);
    for (size_t i = 0; i < run->n_samples; i++) sample_free(&run->samples[i]);
    free(run->samples);
    for (size_t i = 0; i < run->n_inputs; i++) free(run->inputs[i]);
    free(run->inputs);
    messages_free(&run->notes);
    messages_free(&run->warnings);
    nd_classify_summary_free(&run->summary);
    free(run);
}

/* Here, beside the store, so that every reader (the Chrome sampler, the Ascend
 * apportioning) can use it without reaching into another reader's file. */
void nd_classify_sample_complete(nd_classify_sample *s)
{
    double *q = s->q;
    q[ND_CQ_COMP] = q[ND_CQ_COMP_FW] + q[ND_CQ_COMP_BW] + q[ND_CQ_COMP_REC] + q[ND_CQ_COMP_OPT] +
                    q[ND_CQ_COMP_OTHER] + q[ND_CQ_COMP_UNSPLIT];
    q[ND_CQ_OPTIMIZER] = q[ND_CQ_COMP_OPT];
    double busy = q[ND_CQ_COMP] + q[ND_CQ_UNCLASSIFIED];
    for (int c = ND_CQ_DP_WAIT; c <= ND_CQ_SP_WAIT; c++) busy += q[c];
    q[ND_CQ_IDLE] = q[ND_CQ_TIME] - busy;
}

int nd_classify_run_sample_add(nd_classify_run *run, nd_classify_sample *s, nd_error *err)
{
    if (run->n_samples == run->cap_samples) {
        size_t cap = run->cap_samples ? run->cap_samples * 2 : 64;
        nd_classify_sample *n = realloc(run->samples, cap * sizeof *n);
        if (!n) {
            sample_free(s);
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        }
        run->samples = n;
        run->cap_samples = cap;
    }
    run->samples[run->n_samples++] = *s;
    return ND_OK;
}

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int messages_grow(nd_classify_messages *m)
{
    size_t n = m->n_slots ? m->n_slots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return ND_ENOMEM;
    for (size_t i = 0; i < m->n; i++) {
        size_t k = text_hash(m->items[i]) & (n - 1);
        while (slots[k]) k = (k + 1) & (n - 1);
        slots[k] = (uint32_t)i + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->n_slots = n;
    return ND_OK;
}

/* Adds msg unless it is there already. */
static int messages_add(nd_classify_messages *m, const char *msg)
{
    if ((m->n + 1) * 2 > m->n_slots && messages_grow(m)) return ND_ENOMEM;
    size_t k = text_hash(msg) & (m->n_slots - 1);
    for (; m->slots[k]; k = (k + 1) & (m->n_slots - 1))
        if (!strcmp(m->items[m->slots[k] - 1], msg)) return ND_OK; /* once is enough */
    char **items = realloc(m->items, (m->n + 1) * sizeof *items);
    if (!items) return ND_ENOMEM;
    m->items = items;
    if (!(m->items[m->n] = nd_strdup(msg))) return ND_ENOMEM;
    m->slots[k] = (uint32_t)++m->n;
    return ND_OK;
}

static int messages_addv(nd_classify_messages *m, const char *fmt, va_list ap) ND_PRINTF(2, 0);
static int messages_addv(nd_classify_messages *m, const char *fmt, va_list ap)
{
    char raw[ND_ERROR_MESSAGE_MAX], msg[ND_ERROR_MESSAGE_MAX];
    vsnprintf(raw, sizeof raw, fmt, ap);
    /* a trace's names and paths may hold an ESC sequence or a newline: shown escaped */
    return messages_add(m, nd_text_shown(raw, msg, sizeof msg));
}

int nd_classify_run_note(nd_classify_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = messages_addv(&run->notes, fmt, ap);
    va_end(ap);
    return rc;
}

int nd_classify_run_warn(nd_classify_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = messages_addv(&run->warnings, fmt, ap);
    va_end(ap);
    return rc;
}
