/* fuzz_log.c — libFuzzer target: a trainer log (nd-classify --log: Megatron, torchtitan,
 * NeMo, MindFormers) read by nd_classify_log_read with a fixed torchtitan toml beside it,
 * then written as a round row and reported, as nd-classify does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "nd/classify/classify.h"
#include "nd/base/io.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char config[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *p = fuzz_write_text("job.toml", "[training]\nlocal_batch_size = 2\nseq_len = 8192\n"
                                                "[activation_checkpoint]\nmode = \"full\"\n");
    snprintf(config, sizeof config, "%s", p);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("train.log", data, size);
    nd_classify_log_options o = {.config = config, .skip_steps = -1};
    nd_classify_log log;
    nd_error err = {0};
    int rc = nd_classify_log_read(path, &o, &log, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "train.log");
        return 0;
    }
    nd_classify_logs_report_print(&log, 1, fuzz_null_stream());
    char *round = nd_path_join(fuzz_dir(), "round.csv");
    if (round) {
        unlink(round);
        rc = nd_classify_logs_csv_write(&log, 1, round, &err);
        if (rc && rc != ND_EUSAGE) fuzz_check_refusal(rc, &err, NULL);
        unlink(round);
    }
    free(round);
    nd_classify_log_free(&log);
    return 0;
}
