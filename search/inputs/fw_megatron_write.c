/*
 * fw_megatron_write.c — the chosen strategy written back into a copy of a Megatron-LM or
 * MindSpeed-LLM launch script (resolved.sh): whole shell words edited (never inside quotes or a
 * default), a variable used once edited at its assignment, the pipeline split in the script's
 * own form, stale flags removed. docs/frameworks.md §Megatron-LM and MindSpeed-LLM arguments
 * (`-f megatron`).
 */
#include "fw_formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_args.h"
#include "fw_megatron.h"
#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

/* ---- writing back ---------------------------------------------------------------------- */

#define MAX_EDITS 64

typedef struct edit {
    size_t from, to;
    char with[4800];
} edit;

typedef struct plan {
    const args_doc *d;
    edit *e;
    int n;
} plan;

static int cmp_edit(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return (x->from < y->from) - (x->from > y->from); /* last first */
}

static edit *add_edit(plan *p, size_t from, size_t to)
{
    for (int i = 0; i < p->n; i++) /* one edit a place: the later one wins */
        if (p->e[i].from == from && p->e[i].to == to) return &p->e[i];
    if (p->n >= MAX_EDITS) return NULL;
    edit *e = &p->e[p->n++];
    e->from = from;
    e->to = to;
    e->with[0] = '\0';
    return e;
}

/* Whether only blanks stand between the start of the line and `at`; *line_start gets it. */
static bool starts_line(const args_doc *d, size_t at, size_t *line_start)
{
    size_t i = at;
    while (i > 0 && (d->text[i - 1] == ' ' || d->text[i - 1] == '\t')) i--;
    *line_start = i;
    return i == 0 || d->text[i - 1] == '\n';
}

/* The variable a value word names alone ($TP, ${TP}, "$TP", "${TP}"): its one plain
 * assignment, when the script sets it once and uses it nowhere else; else NULL (the value
 * word itself is then replaced). */
static const var *sole_variable(const args_doc *d, const arg *a)
{
    const char *t = d->text + a->vfrom;
    size_t n = a->vto - a->vfrom;
    if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
        t++;
        n -= 2;
    }
    if (n < 2 || t[0] != '$') return NULL;
    size_t from = 1, to = n;
    if (t[1] == '{') {
        if (t[n - 1] != '}') return NULL;
        from = 2;
        to = n - 1;
    }
    for (size_t i = from; i < to; i++)
        if (!fw_args_name_char(t[i])) return NULL;
    const var *found = NULL;
    for (int i = 0; i < d->n_vars; i++)
        if (strlen(d->vars[i].name) == to - from && !strncmp(d->vars[i].name, t + from, to - from)) {
            if (found) return NULL; /* set twice */
            found = &d->vars[i];
        }
    if (!found || !found->plain) return NULL;
    int uses = 0; /* the name as a whole word anywhere: its assignment and this use only */
    size_t len = to - from;
    for (const char *q = d->text; (q = strstr(q, found->name)) != NULL; q += len) {
        bool left = q == d->text || !fw_args_name_char(q[-1]), right = !fw_args_name_char(q[len]);
        uses += left && right;
    }
    return uses == 2 ? found : NULL;
}

/* A new flag beside `near`: on a line of its own in a script that gives a flag a line (with
 * the line's " \" continuation), else after it; always after the value word, so never
 * inside its quotes or a ${...:-...} default. */
static void insert_after(plan *p, const arg *near, const char *flag, const char *value)
{
    const args_doc *d = p->d;
    size_t at = near->vto > near->to ? near->vto : near->to, start;
    const char *sep = value ? " " : "";
    edit *e = add_edit(p, at, at);
    if (!e) return;
    size_t used = strlen(e->with); /* after the flags already put beside this one */
    if (!starts_line(d, near->from, &start)) {
        snprintf(e->with + used, sizeof e->with - used, " --%s%s%s", flag, sep, value ? value : "");
        return;
    }
    size_t i = at;
    while (i < d->len && d->text[i] == ' ') i++;
    bool continued = i < d->len && d->text[i] == '\\';
    int indent = (int)(near->from - start);
    snprintf(e->with + used, sizeof e->with - used, "%s\n%.*s--%s%s%s", continued ? " \\" : "", indent,
             d->text + start, flag, sep, value ? value : "");
}

