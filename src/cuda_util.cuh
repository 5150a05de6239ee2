/* CUDA helpers shared by the .cu files of every layer (not installed). */
#ifndef MISPC_CUDA_UTIL_CUH
#define MISPC_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include <type_traits>

#include "internal.h"

/* Returns MISPC_ERR_CUDA with "CALL failed: cuda message (file:line)". */
#define MISPC_CUDA_TRY(ctx, call)                                                                  \
  do {                                                                                             \
    cudaError_t mispc_ce_ = (call);                                                                \
    if (mispc_ce_ != cudaSuccess)                                                                  \
      return mispc_seterr((ctx), MISPC_ERR_CUDA, "%s failed: %s (%s:%d)", #call,                   \
                          cudaGetErrorString(mispc_ce_), __FILE__, __LINE__);                      \
  } while (0)

/* The status of a CUDA call as a value (for chains of `if (!s) s = ...`). */
#define MISPC_CUDA_CALL(ctx, call)                                                                 \
  ((call) == cudaSuccess ? MISPC_SUCCESS : mispc_cuda_failed((ctx), #call))
static inline mispc_status mispc_cuda_failed(mispc_context *ctx, const char *what) {
  return mispc_seterr(ctx, MISPC_ERR_CUDA, "%s failed: %s", what,
                      cudaGetErrorString(cudaGetLastError()));
}

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

/* The device scratch of one call, freed together (stream-ordered, after the
 * queued work): the buffers of the distributed device passes. */
typedef struct mispc_scratch_list {
  void *p[32]; /* the GPU aggregation on several ranks takes up to 23 */
  int n;
} mispc_scratch_list;
/* One more buffer of `bytes` (8 spare) on list b; `what` names it in an
 * allocation error (and in the error of a full list). */
static inline mispc_status mispc_scratch_list_alloc(mispc_context *ctx, mispc_scratch_list *b,
                                                    size_t bytes, const char *what, void **out) {
  if (b->n >= (int)(sizeof b->p / sizeof *b->p))
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "%s: more than %d buffers in one call", what,
                        (int)(sizeof b->p / sizeof *b->p));
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes + 8, out, what));
  b->p[b->n++] = *out;
  return MISPC_SUCCESS;
}
static inline void mispc_scratch_list_free(mispc_context *ctx, mispc_scratch_list *b) {
  for (int i = 0; i < b->n; ++i) mispc_scratch_free(ctx, b->p[i]);
  b->n = 0;
}
/* Pinned host scratch of at least `bytes`, owned by the context. */
mispc_status mispc_pinned_scratch(mispc_context *ctx, size_t bytes, void **p);
/* mispc_pinned_scratch, and in *dev its address in kernels, or NULL where the
 * device cannot map host memory: kernels write a few result words there, so
 * the host reads them after its stream sync without a copy. */
mispc_status mispc_pinned_mapped(mispc_context *ctx, size_t bytes, void **host, void **dev);
/* Streaming multiprocessors and cooperative-launch support of the current
 * device (looked up once per context). */
mispc_status mispc_device_caps(mispc_context *ctx, int *sms, int *coop);
/* cudaOccupancyMaxActiveBlocksPerMultiprocessor(kernel, block threads, no
 * dynamic shared memory), looked up once per context and kernel: a query at
 * every launch is part of the host time that dominates calls on small graphs
 * (docs/results/benchmarks-log.md, "Small graphs"). */
mispc_status mispc_kernel_occupancy(mispc_context *ctx, const void *kernel, int block, int *per_sm);
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__

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

/* The first position p in [lo, hi) with a[p] >= key (hi if none): a
 * binary search of a sorted range, such as a CSR row's columns. */
