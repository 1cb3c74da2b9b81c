/*
 * error.h — how every nd library function reports failure.
 *
 * Library functions return 0 on success or a negative ND_E* code, and fill an
 * nd_error with one line that names the file, line and field when the fault is
 * in the user's input ("round.csv:3: column 'dp_wait': 'abc' is not a number").
 * Only a binary's main prints the message and chooses the exit status
 * (nd_exit_status): 2 for bad usage or bad input, 1 for a failure while running.
 * The library never calls exit() or abort().
 */
#ifndef ND_ERROR_H
#define ND_ERROR_H

#include <stddef.h>

enum {
    ND_OK = 0,
    ND_EINPUT = -1,   /* the input is wrong or the request impossible (exit 2) */
    ND_EUSAGE = -2,   /* the command line is wrong (exit 2) */
    ND_EIO = -3,      /* reading or writing a file failed while running (exit 1) */
    ND_ENOMEM = -4,   /* out of memory (exit 1) */
    ND_ERUNTIME = -5, /* failed while running: an external tool, a solver (exit 1) */
};

#define ND_ERROR_MESSAGE_MAX 1024

typedef struct nd_error {
    int code;                           /* the ND_E* code of the first failure */
    char message[ND_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
} nd_error;

#if defined(__GNUC__)
#define ND_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ND_PRINTF(a, b)
#endif

/* Records code and message in err (err may be NULL) and returns code, so a
 * caller can write `return nd_error_set(err, ND_EINPUT, "...")`. */
int nd_error_set(nd_error *err, int code, const char *fmt, ...) ND_PRINTF(3, 4);

/* Puts "<context>: " in front of the message already in err; returns err->code. */
int nd_error_prefix(nd_error *err, const char *fmt, ...) ND_PRINTF(2, 3);

/* The exit status a binary returns for a library code: 0, 1 or 2. */
int nd_exit_status(int code);

#endif
