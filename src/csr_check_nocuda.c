/* Builds without CUDA never hold device CSR (allocation fails first). */
#include "csr_build.h"
#include "internal.h"

mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A, unsigned checks);

mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A, unsigned checks) {
  (void)A;
  (void)checks;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}

mispc_status mispc_widen_int32_cuda(mispc_context *ctx, int64_t n, const int32_t *in,
                                    int64_t *out) {
  (void)n;
  (void)in;
  (void)out;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device array given to a build without CUDA");
}

mispc_status mispc_order_by_key_cuda(mispc_context *ctx, int64_t n, const int32_t *key,
                                     int32_t nkeys, int32_t *order, int64_t *ptr) {
  (void)n, (void)key, (void)nkeys, (void)order, (void)ptr;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device array given to a build without CUDA");
}

mispc_status mispc_csr_transpose_cuda(mispc_context *ctx, const mispc_csr *A, mispc_csr *T) {
  (void)A, (void)T;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}

mispc_status mispc_csr_multiply_cuda(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                     mispc_csr *C) {
  (void)A, (void)B, (void)C;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device matrix given to a build without CUDA");
}
