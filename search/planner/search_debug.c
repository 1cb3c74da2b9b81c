/*
 * search_debug.c — ND's debug output, by verbosity (-v N, docs/nd-compat.md#verbosity):
 * debug.csv (a row per ranked strategy: its degrees and ND's parts, then nd's) and
 * debug_mem.csv (a row per pipeline stage of each: memory by component, times per
 * micro-batch) with -o from -v 2; and on stderr from -v 3 the space searched, from -v 5
 * the top strategies' stage memory, from -v 6 their stage times. Written fresh each run,
 * at full precision (ND appends and truncates to integers: docs/reference/nd-calibration.md §9.11).
 */
#include "search_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/planner/search_out.h"
#include "nd/base/array.h"

/* ND's dimension order (ALL_DIMS): the columns of every ND search file. */
static const nd_dim nd_order[] = {ND_DIM_DP,  ND_DIM_EP, ND_DIM_MP,  ND_DIM_CP, ND_DIM_PP,
                                  ND_DIM_VPP, ND_DIM_MB, ND_DIM_MBS, ND_DIM_SP, ND_DIM_OP};
#define N_ORDER (ND_ARRAY_LEN(nd_order))

static void dims_header(FILE *fp)
{
    fputs("rank", fp);
    for (size_t i = 0; i < N_ORDER; i++) fprintf(fp, ",%s", nd_dim_name(nd_order[i]));
}

static void dims_row(FILE *fp, size_t rank, const nd_ranked *r)
{
    fprintf(fp, "%zu", rank);
    for (size_t i = 0; i < N_ORDER; i++)
        fprintf(fp, ",%lld", (long long)nd_strategy_dim_resolved(&r->s, nd_order[i]));
}

static void num(FILE *fp, double v)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fprintf(fp, ",%s", nd_format_double(v, buf));
}

static const char *mode_of(const nd_ranked *r)
{
    return r->per_layer ? "per_layer" : nd_recompute_name(r->s.recompute);
}

static int write_parts(const char *path, const nd_search_result *res, size_t count, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    dims_header(out.fp);
    fputs(",recompute", out.fp);
    for (int p = 0; p < ND_ND_PARTS; p++) fprintf(out.fp, ",%s", nd_part_name((nd_part)p));
    fputs(",TOTAL,MEMORY", out.fp);
    for (int p = ND_ND_PARTS; p < ND_PARTS; p++) fprintf(out.fp, ",%s", nd_part_name((nd_part)p));
    fputc('\n', out.fp);
    for (size_t i = 0; i < count; i++) {
        const nd_ranked *r = &res->items[i];
        dims_row(out.fp, i + 1, r);
        fprintf(out.fp, ",%s", mode_of(r));
        for (int p = 0; p < ND_ND_PARTS; p++) num(out.fp, r->parts_ms[p]);
        num(out.fp, r->step_ms);
        fprintf(out.fp, ",%.0f", floor(r->peak_mib)); /* ND's MEMORY: whole MB */
        for (int p = ND_ND_PARTS; p < ND_PARTS; p++) num(out.fp, r->parts_ms[p]);
        fputc('\n', out.fp);
    }
    return nd_outfile_commit(&out, err);
}

static const char *const mem_columns =
    "stage,first_layer,layers,params_mib,grads_mib,optimizer_mib,activations_mib,working_mib,buffers_mib,"
    "allocator_mib,context_mib,total_mib,inflight,forward_ms,backward_ms,recompute_ms,tp_ms,ep_ms,cp_ms,"
    "overhead_ms,dp_comm_ms,dp_reduce_ms,optimizer_ms";

static void stage_row(FILE *fp, const nd_stage_memory *m, const nd_stage_time *t)
{
    fprintf(fp, ",%lld,%lld", (long long)m->first_layer, (long long)m->layers);
    const double v[] = {m->params_mib,   m->grads_mib,   m->optimizer_mib, m->activations_mib,
                        m->working_mib,  m->buffers_mib, m->allocator_mib, m->context_mib,
                        m->total_mib,    m->inflight,    t->forward_ms,    t->backward_ms,
                        t->recompute_ms, t->tp_ms,       t->ep_ms,         t->cp_ms,
                        t->overhead_ms,  t->dp_comm_ms,  t->dp_reduce_ms,  t->optimizer_ms};
    for (size_t k = 0; k < ND_ARRAY_LEN(v); k++) num(fp, v[k]);
    fputc('\n', fp);
}

