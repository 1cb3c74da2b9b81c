/*
 * progress.h — progress of a long step on stderr, with an estimate of the time left.
 *
 * A step that ends within a second prints nothing. Past one second the line appears:
 *
 *   nd-search: pricing 45 % (1,234 of 2,742 layouts), 1.8 s, about 2 s left
 *
 * redrawn in place on a terminal (at most ten times a second) and, when stderr is a file
 * or a pipe, printed once per 10 % so a log keeps a few lines rather than thousands. The
 * end of a step that showed progress says how long it took. The time left is the elapsed
 * time scaled by the work still to do: work done at a steady rate.
 *
 * The environment variable ND_PROGRESS_AFTER_MS changes the one-second threshold (tests set
 * it to 0 to see the lines without a slow input). An nd_progress is used by one thread at a
 * time; it holds no global state.
 */
#ifndef ND_PROGRESS_H
#define ND_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

typedef struct nd_progress {
    FILE *out;     /* NULL: silent (-q) */
    char what[96]; /* "nd-search: pricing" */
    char unit[32]; /* what is counted, "layouts"; "" prints a percentage only */
    double total;  /* units of work in the step, > 0 */
    struct timespec start;
    double after_s; /* shown once the step has run this long */
    double last_draw_s;
    int last_decile;
    bool tty, drawn;
} nd_progress;

/* Starts a step of `total` units on out (NULL: silent). what and unit are copied. */
void nd_progress_begin(nd_progress *p, FILE *out, const char *what, const char *unit, double total);

/* Reports that `done` units of the step are finished. Cheap when nothing is to be drawn. */
void nd_progress_update(nd_progress *p, double done);

/* Ends the step: when progress was shown, a last line with the time it took. */
void nd_progress_end(nd_progress *p);

/* Seconds since nd_progress_begin. */
double nd_progress_elapsed_s(const nd_progress *p);

#endif
