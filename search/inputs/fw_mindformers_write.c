/*
 * fw_mindformers_write.c — a MindFormers yaml written back with the strategy nd chose, each key
 * where the file has it (docs/frameworks.md §MindFormers yaml); the reader is fw_mindformers.c.
 */
#include "fw_mindformers.h"

#include "fw_formats.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "nd/base/text.h"
#include "nd/base/yaml_edit.h"

/* Per-stage counts from a MindFormers list (an int for every stage, a list per stage, or
 * a list per VPP chunk of lists per stage, summed over chunks). A bare true means every
 * layer (-1). Returns the number of stages read, 0 when absent. */
int64_t fw_mindformers_stage_list(mf_doc *d, const char *dotted, int64_t out[ND_RUN_MAX_STAGES], int *err_rc)
{
    return fw_mindformers_stage_counts(d, fw_yaml_at(&d->y, dotted), dotted, out, err_rc);
}

int64_t fw_mindformers_stage_counts(mf_doc *d, yaml_node_t *n, const char *dotted,
                                    int64_t out[ND_RUN_MAX_STAGES], int *err_rc)
{
    const char *t = nd_yaml_text(n);
    *err_rc = ND_OK;
    if (!n) return 0;
    if (t) {
        /* one value for every stage: a bare true recomputes every layer of every stage
         * (docs/frameworks.md §MindFormers yaml (`-f mindformers`)), not stage 0's alone */
        int64_t v;
        bool all = fw_true(t), b;
        if (!all && nd_parse_int64(t, -(1 << 24), 1 << 24, &v)) {
            if (!nd_parse_bool(t, &b)) return 0; /* false */
            /* a word was read as false (nothing recomputed, no offset) */
            *err_rc =
                nd_error_set(d->r->err, ND_EINPUT,
                             "%s:%d: %s: '%s' is neither true, false, a whole number nor a list of them "
                             "per stage",
                             d->r->path, nd_yaml_line(n), dotted, t);
            return 0;
        }
        for (size_t i = 0; i < ND_RUN_MAX_STAGES; i++) out[i] = all ? -1 : v;
        return 1;
    }
    if (n->type != YAML_SEQUENCE_NODE) return 0;
    int64_t stages = 0;
    memset(out, 0, sizeof(int64_t) * ND_RUN_MAX_STAGES);
    for (size_t i = 0; i < nd_yaml_size(n); i++) {
        yaml_node_t *item = nd_yaml_item(&d->y, n, i);
        size_t inner = item->type == YAML_SEQUENCE_NODE ? nd_yaml_size(item) : 1;
        for (size_t j = 0; j < inner && j < ND_RUN_MAX_STAGES; j++) {
            yaml_node_t *cell = item->type == YAML_SEQUENCE_NODE ? nd_yaml_item(&d->y, item, j) : item;
            const char *c = nd_yaml_text(cell);
            int64_t v;
            if (!c || nd_parse_int64(c, -(1 << 24), 1 << 24, &v)) {
                if (c && fw_true(c))
                    v = -1; /* a list of regexes (select_recompute): all layers */
                else if (c)
                    v = 0;
                else {
                    *err_rc =
                        nd_error_set(d->r->err, ND_EINPUT, "%s:%d: %s: a list of whole numbers per stage",
                                     d->r->path, nd_yaml_line(cell), dotted);
                    return 0;
                }
            }
            size_t stage = item->type == YAML_SEQUENCE_NODE ? j : i;
            if (stage < ND_RUN_MAX_STAGES) out[stage] = (out[stage] == -1 || v == -1) ? -1 : out[stage] + v;
            if ((int64_t)stage + 1 > stages) stages = (int64_t)stage + 1;
        }
    }
    return stages;
}

static int set_if(nd_yaml_edit *e, nd_yaml *y, const char *dotted, const char *value, bool add, nd_error *err)
{
    if (!add && !fw_yaml_at(y, dotted)) return ND_OK;
    return nd_yaml_edit_set_path(e, dotted, value, err);
}

