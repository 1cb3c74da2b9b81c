/* fuzz_megatron.c — libFuzzer target: Megatron-LM \/ MindSpeed-LLM arguments (a launch script) read with
 * nd_config_load -f megatron and written back with the strategy it states
 * (fuzz_framework_common.h says what aborts). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_framework_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_framework_round_trip(data, size, "megatron", "train.sh");
}
