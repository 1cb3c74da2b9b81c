/* fuzz_kernel_details.c — libFuzzer target: an Ascend kernel_details.csv read on its own
 * (nd_classify_run_add), its tasks' own sizes (Input Shapes, Output Shapes) included. */
#include <stdint.h>

#include "fuzz_classify_common.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_classify_path(fuzz_write("kernel_details.csv", data, size), "kernel_details.csv");
    return 0;
}
