/* From the steps of one Chrome trace to rank-step samples: the view is chosen
 * (host, or device when the trace has kernels), process groups are placed, and every
 * number is tagged with the view it comes from. */
#include "classify_steps.h"

#include <stdlib.h>
#include <string.h>
#include "nd/base/io.h"

#include "classify_checks.h"
#include "classify_kernels.h"
#include "classify_links.h"

static int site_add(nd_classify_sample *s, int column, const char *label, double ns, double calls,
                    double waits, double bytes)
{
    for (size_t i = 0; i < s->n_sites; i++) {
        nd_classify_site *x = &s->sites[i];
        if ((int)x->column != column || strcmp(x->label, label)) continue;
        x->ms += ns / 1e6;
        x->calls += calls;
        x->waits += waits;
        x->bytes += bytes;
        s->q[column] += ns / 1e6;
        return 0;
    }
    nd_classify_site *n = realloc(s->sites, (s->n_sites + 1) * sizeof *n);
    if (!n) return -1;
    s->sites = n;
    nd_classify_site *x = &s->sites[s->n_sites];
    memset(x, 0, sizeof *x);
    x->label = nd_strdup(label);
    if (!x->label) return -1;
    s->n_sites++;
    x->column = (nd_classify_quantity)column;
    x->ms = ns / 1e6;
    x->calls = calls;
    x->waits = waits;
    x->bytes = bytes;
    s->q[column] += ns / 1e6;
    return 0;
}

/* Every number but the step time comes from the device in the device view. */
static void views_set(nd_classify_sample *s, bool device)
{
    for (int q = 0; q < ND_CQ_COUNT; q++)
        s->view[q] = q != ND_CQ_TIME && device ? ND_VIEW_DEVICE : ND_VIEW_HOST;
}

static int host_parts(nd_classify_sample *s, const trace_step *st, const placed *pl)
{
    for (int b = 0; b < 5; b++) s->q[ND_CQ_COMP_FW + b] = st->phase_ns[b] / 1e6;
    for (size_t i = 0; i < st->n_sites; i++) {
        const step_site *x = &st->sites[i];
        int col = x->column >= 0 ? x->column : (int)pl[x->group].column;
        const char *label = x->column >= 0 ? x->label : pl[x->group].label;
        if (site_add(s, col, label, x->ns, x->calls, x->waits, x->bytes)) return -1;
    }
    return 0;
}

/* Device compute by the phase of the host frames around each kernel's launch (the
 * kernels launched inside Optimizer.step are the optimizer's, wherever they run);
 * compute whose launch is not known is comp_unsplit. */
static int device_parts(nd_classify_sample *s, const trace_step *st, const placed *pl)
{
    _Static_assert(ND_CQ_COMP_UNSPLIT - ND_CQ_COMP_FW == PHASE_UNKNOWN &&
                       ND_CQ_COMP_OPT - ND_CQ_COMP_FW == PHASE_OPT,
                   "the comp_* quantities in the order of the launch phases");
    for (int b = 0; b < PHASE_BUCKETS; b++) s->q[ND_CQ_COMP_FW + b] = st->dev_phase_ns[b] / 1e6;
    for (size_t g = 0; g < st->n_dev_groups; g++) {
        const step_group *x = &st->dev_groups[g];
        if (x->exposed_ns > 0 &&
            site_add(s, (int)pl[g].column, pl[g].label, x->exposed_ns, x->calls, 0, x->bytes))
            return -1;
    }
    return 0;
}

static int choose_view(trace_ctx *t, bool *device, nd_error *err)
{
    nd_classify_view want = t->run->opts.view;
    bool ok = t->has_kernels && !t->device_late;
    if (want == ND_VIEW_DEVICE && !ok)
        return nd_error_set(err, ND_EINPUT, "%s: --view device: %s", t->path,
                            t->has_kernels ? "ProfilerStep events come after the kernels of "
                                             "their steps; use --view host"
                                           : "the trace has no device kernels; use --view host");
    if (want == ND_VIEW_AUTO && t->has_kernels && !ok)
        nd_classify_trace_note(t,
                               "ProfilerStep events come after the kernels of their steps: host view used");
    *device = want == ND_VIEW_DEVICE || (want == ND_VIEW_AUTO && ok);
    return ND_OK;
}

