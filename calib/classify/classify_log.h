/* classify_log.h — trainer logs to round rows (internal). */
#ifndef ND_CLASSIFY_LOG_H
#define ND_CLASSIFY_LOG_H

#include "classify_internal.h"

enum { LOG_UNKNOWN = 0, LOG_MEGATRON, LOG_TORCHTITAN, LOG_NEMO, LOG_MINDFORMERS };

/* Sets dim to v in d (added when absent); -1 when d is full. A v outside [1, 2^20] is
 * ignored. */
int nd_classify_log_dims_set(nd_classify_dims *d, nd_dim dim, int64_t v);

#endif
