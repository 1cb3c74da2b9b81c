/* fuzz_kernel_tables.c — libFuzzer target: a measured kernel table (a GEMM sweep or collectives
 * CSV, nccl-tests' output, nd-classify's --kernels CSV) attached to a device with
 * `kernel_tables:`; a device that loads prices every collective finite and non-negative. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/costmodel/collective.h"
#include "nd/costmodel/device.h"
#include "nd/inputs/device_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_device_table table;
    nd_error err = {0};
    if (nd_device_table_builtin(&table, &err)) return 0;
    fuzz_write("table.csv", data, size);
    const char *yaml =
        fuzz_write_text("devices.yaml", "devices:\n  FUZZ:\n    base: H100\n    kernel_tables: table.csv\n");
    int rc = nd_device_table_load(&table, yaml, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "table.csv");
    } else {
        const nd_device *d = nd_device_table_find(&table, "FUZZ");
        if (!d) abort();
        for (int c = ND_COLL_ALL_REDUCE; c <= ND_COLL_P2P; c++)
            for (int64_t n = 2; n <= 64; n *= 2) {
                double ms = nd_collective_ms(d, (nd_collective)c, (nd_group){n, 1}, 1048576);
                if (!isfinite(ms) || ms < 0) abort(); /* a table must price every call */
            }
    }
    nd_device_table_free(&table);
    return 0;
}
