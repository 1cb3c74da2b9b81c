/*
 * framework.c — the framework formats: their -f names, recognising a file's format,
 * dispatching to each reader and writer, and the helpers they share (framework.h).
 */
#include "fw_formats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd/base/io.h"
#include "nd/inputs/model_fields.h"
#include "nd/inputs/search_config.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

static const char *const format_names[ND_CONFIGS] = {
    "nd", "mindformers", "megatron", "mindspeed", "hyper_v2", "hyperparallel2", "torchtitan", "simumax",
};

const char *nd_config_format_name(nd_config_format f)
{
    return f >= 0 && f < ND_CONFIGS ? format_names[f] : "?";
}

/* Names compared in any case, '_' and '-' alike. */
unsigned nd_config_format_dims(nd_config_format f)
{
    unsigned all = ~0u;
    if (f == ND_CONFIG_SIMUMAX) return all & ~ND_DIM_BIT(ND_DIM_CP); /* SimuMax has no CP */
    if (f == ND_CONFIG_HYPERPARALLEL2)
        return all & ~(ND_DIM_BIT(ND_DIM_PP) | ND_DIM_BIT(ND_DIM_VPP) | ND_DIM_BIT(ND_DIM_EP) |
                       ND_DIM_BIT(ND_DIM_ETP));
    return all;
}

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '_' ? '-' : (char)(*a >= 'A' && *a <= 'Z' ? *a + 32 : *a);
        char y = *b == '_' ? '-' : (char)(*b >= 'A' && *b <= 'Z' ? *b + 32 : *b);
        if (x != y) return false;
    }
    return !*a && !*b;
}

int nd_config_format_parse(const char *name, nd_config_format *out, bool *json_hint)
{
    static const struct {
        const char *name;
        nd_config_format f;
    } names[] = {
        {"nd", ND_CONFIG_ND},
        {"mindformers", ND_CONFIG_MINDFORMERS},
        {"mindspeed", ND_CONFIG_MEGATRON},
        {"megatron", ND_CONFIG_MEGATRON},
        {"megatron-lm", ND_CONFIG_MEGATRON},
        {"mindspeed-llm", ND_CONFIG_MEGATRON},
        {"mindspeed-json", ND_CONFIG_MINDSPEED_JSON},
        {"hyper-v2", ND_CONFIG_HYPER_V2},
        {"hyperparallel2", ND_CONFIG_HYPERPARALLEL2},
        {"hyperparallel", ND_CONFIG_TORCHTITAN},
        {"torchtitan", ND_CONFIG_TORCHTITAN},
        {"simumax", ND_CONFIG_SIMUMAX},
    };
    *json_hint = false;
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (same_name(name, names[i].name)) {
            *out = names[i].f;
            *json_hint = same_name(name, "mindspeed");
            return 0;
        }
    return -1;
}

static bool has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && nd_text_equal_nocase(path + n - m, suffix);
}

/* A YAML file's format from its top-level keys. */
static nd_config_format yaml_format(const char *path)
{
    nd_yaml y;
    nd_error err;
    if (nd_yaml_load(&y, path, &err)) return ND_CONFIG_ND; /* nd's reader names the fault */
    static const char *const mindformers[] = {"parallel_config", "runner_config",      "recompute_config",
                                              "moe_config",      "model.model_config", "trainer"};
    static const char *const hyper[] = {"accelerator",
                                        "fsdp_config",
                                        "activation_checkpoint",
                                        "training",
                                        "dataset",
                                        "model._target_",
                                        "model.pretrained_model_name_or_path",
                                        "train.accelerator",
                                        "model.config_overrides"};
    nd_config_format f = ND_CONFIG_ND;
    for (size_t i = 0; i < ND_ARRAY_LEN(mindformers) && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, mindformers[i])) f = ND_CONFIG_MINDFORMERS;
    for (size_t i = 0; i < ND_ARRAY_LEN(hyper) && f == ND_CONFIG_ND; i++)
        if (fw_yaml_at(&y, hyper[i])) f = ND_CONFIG_HYPER_V2;
    nd_yaml_free(&y);
    return f;
}

