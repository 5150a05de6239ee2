/* Builds without CUDA: device graphs cannot exist; this only guards. */
#include "color_backend.h"

mispc_status color_jp_cuda(mispc_context *ctx, const mispc_csr *graph, int key_mode, uint64_t seed,
                           int no_persistent, int32_t *color, int32_t *ncolors) {
  (void)graph, (void)key_mode, (void)seed, (void)no_persistent, (void)color, (void)ncolors;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}
