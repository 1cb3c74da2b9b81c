/* classify_shapes.h — the sizes and FLOPs of a GEMM or attention op from the input
 * shapes torch records (record_shapes: "Input Dims"), and the table of distinct shapes
 * of a trace (internal). */
#ifndef ND_CLASSIFY_SHAPES_H
#define ND_CLASSIFY_SHAPES_H

#include "classify_internal.h"

#define SHAPE_INPUTS    4 /* inputs whose dims are kept */
#define SHAPE_DIMS      6 /* dims kept per input */
#define SHAPE_TABLE_MAX 4096

typedef struct shape_key {
    uint8_t op;    /* op_kind */
    uint8_t dtype; /* index into nd_classify_dtype_name */
    int64_t batch, m, n, k, heads, seq_q, seq_kv, head_dim;
} shape_key;

typedef struct shape_table {
    shape_key *items;
    size_t n, cap;
    uint32_t *slots; /* open addressing: index + 1 */
    size_t n_slots;
} shape_table;

/* The dims of an op's first inputs, as recorded. */
typedef struct op_dims {
    int n;                /* inputs seen (at most SHAPE_INPUTS kept) */
    int nd[SHAPE_INPUTS]; /* dims of each; -1 when not a plain tensor */
    int64_t dim[SHAPE_INPUTS][SHAPE_DIMS];
    uint8_t dtype; /* the first input's type */
} op_dims;

/* "float" -> fp32, "c10::BFloat16" -> bf16, ...; 0 for anything else. */
uint8_t nd_classify_dtype_of(const char *s, size_t n);
const char *nd_classify_dtype_name(uint8_t dtype); /* "" for 0 */

/* The shape and FLOPs of op kind k from its input dims: false when the dims do not fit
 * the op (a vector, a missing input, sizes that disagree) or the sizes are absurd. */
bool nd_classify_shape_of(op_kind k, const op_dims *d, shape_key *out, double *flops);

/* FLOPs of a shape (the counts above nd_classify_shape_of's definition). */
double nd_classify_shape_flops(const shape_key *k);

/* An Ascend kernel_details.csv row's cells: its Type, Input Shapes, Output Shapes and Input
 * Data Types. */
typedef struct nd_classify_npu_row {
    const char *type, *inputs, *outputs, *dtypes;
    size_t type_len, inputs_len, outputs_len, dtypes_len;
} nd_classify_npu_row;

/* The shape and FLOPs of an Ascend GEMM or attention kernel from its own row: false for any
 * other kernel, or sizes that do not fit the op (a transpose nd cannot place, an element
 * count that disagrees, a layout that is not SBH, BSH, BNSD or BSND). */
bool nd_classify_npu_shape_of(const nd_classify_npu_row *row, shape_key *out, double *flops);
/* Whether an Ascend task of this Type is a GEMM or attention whose sizes nd reads. */
bool nd_classify_npu_has_shape(const char *type, size_t n);

/* The index of key in t, added if new; -1 when the table is full or out of memory. */
int nd_classify_shape_intern(shape_table *t, const shape_key *key);
void nd_classify_shape_table_free(shape_table *t);

/* "aten::mm bf16 M=8192 N=4096 K=4096"; the op's name alone in op_out. */
void nd_classify_shape_label(const shape_key *k, char *buf, size_t size);
const char *nd_classify_op_kind_name(op_kind k);
/* The kernel class of an op kind's kernels (GEMM, grouped GEMM, attention). */
nd_classify_kernel_class nd_classify_op_kind_class(op_kind k);

#endif
