/* fuzz_ratios.c — libFuzzer target: nd_ratios_load (the ratios file nd-fit writes). */
#include <stdint.h>

#include "fuzz_util.h"
#include "nd/inputs/ratios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_ratios_file f;
    nd_error err = {0};
    int rc = nd_ratios_load(fuzz_write("ratios.json", data, size), &f, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "ratios.json");
        return 0;
    }
    char buf[1024];
    nd_ratios_mismatch(&f, "H100", "llama3-8b", 8192, buf, sizeof buf);
    return 0;
}