/* "[a, b, ...]" of one count per stage. */
static void stage_counts(const nd_config_choice *c, int mode, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int64_t i = 0; i < c->plan_stages && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
                                 (long long)(c->plan[i][0][mode] + c->plan[i][1][mode]));
    snprintf(buf + used, size > used ? size - used : 0, "]");
}

/* Whether the file's offsets count the MTP layers (MindFormers' DeepSeek models split
 * num_layers + mtp_depth): so when the list sums so, or when the file states none. */
static bool offsets_count_mtp(nd_yaml *y, const nd_run *run)
{
    int64_t mtp = run->model.mtp_layers, layers = run->model.layers, pp = 1, off[ND_RUN_MAX_STAGES];
    if (mtp <= 0) return false;
    nd_error ignored;
    fw_reader r = {.run = (nd_run *)run, .err = &ignored, .path = y->path};
    mf_doc d = {.r = &r, .y = *y}; /* the same document, looked at only */
    int rc;
    int64_t n = fw_mindformers_stage_list(&d, "model.model_config.offset", off, &rc);
    const char *t = fw_yaml_text(y, "parallel_config.pipeline_stage", NULL);
    if (t) nd_parse_int64(t, 1, ND_RUN_MAX_STAGES, &pp);
    if (rc || n <= 1 || n != pp) return true;
    int64_t sum = 0;
    for (int64_t i = 0; i < pp; i++) sum += (layers + mtp) / pp + off[i];
    return sum == layers + mtp;
}

/* parallel.dataset_strategy: MindFormers requires its rows to start with data_parallel when
 * full_batch is False (base_trainer.py). Rows that alias the data_parallel anchor follow it;
 * a stated number is rewritten, the rest of each row kept. */
static int write_dataset_strategy(nd_yaml_edit *e, nd_yaml *y, const nd_strategy *s, nd_error *err)
{
    yaml_node_t *ds = fw_yaml_at(y, "parallel.dataset_strategy");
    yaml_node_t *dp = fw_yaml_at(y, "parallel_config.data_parallel");
    if (!ds || ds->type != YAML_SEQUENCE_NODE || fw_true(fw_yaml_text(y, "parallel.full_batch", NULL)))
        return ND_OK;
    char text[1024];
    size_t used = (size_t)snprintf(text, sizeof text, "[");
    bool change = false;
    for (size_t i = 0; i < nd_yaml_size(ds); i++) {
        yaml_node_t *row = nd_yaml_item(y, ds, i);
        if (row->type != YAML_SEQUENCE_NODE || !nd_yaml_size(row)) return ND_OK; /* not rows */
        used +=
            (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "%s[", i ? ", " : "");
        for (size_t j = 0; j < nd_yaml_size(row); j++) {
            yaml_node_t *cell = nd_yaml_item(y, row, j);
            const char *c = nd_yaml_text(cell);
            if (!c) return ND_OK;
            char num[32];
            if (j == 0 && cell != dp) { /* an alias of the anchor is the anchor's node */
                snprintf(num, sizeof num, "%lld", (long long)s->dp);
                change |= strcmp(num, c) != 0;
                c = num;
            } else if (j == 0) {
                return ND_OK; /* the rows alias data_parallel: they follow it */
            }
            used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "%s%s",
                                     j ? ", " : "", c);
        }
        used += (size_t)snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "]");
    }
    snprintf(text + used, used < sizeof text ? sizeof text - used : 0, "]");
    if (used + 2 >= sizeof text)
        return nd_error_set(err, ND_EINPUT, "%s:%d: parallel.dataset_strategy is too long for nd to rewrite",
                            y->path, nd_yaml_line(ds));
    return change ? nd_yaml_edit_set_path(e, "parallel.dataset_strategy", text, err) : ND_OK;
}

