/* fuzz_hf_config.c — libFuzzer target: nd_model_parse_hf_json (a Hugging Face config.json
 * in memory, as the run loader hands it over). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/costmodel/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1); /* the parser's contract: text[len] is a NUL */
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    nd_model m;
    memset(&m, 0, sizeof m);
    nd_error err = {0};
    int rc = nd_model_parse_hf_json(&m, text, size, "config.json", &err);
    free(text);
    if (rc) {
        fuzz_check_refusal(rc, &err, "config.json");
        return 0;
    }
    nd_param_count pc;
    nd_model_count_params(&m, &pc);
    return 0;
}
