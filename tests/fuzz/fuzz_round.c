/* fuzz_round.c — libFuzzer target: an existing round file that nd-classify --csv appends
 * to (nd_classify_round_append, through a classified run of ND's worked trace): a well
 * formed file gets the row with the union of the columns; anything else is refused naming
 * it and left as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/classify/classify.h"
#include "nd/base/io.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static nd_classify_run *run;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nd_classify_options o;
    nd_error err = {0};
    nd_classify_options_init(&o);
    if (nd_classify_dims_parse("DP=2,TP=1,PP=1", &o.dims, &err)) abort();
    o.has_dims = true;
    run = nd_classify_run_alloc(&o);
    if (!run || nd_classify_run_add(run, ND_SOURCE_DIR "/tests/data/classify/rank2.pt.trace.json", &err) ||
        nd_classify_run_finish(run, &err))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("round.csv", data, size);
    nd_error err = {0};
    int rc = nd_classify_csv_write(run, path, size % 2 == 0, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "round.csv");
        char *text = NULL; /* refused: the file is as it was */
        size_t len = 0;
        if (nd_read_file(path, (size_t)1 << 30, &text, &len, &err) || len != size ||
            (size && memcmp(text, data, size)))
            abort();
        free(text);
    }
    return 0;
}
