/* Internal: the per-backend steps of mispc_color (not installed). */
#ifndef MISPC_COLOR_BACKEND_H
#define MISPC_COLOR_BACKEND_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For members (in_set[v] == 1): color[v] = c and left[v] = 0. The device
 * step is only enqueued (no wait). */
mispc_status color_assign_host(mispc_context *ctx, int64_t n, const uint8_t *in_set, int32_t c,
                               int32_t *color, uint8_t *left);
mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set, int32_t c,
                               int32_t *color, uint8_t *left);

/* MISPC_COLORING_GREEDY: color (n entries, the graph's memory) and the
 * number of colors. */
mispc_status color_greedy(mispc_context *ctx, const mispc_csr *graph, int32_t *color,
                          int32_t *ncolors);

#ifdef __cplusplus
}
#endif
#endif