/* A value as a shell word where the flag stands: quoted at the top level when it holds
 * characters the shell reads (a layout's | ( ) *); bare inside a quoted variable. */
static void shell_value(const arg *where, const char *value, char *buf, size_t size)
{
    /* a list flag's numbers stay separate words */
    bool special =
        strpbrk(value, "|()*;&<> \t$\"'\\`") != NULL && strspn(value, "0123456789 ") < strlen(value);
    if (!special || (where && where->inner))
        snprintf(buf, size, "%s", value);
    else
        snprintf(buf, size, "'%s'", value);
}

/* The flag the new ones go beside: `near`, else the degrees' own, else --num-layers (always
 * there), never the last flag (it may stand in an `if` block). */
static const arg *beside(const args_doc *d, const char *near)
{
    static const char *const fallback[] = {"tensor-model-parallel-size", "pipeline-model-parallel-size",
                                           "num-layers"};
    const arg *a = near ? fw_args_find(d, near) : NULL;
    for (size_t i = 0; !a && i < ND_ARRAY_LEN(fallback); i++) a = fw_args_find(d, fallback[i]);
    return a;
}

/* Sets --flag value; value NULL: a switch on; "": the flag off (removed, with its line when
 * it has one of its own). A value given through a variable used nowhere else is changed at
 * its assignment. `near` names a flag to put a new one beside. */
static void plan_edit(plan *p, const char *flag, const char *value, bool present_only, const char *near)
{
    const args_doc *d = p->d;
    for (int k = 0; k < d->count; k++) { /* every occurrence: argparse takes the last, so each must agree */
        const arg *a = &d->items[k];
        if (strcmp(a->name, flag)) continue;
        if (value && value[0] && a->has_value) {
            if (!strcmp(a->value, value) && !a->unresolved && a->list_count < 2) continue; /* already so */
            const var *v = sole_variable(d, a);
            edit *e = v ? add_edit(p, v->vfrom, v->vto) : add_edit(p, a->vfrom, a->list_to);
            if (e) shell_value(v ? NULL : a, value, e->with, sizeof e->with);
        } else if (value && !value[0]) {
            size_t start, end = a->list_to > a->to ? a->list_to : a->to, from, to;
            if (starts_line(d, a->from, &start)) {
                size_t i = end;
                while (i < d->len && (d->text[i] == ' ' || d->text[i] == '\\')) i++;
                if (i >= d->len || d->text[i] == '\n') {
                    from = start;
                    to = i < d->len ? i + 1 : i;
                } else {
                    from = a->from;
                    to = end;
                }
            } else {
                from = a->from > 0 && d->text[a->from - 1] == ' ' ? a->from - 1 : a->from;
                to = end;
            }
            edit *e = add_edit(p, from, to);
            if (e) e->with[0] = '\0';
        }
    }
    if (!fw_args_find(d, flag) && !present_only && (!value || value[0]) && d->count > 0) {
        const arg *at = beside(d, near);
        if (at) {
            char shown[4100];
            if (value) shell_value(at, value, shown, sizeof shown);
            insert_after(p, at, flag, value ? shown : NULL);
        }
    }
}

static void plan_number(plan *p, const char *flag, int64_t x, bool present_only, const char *near)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)x);
    plan_edit(p, flag, v, present_only, near);
}

/* Megatron's --cp-comm-type, as nd priced the chosen CP: p2p (the ring), a2a, allgather, or
 * a2a+p2p with --hierarchical-context-parallel-sizes ULYSSES RING (their product the CP, as
 * Megatron asserts); the levels removed where the CP no longer runs two. */
static void plan_cp_comm_type(plan *p, const nd_run *run, int64_t ring, int64_t ulysses)
{
    nd_cp_comm comm = run->train.cp_comm;
    bool hybrid = comm == ND_CP_HYBRID && ring > 1 && ulysses > 1;
    if (comm == ND_CP_HYBRID && !hybrid) comm = ring == 1 ? ND_CP_A2A : ND_CP_RING;
    static const char *const types[] = {
        [ND_CP_RING] = "p2p",
        [ND_CP_A2A] = "a2a",
        [ND_CP_ALLGATHER] = "allgather",
        [ND_CP_HYBRID] = "a2a+p2p",
    };
    plan_edit(p, "cp-comm-type", types[comm], false, NULL);
    char levels[48];
    snprintf(levels, sizeof levels, "%lld %lld", (long long)ulysses, (long long)ring);
    plan_edit(p, "hierarchical-context-parallel-sizes", hybrid ? levels : "", false, "cp-comm-type");
}

