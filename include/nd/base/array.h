/*
 * array.h — the length of a C array, from its type: loops and bounds say ND_ARRAY_LEN(a), never
 * a count written again beside the array (docs/style.md).
 */
#ifndef ND_BASE_ARRAY_H
#define ND_BASE_ARRAY_H

#define ND_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
