/* Builds without CUDA: device graphs cannot exist, these only guard. */
#include "agg_backend.h"

static mispc_status no_cuda(mispc_context *ctx) {
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}

mispc_status agg_phase1_cuda(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int32_t *agg, int32_t *root, int64_t *naggs) {
  return no_cuda(ctx);
}
mispc_status agg_unaggregated_cuda(mispc_context *ctx, int64_t n, const int32_t *agg, uint8_t *mask,
                                   int64_t *count) {
  return no_cuda(ctx);
}
mispc_status agg_phase2_cuda(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int min_free, int32_t *agg, int32_t *root, int64_t *naggs) {
  return no_cuda(ctx);
}
mispc_status agg_phase3_cuda(mispc_context *ctx, const mispc_csr *g, int32_t *agg, int64_t naggs,
                             int basic) {
  return no_cuda(ctx);
}
mispc_status agg_collect_isolated_cuda(mispc_context *ctx, const mispc_csr *g, mispc_aggregates *a,
                                       int64_t *removed) {
  return no_cuda(ctx);
}
mispc_status agg_split_cuda(mispc_context *ctx, mispc_aggregates *a, int64_t B, int64_t *added) {
  return no_cuda(ctx);
}
mispc_status agg_strength_cuda(mispc_context *ctx, const mispc_csr *A, double theta, int bs,
                               mispc_csr *S) {
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
