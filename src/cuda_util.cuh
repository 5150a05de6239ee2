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

#ifdef __cplusplus
extern "C" {
#endif
/* Stream-ordered scratch from the context's own memory pool (kept cached
 * between calls, so repeated calls do not pay cudaMalloc). */
mispc_status mispc_scratch_alloc(mispc_context *ctx, size_t bytes, void **p, const char *what);
void mispc_scratch_free(mispc_context *ctx, void *p);
/* Pinned host scratch of at least `bytes`, owned by the context. */
mispc_status mispc_pinned_scratch(mispc_context *ctx, size_t bytes, void **p);
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Warp-aggregated append: lanes with pred write v to out[*cnt + k] with one
 * atomic per warp. All 32 lanes must call it together. The order inside the
 * list depends on scheduling; callers only use lists whose order does not
 * change results. */
__device__ __forceinline__ void mispc_warp_append(bool pred, int32_t v, int32_t *out,
                                                  unsigned *cnt) {
  unsigned mask = __ballot_sync(0xffffffffu, pred);
  if (!mask) return;
  int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
  unsigned base = 0;
  if (lane == leader) base = atomicAdd(cnt, (unsigned)__popc(mask));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (pred) out[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

/* Adds the number of lanes with pred to *cnt (one atomic per warp). */
__device__ __forceinline__ void mispc_warp_count(bool pred, unsigned *cnt) {
  unsigned mask = __ballot_sync(0xffffffffu, pred);
  if (mask && (threadIdx.x & 31) == __ffs(mask) - 1) atomicAdd(cnt, (unsigned)__popc(mask));
}
#endif
