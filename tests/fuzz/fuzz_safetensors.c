/* fuzz_safetensors.c — libFuzzer target: nd_checkpoint_header_parse (a .safetensors file's
 * beginning, as -V reads it), then the census of a small Qwen3-MoE model against the
 * tensors it held: every tensor name through the roles, the checkpoint's model priced. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/inputs/census.h"
#include "nd/inputs/checkpoint.h"
#include "nd/costmodel/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config[] =
    "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 3, "
    "\"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, \"moe_intermediate_size\": "
    "32,"
    " \"num_experts\": 4, \"num_experts_per_tok\": 2, \"vocab_size\": 256, \"tie_word_embeddings\": false}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static nd_run run;
    static nd_device_table table;
    static const nd_device *device;
    if (!device) {
        nd_error e = {0};
        nd_run_init(&run, "config.json");
        if (nd_model_parse_hf_json(&run.model, config, sizeof config - 1, "config.json", &e) ||
            nd_model_validate(&run.model, "config.json", &e) || nd_device_table_builtin(&table, &e) ||
            !(device = nd_device_table_find(&table, "A3")))
            abort();
    }
    nd_checkpoint_tensors t = {0};
    nd_error err = {0};
    int rc = nd_checkpoint_header_parse(&t, data, size, "model.safetensors", &err);
    if (rc) {
        nd_checkpoint_tensors_free(&t);
        fuzz_check_refusal(rc, &err, "model.safetensors");
        return 0;
    }
    nd_census *c = malloc(sizeof *c);
    if (c && !nd_census_build(&run, device, &t, c, &err)) nd_census_print(fuzz_null_stream(), &run, c);
    free(c);
    nd_checkpoint_tensors_free(&t);
    return 0;
}
