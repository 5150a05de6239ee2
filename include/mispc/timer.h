/* Wall-clock timing for host code and progress output. */
#ifndef MISPC_TIMER_H
#define MISPC_TIMER_H

#include "mispc/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds from an arbitrary fixed point (monotonic clock). */
MISPC_API double mispc_wtime(void);

#ifdef __cplusplus
}
#endif
#endif
