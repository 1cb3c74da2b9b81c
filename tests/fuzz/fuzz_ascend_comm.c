/* fuzz_ascend_comm.c — libFuzzer target: an Ascend communication.json (per-rank or
 * msprof-analyze's cluster layout: the reader tells them apart by the first key), beside
 * a fixed step_trace_time.csv of two ranks and two steps. */
#include <stdint.h>

#include "fuzz_classify_common.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_write_text("step_trace_time.csv",
                    "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,"
                    "Communication,Free,Stage,Bubble\n"
                    "0,1,200000.0,80000.0,20000.0,100000.0,720000.0,1000000.0,0\n"
                    "1,1,210000.0,70000.0,20000.0,90000.0,720000.0,1000000.0,5000\n"
                    "0,2,200000.0,80000.0,20000.0,100000.0,720000.0,1000000.0,0\n"
                    "1,2,210000.0,70000.0,20000.0,90000.0,720000.0,1000000.0,5000\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write("communication.json", data, size);
    fuzz_classify_path(fuzz_dir(), "communication.json");
    return 0;
}
