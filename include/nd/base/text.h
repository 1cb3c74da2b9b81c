/*
 * text.h — strict parsing of the numbers and words users type.
 *
 * Every parser here accepts the whole string or nothing: "12abc" is not 12.
 * Surrounding spaces are allowed. Non-finite values (nan, inf) are refused,
 * because no nd quantity can be one.
 */
#ifndef ND_TEXT_H
#define ND_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nd_error;

/* A finite double. Returns 0, or -1 if s is not one. */
int nd_parse_double(const char *s, double *out);

/* A whole number in [min, max]. Returns 0, or -1 (not a whole number, or out of range).
 * "8", "+8" and "8.0" are accepted; "8.5" and exponent forms such as "1e3" are not. */
int nd_parse_int64(const char *s, int64_t min, int64_t max, int64_t *out);

/* A memory size in MiB: "58GB", "58 GiB", "60000MB", "512MiB", "1.5TB" or a bare number
 * meaning GiB (ND's convention). GB and GiB both mean 2^30 bytes, as ND and the frameworks
 * report device memory. At most ND_MEMORY_MIB_MAX (1 PiB: far above any device, and far
 * below where sums of sizes lose precision). Returns 0, or -1. */
#define ND_MEMORY_MIB_MAX 1073741824.0
int nd_parse_memory_mib(const char *s, double *mib);

/* A yes/no word: true/false, yes/no, on/off, 1/0 (any case). Returns 0, or -1. */
int nd_parse_bool(const char *s, bool *out);

/* ASCII case-insensitive equality. */
bool nd_text_equal_nocase(const char *a, const char *b);

/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t nd_text_copy(char *dst, const char *src, size_t size);

/* "Did you mean": the name among names[0..n-1] nearest to word, a user's typo of it, or NULL
 * when none is near. Case, '-' against '_' and a flag's leading dashes do not count; a name
 * is near when its edit distance (insert, delete, substitute, swap two neighbours) is at most
 * 1 for words of up to 4 letters, 2 up to 8, 3 beyond, or when word is its first 3 or more
 * letters. Ties go to the earlier name. The result points into names. */
const char *nd_text_nearest(const char *word, const char *const *names, size_t n);

/* The same over a printed list of names, "a, b, c" (commas, spaces, '|', '/' and parentheses
 * separate them), the form every "(known: ...)" message shows. Copies the nearest into out
 * (size bytes) and returns true, or returns false when none is near. */
bool nd_text_nearest_in_list(const char *word, const char *list, char *out, size_t size);

/* For a message that lists the known names, "(did you mean 'x'? known: a, b, x)": the text
 * "did you mean 'x'? " when list holds a name near word, else "". Returns buf. */
#define ND_TEXT_HINT_MAX 96
const char *nd_text_hint(const char *word, const char *list, char buf[ND_TEXT_HINT_MAX]);

/* The number of characters of s when it is a name nd may print and write back: well-formed
 * UTF-8 with no control character (C0, DEL or C1: a newline or an ESC sequence in a device
 * or model name would reach a terminal or break the YAML nd writes). -1 otherwise. */
long nd_text_name_chars(const char *s);

/* The length of s cut to at most max bytes on a UTF-8 character boundary (a character the
 * cut would split is left out whole). */
size_t nd_text_cut_utf8(const char *s, size_t max);

/* s as a message may show it, escaped as every error message is (base/error.c): a line
 * break, a tab, another control byte (C0, DEL, C1) or a byte that is not UTF-8 written
 * \n, \r, \t or \xHH, so an ESC sequence or a newline in a name read from a file never
 * reaches the terminal raw. Cut to size - 1 bytes on a whole escape; returns buf. */
const char *nd_text_shown(const char *s, char *buf, size_t size);

/* Refuses (ND_EINPUT, naming path) text nd cannot read as UTF-8: a UTF-16 or UTF-32 byte
 * order mark, or NUL bytes among the first bytes (UTF-16 without a mark, or a binary
 * file), with the iconv command that converts it. 0 when the text may be UTF-8. */
int nd_text_check_encoding(const char *text, size_t len, const char *path, struct nd_error *err);

/* Shortest decimal text that strtod reads back to exactly x ("0.1", "1e+300",
 * "nan" and "inf" for non-finite values). buf must hold ND_DOUBLE_TEXT_MAX. */
#define ND_DOUBLE_TEXT_MAX 32
const char *nd_format_double(double x, char buf[ND_DOUBLE_TEXT_MAX]);

#endif