/* recompute_config.select_comm_recompute, which nd does not price: a per-stage list is
 * re-sized to the new PP, each stage keeping the file's share of recomputed layers (a
 * MindFormers list must have one entry per stage). */
static int write_comm_recompute(nd_yaml_edit *e, nd_yaml *y, const nd_run *run, const nd_strategy *s,
                                nd_error *err)
{
    yaml_node_t *n = fw_yaml_at(y, "recompute_config.select_comm_recompute");
    if (!n || n->type != YAML_SEQUENCE_NODE || (int64_t)nd_yaml_size(n) == s->pp) return ND_OK;
    int64_t sum = 0;
    for (size_t i = 0; i < nd_yaml_size(n); i++) {
        int64_t v;
        const char *c = nd_yaml_text(nd_yaml_item(y, n, i));
        if (!c || nd_parse_int64(c, 0, 1 << 24, &v))
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: recompute_config.select_comm_recompute: nd re-sizes a list of whole "
                                "numbers per stage to PP=%lld, not this one",
                                y->path, nd_yaml_line(n), (long long)s->pp);
        sum += v;
    }
    char text[1024];
    size_t used = (size_t)snprintf(text, sizeof text, "[");
    int64_t L = run->model.layers;
    for (int64_t i = 0; i < s->pp && used + 24 < sizeof text; i++) {
        int64_t first, count;
        nd_strategy_stage_layers(s, L, i, &first, &count);
        int64_t k = L > 0 ? (int64_t)llround((double)count * (double)sum / (double)L) : 0;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%lld", i ? ", " : "",
                                 (long long)(k > count ? count : k));
    }
    snprintf(text + used, sizeof text - used, "]");
    return nd_yaml_edit_set_path(e, "recompute_config.select_comm_recompute", text, err);
}