static int write_stages(const char *path, const nd_search_config *cfg, const nd_search_result *res,
                        size_t count, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    dims_header(out.fp);
    fprintf(out.fp, ",recompute,%s\n", mem_columns);
    for (size_t i = 0; i < count && !rc; i++) {
        const nd_ranked *r = &res->items[i];
        nd_priced_stages p;
        rc = nd_search_price_stages(cfg, r, &p, err);
        for (int64_t st = 0; !rc && st < r->s.pp; st++) {
            dims_row(out.fp, i + 1, r);
            fprintf(out.fp, ",%s,%lld", mode_of(r), (long long)st);
            stage_row(out.fp, &p.mem[st], &p.tm[st]);
        }
        nd_priced_stages_free(&p);
    }
    if (rc) {
        nd_outfile_discard(&out);
        return rc;
    }
    return nd_outfile_commit(&out, err);
}

int nd_search_write_debug(const char *dir, const nd_search_config *cfg, const nd_search_result *res,
                          size_t count, nd_error *err)
{
    if (count > res->count) count = res->count;
    char *parts = nd_path_join(dir, "debug.csv"), *mem = nd_path_join(dir, "debug_mem.csv");
    int rc = parts && mem ? ND_OK : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = write_parts(parts, res, count, err);
    if (!rc) rc = write_stages(mem, cfg, res, count, err);
    free(parts);
    free(mem);
    return rc;
}

void nd_search_print_space(FILE *fp, const nd_search_config *cfg)
{
    fputs("The search varies", fp);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        if (cfg->space.vary & ND_DIM_BIT(d)) fprintf(fp, " %s", nd_dim_name((nd_dim)d));
    fputs("; keeps", fp);
    for (int d = 0; d < ND_DIMS_SEARCHED; d++)
        if (!(cfg->space.vary & ND_DIM_BIT(d)))
            fprintf(fp, " %s=%lld", nd_dim_name((nd_dim)d),
                    (long long)nd_strategy_dim_resolved(&cfg->base, (nd_dim)d));
    fprintf(fp, "; DP x MP x PP x CP = %lld devices, VPP up to %lld, recompute ",
            (long long)cfg->ctx->devices, (long long)cfg->space.max_vpp);
    if (cfg->space.per_layer) fputs("per layer", fp);
    for (int m = 0; !cfg->space.per_layer && m < cfg->space.n_modes; m++)
        fprintf(fp, "%s%s", m ? "/" : "", nd_recompute_name(cfg->space.modes[m]));
    fputc('\n', fp);
}

void nd_search_print_stages(FILE *fp, const nd_search_config *cfg, const nd_search_result *res, size_t count,
                            bool times)
{
    if (count > res->count) count = res->count;
    for (size_t i = 0; i < count; i++) {
        nd_priced_stages p;
        if (nd_search_price_stages(cfg, &res->items[i], &p, NULL)) {
            nd_priced_stages_free(&p);
            continue;
        }
        char s[256];
        nd_strategy_format(&res->items[i].s, s, sizeof s);
        fprintf(fp, "#%zu %s\n", i + 1, s);
        for (int64_t st = 0; st < res->items[i].s.pp; st++) {
            const nd_stage_memory *m = &p.mem[st];
            const nd_stage_time *t = &p.tm[st];
            if (times)
                fprintf(fp,
                        "  stage %lld: forward %.2f backward %.2f recompute %.2f TP %.2f EP %.2f CP %.2f "
                        "overhead "
                        "%.2f ms a micro-batch\n",
                        (long long)st, t->forward_ms, t->backward_ms, t->recompute_ms, t->tp_ms, t->ep_ms,
                        t->cp_ms, t->overhead_ms);
            else
                fprintf(
                    fp,
                    "  stage %lld: %lld layers, %.0f MiB (params %.0f grads %.0f optimizer %.0f activations "
                    "%.0f working %.0f buffers %.0f allocator %.0f context %.0f)\n",
                    (long long)st, (long long)m->layers, m->total_mib, m->params_mib, m->grads_mib,
                    m->optimizer_mib, m->activations_mib, m->working_mib, m->buffers_mib, m->allocator_mib,
                    m->context_mib);
        }
        nd_priced_stages_free(&p);
    }
}
