/*
 * classified.h — ND's classified CSV: one row per profiled strategy, its degrees
 * and the measured step split into compute and communication waits (ms).
 *
 * Read with libcsv. Accepts ND's columns (reference/nd-calibration.md §2) and
 * more: TP as a synonym of MP, ETP and ZERO, `idle`, `unclassified` and
 * `optimizer` (ms of the optimizer step inside comp), per-row `devices`, `gbs`
 * and `seq_len`, and a measured `peak_mib`. A UTF-8 BOM, spaces around cells,
 * CRLF line ends and blank optional cells are fine. Anything else is an error
 * naming file, line and column. docs/calibration.md §The classified CSV.
 */
#ifndef ND_CLASSIFIED_H
#define ND_CLASSIFIED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nd/error.h"
#include "nd/strategy.h"

/* Measured columns, ms per step. */
typedef enum {
    ND_MEAS_COMP = 0,
    ND_MEAS_DP_WAIT,
    ND_MEAS_MP_WAIT,
    ND_MEAS_EP_WAIT,
    ND_MEAS_CP_WAIT,
    ND_MEAS_PP_WAIT,
    ND_MEAS_OP_WAIT,
    ND_MEAS_SP_WAIT,
    ND_MEAS_IDLE,
    ND_MEAS_UNCLASSIFIED,
    ND_MEAS_OPTIMIZER, /* part of comp: the optimizer step's compute */
    ND_MEAS_COUNT
} nd_measured;

const char *nd_measured_name(nd_measured m);

/* Strategy dimensions a row may state (bit per dimension). */
typedef enum {
    ND_DIM_DP = 1 << 0, ND_DIM_EP = 1 << 1, ND_DIM_MP = 1 << 2, ND_DIM_CP = 1 << 3,
    ND_DIM_PP = 1 << 4, ND_DIM_VPP = 1 << 5, ND_DIM_MB = 1 << 6, ND_DIM_MBS = 1 << 7,
    ND_DIM_SP = 1 << 8, ND_DIM_OP = 1 << 9, ND_DIM_ETP = 1 << 10, ND_DIM_ZERO = 1 << 11,
} nd_dim_bit;

typedef struct nd_classified_row {
    int line;                 /* 1-based line of the row in the file */
    unsigned dims;            /* ND_DIM_* bits the row states */
    nd_strategy degrees;      /* the stated degrees (others left at 1) */
    bool has_recompute;
    nd_recompute recompute;
    double time_ms;           /* the profiled step */
    double measured[ND_MEAS_COUNT];
    bool has[ND_MEAS_COUNT];  /* the column exists and the cell is not blank */
    double step_trainer_ms;   /* NaN when absent */
    int64_t devices, gbs, seq_len; /* 0 when absent */
    double peak_mib;          /* NaN when absent */
} nd_classified_row;

typedef struct nd_classified {
    char path[512];
    nd_classified_row *rows;
    size_t count;
    unsigned dims;                     /* dimension columns in the header */
    int dim_order[16];                 /* header order of dimension columns (index into names) */
    int dim_count;
    bool column[ND_MEAS_COUNT];        /* measured columns in the header */
    bool has_recompute, has_step_trainer, has_peak, has_devices, has_gbs, has_seq_len;
} nd_classified;

/* Reads path. Rows keep file order. Errors (ND_EINPUT): unknown or duplicate columns (the
 * message lists the accepted names), no `time` column, a row with a different number of
 * cells, a cell that is not a number or not allowed blank, a negative time, a recompute
 * mode that is not off/selective/full, a file without rows; each names line and column. */
int nd_classified_load(const char *path, nd_classified *out, nd_error *err);

void nd_classified_free(nd_classified *c);

/* The name of dimension bit `bit` as ND writes it: "DP", "MP", ... */
const char *nd_dim_name(unsigned bit);

/* Row label in ND's style: "DP 8 MP 4" (stated dimensions, values other than 1, DP always). */
void nd_classified_label(const nd_classified *c, const nd_classified_row *r, char *buf, size_t size);

/* The row's strategy: `base` (the run's) overridden by the row's stated degrees, with its
 * recompute mode when stated. */
void nd_classified_strategy(const nd_classified_row *r, const nd_strategy *base, nd_strategy *out);

/* ND's busy time: compute plus the classified waits (the step less idle and unclassified). */
double nd_classified_busy_ms(const nd_classified_row *r);

/* ND's IDLE: what the step spends outside compute and classified waits: idle plus
 * unclassified communication when those columns are given, else time - busy (may be
 * negative when the columns overlap). */
double nd_classified_idle_ms(const nd_classified_row *r);

#endif