int fw_mindformers_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written,
                         size_t size, nd_error *err)
{
    nd_yaml_edit *e;
    nd_yaml y;
    int rc = nd_yaml_edit_open(&e, run->source, err);
    if (rc) return rc;
    if ((rc = nd_yaml_load(&y, run->source, err))) {
        nd_yaml_edit_free(e);
        return rc;
    }
    const nd_strategy *s = &c->s;
    char v[64];
#define SETN(path, val, add)                                                                                 \
    do {                                                                                                     \
        snprintf(v, sizeof v, "%lld", (long long)(val));                                                     \
        if (!rc) rc = set_if(e, &y, path, v, add, err);                                                      \
    } while (0)
    SETN("parallel_config.data_parallel", s->dp, true);
    SETN("parallel_config.model_parallel", s->tp, true);
    SETN("parallel_config.pipeline_stage", s->pp, true);
    SETN("parallel_config.context_parallel", s->cp, s->cp > 1);
    /* hybrid_cp's Ulysses part as the chosen CP runs it (a divisor of CP; 1 at CP 1) */
    SETN("parallel_config.ulysses_degree_in_cp", s->cp / nd_train_cp_ring_degree(&run->train, s->cp), false);
    SETN("parallel_config.expert_parallel", s->ep, s->ep > 1 || run->model.experts > 0);
    /* base_trainer.py: micro_batch_num with a pipeline, gradient_accumulation_steps without */
    SETN("parallel_config.micro_batch_num", s->pp > 1 ? s->mb : 1, true);
    SETN("runner_config.gradient_accumulation_steps", s->pp > 1 ? 1 : s->mb, s->pp == 1 && s->mb > 1);
    /* MBS = batch_size x micro_batch_interleave_num (as read): the interleave kept where it
     * divides the chosen MBS, else set to 1 */
    int64_t mbi = 1;
    const char *mbi_text = fw_yaml_text(&y, "micro_batch_interleave_num", NULL);
    if (mbi_text && (nd_parse_int64(mbi_text, 1, 1 << 24, &mbi) || s->mbs % mbi)) mbi = 1;
    SETN("micro_batch_interleave_num", mbi, false);
    SETN("runner_config.batch_size", s->mbs / mbi, true);
    SETN("model.model_config.batch_size", s->mbs / mbi, false);
    SETN("model.model_config.pp_interleave_num", s->vpp, s->vpp > 1);
    if (!rc)
        rc = set_if(e, &y, "parallel.pipeline_config.pipeline_interleave", s->vpp > 1 ? "True" : "False",
                    s->vpp > 1, err);
    if (!rc) rc = set_if(e, &y, "parallel_config.use_seq_parallel", s->sp ? "True" : "False", true, err);
    if (!rc)
        rc = set_if(e, &y, "parallel.enable_parallel_optimizer", s->op > 1 ? "True" : "False", true, err);
    /* stated whenever the file states one (never left stale), else where it is not all of DP x CP */
    SETN("parallel.parallel_optimizer_config.optimizer_weight_shard_size", s->op,
         s->op > 1 && s->op != s->dp * s->cp);
    if (!rc && s->op > 1)
        rc = set_if(e, &y, "parallel.parallel_optimizer_config.gradient_accumulation_shard",
                    s->zero >= 2 ? "True" : "False", s->zero >= 2, err);
    if (!rc && c->plan) {
        char counts[1024];
        stage_counts(c, ND_RECOMPUTE_FULL, counts, sizeof counts);
        rc = nd_yaml_edit_set_path(e, "recompute_config.recompute", counts, err);
        stage_counts(c, ND_RECOMPUTE_SELECTIVE, counts, sizeof counts);
        if (!rc) rc = nd_yaml_edit_set_path(e, "recompute_config.select_recompute", counts, err);
    } else if (!rc) {
        nd_recompute m = c->s.recompute;
        rc = nd_yaml_edit_set_path(e, "recompute_config.recompute", m == ND_RECOMPUTE_FULL ? "True" : "False",
                                   err);
        if (!rc)
            rc = nd_yaml_edit_set_path(e, "recompute_config.select_recompute",
                                       m == ND_RECOMPUTE_SELECTIVE ? "True" : "False", err);
    }
    if (!rc) rc = write_dataset_strategy(e, &y, s, err);
    if (!rc) rc = write_comm_recompute(e, &y, run, s, err);
    /* the file's own per-chunk offsets (read as the run's layout) stay when the choice keeps them */
    if (!rc && !s->layout &&
        (s->first_stage_layers || s->last_stage_layers || fw_yaml_at(&y, "model.model_config.offset"))) {
        char offsets[1024] = "0";
        bool mtp_counted = offsets_count_mtp(&y, run);
        if (s->first_stage_layers || s->last_stage_layers) {
            size_t used = (size_t)snprintf(offsets, sizeof offsets, "[");
            for (int64_t i = 0; i < s->pp && used < sizeof offsets; i++) {
                int64_t first, count;
                nd_strategy_stage_layers(s, run->model.layers, i, &first, &count);
                /* the MTP layers on the last stage, counted as MindFormers' DeepSeek counts them */
                int64_t mtp = mtp_counted ? run->model.mtp_layers : 0;
                if (i == s->pp - 1) count += mtp;
                used += (size_t)snprintf(offsets + used, sizeof offsets - used, "%s%lld", i ? ", " : "",
                                         (long long)(count - (run->model.layers + mtp) / s->pp));
            }
            snprintf(offsets + used, sizeof offsets > used ? sizeof offsets - used : 0, "]");
        }
        rc = nd_yaml_edit_set_path(e, "model.model_config.offset", offsets, err);
    }
#undef SETN
    char path[1024];
    if (!rc)
        rc = nd_yaml_edit_write(e, fw_output_path(dir, "resolved.yaml", path, sizeof path, written, size),
                                err);
    nd_yaml_free(&y);
    nd_yaml_edit_free(e);
    return rc;
}