/* MindSpeed's --context-parallel-algo, whose default differs by version (MindSpeed-LLM's
 * arguments ulysses_cp_algo, MindSpeed's newer features megatron_cp_algo): CP > 1 is written
 * with the one nd priced; --ulysses-degree-in-cp the Ulysses part the new CP keeps (MindSpeed
 * asserts it divides CP), also where the script states one the chosen CP no longer runs
 * hybrid: CP 1 keeps it 1, not the old 2. */
static void plan_cp_algo(plan *p, const nd_run *run, int64_t cp, int64_t ring, int64_t ulysses)
{
    const args_doc *d = p->d;
    const char *par = "tensor-model-parallel-size";
    bool hybrid = run->train.cp_comm == ND_CP_HYBRID && ring > 1 && ulysses > 1;
    if (cp > 1 && (fw_args_find(d, "context-parallel-algo") || !strcmp(fw_args_flavour(d), "mindspeed")))
        plan_edit(p, "context-parallel-algo",
                  hybrid                                         ? "hybrid_cp_algo"
                  : run->train.cp_comm == ND_CP_A2A || ring == 1 ? "ulysses_cp_algo"
                                                                 : "megatron_cp_algo",
                  false, par);
    if (hybrid || fw_args_find(d, "ulysses-degree-in-cp"))
        plan_number(p, "ulysses-degree-in-cp", ulysses, false, "context-parallel-algo");
}

/* The pipeline split: VPP in the script's form, MindSpeed's DualPipeV, the uneven end stages,
 * the account flags and explicit layouts (--pipeline-model-parallel-layout, MindSpeed's
 * --num-layer-list), stale ones removed (docs/frameworks.md §Megatron-LM and MindSpeed-LLM
 * arguments (`-f megatron`)). */
