/* Tests of formats.c: the one table of each file format's names. Expected values are
 * ND's spellings (docs/reference/nd-calibration.md §2) and the labels nd prints, written out
 * by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "nd/base/formats.h"
#include "nd/base/array.h"

static void dimensions_by_name(void **state)
{
    (void)state;
    assert_int_equal(nd_dim_from_name("MP"), ND_DIM_MP);
    assert_int_equal(nd_dim_from_name("tp"), ND_DIM_MP); /* ND's synonym, any case */
    assert_int_equal(nd_dim_from_name("vpp"), ND_DIM_VPP);
    assert_int_equal(nd_dim_from_name("ZERO"), ND_DIM_ZERO);
    assert_int_equal(nd_dim_from_name("XP"), -1);
    assert_string_equal(nd_dim_spelling(ND_DIM_MP, "tp"), "TP");
    assert_string_equal(nd_dim_spelling(ND_DIM_MP, "mp"), "MP");
    char buf[64];
    nd_dim_names(ND_DIM_BIT(ND_DIMS_SEARCHED) - 1, buf, sizeof buf);
    assert_string_equal(buf, "DP EP MP CP PP VPP MB MBS SP OP");
}

static void strategy_labels(void **state)
{
    (void)state;
    char buf[80];
    /* DP always; the others when not 1; SP last; -1: a column the CSV does not have */
    int64_t all[ND_DIMS_SEARCHED] = {8, 1, 4, 1, 2, 1, 16, 1, 1, 8};
    nd_dim_label(all, buf, sizeof buf);
    assert_string_equal(buf, "DP 8 MP 4 PP 2 MB 16 OP 8 SP");
    int64_t some[ND_DIMS_SEARCHED] = {-1, -1, 2, -1, -1, -1, -1, -1, 0, -1};
    nd_dim_label(some, buf, sizeof buf);
    assert_string_equal(buf, "MP 2");
}

/* Every part is in exactly one fold besides the total, which holds them all. */
static void folds_partition_the_parts(void **state)
{
    (void)state;
    unsigned seen = 0;
    for (int f = 0; f < ND_FOLD_TOTAL; f++) {
        assert_int_equal(seen & nd_fold_parts((nd_fold)f), 0);
        seen |= nd_fold_parts((nd_fold)f);
    }
    assert_int_equal(seen, (1u << ND_PARTS) - 1);
    assert_int_equal(nd_fold_parts(ND_FOLD_TOTAL), seen);
    assert_string_equal(nd_fold_name(ND_FOLD_DP), "dp_wait");
}

/* The kernels CSV: its columns in the documented order (docs/classify.md), each name
 * once. */
static void kernels_columns(void **state)
{
    (void)state;
    assert_string_equal(nd_kernels_csv.column[ND_KCOL_SECTION], "section");
    assert_string_equal(nd_kernels_csv.column[ND_KCOL_BUSBW_GBPS], "busbw_gbps");
    assert_string_equal(nd_kernels_csv.column[ND_KCOL_TFLOPS], "tflops");
    for (int i = 0; i < ND_KERNELS_COLUMNS; i++)
        for (int j = 0; j < i; j++)
            assert_true(strcmp(nd_kernels_csv.column[i], nd_kernels_csv.column[j]) != 0);
}

/* The message refusing an unknown round column lists every name the table has. */
static void classified_message_lists_every_column(void **state)
{
    (void)state;
    const nd_classified_format *c = &nd_classified_csv;
    const char *acc = c->accepted;
    for (int d = 0; d < ND_DIMS; d++) assert_non_null(strstr(acc, nd_dim_name((nd_dim)d)));
    for (int m = 0; m < ND_MEAS_COUNT; m++) assert_non_null(strstr(acc, c->measured[m]));
    const char *others[] = {c->time, c->recompute, c->step_trainer, c->devices,
                            c->gbs,  c->seq_len,   c->peak_mib};
    for (size_t i = 0; i < ND_ARRAY_LEN(others); i++) assert_non_null(strstr(acc, others[i]));
}

static void ratio_keys_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < ND_RATIO_KEYS; k++)
        assert_int_equal(nd_ratio_key_from_name(nd_ratio_key_name((nd_ratio_key)k)), k);
    assert_int_equal(nd_ratio_key_from_name("compute"), -1); /* case-sensitive, as ND's */
    assert_string_equal(nd_part_name(ND_PART_BUBBLE), "BUBBLE");
    assert_string_equal(nd_part_short(ND_PART_DP_REDUCE), "AR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dimensions_by_name),
        cmocka_unit_test(strategy_labels),
        cmocka_unit_test(folds_partition_the_parts),
        cmocka_unit_test(kernels_columns),
        cmocka_unit_test(classified_message_lists_every_column),
        cmocka_unit_test(ratio_keys_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
