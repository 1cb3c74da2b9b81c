/* Progress lines with the time left; see progress.h. */
#include "nd/base/progress.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "nd/base/text.h"

#define AFTER_S_DEFAULT 1.0
#define REDRAW_S        0.1

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

double nd_progress_elapsed_s(const nd_progress *p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return seconds_between(&p->start, &now);
}

/* The threshold: ND_PROGRESS_AFTER_MS when set to a whole number of ms, else one second. */
static double threshold_s(void)
{
    const char *env = getenv("ND_PROGRESS_AFTER_MS");
    int64_t ms;
    if (env && nd_parse_int64(env, 0, 3600000, &ms) == 0) return (double)ms / 1000.0;
    return AFTER_S_DEFAULT;
}

void nd_progress_begin(nd_progress *p, FILE *out, const char *what, const char *unit, double total)
{
    p->out = out;
    nd_text_copy(p->what, what ? what : "", sizeof p->what);
    nd_text_copy(p->unit, unit ? unit : "", sizeof p->unit);
    p->total = total > 0 ? total : 1;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->after_s = threshold_s();
    p->last_draw_s = -1;
    p->last_decile = -1;
    p->tty = out && isatty(fileno(out));
    p->drawn = false;
}

/* "2 s", "1 min 5 s": whole seconds are what a reader waits in. */
static void put_duration(FILE *fp, double s)
{
    long whole = lround(s);
    if (whole < 60)
        fprintf(fp, "%ld s", whole);
    else
        fprintf(fp, "%ld min %ld s", whole / 60, whole % 60);
}

static void draw(nd_progress *p, double done, double t)
{
    double share = done / p->total;
    if (share > 1) share = 1;
    if (share < 0) share = 0;
    fprintf(p->out, "%s%s %d %%", p->tty ? "\r\033[K" : "", p->what, (int)(100 * share));
    if (p->unit[0]) fprintf(p->out, " (%.0f of %.0f %s)", done, p->total, p->unit);
    fprintf(p->out, ", %.1f s", t);
    if (done > 0 && share < 1) {
        fputs(", about ", p->out);
        put_duration(p->out, t * (p->total - done) / done);
        fputs(" left", p->out);
    }
    if (!p->tty) fputc('\n', p->out);
    fflush(p->out);
    p->drawn = true;
    p->last_draw_s = t;
}

void nd_progress_update(nd_progress *p, double done)
{
    if (!p->out) return;
    double t = nd_progress_elapsed_s(p);
    if (t < p->after_s) return;
    int decile = (int)floor(10 * done / p->total);
    if (p->tty) {
        if (p->last_draw_s < 0 || t - p->last_draw_s >= REDRAW_S) draw(p, done, t);
    } else if (decile > p->last_decile && done < p->total) { /* the end line says 100 % */
        p->last_decile = decile;
        draw(p, done, t);
    }
}

void nd_progress_end(nd_progress *p)
{
    if (!p->out || !p->drawn) return;
    fprintf(p->out, "%s%s done in %.1f s\n", p->tty ? "\r\033[K" : "", p->what, nd_progress_elapsed_s(p));
    fflush(p->out);
}
