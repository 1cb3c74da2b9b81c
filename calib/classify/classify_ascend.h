/* classify_ascend.h — the Ascend path's pieces (internal). */
#ifndef ND_CLASSIFY_ASCEND_H
#define ND_CLASSIFY_ASCEND_H

#include "classify_internal.h"

/* One row of step_trace_time.csv, in ms. */
typedef struct ascend_row {
    int rank;      /* Device_id or Index; -1 if the file has neither */
    char step[40]; /* "step1" */
    long step_num; /* the Step number; -1 when blank (matches communication.json's "step") */
    int order;     /* 0 for the rank's first row */
    double time_ms, comp_ms, exposed_ms, bubble_ms, free_ms;
} ascend_row;

/* The rank rows of a step_trace_time.csv (stage rows skipped), checked; the caller frees
 * *rows. id (may be NULL) gets the file's digest and length (duplicate inputs). */
typedef struct ascend_file_id {
    uint64_t digest;
    size_t bytes;
} ascend_file_id;
int nd_classify_ascend_rows(const char *csv_path, ascend_row **rows, size_t *n, ascend_file_id *id,
                            nd_error *err);

/* The HCCL operators of communication.json summed per step, rank and kind: the
 * apportioning needs only these sums, so memory follows steps x ranks x kinds, not the
 * operators (a 200 MB file holds millions). */
typedef struct ascend_op {
    long step_num; /* the digits of the step key; 0 when it has none */
    int rank;      /* cluster file: the rank; -1 in a per-rank file */
    bool p2p;      /* in the "p2p" section (or a send/receive op) */
    coll_kind kind;
    int32_t group; /* cluster file: its group (the ranks its key lists); -1 */
    double calls, elapse_ms, wait_ms, transit_ms, bytes;
} ascend_op;

typedef struct ascend_comm {
    ascend_op *ops; /* sorted by (step_num, rank) once loaded */
    size_t n, cap;
    uint32_t *slots; /* while loading: open-addressing index of ops (index + 1; 0 empty) */
    size_t n_slots;
    group_table groups; /* cluster file: one group per key like "(0, 1)" */
    bool present;       /* a communication.json was found */
    bool cluster;       /* msprof-analyze's cluster layout */
    char *path;         /* the file read */
} ascend_comm;

/* Loads communication.json (or cluster_communication.json) beside csv_path, if any. */
int nd_classify_ascend_comm_load(nd_classify_run *run, const char *csv_path, ascend_comm *comm,
                                 nd_error *err);
void nd_classify_ascend_comm_free(ascend_comm *comm);
/* Apportions the row's exposed time over its operators and adds the sample. *unmatched
 * is set when the row has exposed communication but communication.json holds no
 * operator for its step and rank (the time is then unclassified, never idle). */
int nd_classify_ascend_sample(nd_classify_run *run, const char *path, const ascend_comm *comm,
                              const ascend_row *row, bool *unmatched, nd_error *err);

#endif
