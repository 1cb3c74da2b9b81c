/* fuzz_ascend_steps.c — libFuzzer target: an Ascend step_trace_time.csv, read through
 * its directory (nd_classify_run_add) with no communication.json beside it. */
#include <stdint.h>

#include "fuzz_classify_common.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write("step_trace_time.csv", data, size);
    fuzz_classify_path(fuzz_dir(), "step_trace_time.csv");
    return 0;
}
