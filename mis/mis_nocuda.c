/* Builds without CUDA: device graphs cannot exist (allocation fails first),
 * so these only guard against hand-made descriptors. */
#include "mis_backend.h"

static mispc_status no_cuda(mispc_context *ctx) {
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device graph given to a build without CUDA");
}

mispc_status mispc_mis1_cuda(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int mode, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  return no_cuda(ctx);
}

mispc_status mispc_mis2_cuda(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int per_round, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  return no_cuda(ctx);
}

mispc_status mispc_mis_to_list_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                    int32_t *list, int64_t *count) {
  return no_cuda(ctx);
}
