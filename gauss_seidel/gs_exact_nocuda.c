/* Builds without CUDA: device matrices cannot exist; these only guard. */
#include "gs_internal.h"

static mispc_status no_cuda(mispc_context *ctx) {
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}

mispc_status gs_exact_pattern_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  (void)gs, (void)A;
  return no_cuda(ctx);
}
mispc_status gs_exact_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                  int64_t *bad_row, int *bad_kind) {
  (void)gs, (void)A, (void)bad_row, (void)bad_kind;
  return no_cuda(ctx);
}
mispc_status gs_exact_sweep_color_cuda(mispc_context *ctx, const mispc_gs *gs, int32_t c,
                                       int backward, double *x_rows) {
  (void)gs, (void)c, (void)backward, (void)x_rows;
  return no_cuda(ctx);
}
