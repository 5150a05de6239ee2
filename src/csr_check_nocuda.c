/* Builds without CUDA never hold device CSR (allocation fails first). */
#include "internal.h"

mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A, unsigned checks);

mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A, unsigned checks) {
  (void)A;
  (void)checks;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}