static void plan_split(plan *p, const nd_run *run, const nd_strategy *s)
{
    const args_doc *d = p->d;
    const char *par = "pipeline-model-parallel-size";
    const char *per_chunk = "num-layers-per-virtual-pipeline-stage",
               *chunks = "num-virtual-stages-per-pipeline-rank",
               *old_vpp = "virtual-pipeline-model-parallel-size", *layout = "pipeline-model-parallel-layout",
               *list = "num-layer-list", *first = "decoder-first-pipeline-num-layers",
               *last = "decoder-last-pipeline-num-layers";
    bool v_shape = s->schedule == ND_SCHEDULE_DUALPIPE_V;
    if (v_shape)
        plan_edit(p, "schedules-method", "dualpipev", false, par);
    else
        plan_edit(p, "schedules-method", "", false, NULL);
    if (s->layout) return; /* the run's own layout: the flags that state it stand as they are */
    /* MindSpeed's no-op layers pad the run's own split; another split is the choice's own, of
     * the real layers (--num-layers without them) */
    int64_t total = run->model.layers;
    if (fw_args_find(d, "noop-layers")) {
        plan_number(p, "num-layers", run->model.layers, false, NULL);
        plan_edit(p, "noop-layers", "", false, NULL);
    }
    bool ends = s->first_stage_layers || s->last_stage_layers, stated = false;
    if (fw_args_find(d, layout)) { /* the script writes layouts: the choice's, in Megatron's grammar */
        char text[4096];
        nd_split_layout_text(s, run->model.layers, run->model.mtp_layers, text, sizeof text);
        plan_edit(p, layout, text, false, par);
        plan_edit(p, list, "", false, NULL);
        stated = true;
    } else if (fw_args_find(d, list) && ends && s->vpp == 1 && !v_shape && !s->embedding_in_split &&
               !s->loss_in_split) { /* MindSpeed's list: the choice's layers per stage */
        char text[4096];
        size_t used = 0;
        text[0] = '\0';
        for (int64_t r = 0; r < s->pp && used < sizeof text; r++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%lld", r ? "," : "",
                                     (long long)nd_split_rank_layers(s, run->model.layers, r));
        plan_edit(p, list, text, false, par);
        stated = true;
    } else {
        plan_edit(p, list, "", false, NULL);
    }
    /* VPP: a layout and DualPipeV state it; else in the script's form */
    if (stated || v_shape || s->vpp == 1) {
        plan_edit(p, per_chunk, "", false, NULL);
        plan_edit(p, chunks, "", false, NULL);
        plan_edit(p, old_vpp, "", false, NULL);
    } else {
        bool even = !ends && !s->embedding_in_split && !s->loss_in_split && total % (s->pp * s->vpp) == 0;
        bool mindspeed = !strcmp(fw_args_flavour(d), "mindspeed"); /* MindSpeed-LLM's form */
        const char *form = fw_args_find(d, chunks)                             ? chunks
                           : fw_args_find(d, old_vpp)                          ? old_vpp
                           : even && (fw_args_find(d, per_chunk) || mindspeed) ? per_chunk
                                                                               : chunks;
        if (form == per_chunk)
            plan_number(p, per_chunk, total / (s->pp * s->vpp), false, par);
        else
            plan_number(p, form, s->vpp, false, par);
        if (form != per_chunk) plan_edit(p, per_chunk, "", false, NULL);
        if (form != chunks) plan_edit(p, chunks, "", false, NULL);
        if (form != old_vpp) plan_edit(p, old_vpp, "", false, NULL);
    }
    bool keep_ends = !stated && s->first_stage_layers, keep_last = !stated && s->last_stage_layers;
    if (keep_ends)
        plan_number(p, first, s->first_stage_layers, false, par);
    else
        plan_edit(p, first, "", false, NULL);
    if (keep_last)
        plan_number(p, last, s->last_stage_layers, false, par);
    else
        plan_edit(p, last, "", false, NULL);
    bool emb = !stated && s->embedding_in_split, loss = !stated && s->loss_in_split;
    plan_edit(p, "account-for-embedding-in-pipeline-split", emb ? NULL : "", false, par);
    plan_edit(p, "account-for-loss-in-pipeline-split", loss ? NULL : "", false, par);
}

