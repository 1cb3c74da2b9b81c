/*
 * fuzz_framework_common.h — what the framework-config fuzz targets share: a config read
 * (nd_config_load -f FORMAT), then written back with the strategy it states
 * (nd_config_write, which reads its output back with the same reader and compares).
 */
#ifndef ND_FUZZ_FRAMEWORK_COMMON_H
#define ND_FUZZ_FRAMEWORK_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The input, written as `file_name`, read as `format`. A config nd reads must be one it
 * writes back meaning the same: a refusal of the write-back as not reading back
 * (ND_ERUNTIME) is a bug and aborts; a write-back the file's syntax cannot take (ND_EINPUT
 * naming the file, a key under an array of tables, a flow mapping) is allowed. */
int fuzz_framework_round_trip(const uint8_t *data, size_t size, const char *format, const char *file_name);

/* The same for a config read with its companion file (`in`, already written); a refusal must
 * name `fuzzed_name`, the file that holds the input. */
struct nd_config_input;
int fuzz_framework_check(const struct nd_config_input *in, const char *fuzzed_name);

#endif
