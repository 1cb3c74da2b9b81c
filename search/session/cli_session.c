/*
 * cli_session.c — from parsed flags to what every pricing command starts from: the run
 * (its file read as its framework writes it, the flags over it), the device, the budget
 * and the ratios file.
 */
#include "nd/session/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nd/costmodel/estimate.h"
#include "nd/inputs/framework.h"
#include "nd/inputs/search_config.h"
#include "nd/base/text.h"
#include "nd/inputs/layout.h"
#include "nd/inputs/device_file.h"

/* The device the search config names when the command line does not (ND: the flags
 * override the search config). Its batch and budget are numbers: search_config_numbers. */
static void search_config_defaults(const nd_search_config_file *f, nd_cli_common *c)
{
    if (!c->device && f->device[0]) c->device = f->device;
}

/* The search config's global batch and memory budget, where no flag states them. */
static void search_config_numbers(const nd_search_config_file *f, const nd_cli_common *c, nd_run *run)
{
    if (!c->gbs && f->global_batch) run->train.global_batch = f->global_batch;
    if (!c->shared.budget && f->memory_mib > 0) run->memory_budget_mib = f->memory_mib;
}

/* -s: ND's search config is the same file in every binary. A strategy typed after -s is
 * nd-estimate's old habit; say where it goes. */
static int load_search_config(const char *path, nd_search_config_file *f, nd_error *err)
{
    int rc = nd_search_config_load(path, f, err);
    if (rc && strchr(path, '='))
        return nd_error_set(err, ND_EUSAGE,
                            "-s '%s': -s is ND's search config in every nd binary; "
                            "give the strategy to price with --strategy",
                            path);
    return rc;
}

/* cluster.num_nodes x cards_per_node of the search config, when -d does not state the
 * device count. */
static int search_config_devices(const nd_search_config_file *f, const char *path, nd_run *run,
                                 const nd_device *device, nd_error *err)
{
    if (!f->num_nodes) return ND_OK;
    int64_t cards = f->cards_per_node ? f->cards_per_node : device->devices_per_node;
    if (f->num_nodes * cards > ND_SEARCH_CONFIG_MAX_DEVICES) /* both are bounded: no overflow */
        return nd_error_set(err, ND_EINPUT,
                            "%s: cluster.num_nodes %lld x %lld cards per node is more "
                            "than the %lld devices nd searches",
                            path, (long long)f->num_nodes, (long long)cards,
                            (long long)ND_SEARCH_CONFIG_MAX_DEVICES);
    run->devices = f->num_nodes * cards;
    return ND_OK;
}

bool nd_cli_sets(const nd_cli_common *c, const char *key)
{
    for (int i = 0; i < c->set_count; i++)
        if (nd_text_equal_nocase(c->set_keys[i], key)) return true;
    return false;
}

/* Whether a and b name one file (after links), else the same text. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!stat(a, &sa) && !stat(b, &sb)) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !strcmp(a, b);
}

/* The search config's training keys over the run (the command line's --set wins, applied
 * after): estimator.cp_algo, and the file's notes. */
static int search_config_run(const nd_search_config_file *f, const nd_cli_common *c, nd_run *run,
                             nd_error *err)
{
    for (int i = 0; i < f->n_notes && run->n_notes < ND_RUN_MAX_NOTES; i++)
        nd_text_copy(run->notes[run->n_notes++], f->notes[i], sizeof run->notes[0]);
    if (!f->cp_algo[0] || nd_cli_sets(c, "cp_comm")) return ND_OK;
    const char *comm = NULL;
    if (nd_text_equal_nocase(f->cp_algo, "ulysses") || nd_text_equal_nocase(f->cp_algo, "a2a"))
        comm = "a2a";
    else if (nd_text_equal_nocase(f->cp_algo, "ring") || nd_text_equal_nocase(f->cp_algo, "ring_attention"))
        comm = "ring";
    if (!comm) {
        comm = "ring";
        if (run->n_notes < ND_RUN_MAX_NOTES)
            snprintf(run->notes[run->n_notes++], sizeof run->notes[0],
                     "%.80s: estimator.cp_algo '%.30s': hybrid "
                     "Ulysses and ring CP is priced as ring (as ND prices it)",
                     f->path, f->cp_algo);
    }
    int rc = nd_run_set(run, "cp_comm", comm, err);
    return rc ? nd_error_prefix(err, "%s: estimator.cp_algo", f->path) : ND_OK;
}

/* Loads -y, applies the overrides (CLI wins over the file), loads device files and
 * resolves the device and device count. devices/gbs may stay 0 when neither the flags
 * nor the file state them and `need_cluster` is false. Errors name the flag or file. */
