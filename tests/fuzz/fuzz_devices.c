/* fuzz_devices.c — libFuzzer target: nd_device_table_load (--device-file, cluster.device_file). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "nd/costmodel/device.h"
#include "nd/inputs/device_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_device_table table;
    nd_error err = {0};
    if (nd_device_table_builtin(&table, &err)) return 0;
    int rc = nd_device_table_load(&table, fuzz_write("devices.yaml", data, size), &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "devices.yaml");
    } else {
        char names[512];
        nd_device_table_names(&table, names, sizeof names);
        for (int i = 0; i < table.count; i++)
            if (nd_device_validate(&table.items[i], "devices.yaml", &err))
                abort(); /* a loaded device must be a valid one */
    }
    nd_device_table_free(&table);
    return 0;
}
