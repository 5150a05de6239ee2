/* Stand-in for the distributed GPU aggregation in builds without CUDA. */
#include "dist_internal.h"

mispc_status mispc_dist_aggregate_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                       const mispc_agg_options *opt, int32_t *agg,
                                       mispc_dist_agg_info *info) {
  (void)opt, (void)agg, (void)info;
  return mispc_dist_agree(
      ctx, g->comm,
      mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                   "mispc_dist_aggregate: device graph, but built without CUDA"));
}
