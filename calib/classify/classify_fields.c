/* The fields of a Chrome trace event read from their raw text (yajl hands numbers over
 * as text, so 64-bit ids and microsecond timestamps are read exactly). */
#include "classify_fields.h"

#include <stdio.h>
#include <string.h>
#include "nd/base/text.h"

/* Times are at most 4e15 µs in magnitude (a Unix time in the year 2096), so a start
 * plus a duration never overflows the int64 nanoseconds they are kept in. */
#define MAX_TIME_US 4000000000000000LL

/* Microseconds as text ("12.5", "1704161511420306.491", "1e3") to integer ns. 0, -1 when
 * not a number, -2 when beyond MAX_TIME_US. */
int nd_classify_us_to_ns(const char *s, size_t n, nd_ns *out)
{
    size_t i = 0;
    bool neg = n && s[0] == '-';
    if (neg || (n && s[0] == '+')) i++;
    int64_t v = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (v > (INT64_MAX - 9) / 10 / 1000) return -1;
        v = v * 10 + (s[i] - '0');
    }
    /* The first three decimals are the nanoseconds; the rest is below them. A table, not
     * a division per digit: every event has two times. */
    static const int64_t scale[3] = {100, 10, 1};
    int64_t frac = 0;
    size_t k = 0;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, k++)
            if (k < 3) frac += (s[i] - '0') * scale[k];
    if (i < n && (s[i] == 'e' || s[i] == 'E')) { /* rare: let strtod do it */
        char buf[64];
        double d;
        if (n >= sizeof buf) return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        if (nd_parse_double(buf, &d) != 0) return -1;
        if (d > (double)MAX_TIME_US || d < -(double)MAX_TIME_US) return -2;
        *out = (nd_ns)(d * 1000.0 + (d < 0 ? -0.5 : 0.5));
        return 0;
    }
    if (i != n || digits == 0) return -1;
    if (v > MAX_TIME_US || (v == MAX_TIME_US && frac)) return -2;
    *out = (neg ? -1 : 1) * (v * 1000 + frac);
    return 0;
}

int64_t nd_classify_text_int(const char *s, size_t n)
{
    /* The common case, plain digits, without strtod (a shape is read a number at a time). */
    size_t i = n && s[0] == '-';
    if (n > i && n - i <= 15) {
        int64_t v = 0;
        size_t k = i;
        while (k < n && s[k] >= '0' && s[k] <= '9') v = v * 10 + (s[k++] - '0');
        if (k == n) return i ? -v : v;
    }
    char buf[32];
    if (n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    int64_t v;
    return nd_parse_int64(buf, INT64_MIN / 2, INT64_MAX / 2, &v) == 0 ? v : 0;
}

/* An id (External id, correlation): 0 when not a plain non-negative integer. */
uint64_t nd_classify_text_u64(const char *s, size_t n)
{
    uint64_t v = 0;
    if (n == 0 || n > 19) return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v;
}

/* The element size a collective's "dtype" names ("Float", "BFloat16", ...); 0 unknown. */
int nd_classify_coll_dtype_bytes(const unsigned char *s, size_t n)
{
#define NAME(lit) lit, sizeof(lit) - 1 /* the length beside the name: no strlen per event */
    static const struct {
        const char *name;
        size_t len;
        int bytes;
    } sizes[] = {{NAME("Float"), 4}, {NAME("BFloat16"), 2},      {NAME("Half"), 2},       {NAME("Double"), 8},
                 {NAME("Long"), 8},  {NAME("Int"), 4},           {NAME("Byte"), 1},       {NAME("Char"), 1},
                 {NAME("Bool"), 1},  {NAME("Float8_e4m3fn"), 1}, {NAME("Float8_e5m2"), 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].len == n && !memcmp(sizes[i].name, s, n)) return sizes[i].bytes;
    return 0;
}

/* ND's dtype sizes (docs/reference/nd-calibration.md §3.2 step 8); anything else counts 4 bytes. */
int nd_classify_dtype_bytes(const unsigned char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t len;
        int bytes;
    } sizes[] = {{NAME("float"), 4},      {NAME("double"), 8},   {NAME("c10::BFloat16"), 2},
                 {NAME("c10::Half"), 2},  {NAME("long int"), 8}, {NAME("int"), 4},
                 {NAME("short int"), 2},  {NAME("bool"), 1},     {NAME("unsigned char"), 1},
                 {NAME("signed char"), 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].len == n && !memcmp(sizes[i].name, s, n)) return sizes[i].bytes;
#undef NAME
    return 4;
}

uint8_t nd_classify_event_cat(const unsigned char *s, size_t n)
{
#define IS(lit)     (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
#define STARTS(lit) (n >= sizeof(lit) - 1 && memcmp(s, lit, sizeof(lit) - 1) == 0)
    if (IS("cpu_op")) return CAT_CPU_OP;
    if (IS("python_function")) return CAT_PYTHON;
    if (IS("user_annotation")) return CAT_ANNOTATION;
    if (IS("kernel") || IS("Kernel")) return CAT_KERNEL;
    if (IS("gpu_memcpy") || IS("gpu_memset") || IS("Memcpy") || IS("Memset")) return CAT_MEMORY;
    /* runtime calls, with the correlation of what they launch: CUDA's, MTIA's, XPU's, and
     * the out-of-tree devices' (PrivateUse1) */
    if (IS("cuda_runtime") || IS("cuda_driver") || IS("Runtime") || IS("Driver") || IS("mtia_runtime") ||
        IS("xpu_runtime") || IS("xpu_driver") || IS("privateuse1_runtime") || IS("privateuse1_driver"))
        return CAT_RUNTIME;
    if (STARTS("gpu_") || STARTS("cuda") || IS("ac2g") || IS("fwdbwd") || STARTS("async") || IS("enqueue") ||
        IS("dequeue") || IS("HostToDevice") || IS("Trace") || IS("overhead"))
        return CAT_SKIP;
    return CAT_OTHER;
#undef IS
#undef STARTS
}
