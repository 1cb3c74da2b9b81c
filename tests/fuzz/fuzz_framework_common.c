/* fuzz_framework_common.c — the read, derive and write-back round trip of a framework
 * config (fuzz_framework_common.h). */
#include "fuzz_framework_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/costmodel/strategy.h"
#include "nd/inputs/framework.h"

int fuzz_framework_round_trip(const uint8_t *data, size_t size, const char *format, const char *file_name)
{
    nd_config_input in = {fuzz_write(file_name, data, size), format, NULL, NULL, false, NULL};
    return fuzz_framework_check(&in, file_name);
}

int fuzz_framework_check(const nd_config_input *in, const char *fuzzed_name)
{
    static nd_run run; /* large: not on the stack */
    nd_error err = {0};
    int rc = nd_config_load(&run, in, &err);
    if (rc) {
        if (rc != ND_EUSAGE) fuzz_check_refusal(rc, &err, fuzzed_name);
        return 0;
    }
    if (run.derive_dp) { /* -d: 4 data-parallel ranks */
        char devices[32];
        snprintf(devices, sizeof devices, "%lld",
                 (long long)(4 * run.strategy.tp * run.strategy.pp * run.strategy.cp));
        if (nd_run_set(&run, "devices", devices, &err)) return 0;
    }
    if (nd_config_derive(&run, &err)) return 0;
    /* the session binds a stated pipeline layout before it prices or writes (cli_session.c) */
    if ((rc = nd_run_bind_layout(&run, &err))) {
        fuzz_check_refusal(rc, &err, fuzzed_name);
        return 0;
    }
    /* as the session checks it before pricing (schedule from VPP and the like): a strategy nd
     * cannot price is never written back */
    if (nd_strategy_check(&run.strategy, &run.model, run.devices, run.train.global_batch, run.train.seq_len,
                          &err))
        return 0;
    nd_config_choice c = {run.strategy, run.train.global_batch, NULL, 0};
    char dir[1024], written[2048];
    snprintf(dir, sizeof dir, "%s/out", fuzz_dir());
    rc = nd_config_write(&run, &c, dir, written, sizeof written, &err);
    if (rc == ND_ERUNTIME) {
        fprintf(stderr, "fuzz: the written-back config does not read back as the one read: %s\n",
                err.message);
        abort();
    }
    return 0;
}