int fw_megatron_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                      size_t size, nd_error *err)
{
    args_doc *d = malloc(sizeof *d);
    edit *edits = malloc(MAX_EDITS * sizeof *edits);
    if (!d || !edits) {
        free(d);
        free(edits);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    int rc = fw_args_load(d, run->source, err);
    if (rc) {
        fw_args_unload(d);
        free(edits);
        return rc;
    }
    const nd_strategy *s = &c->s;
    plan pl = {d, edits, 0}, *p = &pl;
    const char *par = "tensor-model-parallel-size", *rec = "recompute-granularity", *mb = "micro-batch-size";
    plan_number(p, "tensor-model-parallel-size", s->tp, false, "pipeline-model-parallel-size");
    plan_number(p, "pipeline-model-parallel-size", s->pp, false, par);
    plan_number(p, "context-parallel-size", s->cp, s->cp == 1, par);
    int64_t ring = nd_train_cp_ring_degree(&run->train, s->cp), ulysses = s->cp / ring;
    if (fw_args_find(d, "cp-comm-type"))
        plan_cp_comm_type(p, run, ring, ulysses);
    else
        plan_cp_algo(p, run, s->cp, ring, ulysses);
    int64_t etp = s->etp ? s->etp : s->tp; /* Megatron's default: TP */
    /* MindSpeed's --moe-tp-extend-ep stays where the choice is its shape (ETP 1, EP over TP) */
    bool extend = fw_args_find(d, "moe-tp-extend-ep") && etp == 1 && s->tp > 1 && s->ep % s->tp == 0;
    if (fw_args_find(d, "moe-tp-extend-ep") && !extend) plan_edit(p, "moe-tp-extend-ep", "", false, NULL);
    plan_number(p, "expert-model-parallel-size", extend ? s->ep / s->tp : s->ep, s->ep == 1, par);
    if (!extend)
        plan_number(p, "expert-tensor-parallel-size", etp, run->model.experts == 0 || etp == s->tp, par);
    plan_number(p, "micro-batch-size", s->mbs, false, "global-batch-size");
    plan_number(p, "global-batch-size", c->global_batch, false, mb);
    plan_split(p, run, s);
    plan_edit(p, "sequence-parallel", s->sp ? NULL : "", false, par);
    if (s->op > 1 && s->zero < 3) plan_edit(p, "use-distributed-optimizer", NULL, false, par);
    if (s->op <= 1) plan_edit(p, "use-distributed-optimizer", "", false, par);
    /* the distributed optimizer shards over DP x CP / instances ranks */
    int64_t instances = s->op > 1 && (s->dp * s->cp) % s->op == 0 ? s->dp * s->cp / s->op : 1;
    plan_number(p, "num-distributed-optimizer-instances", instances, instances == 1,
                "use-distributed-optimizer");
    /* the launcher's nodes, when the chosen strategy needs another device count (-d) */
    int64_t devices = s->dp * s->tp * s->pp * s->cp, per = 0;
    const char *per_text = fw_args_val(d, "nproc-per-node", NULL);
    int64_t world = fw_args_world_size(d);
    if (per_text && !nd_parse_int64(per_text, 1, 1 << 20, &per) && world && world != devices) {
        if (devices % per)
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: the choice's %lld devices are not whole nodes of the launcher's "
                              "--nproc_per_node %lld: nd cannot write the launcher for it (give -d a "
                              "multiple of %lld)",
                              run->source, (long long)devices, (long long)per, (long long)per);
        else
            plan_number(p, "nnodes", devices / per, false, "nproc-per-node");
    }
    nd_recompute m = fw_choice_mode(c);
    if (m == ND_RECOMPUTE_OFF) {
        plan_edit(p, rec, "", false, NULL);
        plan_edit(p, "recompute-activations", "", false, NULL);
    } else {
        plan_edit(p, rec, nd_recompute_name(m), false, mb);
    }
    if (m == ND_RECOMPUTE_FULL) {
        int64_t full = c->plan ? c->plan[0][0][2] + c->plan[0][1][2] : 0;
        const char *near = fw_args_find(d, rec) ? rec : mb;
        plan_edit(p, "recompute-method", c->plan ? "block" : "uniform", false, near);
        plan_number(p, "recompute-num-layers", c->plan ? full : 1, false, near);
    } else {
        plan_edit(p, "recompute-method", "", false, NULL);
        plan_edit(p, "recompute-num-layers", "", false, NULL);
    }
    int n = pl.n;
    if (!rc && n >= MAX_EDITS)
        rc = nd_error_set(err, ND_EINPUT, "%s: more than %d edits to write back", run->source, MAX_EDITS);
    qsort(edits, (size_t)n, sizeof *edits, cmp_edit);
    for (int i = 0; !rc && i + 1 < n; i++) /* sorted last first: each must end before the later one starts */
        if (edits[i + 1].to > edits[i].from)
            rc = nd_error_set(err, ND_EINPUT, "%s: two edits overlap at byte %zu: nd cannot write it back",
                              run->source, edits[i].from);
    size_t extra = 0;
    for (int i = 0; i < n; i++) extra += strlen(edits[i].with);
    char *out = rc ? NULL : malloc(d->len + extra + 1);
    if (!rc && !out) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    size_t len = d->len;
    if (out) memcpy(out, d->text, d->len + 1);
    for (int i = 0; out && i < n; i++) { /* from the end, so earlier offsets hold */
        size_t add = strlen(edits[i].with);
        memmove(out + edits[i].from + add, out + edits[i].to, len - edits[i].to + 1);
        memcpy(out + edits[i].from, edits[i].with, add);
        len = len - (edits[i].to - edits[i].from) + add;
    }
    const char *ext = strrchr(run->source, '.'), *slash = strrchr(run->source, '/');
    char name[64], path[1024];
    snprintf(name, sizeof name, "resolved%s",
             ext && (!slash || ext > slash) && strlen(ext) < 16 ? ext : ".sh");
    if (!rc)
        rc = nd_write_file_atomic(fw_output_path(dir, name, path, sizeof path, written, size), out, len, err);
    free(out);
    free(edits);
    fw_args_unload(d);
    return rc;
}
