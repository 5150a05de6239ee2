/* Stand-ins for the distributed GPU MIS in builds without CUDA. */
#include "mis_dist_backend.h"

mispc_status mispc_dist_mis1_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                  const mispc_mis_options *opt, int mode, const uint8_t *subset,
                                  uint8_t *in_set, mispc_mis_result *res) {
  (void)opt, (void)mode, (void)subset, (void)in_set, (void)res;
  return mispc_dist_agree(ctx, g->comm,
                          mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                                       "mispc_dist_mis1: device graph, but built without CUDA"));
}

mispc_status mispc_dist_mis2_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                  const mispc_mis_options *opt, int per_round,
                                  const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res) {
  (void)opt, (void)per_round, (void)subset, (void)in_set, (void)res;
  return mispc_dist_agree(ctx, g->comm,
                          mispc_seterr(ctx, MISPC_ERR_NO_CUDA,
                                       "mispc_dist_mis2: device graph, but built without CUDA"));
}

mispc_status mispc_dist_mis2_cuda_ex(mispc_context *ctx, const mispc_dist_csr *g,
                                     const mispc_mis_options *opt, int per_round,
                                     const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                                     mispc_dist_mis2_extra *x) {
  x->queued = 0;
  return mispc_dist_mis2_cuda(ctx, g, opt, per_round, subset, in_set, res);
}

mispc_status mispc_dist_mis2_cover_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                        const mispc_mis_options *opt, const uint8_t *subset,
                                        uint8_t *in_set, mispc_mis_result *res,
                                        uint8_t *ghost_subset) {
  (void)ghost_subset;
  return mispc_dist_mis2_cuda(ctx, g, opt, 0, subset, in_set, res);
}

void mispc_dist_mis2_account(const mispc_dist_csr *g, int rounds) {
  (void)g, (void)rounds;
}
