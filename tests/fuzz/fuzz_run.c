/* fuzz_run.c — libFuzzer target: nd_run_load (a run YAML, or a bare config.json: the
 * loader decides by the first character). The models of samples/models/ sit beside
 * the input so `config_json: llama3-8b.json` resolves (tests/fuzz/seeds.sh rewrites
 * the samples' ../models/ paths). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/base/io.h"
#include "nd/inputs/run.h"
#include "nd/base/array.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *models[] = {"llama3-8b.json", "deepseek-v3.json", "gpt3-175b.json",
                                   "mixtral-8x7b.json", "qwen3-30b-a3b.json"};
    for (size_t i = 0; i < ND_ARRAY_LEN(models); i++) {
        char src[1024], *text;
        size_t len;
        nd_error err = {0};
        snprintf(src, sizeof src, "%s/samples/models/%s", ND_SOURCE_DIR, models[i]);
        if (nd_read_file(src, 1 << 20, &text, &len, &err) == ND_OK) {
            fuzz_write(models[i], (const uint8_t *)text, len);
            free(text);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_run run;
    nd_error err = {0};
    int rc = nd_run_load(&run, fuzz_write("run.yaml", data, size), &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "run.yaml");
        return 0;
    }
    nd_param_count pc; /* what every pricing command does first */
    nd_model_count_params(&run.model, &pc);
    return 0;
}
