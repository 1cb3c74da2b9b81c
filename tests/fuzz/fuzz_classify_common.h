/* fuzz_classify_common.h — the run every nd-classify target reads its input into. */
#ifndef ND_FUZZ_CLASSIFY_COMMON_H
#define ND_FUZZ_CLASSIFY_COMMON_H

#include "nd/classify/classify.h"

/* Adds path to a run with --dims DP=2,MP=2,PP=2 (every wait column can be chosen), then
 * does what nd-classify does with a run: finish, header, report and JSON (to /dev/null).
 * A refusal must name `name`. */
void fuzz_classify_path(const char *path, const char *name);

#endif