static placed *place_groups(trace_ctx *t)
{
    const nd_classify_options *o = &t->run->opts;
    placed *pl = calloc(t->groups.n + 1, sizeof *pl);
    if (!pl) return NULL;
    for (size_t g = 0; g < t->groups.n; g++)
        pl[g].column = nd_classify_group_map(&t->groups.items[g], t->cfg, t->n_cfg, t->world_size,
                                             o->has_dims ? &o->dims : NULL, pl[g].label, sizeof pl[g].label,
                                             &pl[g].how, &pl[g].size);
    return pl;
}

/* A group nd could only place by its collective type lacks what says its dimension:
 * the user is warned, naming it (its row may be wrong under other dims). */
static void note_fallbacks(trace_ctx *t, const placed *pl, const bool *used)
{
    for (size_t g = 0; g < t->groups.n; g++) {
        if (!used[g] || strcmp(pl[g].how, "collective type")) continue;
        const comm_group *x = &t->groups.items[g];
        const char *name = x->pg_desc ? x->pg_desc : x->pg_name;
        bool anonymous = !name && !x->ranks && x->size <= 1 && x->stride <= 0;
        const char *why = anonymous ? "the trace names no process group for it"
                          : !t->run->opts.has_dims
                              ? "no --dims to place its group"
                              : "its group's ranks, name or size match no dimension of --dims";
        nd_classify_run_warn(t->run,
                             "%s: %s%s%s%s: %s; charged to %s by its collective type, "
                             "as ND's Ascend path does",
                             t->path, nd_classify_coll_label(x->kind), name ? " on process group " : "",
                             name ? name : "", x->ranks || !name ? "" : " (no rank list in the trace)", why,
                             nd_classify_quantity_name(pl[g].column));
    }
    if (t->unlinked_comm)
        nd_classify_run_warn(t->run,
                             "%s: %llu communication kernels could not be linked to the op that launched "
                             "them (no matching correlation or External id): typed by their kernel name "
                             "(a SendRecv kernel counts as p2p, though NCCL runs all-to-all on it too)",
                             t->path, t->unlinked_comm);
}

/* Where the device's work and the trace's steps do not line up: the last step's kernels
 * running past its end (counted in it), kernels no step holds, launches whose host ops
 * were forgotten, compute of unknown launch. */
static void note_device_extent(trace_ctx *t)
{
    size_t n;
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n);
    const trace_step *last = n ? &t->steps[order[n - 1]] : NULL;
    if (last && last->tail_kernels)
        nd_classify_run_warn(t->run,
                             "%s: the trace ends before its device work does: %lu kernel(s) of %s "
                             "end after it, %.3f ms past its end; they count in it (a kernel belongs to "
                             "the step that launched it), so its device parts outlast its window",
                             t->path, last->tail_kernels, last->name, last->tail_ns / 1e6);
    if (t->late_kernels)
        nd_classify_run_warn(t->run,
                             "%s: the trace ends before its device work does: %llu kernel(s) "
                             "(%.3f ms) start after the last step ends and no launch ties them to a "
                             "step: not counted",
                             t->path, t->late_kernels, t->late_ns / 1e6);
    if (t->unassigned_kernels > t->late_kernels)
        nd_classify_trace_note(t,
                               "%llu device kernels (%.3f ms) were launched outside every profiled "
                               "step: not counted (HTA's iteration -1)",
                               t->unassigned_kernels - t->late_kernels,
                               (t->unassigned_ns - t->late_ns) / 1e6);
    unsigned long long lost = nd_classify_links_forgotten(t->links);
    if (lost)
        nd_classify_run_warn(t->run,
                             "%s: %llu launches came after the host ops around them were "
                             "forgotten (at most %u kept): the compute of their kernels is comp_unsplit",
                             t->path, lost, LINK_MAX);
    double unknown = 0, comp = 0;
    for (size_t i = 0; i < t->n_steps; i++) {
        unknown += t->steps[i].dev_phase_ns[PHASE_UNKNOWN];
        comp += t->steps[i].dev_comp_ns;
    }
    if (unknown > 0 && comp > 0 && !t->from_csv)
        nd_classify_trace_note(t,
                               "%.1f %% of the device compute has no known launch (%llu kernels placed by "
                               "their start): it is comp_unsplit, and the optimizer and the other phases "
                               "hold the rest only",
                               100 * unknown / comp, t->by_window);
}

/* The degrees a trace's distributedInfo states fill the dimensions the run does not have
 * yet (from --dims, a strategy file or an earlier trace); one that disagrees with a
 * stated degree is a warning, and the stated one is kept. */
