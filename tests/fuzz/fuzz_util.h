/*
 * fuzz_util.h — what nd's libFuzzer targets share.
 *
 * nd's readers take file paths (they name the file in every message), so a target
 * writes each input to a file in a scratch directory of its own, created once per
 * process under /dev/shm (or $TMPDIR, or /tmp) and removed at exit.
 */
#ifndef ND_FUZZ_UTIL_H
#define ND_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The scratch directory (created on first use; the process aborts if it cannot be). */
const char *fuzz_dir(void);

/* Writes size bytes to <fuzz_dir>/<name> (replacing it) and returns the path, which
 * stays valid until the next call. Aborts on an I/O error: that is the harness's fault. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* Writes a NUL-terminated text to <fuzz_dir>/<name>; same rules. */
const char *fuzz_write_text(const char *name, const char *text);

/* A FILE open on /dev/null for the printers a target exercises. */
void *fuzz_null_stream(void);

/* nd's promise for a refused input: the reader returned ND_EINPUT (or ND_ENOMEM) with a
 * one-line message that names the file (`name`, a substring of the message). Aborts, so
 * libFuzzer keeps the input, when a refusal breaks it. */
struct nd_error;
void fuzz_check_refusal(int rc, const struct nd_error *err, const char *name);

#endif