/* Whether a Megatron flag stands in text outside a comment line (a run file's header may name
 * the flags of the script it was taken from). */
static bool flag_in_code(const char *text, const char *flag)
{
    for (const char *at = strstr(text, flag); at; at = strstr(at + 1, flag)) {
        const char *line = at;
        while (line > text && line[-1] != '\n') line--;
        while (line < at && (*line == ' ' || *line == '\t')) line++;
        if (*line != '#') return true;
    }
    return false;
}

nd_config_format nd_config_format_detect(const char *path)
{
    if (has_suffix(path, ".toml") || strstr(path, ".toml:") || strstr(path, ".py:"))
        return ND_CONFIG_TORCHTITAN;
    char *text;
    size_t len;
    nd_error err;
    if (nd_read_file(path, 16u << 20, &text, &len, &err)) return ND_CONFIG_ND;
    const char *p = text;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) p += 3;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    nd_config_format f = ND_CONFIG_ND;
    if (*p == '{') {
        bool hf = strstr(text, "\"model_type\"") || strstr(text, "\"architectures\"");
        if (!hf && (strstr(text, "\"tmp\"") || strstr(text, "\"model_id\""))) f = ND_CONFIG_MINDSPEED_JSON;
        /* SimuMax's StrategyConfig: its degrees' names */
        if (!hf && strstr(text, "\"tp_size\"") &&
            (strstr(text, "\"micro_batch_num\"") || strstr(text, "\"micro_batch_size\"") ||
             strstr(text, "\"world_size\"")))
            f = ND_CONFIG_SIMUMAX;
    } else if (!has_suffix(path, ".yaml") && !has_suffix(path, ".yml") &&
               (flag_in_code(text, "--num-layers") || flag_in_code(text, "--tensor-model-parallel-size") ||
                flag_in_code(text, "--hidden-size"))) {
        f = ND_CONFIG_MEGATRON;
    } else {
        f = yaml_format(path);
    }
    free(text);
    return f;
}

/* The framework formats nd reads and writes back (nd's own run file is nd_run_load's). */
static const fw_format *const formats[] = {
    &fw_mindformers_format,    &fw_megatron_format,   &fw_mindspeed_json_format, &fw_hyper_v2_format,
    &fw_hyperparallel2_format, &fw_torchtitan_format, &fw_simumax_format,
};

static const fw_format *format_of(nd_config_format f)
{
    for (size_t i = 0; i < ND_ARRAY_LEN(formats); i++)
        if (formats[i]->format == f) return formats[i];
    return NULL;
}

int nd_config_load(nd_run *run, const nd_config_input *in, nd_error *err)
{
    nd_config_format f;
    bool json = false;
    if (in->framework) {
        if (nd_config_format_parse(in->framework, &f, &json))
            return nd_error_set(err, ND_EUSAGE,
                                "-f %s: not a framework nd reads (nd, mindformers, mindspeed, "
                                "megatron, hyper_v2, hyperparallel, hyperparallel2, torchtitan, simumax)",
                                in->framework);
        if (json && nd_config_format_detect(in->path) == ND_CONFIG_MINDSPEED_JSON)
            f = ND_CONFIG_MINDSPEED_JSON;
        /* ND's -f mindformers is its default: a file of another format says which it is */
        if (f == ND_CONFIG_MINDFORMERS && nd_config_format_detect(in->path) != ND_CONFIG_MINDFORMERS)
            f = nd_config_format_detect(in->path);
    } else {
        f = nd_config_format_detect(in->path);
    }
    if ((in->train_yaml || in->accelerate_yaml) && (f == ND_CONFIG_HYPER_V2 || f == ND_CONFIG_ND))
        f = ND_CONFIG_HYPERPARALLEL2;
    /* a companion file another format would ignore: refused, so that the run is not priced
     * without what its user meant it to say */
    if (in->model_config && f != ND_CONFIG_SIMUMAX)
        return nd_error_set(err, ND_EUSAGE,
                            "--model-config %s: read with SimuMax's strategy JSON only (-f simumax); %s is "
                            "%s's format, whose model is in the file itself",
                            in->model_config, in->path, nd_config_format_name(f));
    if ((in->train_yaml || in->accelerate_yaml) && f != ND_CONFIG_HYPERPARALLEL2)
        return nd_error_set(
            err, ND_EUSAGE,
            "%s %s: read with HyperParallel's model yaml only (-f hyperparallel2); %s is %s's "
            "format",
            in->train_yaml ? "--train-yaml" : "--accelerate-yaml",
            in->train_yaml ? in->train_yaml : in->accelerate_yaml, in->path, nd_config_format_name(f));
    if (f == ND_CONFIG_ND) return nd_run_load(run, in->path, err);
    nd_run_init(run, in->path);
    run->format = f;
    fw_reader r = {run, in->path, in->strict, err};
    const fw_format *reader = format_of(f);
    return reader ? reader->read(&r, in) : nd_error_set(err, ND_EUSAGE, "-f: unknown format");
}

