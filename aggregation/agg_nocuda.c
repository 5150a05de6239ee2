/* Builds without CUDA: device graphs cannot exist, these only guard. */
#include "agg_backend.h"

static mispc_status no_cuda(mispc_context *ctx) {
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}

mispc_status agg_phases_cuda(mispc_context *ctx, const mispc_csr *g, const mispc_agg_options *o,
                             mispc_aggregates *a, uint8_t *set, uint8_t *mask, int64_t *removed) {
  return no_cuda(ctx);
}
mispc_status agg_split_cuda(mispc_context *ctx, mispc_aggregates *a, int64_t B, int64_t *added) {
  return no_cuda(ctx);
}
mispc_status agg_strength_cuda(mispc_context *ctx, const mispc_csr *A, double theta, int bs,
                               mispc_csr *S) {
  return no_cuda(ctx);
}
mispc_status agg_strength_auto_cuda(mispc_context *ctx, const mispc_csr *A, double *theta,
                                    double *weak_max) {
  return no_cuda(ctx);
}
mispc_status agg_coarse_cuda(mispc_context *ctx, const mispc_csr *g, const int32_t *agg,
                             int64_t naggs, mispc_csr *coarse) {
  return no_cuda(ctx);
}
mispc_status agg_smooth_rows_cuda(mispc_context *ctx, const mispc_csr *A, const mispc_csr *P0,
                                  double omega, mispc_csr *W, int64_t *bad) {
  *bad = -1;
  return no_cuda(ctx);
}
mispc_status agg_tentative_cuda(mispc_context *ctx, const mispc_aggregates *a, int bs, int k,
                                const double *B, mispc_csr *P, double *Bc, int64_t *bad) {
  *bad = -1;
  return no_cuda(ctx);
}
