/* Stand-ins for the CUDA part of the core in builds without CUDA. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void mispc_cuda_context_release(mispc_context *ctx) {
  (void)ctx;
}

int mispc_have_gpu(void) {
  return 0;
}

mispc_status mispc_context_device_peak(mispc_context *ctx, int64_t *bytes) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!bytes)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_context_device_peak: NULL bytes");
  *bytes = 0;
  return MISPC_SUCCESS;
}

int mispc_built_with_cuda(void) {
  return 0;
}

mispc_status mispc_context_set_stream(mispc_context *ctx, void *cuda_stream) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  (void)cuda_stream;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "mispc was built without CUDA");
}

mispc_status mispc_context_get_stream(mispc_context *ctx, void **cuda_stream) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (cuda_stream) *cuda_stream = NULL;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "mispc was built without CUDA");
}

mispc_status mispc_stream_wait(mispc_context *ctx) {
  (void)ctx;
  return MISPC_SUCCESS;
}

mispc_status mispc_mem_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p,
                             const char *what) {
  *p = NULL;
  if (mem == MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "cannot allocate %s in device memory: %s", what,
                        "mispc was built without CUDA");
  *p = mispc_host_alloc(ctx, bytes, what);
  return *p ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
}

void mispc_mem_free(mispc_context *ctx, mispc_memspace mem, void *p) {
  (void)ctx;
  if (mem == MISPC_MEM_HOST) free(p);
}

mispc_status mispc_mem_copy(mispc_context *ctx, void *dst, mispc_memspace dst_mem, const void *src,
                            mispc_memspace src_mem, size_t bytes) {
  if (dst_mem != MISPC_MEM_HOST || src_mem != MISPC_MEM_HOST)
    return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device copy requested: %s",
                        "mispc was built without CUDA");
  if (bytes) memcpy(dst, src, bytes);
  return MISPC_SUCCESS;
}

mispc_status mispc_pool_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p,
                              const char *what) {
  return mispc_mem_alloc(ctx, mem, bytes, p, what);
}

void mispc_pool_free(mispc_context *ctx, mispc_memspace mem, void *p) {
  mispc_mem_free(ctx, mem, p);
}

mispc_status mispc_random_vector_cuda(mispc_context *ctx, int64_t n, int64_t first, uint64_t seed,
                                      double *x) {
  (void)n, (void)first, (void)seed, (void)x;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device vector given to a build without CUDA");
}
