/* fuzz_chrome.c — libFuzzer target: a Chrome trace (torch.profiler, torch_npu
 * trace_view.json) streamed by nd_classify_run_add. The file name carries a rank, as
 * torch's do. Gzip is zlib's to fuzz: seeds are plain JSON. */
#include <stdint.h>

#include "fuzz_classify_common.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_classify_path(fuzz_write("rank3.pt.trace.json", data, size), "rank3.pt.trace.json");
    return 0;
}
