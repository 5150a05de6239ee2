/* Internal: the per-backend steps of mispc_color (not installed). */
#ifndef MISPC_COLOR_BACKEND_H
#define MISPC_COLOR_BACKEND_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A GPU coloring whose warps color nothing for this long (ns) stops and
 * fails instead of hanging (a pattern that is not symmetric): the
 * one-process kernel (coloring_cuda.cu) and the one-kernel distributed
 * passes (coloring_dist_lsa.cu). */
#define MISPC_COLOR_STALL_NS 5000000000ull

/* MISPC_COLORING_MIS in one pass (Jones-Plassmann order, see coloring.c):
 * color[v] = the smallest color that no neighbour before v has, "before"
 * being the MIS-1 key order (mis1_key of key_mode and seed, then the id).
 * color has n entries in the graph's memory; *ncolors = largest color + 1.
 * The GPU runs a persistent pass (the polled one where no row has more
 * than 31 entries, else the counted one; hubs and long rows: the polled
 * pass with wide rows; coloring_cuda.cu), or one launch per round where
 * no_persistent is set or cooperative launch is not available. Where that
 * pass gives up (chains through hubs with more than 8,192 earlier
 * neighbours) or without cooperative launch on a graph with hubs the GPU
 * step colors nothing and sets *ncolors = -1: the caller then runs one
 * MIS-1 per color (same colors), with color_assign_cuda. Small graphs (mispc_color_smem_blocks)
 * take one thread block cluster in shared memory instead, hubs or not (mis/mis_smem_cuda.cu);
 * validated: the caller checked the pattern (else the kernels check its symmetry). */
mispc_status color_jp_host(mispc_context *ctx, const mispc_csr *graph, int key_mode, uint64_t seed,
                           int32_t *color, int32_t *ncolors);
mispc_status color_jp_cuda(mispc_context *ctx, const mispc_csr *graph, int key_mode, uint64_t seed,
                           int no_persistent, int validated, int32_t *color, int32_t *ncolors);

/* For members (in_set[v] == 1): color[v] = c and left[v] = 0 (enqueued only). */
mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set, int32_t c,
                               int32_t *color, uint8_t *left);

/* MISPC_COLORING_GREEDY: color (n entries, the graph's memory) and the
 * number of colors. */
mispc_status color_greedy(mispc_context *ctx, const mispc_csr *graph, int32_t *color,
                          int32_t *ncolors);

/* passes of iterated greedy recoloring (coloring_recolor.c): color holds a
 * coloring of ncolors[0] classes (the graph's memory) and receives the new
 * one; ncolors[p] the number of colors after pass p (never more). */
mispc_status color_recolor_host(mispc_context *ctx, const mispc_csr *graph, int passes,
                                int32_t *color, int32_t *ncolors);
mispc_status color_recolor_cuda(mispc_context *ctx, const mispc_csr *graph, int passes,
                                int32_t *color, int32_t *ncolors);

#ifdef __cplusplus
}
#endif
#endif
