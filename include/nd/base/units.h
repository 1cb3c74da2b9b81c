/*
 * units.h — the one home of nd's unit conversions. Memory is counted in binary units (MiB,
 * GiB: what torch.cuda and nvidia-smi print), link and memory rates in decimal ones (GB/s:
 * what vendors and nccl-tests print), time in milliseconds unless a name says otherwise.
 */
#ifndef ND_BASE_UNITS_H
#define ND_BASE_UNITS_H

#define ND_KIB         1024.0                     /* bytes in a KiB */
#define ND_MIB         (1024.0 * 1024.0)          /* bytes in a MiB */
#define ND_GIB         (1024.0 * 1024.0 * 1024.0) /* bytes in a GiB */
#define ND_MIB_PER_GIB 1024.0
#define ND_GB_PER_GIB  1.073741824 /* 2^30 / 10^9: a GiB/s in GB/s */
#define ND_MS_PER_S    1e3
#define ND_US_PER_MS   1e3

#endif
