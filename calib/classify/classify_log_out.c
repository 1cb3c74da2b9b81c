/* Trainer logs written out: one round row per log, and the report of what was read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify_internal.h"
#include "classify_output.h"
#include "classify_round.h"
#include "nd/base/formats.h"

static int row_of(const nd_classify_log *l, round_row *r, nd_error *err)
{
    memset(r, 0, sizeof *r);
    if (!l->has_dims)
        return nd_error_set(err, ND_EUSAGE,
                            "%s: the log states no degrees (no printed arguments, device mesh or "
                            "config): give them with --dims",
                            l->path);
    char text[ND_CLASSIFY_MS_TEXT];
    int rc = ND_OK;
    for (int i = 0; i < l->dims.count && !rc; i++) {
        snprintf(text, sizeof text, "%lld", (long long)l->dims.value[i]);
        rc = nd_classify_round_row_add(r, nd_dim_name(l->dims.dim[i]), text, err);
    }
    /* SP when the log says, 0 too, so the row does not rest on a default; ND itself reads
     * any non-empty SP cell as true, so these rows are for nd */
    if (!rc && l->sp >= 0) rc = nd_classify_round_row_add(r, nd_dim_name(ND_DIM_SP), l->sp ? "1" : "0", err);
    if (!rc && l->zero) {
        snprintf(text, sizeof text, "%lld", (long long)l->zero);
        rc = nd_classify_round_row_add(r, nd_dim_name(ND_DIM_ZERO), text, err);
    }
    if (!rc && l->recompute)
        rc = nd_classify_round_row_add(r, nd_classified_csv.recompute, l->recompute, err);
    nd_classify_format_ms(l->time_ms, text);
    if (!rc) rc = nd_classify_round_row_add(r, nd_classified_csv.time, text, err);
    if (!rc && l->peak_mib > 0) {
        snprintf(text, sizeof text, "%.1f", l->peak_mib);
        rc = nd_classify_round_row_add(r, nd_classified_csv.peak_mib, text, err);
    }
    if (!rc && l->gbs) {
        snprintf(text, sizeof text, "%lld", (long long)l->gbs);
        rc = nd_classify_round_row_add(r, nd_classified_csv.gbs, text, err);
    }
    if (!rc && l->seq_len) {
        snprintf(text, sizeof text, "%lld", (long long)l->seq_len);
        rc = nd_classify_round_row_add(r, nd_classified_csv.seq_len, text, err);
    }
    return rc;
}

int nd_classify_logs_csv_write(const nd_classify_log *logs, size_t n, const char *path, nd_error *err)
{
    round_row *rows = calloc(n, sizeof *rows);
    if (!rows) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc = ND_OK;
    size_t kept = 0;
    const nd_classify_log *skipped = NULL;
    /* A log whose row the round could not hold is noted and left out (classify_log.c). */
    for (size_t i = 0; i < n && !rc; i++)
        if (logs[i].skip_row)
            skipped = skipped ? skipped : &logs[i];
        else
            rc = row_of(&logs[i], &rows[kept++], err);
    if (!rc && !kept && skipped)
        rc = nd_error_set(err, ND_EINPUT, "%s: %s (the round file is unchanged)", skipped->path,
                          skipped->notes[skipped->n_notes - 1]);
    if (!rc) rc = nd_classify_round_append(path, rows, kept, err);
    free(rows);
    return rc;
}

void nd_classify_logs_report_print(const nd_classify_log *logs, size_t n, FILE *f)
{
    for (size_t i = 0; i < n; i++) {
        const nd_classify_log *l = &logs[i];
        char dims[160], ms[ND_CLASSIFY_MS_TEXT], lo[ND_CLASSIFY_MS_TEXT], hi[ND_CLASSIFY_MS_TEXT];
        nd_classify_dims_text(&l->dims, dims, sizeof dims);
        nd_classify_format_ms(l->time_ms, ms);
        nd_classify_format_ms(l->min_ms, lo);
        nd_classify_format_ms(l->max_ms, hi);
        fprintf(f,
                "%s: %s log, %zu step line%s, %zu dropped as warm-up, median of the %zu steady: "
                "time %s ms per step (min %s, max %s)\n",
                l->path, l->format, l->n_steps, l->n_steps == 1 ? "" : "s", l->n_warmup, l->n_steady, ms, lo,
                hi);
        if (l->peak_mib > 0)
            fprintf(f,
                    l->peak_mib < 1e15 ? "  peak_mib %.1f (%s, the largest the log prints)\n"
                                       : "  peak_mib %g (%s, the largest the log prints)\n",
                    l->peak_mib, l->peak_kind);
        else
            fprintf(f, "  peak_mib: the log prints no peak memory\n");
        fprintf(f, "  degrees %s%s%s%s%s\n", l->has_dims ? dims : "none stated", l->sp == 1 ? " SP" : "",
                l->dims_source[0] ? " (from " : "", l->dims_source, l->dims_source[0] ? ")" : "");
        if (l->gbs || l->seq_len || l->recompute)
            fprintf(f, "  gbs %lld, seq_len %lld, recompute %s\n", (long long)l->gbs, (long long)l->seq_len,
                    l->recompute ? l->recompute : "?");
        for (int k = 0; k < l->n_notes; k++) fprintf(f, "  ! %s\n", l->notes[k]);
    }
}
