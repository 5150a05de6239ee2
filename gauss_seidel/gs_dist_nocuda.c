/* Stand-ins for the distributed Gauss-Seidel's device apply in builds
 * without CUDA (device matrices cannot exist there). */
#include "gs_dist_internal.h"

void gs_dist_device_free(mispc_context *ctx, gs_dist_device *d) {
  (void)ctx, (void)d;
}

mispc_status gs_dist_device_setup(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A) {
  (void)gs, (void)A;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                      "distributed Gauss-Seidel on the GPU: mispc was built without CUDA");
}

mispc_status gs_dist_device_values(mispc_context *ctx, mispc_dist_gs *gs) {
  (void)gs;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                      "distributed Gauss-Seidel on the GPU: mispc was built without CUDA");
}

mispc_status gs_dist_device_apply(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A,
                                  const double *b, double *x, int zero_guess) {
  (void)gs, (void)A, (void)b, (void)x, (void)zero_guess;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                      "distributed Gauss-Seidel on the GPU: mispc was built without CUDA");
}