/* ---- writing back, and reading what was written ------------------------------------------ */

/* What a strategy means once the framework runs it: ETP following MP, no ZERO without an
 * optimizer shard, SP only over TP, VPP, the schedule and the split only over PP, ETP and EP
 * only with experts. */
static void normalise(nd_strategy *s, bool experts)
{
    if (!s->etp) s->etp = s->tp;
    if (s->op <= 1) {
        s->op = 1;
        s->zero = 0;
    }
    if (s->tp <= 1) s->sp = false;
    if (s->pp <= 1) {
        s->vpp = 1;
        s->schedule = ND_SCHEDULE_1F1B;
        s->first_stage_layers = s->last_stage_layers = 0;
    }
    if (!experts) s->etp = s->tp;
}

static int64_t params_of(const nd_model *m)
{
    nd_param_count n;
    nd_model_count_params(m, &n);
    return n.total;
}

/* The first field where the run read back from the written files differs from the choice:
 * refused (ND_ERUNTIME) naming it, the value chosen and the value read back. Not compared: an
 * optimizer shard the file cannot state (the framework spans it over DP x CP at launch), the
 * per-stage split (FIRST/LAST, -mppb's layout, which the reader keeps as a layout), offload, and
 * in ND's MindSpeed json, which states neither, the recompute and the batch (the launcher's). */
