/*
 * fw_megatron_cp.c — the form of context parallelism a Megatron-LM or MindSpeed-LLM script
 * asks for: Megatron's --cp-comm-type (p2p, a2a, allgather, a2a+p2p with
 * --hierarchical-context-parallel-sizes), MindSpeed's --context-parallel-algo (megatron_cp_algo,
 * ulysses_cp_algo, hybrid_cp_algo with --ulysses-degree-in-cp), as train.cp_comm and
 * train.cp_ulysses_degree, checked as each framework checks them. Part of the reader
 * (fw_megatron.c); docs/frameworks.md lists the flags.
 */
#include "fw_formats.h"

#include <stdio.h>
#include <string.h>

#include "fw_args.h"
#include "fw_megatron.h"
#include "nd/base/text.h"

/* The all-to-all size's flag, when given, as train.cp_ulysses_degree (of a list, its first). */
static int degree_arg(fw_reader *r, args_doc *d, const char *flag)
{
    int line;
    const char *v = fw_args_val(d, flag, &line);
    if (!v) return ND_OK;
    char theirs[80];
    snprintf(theirs, sizeof theirs, "--%s", flag);
    return fw_train(r, "cp_ulysses_degree", v, line, theirs);
}

/* The two-level CP's all-to-all size (MindSpeed's hybrid_cp_algo with --ulysses-degree-in-cp,
 * Megatron's a2a+p2p with --hierarchical-context-parallel-sizes A2A P2P), as the framework's
 * argument checks take it: without it the ring alone, in a note (the framework refuses the
 * script); one the script's own CP is not a multiple of, or levels whose product is not its
 * CP, refused as the framework refuses them. form: "--flag value", who: the framework. */
static int check_ulysses_degree(fw_reader *r, args_doc *d, int form_line, const char *form, const char *flag,
                                const char *who)
{
    nd_run *run = r->run;
    int64_t u = run->train.cp_ulysses_degree, cp = 1;
    char theirs[64];
    snprintf(theirs, sizeof theirs, "%.*s", (int)strcspn(form, " "), form);
    if (u <= 0) {
        fw_note(run, "%s:%d: %s without --%s (which %s requires): priced as the ring alone", r->path,
                form_line, form, flag, who);
        return fw_train(r, "cp_comm", "ring", form_line, theirs);
    }
    const char *v = fw_args_val(d, "context-parallel-size", NULL);
    const arg *a = fw_args_get(d, flag);
    int line = a ? a->line : form_line;
    if (!v || nd_parse_int64(v, 1, 1 << 20, &cp) || cp == 1) return ND_OK;
    if (cp % u)
        return nd_error_set(
            r->err, ND_EINPUT,
            "%s:%d: --%s: %lld does not divide --context-parallel-size %lld (%s asserts it does)", r->path,
            line, flag, (long long)u, (long long)cp, who);
    int64_t levels[64], product = 1;
    int n = a ? fw_args_list_ints(d, a, levels, 64) : 0;
    if (a && a->list_count > n) product = ND_ARGS_LIST_MAX; /* more levels than any CP has */
    /* the product held at the cap: no overflow */
    for (int k = 0; k < n && product > 0 && product < ND_ARGS_LIST_MAX; k++)
        product = levels[k] < 0                                                     ? -1
                  : levels[k] == 0 || product <= (ND_ARGS_LIST_MAX - 1) / levels[k] ? product * levels[k]
                                                                                    : ND_ARGS_LIST_MAX;
    if (n > 1 && product >= 0 && product != cp) /* -1: a level in a variable */
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: --%s: the levels' product %s%lld is not --context-parallel-size %lld (%s "
                            "asserts it is)",
                            r->path, line, flag, product >= ND_ARGS_LIST_MAX ? "above " : "",
                            (long long)product, (long long)cp, who);
    return ND_OK;
}

/* Megatron's --cp-comm-type (of a list, one a layer, the first): p2p the ring, a2a, allgather,
 * a2a+p2p the two levels of --hierarchical-context-parallel-sizes */
static int read_cp_comm_type(fw_reader *r, args_doc *d, const char *v, int line)
{
    const char *comm = !strcmp(v, "p2p")                                     ? "ring"
                       : !strcmp(v, "a2a")                                   ? "a2a"
                       : !strcmp(v, "allgather") || !strcmp(v, "all_gather") ? "allgather"
                       : !strcmp(v, "a2a+p2p")                               ? "hybrid"
                                                                             : NULL;
    if (!comm)
        return nd_error_set(r->err, ND_EINPUT,
                            "%s:%d: --cp-comm-type: '%s' is not p2p, a2a, allgather or a2a+p2p", r->path,
                            line, v);
    int rc = fw_train(r, "cp_comm", comm, line, "--cp-comm-type");
    if (rc || strcmp(comm, "hybrid")) return rc;
    rc = degree_arg(r, d, "hierarchical-context-parallel-sizes");
    char form[64];
    snprintf(form, sizeof form, "--cp-comm-type %s", v);
    return rc ? rc
              : check_ulysses_degree(r, d, line, form, "hierarchical-context-parallel-sizes", "Megatron");
}

int fw_megatron_read_cp(fw_reader *r, args_doc *d)
{
    int rc = ND_OK, line;
    const char *v;
    if (!rc && (v = fw_args_val(d, "cp-comm-type", &line))) rc = read_cp_comm_type(r, d, v, line);
    /* MindSpeed's spelling: ulysses_cp_algo is all-to-all, megatron_cp_algo the ring, hybrid_cp_algo
     * both (all-to-alls within --ulysses-degree-in-cp ranks, the ring across them) */
    if (!rc && (v = fw_args_val(d, "context-parallel-algo", &line))) {
        bool hybrid = strstr(v, "hybrid") != NULL;
        rc = fw_train(r, "cp_comm",
                      hybrid                 ? "hybrid"
                      : strstr(v, "ulysses") ? "a2a"
                                             : "ring",
                      line, "--context-parallel-algo");
        if (!rc && hybrid) rc = degree_arg(r, d, "ulysses-degree-in-cp");
        if (!rc && hybrid)
            rc = check_ulysses_degree(r, d, line, "--context-parallel-algo hybrid_cp_algo",
                                      "ulysses-degree-in-cp", "MindSpeed");
    }
    return rc;
}