template <typename T>
__device__ __forceinline__ int64_t mispc_lower_bound(const T *a, int64_t lo, int64_t hi, T key) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* mispc_lower_bound in 32-bit offsets over row[0 .. len): fewer
 * instructions in searches that issue-bound kernels run per entry (the CSR
 * check, the sweep-ordered copy's push places). */
__device__ __forceinline__ int mispc_lower_bound32(const int32_t *row, int len, int32_t key) {
  int lo = 0, hi = len;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (row[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Division of non-negative 32-bit ints by a divisor d >= 1 fixed at launch
 * (a block size) with a multiply-high and a shift (Granlund and Montgomery,
 * as PyTorch's IntDivider): a division by a run-time int costs tens of
 * instructions, and the node kernels divide every entry's column. Exact for
 * 0 <= x < 2^31. */
struct MispcFastDiv {
  unsigned magic, shift;
  explicit MispcFastDiv(int d) {
    shift = 0;
    while (shift < 32 && (1ull << shift) < (unsigned long long)d) ++shift;
    magic = (unsigned)(((1ull << 32) * ((1ull << shift) - (unsigned long long)d)) /
                           (unsigned long long)d +
                       1);
  }
  __device__ __forceinline__ int32_t operator()(int32_t x) const {
    const unsigned t = __umulhi((unsigned)x, magic);
    return (int32_t)((t + (unsigned)x) >> shift);
  }
};

/* Relaxed device-scope load and store of a word that other threads of a
 * running kernel write: a plain load could keep reading a stale L1 line. */
__device__ __forceinline__ uint32_t mispc_load_relaxed(const uint32_t *w) {
  uint32_t x;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(x) : "l"(w) : "memory");
  return x;
}
__device__ __forceinline__ void mispc_store_relaxed(uint32_t *w, uint32_t x) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(w), "r"(x) : "memory");
}
/* The GPU's nanosecond clock (%globaltimer), for stall limits and traces. */
__device__ __forceinline__ unsigned long long mispc_global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
/* A counter word that another block (or, over NVLink, another rank) wrote
 * before a barrier this thread has passed. */
__device__ __forceinline__ unsigned long long mispc_load_word(const unsigned long long *p) {
  return *(const volatile unsigned long long *)p;
}

/* The power of two at or above `mean`, at most 32: lanes a group for items
 * of `mean` entries on average. */
static inline int mispc_lanes_for_mean(double mean) {
  int w = 1;
  while (w < 32 && w < mean) w *= 2;
  return w;
}

/* Lanes a row for kernels that give each row a group of lanes
 * (mispc_for_each_row): the mean row length rounded up to a power of two, at
 * most 32 (short rows do not leave most of a warp idle, and a row's loads
 * coalesce). */
static inline int mispc_lanes_for_rows(const mispc_csr *A) {
  return mispc_lanes_for_mean(A->nrows ? (double)A->nnz / (double)A->nrows : 0.0);
}

/* The lanes of the calling thread's group of W (a power of two <= 32). */
template <int W> __device__ __forceinline__ unsigned mispc_group_mask() {
  return W == 32 ? 0xffffffffu : (((1u << (W & 31)) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
}

/* Rows 0 .. n-1 of a grid-stride kernel by groups of W lanes: calls f(row,
 * lane in the group, the group's mask) for each. Groups of a warp may
 * diverge (row lengths), so collectives inside f use the group's mask. */
template <int W, typename F> __device__ __forceinline__ void mispc_for_each_row(int64_t n, F f) {
  const unsigned gm = mispc_group_mask<W>();
  for (int64_t q = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; q < n;
       q += (int64_t)gridDim.x * blockDim.x / W)
    f(q, (int)(threadIdx.x & (W - 1)), gm);
}

/* Returns f(std::integral_constant<int, W>{}) for W = w, so a host function
 * can pick a kernel's lane count (a template argument) at run time. w is 1,
 * 2, 4, 8, 16 or 32; anything else runs as 32. */
template <typename F> auto mispc_with_lanes(int w, F &&f) {
  switch (w) {
  case 1:
    return f(std::integral_constant<int, 1>{});
  case 2:
    return f(std::integral_constant<int, 2>{});
  case 4:
    return f(std::integral_constant<int, 4>{});
  case 8:
    return f(std::integral_constant<int, 8>{});
  case 16:
    return f(std::integral_constant<int, 16>{});
  default:
    return f(std::integral_constant<int, 32>{});
  }
}

/* Appends ids to a global list through a warp-private buffer of Cap slots in
 * shared memory: a ballot places each lane's id, and one atomicAdd per Cap ids
 * reserves room in the list. No block barrier while a pass runs, so the warps
 * of a block go at their own pace (a block-wide append, measured before this
 * one, waited for the slowest warp of every tile: MIS-2 on Elasticity3D_60
 * took 1.72 instead of 1.44 ms). The list's order depends on timing; callers
 * use it only as a set. push and flush must be called by all 32 lanes
 * together; finish ends a pass for the whole block with one atomicAdd per
 * block (same-address atomics serialise in L2, and a flush per warp would put
 * thousands of them on one counter at once). */
template <int Cap> struct mispc_warp_append {
  static_assert(Cap >= 32, "a push may add 32 ids");
  int32_t *buf; /* this warp's Cap slots */
  int32_t *out;
  unsigned *out_n;
  int n; /* ids buffered, the same in every lane */
  __device__ mispc_warp_append(int32_t *slots, int32_t *o, unsigned *on)
      : buf(slots), out(o), out_n(on), n(0) {}
  __device__ void flush() {
    __syncwarp();
    const int lane = threadIdx.x & 31;
    unsigned base = 0;
    if (lane == 0 && n) base = atomicAdd(out_n, (unsigned)n);
    base = __shfl_sync(0xffffffffu, base, 0);
    for (int i = lane; i < n; i += 32) out[base + i] = buf[i];
    __syncwarp();
    n = 0;
  }
  /* All threads of the block; counts: Warps + 1 shared words. */
  template <int Warps> __device__ void finish(unsigned *counts) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) counts[warp] = (unsigned)n;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned total = 0;
      for (int w = 0; w < Warps; ++w) {
        const unsigned c = counts[w];
        counts[w] = total;
        total += c;
      }
      counts[Warps] = total ? atomicAdd(out_n, total) : 0u;
    }
    __syncthreads();
    const unsigned base = counts[Warps] + counts[warp];
    for (int i = lane; i < n; i += 32) out[base + i] = buf[i];
    __syncthreads(); /* counts free for the next call */
    n = 0;
  }
  __device__ void push(bool pred, int32_t v) {
    const unsigned m = __ballot_sync(0xffffffffu, pred);
    if (!m) return;
    const int c = __popc(m);
    if (n + c > Cap) flush();
    const int lane = threadIdx.x & 31;
    if (pred) buf[n + __popc(m & ((1u << lane) - 1u))] = v;
    n += c;
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

/* *dst += the block's sum of `mine`, one atomic a block (every thread of
 * the block calls it, after any grid-stride loop): a counter that every
 * vertex bumps on one word serializes in L2 (the distributed MIS-2 init
 * counted 1.7 M vertices of Laplace3D_150 on 2 GPUs so, twice). */
template <int Block, typename T> __device__ __forceinline__ void mispc_block_add(T mine, T *dst) {
  mine = mispc_block_sum<Block>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(dst, mine);
}

#endif

#endif
