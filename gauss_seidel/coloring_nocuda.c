/* Builds without CUDA: device graphs cannot exist; this only guards. */
#include "color_backend.h"

mispc_status color_jp_cuda(mispc_context *ctx, const mispc_csr *graph, int key_mode, uint64_t seed,
                           int no_persistent, int validated, int32_t *color, int32_t *ncolors) {
  (void)graph, (void)key_mode, (void)seed, (void)no_persistent, (void)validated, (void)color,
      (void)ncolors;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}

mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set, int32_t c,
                               int32_t *color, uint8_t *left) {
  (void)n, (void)in_set, (void)c, (void)color, (void)left;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}

mispc_status color_recolor_cuda(mispc_context *ctx, const mispc_csr *graph, int passes,
                                int32_t *color, int32_t *ncolors) {
  (void)graph, (void)passes, (void)color, (void)ncolors;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}
