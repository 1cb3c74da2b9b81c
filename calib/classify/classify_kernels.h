/* classify_kernels.h — the kernel view of the device: kernel time by class, each
 * collective type's calls, payload, exposed and overlapped time and bandwidth, and the
 * GEMM and attention shapes with their achieved TFLOP/s (internal). */
#ifndef ND_CLASSIFY_KERNELS_H
#define ND_CLASSIFY_KERNELS_H

#include <stdio.h>
#include "classify_steps.h"

/* Where a process group of a trace was placed. */
typedef struct placed {
    nd_classify_quantity column;
    char label[192];
    const char *how;
    int64_t size; /* ranks in the group; 0 unknown */
} placed;

/* The kernel view of one step (device view); NULL when out of memory. */
nd_classify_kernels *nd_classify_kernels_of_step(const trace_ctx *t, const trace_step *st, const placed *pl);
void nd_classify_kernels_free(nd_classify_kernels *k);
/* Frees what a kernel view holds and clears it. */
void nd_classify_kernels_clear(nd_classify_kernels *k);

/* Means per rank-step over the kept samples that have a kernel view, into m. */
int nd_classify_kernels_summarize(const nd_classify_run *run, const bool *keep, nd_classify_summary *m);

/* The report's kernel section (nothing without a device view). */
void nd_classify_kernels_report(const nd_classify_run *run, FILE *f);

/* A collective type's payload (MiB), algorithm and bus bandwidth (GB/s) per rank-step
 * in k: false when not known (no payload recorded: 0 bytes means unknown; no kernel time;
 * for the bus bandwidth, no group size, or a group of one rank), so that every output
 * leaves the same numbers blank (CSV) or null (JSON). */
bool nd_classify_coll_mib(const nd_classify_kernels *k, int coll, double *mib);
bool nd_classify_coll_algbw(const nd_classify_kernels *k, int coll, double *gbps);
bool nd_classify_coll_busbw(const nd_classify_kernels *k, int coll, double *gbps);

/* NCCL-tests' bus-bandwidth factor of a collective on n ranks; -1 when it needs n and n
 * is unknown, or the kind has none. */
double nd_classify_bus_factor(int coll, int64_t n);

#endif
