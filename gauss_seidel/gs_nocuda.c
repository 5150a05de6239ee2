/* Builds without CUDA: device matrices cannot exist; these only guard. */
#include "gs_internal.h"

static mispc_status no_cuda(mispc_context *ctx) {
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}

mispc_status gs_expand_cuda(mispc_context *ctx, int64_t n, int bs, const int32_t *node_agg,
                            int32_t *dof_agg) {
  (void)n, (void)bs, (void)node_agg, (void)dof_agg;
  return no_cuda(ctx);
}
mispc_status gs_permute_pattern_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  (void)gs, (void)A;
  return no_cuda(ctx);
}
mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                    int64_t *bad_row, int *bad_kind) {
  (void)gs, (void)A, (void)bad_row, (void)bad_kind;
  return no_cuda(ctx);
}
mispc_status gs_apply_cuda(mispc_context *ctx, mispc_gs *gs, const double *b, double *x,
                           int zero_guess) {
  (void)gs, (void)b, (void)x, (void)zero_guess;
  return no_cuda(ctx);
}
void gs_release_cuda(mispc_gs *gs) {
  (void)gs;
}

mispc_status gs_cluster_sizes_cuda(mispc_context *ctx, int64_t nc, const int64_t *cl_ptr,
                                   int64_t *min_size, int64_t *max_size, int64_t *singletons) {
  (void)nc, (void)cl_ptr;
  *min_size = *max_size = *singletons = 0;
  return no_cuda(ctx);
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
