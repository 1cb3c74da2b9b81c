/*
 * device_tables_internal.h — what the CSV readers (device_tables.c) and the readers of the
 * benchmark tools' text output (device_tables_tools.c, which holds the helpers) share: the
 * reader's state, the measured collective calls before their fit, and the line and row
 * helpers.
 */
#ifndef ND_INPUTS_DEVICE_TABLES_INTERNAL_H
#define ND_INPUTS_DEVICE_TABLES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "nd/base/error.h"
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"

#define CELL_CHARS 128

typedef struct reader {
    const char *path;
    const nd_device *d;
    nd_kernel_tables *t;
    nd_error *err;
    int line;
} reader;

/* One measured collective call: operation (ND_COLL_*), link tier, group, nccl-tests' size
 * (the whole buffer) and time. */
typedef struct coll_point {
    int op, tier;
    double ranks, per_node, bytes, time_us;
} coll_point;

typedef struct coll_points {
    coll_point *items;
    size_t count;
} coll_points;

/* The next line of text from *at: its start and length (no line break); false at the end. */
bool nd_tables_next_line(const char *text, size_t len, size_t *at, const char **line, size_t *line_len);

/* The whitespace-separated words of a line, at most `max` (each cut to CELL_CHARS - 1). */
size_t nd_tables_words(const char *line, size_t len, char out[][CELL_CHARS], size_t max);

/* The ND_COLL_* an operation's name means (all_reduce, allreduce, all_gather, ..., p2p,
 * sendrecv), or -1. */
int nd_tables_op_of(const char *text);

/* Appends one item of `size` bytes to *items (grown by doubling); ND_EINPUT past a million
 * `what` ("GEMM points"). */
int nd_tables_append(const reader *r, void **items, size_t *count, size_t size, const void *item,
                     const char *what);

/* Appends a call; ND_EINPUT when its ranks a node exceed the device's node. */
int nd_tables_add_coll(const reader *r, coll_points *pts, coll_point p);

/* nccl-tests' output (a `# nThread`, `#  Rank` or `# Collective test starting` line). */
bool nd_tables_is_nccl_tests(const char *text, size_t len);
int nd_tables_read_nccl_tests(reader *r, const char *text, size_t len, coll_points *pts);

/* hccl_test's output (a `data_size(Bytes):` header), with the mpirun command line above it. */
bool nd_tables_is_hccl_test(const char *text, size_t len);
int nd_tables_read_hccl_test(reader *r, const char *text, size_t len, coll_points *pts);

#endif
