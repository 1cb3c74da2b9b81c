/* fuzz_csv_table.c — libFuzzer target: nd_csv_table_load (nd-plot's reading of the CSV
 * files nd's binaries wrote), then every cell through the number lookups. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/charts/csv_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_csv_table t;
    nd_error err = {0};
    int rc = nd_csv_table_load(fuzz_write("table.csv", data, size), &t, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "table.csv");
        nd_csv_table_free(&t);
        return 0;
    }
    for (size_t c = 0; c < t.n_cols; c++) {
        size_t col;
        if (nd_csv_table_column(&t, t.header[c], &col, &err) || col != c) abort(); /* names are unique */
        for (size_t r = 0; r < t.n_rows; r++) {
            double x;
            (void)nd_csv_table_cell(&t, r, c);
            if (nd_csv_table_number(&t, r, c, &x, &err) == ND_OK && isinf(x)) abort(); /* inf is refused */
            (void)nd_csv_table_number_required(&t, r, c, &x, &err);
        }
    }
    nd_csv_table_free(&t);
    return 0;
}
