/* fuzz_torchtitan.c — libFuzzer target: torchtitan's job toml read (nd_config_load -f
 * torchtitan), then written back with the strategy it states (nd_config_write, which reads
 * resolved.toml back with the same reader and compares): a config nd reads must be one it
 * writes back meaning the same, so a refusal of the write-back (ND_ERUNTIME) is a bug and aborts.
 * A write-back the TOML cannot take (ND_EINPUT, a key under an array of tables) is allowed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "nd/base/io.h"
#include "nd/inputs/framework.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static nd_run run; /* large: not on the stack */
    nd_error err = {0};
    nd_config_input in = {fuzz_write("job.toml", data, size), "torchtitan", NULL, NULL, false};
    int rc = nd_config_load(&run, &in, &err);
    if (rc) {
        if (rc != ND_EUSAGE) fuzz_check_refusal(rc, &err, "job.toml");
        return 0;
    }
    if (run.derive_dp) { /* -d: 4 data-parallel ranks */
        char devices[32];
        snprintf(devices, sizeof devices, "%lld",
                 (long long)(4 * run.strategy.tp * run.strategy.pp * run.strategy.cp));
        if (nd_run_set(&run, "devices", devices, &err)) return 0;
    }
    if (nd_config_derive(&run, &err)) return 0;
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