static int nd_cli_common_resolve(const nd_cli_common *c, const nd_search_config_file *file, bool need_cluster,
                                 nd_run *run, nd_device_table *table, const nd_device **device,
                                 double *budget_mib, double *margin_mib, nd_error *err)
{
    int rc;
    *device = NULL;
    table->items = NULL;
    table->count = 0;
    bool standalone = !c->run_path && file && file->n_model > 0; /* ND: the search config's model: */
    if (!c->run_path && !standalone)
        return nd_error_set(err, ND_EUSAGE, "-y RUN is required (a run YAML or a config.json)%s",
                            file ? ", unless the search config states a train_yaml or a model: section" : "");
    if (standalone) {
        if ((rc = nd_run_apply_model_section(run, file, true, err))) return rc;
    } else {
        nd_config_input in = {c->run_path,        c->framework, c->train_yaml,
                              c->accelerate_yaml, c->strict,    c->model_config};
        if ((rc = nd_config_load(run, &in, err))) return rc;
        if (file && file->n_model > 0 && (rc = nd_run_apply_model_section(run, file, false, err))) return rc;
    }
    if (file) rc = search_config_run(file, c, run, err);
    if (rc) return rc;
    if (c->model_name) nd_text_copy(run->model.name, c->model_name, sizeof run->model.name);
    /* --precision first: it resets the gradient and master sizes other flags refine. */
    int device_set = -1; /* the override that named the device, for an unknown name's message */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->set_count; i++) {
            if ((pass == 0) != !strcmp(c->set_keys[i], "precision")) continue;
            if ((rc = nd_run_set(run, c->set_keys[i], c->set_values[i], err)))
                return nd_error_prefix(err, "%s", c->set_flags[i] ? c->set_flags[i] : "--set");
            if (!strcmp(c->set_keys[i], "device")) device_set = i;
        }
    if (c->devices && (rc = nd_run_set(run, "devices", c->devices, err))) return nd_error_prefix(err, "-d");
    if (c->gbs && (rc = nd_run_set(run, "global_batch", c->gbs, err))) return nd_error_prefix(err, "-b");
    if (c->shared.budget && (rc = nd_run_set(run, "memory_budget", c->shared.budget, err)))
        return nd_error_prefix(err, "-M");
    if (file) search_config_numbers(file, c, run);
    if (run->train.cp_comm == ND_CP_HYBRID && run->train.cp_ulysses_degree <= 0)
        return nd_error_set(err, ND_EINPUT,
                            "%s: cp_comm 'hybrid' needs cp_ulysses_degree, the size of its all-to-all "
                            "groups (MindSpeed's --ulysses-degree-in-cp)",
                            c->run_path ? c->run_path : "--set");
    if (run->format != ND_CONFIG_ND && (rc = nd_config_derive(run, err))) return rc;
    if ((rc = nd_run_bind_layout(run, err))) return rc;
    char note[sizeof run->notes[0]];
    /* -mppb: the config's stage layers; its recompute counts are a plan (a SimuMax run's always) */
    if (nd_cli_stage_counts(c, run->format)) {
        nd_layout_strategy(run, note, sizeof note);
        char theirs[sizeof note + 32];
        if (!c->mppb && strstr(note, "nothing to apply")) {
            note[0] = '\0'; /* not the user's flag: nothing to say of counts the file does not state */
        } else if (!c->mppb && !strncmp(note, "-mppb: ", 7)) {
            snprintf(theirs, sizeof theirs, "SimuMax's per-stage counts: %s", note + 7);
            nd_text_copy(note, theirs, sizeof note);
        }
    } else {
        nd_layout_partial_note(run, note, sizeof note);
    }
    if (note[0] && run->n_notes < ND_RUN_MAX_NOTES)
        nd_text_copy(run->notes[run->n_notes++], note, sizeof note);
    if (c->device) nd_text_copy(run->device, c->device, sizeof run->device);
    if (c->device) { /* -A's, or the search config's: over the run file's and --set's */
        run->device_line = 0;
        device_set = -1;
    }

    if ((rc = nd_device_table_builtin(table, err))) return rc;
    if (run->device_file[0] && (rc = nd_device_table_load(table, run->device_file, err))) return rc;
    if (c->device_file && (rc = nd_device_table_load(table, c->device_file, err))) return rc;
    if (!run->device[0]) { /* ND's default device */
        if (c->strict) {
            char names[512];
            nd_device_table_names(table, names, sizeof names);
            return nd_error_set(err, ND_EUSAGE,
                                "no device: give -A (%s) or cluster.device in the run file "
                                "(--strict refuses ND's default, A2)",
                                names);
        }
        nd_text_copy(run->device, "A2", sizeof run->device);
        if (run->n_notes < ND_RUN_MAX_NOTES)
            snprintf(run->notes[run->n_notes++], sizeof run->notes[0],
                     "no device stated (-A, cluster.device): A2, ND's default");
    }
    *device = nd_device_table_find(table, run->device);
    if (!*device) {
        char names[512];
        nd_device_table_names(table, names, sizeof names);
        char hint_buf[ND_TEXT_HINT_MAX];
        const char *hint = nd_text_hint(run->device, names, hint_buf);
        if (file && c->device == file->device) /* search_config_defaults: not the flag's */
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: cluster.device_type: unknown device '%s' (%sknown: %s)", file->path,
                                file->device_line, run->device, hint, names);
        if (run->device_line > 0)
            return nd_error_set(err, ND_EINPUT, "%s:%d: cluster.device: unknown device '%s' (%sknown: %s)",
                                run->source, run->device_line, run->device, hint, names);
        if (device_set >= 0) /* --set device=NAME: named as given, not as -A */
            return nd_error_set(err, ND_EUSAGE, "%s %s=%s: unknown device (%sknown: %s)",
                                c->set_flags[device_set] ? c->set_flags[device_set] : "--set",
                                c->set_keys[device_set], c->set_values[device_set], hint, names);
        return nd_error_set(err, ND_EUSAGE, "-A %s: unknown device (%sknown: %s)", run->device, hint, names);
    }
    if (run->train.fp8 && (*device)->fp8_tflops <= 0)
        return nd_error_set(err, ND_EUSAGE, "fp8: device %s has no FP8 tensor cores (fp8_tflops is 0)",
                            (*device)->name);
    if (need_cluster && run->devices <= 0)
        return nd_error_set(err, ND_EUSAGE, "no device count: give -d N or cluster.devices in the run file");
    double budget = nd_device_budget_mib(*device, run->memory_budget_mib);
    /* the margin: -mem as given (ND's reserve; -mem 0 for none), else, when no budget is stated,
     * what the framework's allocator leaves (a stated budget is the user's own margin) */
    double reserve = 0;
    if (c->reserve) {
        if (nd_parse_memory_mib(c->reserve, &reserve))
            return nd_error_set(err, ND_EUSAGE, "-mem: '%s' is not a size such as 4GB", c->reserve);
        if (reserve >= budget)
            return nd_error_set(err, ND_EUSAGE, "-mem %s leaves no memory below the %.0f MiB budget",
                                c->reserve, budget);
    } else if (run->memory_budget_mib <= 0) {
        reserve = nd_train_memory_margin_mib(&run->train, nd_device_capacity_mib(*device));
    }
    *margin_mib = reserve;
    *budget_mib = budget - reserve;
    return ND_OK;
}

