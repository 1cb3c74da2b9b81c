/* fuzz_search_config.c — libFuzzer target: nd_search_config_load (nd-search -s). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/inputs/run.h"
#include "nd/planner/search.h"
#include "nd/inputs/search_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_search_config_file *f = malloc(sizeof *f); /* large: the candidate lists */
    if (!f) return 0;
    nd_error err = {0};
    int rc = nd_search_config_load(fuzz_write("search.yaml", data, size), f, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "search.yaml");
    } else {
        nd_train train;
        nd_search_space space;
        nd_strategy base;
        nd_train_init(&train);
        nd_search_space_init(&space, &train);
        nd_strategy_init(&base);
        nd_search_config_apply(f, &space, &base);
    }
    free(f);
    return 0;
}
