/* classify_fields.h — reading the fields of a Chrome trace event from their raw text
 * (internal): times to integer nanoseconds, ids, element sizes, categories. */
#ifndef ND_CLASSIFY_FIELDS_H
#define ND_CLASSIFY_FIELDS_H

#include "classify_internal.h"

/* Microseconds as text ("12.5", "1704161511420306.491", "1e3") to integer ns. 0; -1 when
 * not a number; -2 when beyond 4e15 us (a Unix time in 2096). */
int nd_classify_us_to_ns(const char *s, size_t n, nd_ns *out);
/* A whole number in [INT64_MIN / 2, INT64_MAX / 2] as text; 0 when not one. */
int64_t nd_classify_text_int(const char *s, size_t n);
/* An id (External id, correlation): 0 when not a plain non-negative integer. */
uint64_t nd_classify_text_u64(const char *s, size_t n);
/* The element size a collective's "dtype" names ("Float", "BFloat16", ...); 0 unknown. */
int nd_classify_coll_dtype_bytes(const unsigned char *s, size_t n);
/* ND's dtype sizes of "Input type" (docs/reference/nd-calibration.md §3.2 step 8); 4 for anything else. */
int nd_classify_dtype_bytes(const unsigned char *s, size_t n);
/* The event_cat of a "cat" value. */
uint8_t nd_classify_event_cat(const unsigned char *s, size_t n);

#endif