static void dims_from_trace(trace_ctx *t)
{
    nd_classify_run *run = t->run;
    if (!run->opts.dims_from_trace) return;
    nd_classify_dims d;
    int found = nd_classify_dims_from_groups(t->cfg, t->n_cfg, t->world_size, &d);
    if (found < 0)
        nd_classify_run_warn(run,
                             "%s: distributedInfo: two process groups of one dimension have "
                             "different sizes; no degrees taken from it",
                             t->path);
    if (found <= 0) return;
    nd_classify_dims *have = &run->opts.dims;
    bool added = false;
    for (int i = 0; i < d.count; i++) {
        int k = 0;
        while (k < have->count && have->dim[k] != d.dim[i]) k++;
        if (k < have->count) {
            if (have->value[k] != d.value[i])
                nd_classify_run_warn(run,
                                     "%s: distributedInfo says %s=%lld, %s says %lld; the "
                                     "latter is kept",
                                     t->path, nd_dim_name(d.dim[i]), (long long)d.value[i],
                                     run->dims_source[0] ? run->dims_source : "an earlier trace",
                                     (long long)have->value[k]);
            continue;
        }
        if (have->count == ND_CLASSIFY_DIMS_MAX) break;
        have->dim[have->count] = d.dim[i];
        have->value[have->count++] = d.value[i];
        added = true;
    }
    if (!added) return;
    size_t used = strlen(run->dims_source);
    snprintf(run->dims_source + used, sizeof run->dims_source - used, "%sdistributedInfo of %s",
             used ? " and " : "", t->path);
    run->opts.has_dims = true;
}

int nd_classify_trace_samples(trace_ctx *t, nd_error *err)
{
    dims_from_trace(t);
    bool device = false;
    int rc = choose_view(t, &device, err);
    if (rc) return rc;
    placed *pl = place_groups(t);
    bool *used = calloc(t->groups.n + 1, sizeof *used);
    if (!pl || !used) {
        free(pl);
        free(used);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int rank = t->rank >= 0 ? t->rank : nd_classify_trace_rank_from_name(t->path);
    size_t n;
    const int32_t *order = nd_classify_trace_steps_by_time(t, &n);
    size_t empty = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        const trace_step *st = &t->steps[order[k]];
        if (st->dur <= 0) { /* a step of no length: no row nd-compare would refuse */
            empty++;
            continue;
        }
        nd_classify_sample s = {.rank = rank, .step_order = (int)k};
        s.input = nd_strdup(t->path);
        s.step = nd_strdup(st->name);
        s.q[ND_CQ_TIME] = (double)st->dur / 1e6;
        views_set(&s, device);
        if (device) {
            for (size_t g = 0; g < st->n_dev_groups && g < t->groups.n; g++)
                used[g] |= st->dev_groups[g].exposed_ns > 0 || st->dev_groups[g].kernel_ns > 0;
        } else {
            for (size_t i = 0; i < st->n_sites; i++)
                if (st->sites[i].group >= 0) used[st->sites[i].group] = true;
        }
        int bad = !s.input || !s.step || (device ? device_parts(&s, st, pl) : host_parts(&s, st, pl));
        if (!bad && device && !(s.kernels = nd_classify_kernels_of_step(t, st, pl))) bad = 1;
        if (device) {
            s.comm_ms = st->dev_comm_ns / 1e6;
            s.overlapped_ms = st->dev_overlap_ns / 1e6;
        }
        nd_classify_sample_complete(&s);
        if (bad) {
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
            free(s.input);
            free(s.step);
            for (size_t i = 0; i < s.n_sites; i++) free(s.sites[i].label);
            free(s.sites);
            nd_classify_kernels_free(s.kernels);
        } else {
            rc = nd_classify_run_sample_add(t->run, &s, err);
        }
    }
    if (!rc && n == 0)
        nd_classify_trace_note(t, "no ProfilerStep# events: nothing to classify in this trace");
    if (!rc && empty)
        nd_classify_run_warn(t->run, "%s: %zu ProfilerStep event(s) of zero length skipped", t->path, empty);
    if (!rc) note_fallbacks(t, pl, used);
    if (!rc && device) note_device_extent(t);
    if (!rc) nd_classify_cross_check(t, device);
    free(pl);
    free(used);
    return rc;
}
