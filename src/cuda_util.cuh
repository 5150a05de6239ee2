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

#ifdef __cplusplus
extern "C" {
#endif
/* Stream-ordered scratch from the context's own memory pool (kept cached
 * between calls, so repeated calls do not pay cudaMalloc). */
mispc_status mispc_scratch_alloc(mispc_context *ctx, size_t bytes, void **p, const char *what);
void mispc_scratch_free(mispc_context *ctx, void *p);
/* Pinned host scratch of at least `bytes`, owned by the context. */
mispc_status mispc_pinned_scratch(mispc_context *ctx, size_t bytes, void **p);
/* Streaming multiprocessors and cooperative-launch support of the current
 * device (looked up once per context). */
mispc_status mispc_device_caps(mispc_context *ctx, int *sms, int *coop);
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cub/block/block_scan.cuh>

/* Grid for `work` threads in blocks of `block`, at most 8 blocks per SM. */
static inline unsigned mispc_device_grid(mispc_context *ctx, long long work, unsigned block) {
  int sms = 0, coop = 0;
  mispc_device_caps(ctx, &sms, &coop);
  return mispc_grid_for(work, block, 8u * (unsigned)(sms ? sms : 1));
}

/* Waits for the stream; a launch or kernel failure becomes "WHAT failed: ...". */
static inline mispc_status mispc_sync(mispc_context *ctx, cudaStream_t s, const char *what) {
  cudaError_t e = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
  return MISPC_SUCCESS;
}

/* Block-aggregated append to a global list. Each call takes one candidate per
 * thread (all threads of the block call it together, the same number of
 * times); items gather in a shared buffer that is flushed with one global
 * atomic when full and at finish(). Same-address atomics serialise in L2, so
 * one per warp or per vertex dominates a round on a large graph; one per
 * buffer does not. The list order depends on scheduling: callers only use
 * lists whose order does not change results. */
template <int Block, int Buf> struct mispc_block_append {
  typedef cub::BlockScan<int, Block> Scan;
  struct Smem {
    typename Scan::TempStorage scan;
    int32_t buf[Buf];
    unsigned n, base;
  };
  Smem &s;
  int32_t *out;
  unsigned *out_n;
  __device__ mispc_block_append(Smem &smem, int32_t *o, unsigned *on) : s(smem), out(o), out_n(on) {
    if (threadIdx.x == 0) s.n = 0;
    __syncthreads();
  }
  __device__ void flush() {
    if (threadIdx.x == 0) s.base = s.n ? atomicAdd(out_n, s.n) : 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < s.n; i += Block) out[s.base + i] = s.buf[i];
    __syncthreads();
    if (threadIdx.x == 0) s.n = 0;
    __syncthreads();
  }
  __device__ void push(bool pred, int32_t v) {
    if (!__syncthreads_or(pred)) return; /* common in late rounds: one barrier */
    int off, total;
    Scan(s.scan).ExclusiveSum(pred ? 1 : 0, off, total);
    __syncthreads(); /* s.n stable, scan storage free for the next call */
    if (s.n + (unsigned)total > (unsigned)Buf) flush();
    if (pred) s.buf[s.n + off] = v;
    __syncthreads();
    if (threadIdx.x == 0) s.n += total;
    __syncthreads();
  }
  __device__ void finish() {
    flush();
  }
};

/* op-reduction of per-thread values over the block (blockDim.x == Block);
 * thread 0 gets the result, the others `none` (op's identity). */
template <int Block, typename T, typename Op>
__device__ __forceinline__ T mispc_block_reduce(T mine, T none, Op op) {
  for (int off = 16; off; off >>= 1) mine = op(mine, __shfl_down_sync(0xffffffffu, mine, off));
  __shared__ T part[Block / 32];
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = mine;
  __syncthreads();
  T r = none;
  if (threadIdx.x == 0)
    for (int w = 0; w < Block / 32; ++w) r = op(r, part[w]);
  __syncthreads();
  return r;
}

/* Maximum of per-thread values (>= 0) over the block; thread 0 gets it (others 0). */
template <int Block, typename T> __device__ __forceinline__ T mispc_block_max(T mine) {
  return mispc_block_reduce<Block>(mine, (T)0, [](T a, T b) { return b > a ? b : a; });
}

/* Minimum of per-thread values over the block; thread 0 gets it (others `none`). */
template <int Block, typename T> __device__ __forceinline__ T mispc_block_min(T mine, T none) {
  return mispc_block_reduce<Block>(mine, none, [](T a, T b) { return b < a ? b : a; });
}

/* Sums per-thread values over the block; thread 0 gets the total (others 0). */
template <int Block, typename T> __device__ __forceinline__ T mispc_block_sum(T mine) {
  return mispc_block_reduce<Block>(mine, (T)0, [](T a, T b) { return a + b; });
}

#endif

#endif
