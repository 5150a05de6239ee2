/* Internal: shared by the host graph builders (rows are sorted with
 * mispc_sort_i32, src/internal.h). */
#ifndef MISPC_AGG_ROWS_HOST_H
#define MISPC_AGG_ROWS_HOST_H

#include <stdint.h>

/* Marker arrays: at most this many 4-byte entries over all threads (the
 * parts of parts_host.h count wider scratch entries by their bytes). */
#define MARK_BUDGET ((int64_t)1 << 26)

#endif
