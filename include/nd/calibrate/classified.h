/*
 * classified.h — ND's classified CSV: one row per profiled strategy, its degrees
 * and the measured step split into compute and communication waits (ms).
 *
 * Read with libcsv. Accepts ND's columns (docs/reference/nd-calibration.md §2) and
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
#include "nd/base/error.h"
#include "nd/base/formats.h"
#include "nd/costmodel/strategy.h"

/* The columns (nd_dims, time, nd_measured, ...) are formats.h's nd_classified_csv. */

typedef struct nd_classified_row {
    int line;                /* 1-based line of the row in the file */
    unsigned dims;           /* ND_DIM_BIT of each dimension the row states */
    int32_t degree[ND_DIMS]; /* the stated degrees by nd_dim (others 1; SP 0/1, ZERO 0..3):
                                not an nd_strategy, whose int64s would make a 100,000-row
                                round 6 MB larger (nd_classified_strategy builds one) */
    bool has_recompute;
    nd_recompute recompute;
    double time_ms; /* the profiled step */
    double measured[ND_MEAS_COUNT];
    bool has[ND_MEAS_COUNT];       /* the column exists and the cell is not blank */
    double step_trainer_ms;        /* NaN when absent */
    int64_t devices, gbs, seq_len; /* 0 when absent */
    double peak_mib;               /* NaN when absent */
} nd_classified_row;

typedef struct nd_classified {
    char path[512];
    nd_classified_row *rows;
    size_t count;
    unsigned dims;     /* ND_DIM_BIT of each dimension column in the header */
    int dim_order[16]; /* header order of dimension columns (index into names) */
    int dim_count;
    bool column[ND_MEAS_COUNT]; /* measured columns in the header */
    bool has_recompute, has_step_trainer, has_peak, has_devices, has_gbs, has_seq_len;
} nd_classified;

/* Reads path. Rows keep file order. Errors (ND_EINPUT): unknown or duplicate columns (the
 * message lists the accepted names), no `time` column, a row with a different number of
 * cells, a cell that is not a number or not allowed blank, a negative time, a recompute
 * mode that is not off/selective/full, a file without rows; each names line and column.
 * The caller frees out with nd_classified_free; on failure out is left empty (freed) and a
 * second nd_classified_free is harmless. */
int nd_classified_load(const char *path, nd_classified *out, nd_error *err);

void nd_classified_free(nd_classified *c);

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