static int compare_back(const nd_run *run, const nd_config_choice *c, const nd_run *back, const char *file,
                        nd_error *err)
{
    nd_strategy w = c->s, g = back->strategy;
    w.recompute = fw_choice_mode(c); /* what the writer writes for a per-layer plan */
    normalise(&w, run->model.experts > 0);
    normalise(&g, back->model.experts > 0);
    if (back->op_spans_dp) { /* the file states no shard: the framework's spans DP x CP (not checked) */
        g.op = w.op;
        g.zero = w.zero;
    }
    if (run->format == ND_CONFIG_MINDSPEED_JSON) g.recompute = w.recompute; /* ND's json states none */
    /* A per-layer plan has no one-word mode: readers name it by the layers it recomputes fully
     * (any: full) where fw_choice_mode names the mode most layers run. Recomputing or not must
     * agree; which word names a mixed plan need not. */
    if (c->plan && w.recompute != ND_RECOMPUTE_OFF && g.recompute != ND_RECOMPUTE_OFF)
        g.recompute = w.recompute;
    const struct {
        const char *name;
        int64_t chosen, read;
    } f[] = {
        {"DP", w.dp, g.dp},
        {"MP", w.tp, g.tp},
        {"PP", w.pp, g.pp},
        {"VPP", w.vpp, g.vpp},
        {"CP", w.cp, g.cp},
        {"EP", w.ep, g.ep},
        {"ETP", w.etp, g.etp},
        {"OP", w.op, g.op},
        {"ZERO", w.zero, g.zero},
        {"MBS", w.mbs, g.mbs},
        {"MB", w.mb, g.mb},
        {"SP", w.sp, g.sp},
        {"recompute", (int64_t)w.recompute, (int64_t)g.recompute},
        {"schedule", (int64_t)w.schedule, (int64_t)g.schedule},
        {"the global batch", c->global_batch, back->train.global_batch},
        {"the model's layers", run->model.layers, back->model.layers},
        {"the model's hidden size", run->model.hidden, back->model.hidden},
        {"the model's parameters", params_of(&run->model), params_of(&back->model)},
    };
    for (size_t i = 0; i < ND_ARRAY_LEN(f); i++) {
        if (f[i].chosen == f[i].read) continue;
        char chosen[32], read[32];
        bool mode = !strcmp(f[i].name, "recompute"), sched = !strcmp(f[i].name, "schedule");
        snprintf(chosen, sizeof chosen, "%s",
                 mode    ? nd_recompute_name((nd_recompute)f[i].chosen)
                 : sched ? nd_schedule_name((nd_schedule)f[i].chosen)
                         : "");
        snprintf(read, sizeof read, "%s",
                 mode    ? nd_recompute_name((nd_recompute)f[i].read)
                 : sched ? nd_schedule_name((nd_schedule)f[i].read)
                         : "");
        if (!mode && !sched) {
            snprintf(chosen, sizeof chosen, "%lld", (long long)f[i].chosen);
            snprintf(read, sizeof read, "%lld", (long long)f[i].read);
        }
        return nd_error_set(err, ND_ERUNTIME,
                            "%s: read back, %s is %s where nd chose %s: the %s writer did not write the "
                            "chosen strategy, so nothing was written (a bug: please report it)",
                            file, f[i].name, read, chosen, nd_config_format_name(run->format));
    }
    return ND_OK;
}

/* A copy of the written file `from` beside the user's `original`, so that the names it holds
 * relative to its own directory (hf_assets_path, a checkpoint) resolve as the original's did:
 * *path gets the copy (a temporary of out, removed by nd_outfile_discard), or `from` itself
 * when the original's directory cannot take one. */
static int copy_beside(const char *from, const char *original, nd_outfile *out, const char **path,
                       nd_error *err)
{
    memset(out, 0, sizeof *out);
    *path = from;
    char *text, *dir = nd_path_dir(original);
    size_t len;
    int rc = nd_read_file(from, 64u << 20, &text, &len, err);
    if (rc) {
        free(dir);
        return rc;
    }
    const char *slash = strrchr(original, '/');
    char *dest = dir ? nd_path_printf("%s/.nd-readback-%s", dir, slash ? slash + 1 : original) : NULL;
    nd_error ignored = {0};
    if (dest && !nd_outfile_open(out, dest, &ignored)) {
        if (fwrite(text, 1, len, out->fp) == len && !fflush(out->fp))
            *path = out->tmp_path;
        else
            nd_outfile_discard(out);
    }
    free(dest);
    free(dir);
    free(text);
    return ND_OK;
}

/* Reads the files just written back with the format's own reader, as the user would hand them
 * in (each in place of the file it was written from), and compares what they mean with the
 * choice (compare_back). */
