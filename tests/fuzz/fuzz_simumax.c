/* fuzz_simumax.c — libFuzzer target: SimuMax's pair of run files read with nd_config_load
 * -f simumax and written back with the strategy they state (fuzz_framework_common.h says
 * what aborts). The first byte picks which of the two files the rest of the input is: even,
 * the strategy JSON (-y) beside the bundled Llama 3 8B model JSON; odd, the model JSON
 * (--model-config) beside the bundled TP 2 PP 2 DP 2 strategy. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_framework_common.h"
#include "fuzz_util.h"
#include "nd/inputs/framework.h"

#define SIMUMAX_SAMPLES ND_SOURCE_DIR "/samples/frameworks/simumax/"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    nd_config_input in = {SIMUMAX_SAMPLES "tp2-pp2-dp2.strategy.json", "simumax", NULL, NULL, false,
                          SIMUMAX_SAMPLES "llama3-8b.model.json"};
    bool model = data[0] % 2;
    const char *name = model ? "model.json" : "strategy.json", *path = fuzz_write(name, data + 1, size - 1);
    if (model)
        in.model_config = path;
    else
        in.path = path;
    return fuzz_framework_check(&in, name);
}
