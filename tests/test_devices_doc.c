/* docs/devices.md's table of built-in devices says what the code holds: every cell of the
 * table equals the field of the built-in device in its column, and every numeric device
 * field has a row. The expected values are the code's own; what this test guards is that a
 * reader of the documentation sees the constants nd really uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "nd/costmodel/device.h"
#include "nd/base/array.h"

#define MAX_COLUMNS 32
#define MAX_CELL    64

/* Splits "| a | b | c |" into trimmed cells; returns how many. */
static int split_row(char *line, char cells[][MAX_CELL], int max)
{
    int n = 0;
    char *p = strchr(line, '|');
    while (p && n < max) {
        char *end = strchr(p + 1, '|');
        if (!end) break;
        char *a = p + 1, *b = end;
        while (a < b && *a == ' ') a++;
        while (b > a && b[-1] == ' ') b--;
        snprintf(cells[n++], MAX_CELL, "%.*s", (int)(b - a), a);
        p = end;
    }
    return n;
}

static void doc_table_matches_builtin(void **state)
{
    (void)state;
    nd_device_table table;
    nd_error err = {0};
    assert_int_equal(nd_device_table_builtin(&table, &err), ND_OK);
    char path[4096];
    const char *root = getenv("ND_SOURCE_DIR"); /* set by CTest */
    assert_non_null(root);
    snprintf(path, sizeof path, "%s/docs/devices.md", root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[2048], cells[MAX_COLUMNS][MAX_CELL], names[MAX_COLUMNS][MAX_CELL];
    int columns = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        int n = split_row(line, cells, MAX_COLUMNS);
        if (n < 2) {
            if (columns && rows) break; /* the table has ended */
            continue;
        }
        /* the table of values: a column per built-in device (other tables also start "field") */
        if (!strcmp(cells[0], "field") && !columns && n == table.count + 1) {
            columns = n;
            memcpy(names, cells, sizeof names);
            continue;
        }
        if (!columns || cells[0][0] == '-') continue;
        assert_int_equal(n, columns);
        for (int c = 1; c < n; c++) {
            const nd_device *d = nd_device_table_find(&table, names[c]);
            if (!d) fail_msg("docs/devices.md: column '%s' is not a built-in device", names[c]);
            double code, doc = strtod(cells[c], NULL);
            if (nd_device_field(d, cells[0], &code))
                fail_msg("docs/devices.md: row '%s' is not a device field", cells[0]);
            if (fabs(code - doc) > 1e-9 * fmax(1, fabs(code)))
                fail_msg("docs/devices.md: %s of %s reads %s, the code holds %g", cells[0], names[c],
                         cells[c], code);
        }
        rows++;
    }
    fclose(f);
    /* every numeric field of nd_device is documented: the file format's keys less description */
    double ignored;
    static const char *const every_field[] = {"peak_tflops",
                                              "fp8_tflops",
                                              "tf32_tflops",
                                              "fp32_tflops",
                                              "gemm_efficiency",
                                              "gemm_half_dim",
                                              "gemm_fixed_us",
                                              "fp8_gemm_efficiency",
                                              "fp8_gemm_half_dim",
                                              "fp8_weight_copies",
                                              "gemm_training_share",
                                              "grouped_gemm_efficiency",
                                              "grouped_wgrad_efficiency",
                                              "attention_fwd_efficiency",
                                              "attention_bwd_efficiency",
                                              "attention_half_seq",
                                              "attention_training_share",
                                              "fa2_fwd_efficiency",
                                              "fa2_bwd_efficiency",
                                              "cudnn_fwd_efficiency",
                                              "cudnn_bwd_efficiency",
                                              "kernel_launch_us",
                                              "host_dispatch_us",
                                              "host_sync_us",
                                              "microbatch_host_ms",
                                              "step_host_ms",
                                              "hbm_gib",
                                              "hbm_gbps",
                                              "hbm_efficiency",
                                              "norm_hbm_efficiency",
                                              "activation_hbm_efficiency",
                                              "runtime_reserve_mib",
                                              "comm_buffer_mib",
                                              "devices_per_node",
                                              "devices_per_server",
                                              "intra_gbps",
                                              "intra_efficiency",
                                              "intra_latency_us",
                                              "intra_base_us",
                                              "intra_link_gbps",
                                              "inter_gbps",
                                              "inter_efficiency",
                                              "inter_latency_us",
                                              "inter_base_us",
                                              "host_gbps"};
    int n_fields = (int)(ND_ARRAY_LEN(every_field));
    for (int i = 0; i < n_fields; i++)
        assert_int_equal(nd_device_field(&table.items[0], every_field[i], &ignored), 0);
    assert_int_equal(rows, n_fields);
    assert_int_equal(nd_device_field(&table.items[0], "description", &ignored), -1);
    nd_device_table_free(&table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(doc_table_matches_builtin)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
