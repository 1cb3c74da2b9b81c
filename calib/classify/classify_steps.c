/* The state of one Chrome trace: looking up its steps and their sites, and noting what
 * a reader should know. */
#include "classify_steps.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

trace_step *nd_classify_trace_step_at(trace_ctx *t, int32_t index)
{
    return index >= 0 && (size_t)index < t->n_steps ? &t->steps[index] : NULL;
}

const int32_t *nd_classify_trace_steps_by_time(const trace_ctx *t, size_t *n)
{
    *n = t->n_steps;
    return t->by_time;
}

int32_t nd_classify_trace_step_of(const trace_ctx *t, nd_ns at)
{
    size_t lo = 0, hi = t->n_steps; /* the first step starting after at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->steps[t->by_time[mid]].ts <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return -1;
    const trace_step *s = &t->steps[t->by_time[lo - 1]];
    return at < s->ts + s->dur ? t->by_time[lo - 1] : -1;
}

step_site *nd_classify_trace_step_site(trace_step *s, int column, const char *label, int32_t group)
{
    for (size_t i = 0; i < s->n_sites; i++) {
        step_site *x = &s->sites[i];
        if (x->column == column && x->group == group &&
            (x->label == label || (x->label && label && !strcmp(x->label, label))))
            return x;
    }
    if (s->n_sites == s->cap_sites) {
        size_t cap = s->cap_sites ? s->cap_sites * 2 : 8;
        step_site *n = realloc(s->sites, cap * sizeof *n);
        if (!n) return NULL;
        s->sites = n;
        s->cap_sites = cap;
    }
    step_site *x = &s->sites[s->n_sites++];
    memset(x, 0, sizeof *x);
    x->column = column;
    x->label = label;
    x->group = group;
    return x;
}

int nd_classify_trace_note(trace_ctx *t, const char *fmt, ...)
{
    char msg[ND_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nd_classify_run_note(t->run, "%s: %s", t->path, msg);
}

/* ND: the integer after "rank" in the file name (nd also skips one '-' or '_'). */
int nd_classify_trace_rank_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int rank = -1;
    for (const char *p = base; (p = strstr(p, "rank")) != NULL; p += 4) {
        const char *d = p + 4;
        if (*d == '-' || *d == '_') d++;
        if (isdigit((unsigned char)*d)) rank = atoi(d);
    }
    return rank;
}
