/* Stand-in for the distributed GPU coloring in builds without CUDA. */
#include "dist_internal.h"

mispc_status mispc_dist_color_cuda(mispc_context *ctx, const mispc_dist_csr *g, int mode,
                                   uint64_t seed, int recolor, int32_t *color, int32_t *ncolors) {
  (void)mode, (void)seed, (void)recolor, (void)color, (void)ncolors;
  return mispc_dist_agree(ctx, g->comm,
                          mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                                       "mispc_dist_color: device graph, but built without CUDA"));
}