static int read_back(const nd_run *run, const nd_config_choice *c, const fw_format *f, const char *written,
                     nd_error *err)
{
    enum { MAIN, TRAIN, ACCEL, ROLES };
    const char *original[ROLES] = {run->source, run->train_yaml, run->accelerate_yaml};
    char *file[ROLES] = {NULL, NULL, NULL};
    nd_outfile copy[ROLES];
    const char *path[ROLES] = {NULL, NULL, NULL};
    memset(copy, 0, sizeof copy);
    int rc = ND_OK;
    bool three = run->format == ND_CONFIG_HYPERPARALLEL2;
    for (const char *line = written, *end; !rc && (end = strchr(line, '\n')); line = end + 1) {
        char *p = nd_path_printf("%.*s", (int)(end - line), line);
        if (!p) return nd_error_set(err, ND_ENOMEM, "out of memory");
        const char *slash = strrchr(p, '/'), *name = slash ? slash + 1 : p;
        int role = !strcmp(name, "resolved_accelerate.yaml") ? ACCEL : three ? TRAIN : MAIN;
        if (file[role] || !original[role][0]) {
            rc = nd_error_set(err, ND_ERUNTIME,
                              "%s: written back, but nd cannot tell which input it stands for", p);
            free(p);
            break;
        }
        file[role] = p;
        const char *staged = nd_outputs_staged(p);
        rc = copy_beside(staged ? staged : p, original[role], &copy[role], &path[role], err);
    }
    nd_run *back = rc ? NULL : malloc(sizeof *back);
    if (!rc && !back) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) {
        char main_path[1100];
        const char *m = path[MAIN] ? path[MAIN] : run->source;
        if (run->format == ND_CONFIG_TORCHTITAN && run->module_py[0])
            snprintf(main_path, sizeof main_path, "%s:%s", run->module_py, m);
        else
            snprintf(main_path, sizeof main_path, "%s", m);
        nd_config_input in = {main_path,
                              NULL,
                              path[TRAIN] ? path[TRAIN] : (three ? run->train_yaml : NULL),
                              path[ACCEL] ? path[ACCEL] : (three ? run->accelerate_yaml : NULL),
                              false,
                              run->model_config[0] ? run->model_config : NULL};
        nd_run_init(back, main_path);
        back->format = run->format;
        fw_reader r = {back, main_path, false, err};
        rc = f->read(&r, &in);
        /* a world size the script does not state, or states without dividing TP x PP x CP (a
         * launcher flag left without its count), is one -d overrode: the search's, here too */
        if (!rc && back->derive_dp) back->devices = c->s.dp * c->s.tp * c->s.pp * c->s.cp;
        if (!rc && run->format == ND_CONFIG_MINDSPEED_JSON) { /* its json states no batch: the launcher's */
            char gbs[32];
            snprintf(gbs, sizeof gbs, "%lld", (long long)c->global_batch);
            rc = nd_run_set(back, "global_batch", gbs, err);
        }
        if (!rc) rc = nd_config_derive(back, err);
        if (!rc) rc = nd_run_bind_layout(back, err); /* a layout states VPP, as the session reads it */
        const char *first = file[MAIN] ? file[MAIN] : file[TRAIN] ? file[TRAIN] : file[ACCEL];
        char name[1200];
        snprintf(name, sizeof name, "%s%s%s%s", first ? first : run->source,
                 file[TRAIN] && file[ACCEL] ? " (with " : "", file[TRAIN] && file[ACCEL] ? file[ACCEL] : "",
                 file[TRAIN] && file[ACCEL] ? ")" : "");
        if (rc)
            rc = nd_error_prefix(err,
                                 "%s: reading back what nd wrote, nothing was written (a bug: please report "
                                 "it)",
                                 name);
        else
            rc = compare_back(run, c, back, name, err);
        if (rc) rc = ND_ERUNTIME;
    }
    free(back);
    for (int i = 0; i < ROLES; i++) {
        nd_outfile_discard(&copy[i]);
        free(file[i]);
    }
    return rc;
}

int nd_config_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size,
                    nd_error *err)
{
    written[0] = '\0';
    int rc = nd_make_dir(dir, err);
    if (rc) return rc;
    const fw_format *writer = format_of(run->format);
    if (!writer)
        return nd_error_set(err, ND_EINPUT, "%s is nd's own run file: its strategy goes to best.yaml",
                            run->source);
    rc = writer->write(run, c, dir, written, size, err);
    if (!rc) rc = read_back(run, c, writer, written, err);
    if (rc) { /* inside a run the staged outputs are dropped with it; outside one they were renamed */
        for (const char *line = written, *end; (end = strchr(line, '\n')); line = end + 1) {
            char *p = nd_path_printf("%.*s", (int)(end - line), line);
            if (p && !nd_outputs_staged(p)) unlink(p);
            free(p);
        }
        written[0] = '\0';
    }
    return rc;
}