int nd_session_open(nd_session *s, const nd_cli_common *c, bool need_cluster, FILE *diag, nd_error *err)
{
    memset(s, 0, sizeof *s);
    int rc;
    const nd_cli_common *flags = c;
    nd_cli_common *merged = NULL;
    if (c->search_config) {
        if (!(s->search = malloc(sizeof *s->search)) || !(merged = malloc(sizeof *merged))) {
            free(merged);
            return nd_error_set(err, ND_ENOMEM, "out of memory");
        }
        if ((rc = load_search_config(c->search_config, s->search, err))) {
            free(merged);
            return rc;
        }
        *merged = *c;
        search_config_defaults(s->search, merged);
        const nd_search_config_file *f = s->search;
        /* ND: the search config prices its train_yaml; -y, when given, must be that file */
        if (f->train_yaml[0] && !c->run_path)
            merged->run_path = f->train_yaml;
        else if (f->train_yaml[0] && !same_file(c->run_path, f->train_yaml))
            rc = nd_error_set(err, ND_EUSAGE,
                              "-y names %s, but the search config prices its train_yaml, %s: pass the "
                              "same file (or leave -y out)",
                              c->run_path, f->train_yaml);
        flags = merged;
        if (rc) {
            free(merged);
            return rc;
        }
    }
    rc = nd_cli_common_resolve(flags, s->search, need_cluster && !c->search_config, &s->run, &s->table,
                               &s->device, &s->budget_mib, &s->margin_mib, err);
    free(merged);
    if (!rc && s->search && !c->devices)
        rc = search_config_devices(s->search, c->search_config, &s->run, s->device, err);
    if (!rc && need_cluster && s->run.devices <= 0)
        rc = nd_error_set(err, ND_EUSAGE, "no device count: give -d N or cluster.devices in the run file");
    for (int i = 0; !rc && diag && nd_cli_says(c, ND_VERBOSITY_DEFAULT) && i < s->run.n_notes; i++)
        fprintf(diag, "note: %s\n", s->run.notes[i]);
    /* -c, else the search config's estimator.ratios_file */
    const char *ratios = c->shared.ratios;
    if (!ratios && s->search && s->search->ratios_file[0] && !s->search->calibration_off)
        ratios = s->search->ratios_file;
    if (rc || !ratios) return rc;
    int missing = /* ND proceeds without it; a warning from -v 1 */
        nd_ratios_missing(ratios, c->strict, nd_cli_says(c, ND_VERBOSITY_RESULTS) ? diag : NULL, err);
    if (missing) return missing < 0 ? missing : ND_OK;
    if ((rc = nd_ratios_load(ratios, &s->ratios, err))) return rc;
    s->has_ratios = true;
    char notes[1024];
    nd_ratios_mismatch(&s->ratios, s->device->name, s->run.model.name, s->run.train.seq_len, notes,
                       sizeof notes);
    /* Every line of the notes gets its prefix. */
    for (char *line = notes, *end; diag && *line; line = end) {
        end = strchr(line, '\n');
        end = end ? end + 1 : line + strlen(line);
        fprintf(diag, "note: %.*s", (int)(end - line), line);
    }
    return ND_OK;
}

void nd_session_close(nd_session *s)
{
    nd_device_table_free(&s->table);
    free(s->search);
    s->search = NULL;
}
