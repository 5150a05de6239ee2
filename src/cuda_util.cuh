/* CUDA helpers shared by the .cu files of every layer (not installed). */
#ifndef MISPC_CUDA_UTIL_CUH
#define MISPC_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include "internal.h"

/* Returns MISPC_ERR_CUDA with "CALL failed: cuda message (file:line)". */
#define MISPC_CUDA_TRY(ctx, call)                                                                  \
  do {                                                                                             \
    cudaError_t mispc_ce_ = (call);                                                                \
    if (mispc_ce_ != cudaSuccess)                                                                  \
      return mispc_seterr((ctx), MISPC_ERR_CUDA, "%s failed: %s (%s:%d)", #call,                   \
                          cudaGetErrorString(mispc_ce_), __FILE__, __LINE__);                      \
  } while (0)

/* Checks the last launch (asynchronous errors show up at the next sync). */
#define MISPC_CUDA_LAUNCH_CHECK(ctx) MISPC_CUDA_TRY(ctx, cudaGetLastError())

/* The context's stream, created on first use. */
static inline mispc_status mispc_stream(mispc_context *ctx, cudaStream_t *s) {
  void *p = NULL;
  mispc_status st = mispc_context_get_stream(ctx, &p);
  *s = (cudaStream_t)p;
  return st;
}

static inline unsigned mispc_grid_for(long long n, unsigned block, unsigned max_blocks) {
  long long g = (n + block - 1) / block;
  if (g < 1) g = 1;
  return g > (long long)max_blocks ? max_blocks : (unsigned)g;
}

#endif
