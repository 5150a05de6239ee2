/* GPU step of mispc_color (MISPC_COLORING_MIS): greedy coloring in MIS-1 key
 * order, each vertex colored as soon as its earlier neighbours are
 * (Jones-Plassmann; why that equals one MIS-1 per color: coloring.c).
 *
 * One cooperative (persistent) launch: keys and empty colors, a grid barrier,
 * then each warp visits its uncolored vertices again and again until all have
 * a color, with no barrier, like the sync-free MIS-1 pass (mis1_cuda.cu,
 * ECL-MIS §3). Every block is resident, so the uncolored vertex that comes
 * first can always take its color and no warp waits forever. Colors move only
 * from -1 to their final value and a vertex reads only final colors, so the
 * result does not depend on timing. Without cooperative launch (or with
 * no_persistent) each round is one launch that visits every uncolored vertex
 * once, and the host stops when a round leaves none.
 *
 * Work mapping as in MIS-1: a group of L lanes per vertex (1 for short rows,
 * 8 where the mean row exceeds 12 entries), a warp for rows above 32 entries.
 * Each lane loads kChunk neighbours' ids, then their keys and colors, before
 * it looks at them, so a row costs a few round trips, not one per entry. */
#include <cooperative_groups.h>

#include "color_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::kBlock;
using mis_cuda::kPersistentPerSm;
constexpr int kWarps = kBlock / 32;
constexpr int kWarpDegree = 32;             /* rows longer than this get a whole warp */
constexpr int kChunk = 4;                   /* neighbours a lane loads before it tests them */
constexpr int kMaxRounds = MIS1_MAX_ROUNDS; /* the one-launch-per-round fallback */

struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *key;
  int32_t *color;
  int64_t n;
  uint64_t seed;
  int key_mode;
  unsigned *count; /* [0] largest color + 1; [1 + r] vertices left after round r */
};

__device__ __forceinline__ void init_body(const Plan &p) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    p.key[v] = mis1_key(p.key_mode, p.seed, v, p.rowptr[v + 1] - p.rowptr[v]);
    p.color[v] = -1;
  }
}

/* The color of v (key kv, row b..e) seen by its group of L lanes (lane gl,
 * mask gmask), or -1 while a neighbour before v has none. Colors are taken
 * 64 at a time, as on the host (coloring.c jp_visit). */
template <int L>
__device__ __forceinline__ int32_t jp_color(const Plan &p, int32_t v, int64_t b, int64_t e, int gl,
                                            unsigned gmask) {
  const uint32_t kv = p.key[v];
  for (int32_t base = 0;; base += 64) {
    uint32_t lo = 0, hi = 0;
    for (int64_t q0 = b; q0 < e; q0 += (int64_t)L * kChunk) {
      int32_t u[kChunk];
      uint32_t ku[kChunk], cu[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k) {
        const int64_t q = q0 + (int64_t)k * L + gl;
        u[k] = q < e ? p.colidx[q] : v; /* v itself never counts */
      }
#pragma unroll
      for (int k = 0; k < kChunk; ++k) {
        ku[k] = p.key[u[k]];
        cu[k] = mispc_load_relaxed((const uint32_t *)p.color + u[k]);
      }
      bool blocked = false;
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        if (u[k] != v && mis1_before(ku[k], u[k], kv, v)) {
          const int32_t c = (int32_t)cu[k];
          blocked |= c < 0;
          const uint32_t d = (uint32_t)(c - base); /* a negative difference wraps above 63 */
          if (c >= 0 && d < 32) lo |= 1u << d;
          if (c >= 0 && d - 32u < 32u) hi |= 1u << (d - 32u);
        }
      if (L > 1) blocked = __any_sync(gmask, blocked);
      if (blocked) return -1;
    }
    if (L > 1) {
      lo = __reduce_or_sync(gmask, lo);
      hi = __reduce_or_sync(gmask, hi);
    }
    if (~lo) return base + __ffs(~lo) - 1;
    if (~hi) return base + 32 + __ffs(~hi) - 1;
  }
}

/* Colors v if it can; returns whether it must wait. */
template <int L>
__device__ __forceinline__ bool settle(const Plan &p, int32_t v, int64_t b, int64_t e, int gl,
                                       unsigned gmask, int32_t &top) {
  const int32_t c = jp_color<L>(p, v, b, e, gl, gmask);
  if (c < 0) return true;
  if (gl == 0) {
    mispc_store_relaxed((uint32_t *)p.color + v, (uint32_t)c);
    top = c > top ? c : top;
  }
  return false;
}

/* One visit of each uncolored vertex of the warp (groups of L lanes; a warp
 * for each row above kWarpDegree). Returns how many of them this thread saw
 * wait (counted once per vertex). */
template <int L> __device__ __forceinline__ unsigned jp_pass(const Plan &p, int32_t &top) {
  constexpr int G = 32 / L;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane / L, gl = lane % L;
  const unsigned gmask = L == 32 ? 0xffffffffu : ((1u << L) - 1u) << (g * L);
  const int64_t gwarp = (int64_t)blockIdx.x * kWarps + warp;
  const int64_t nwarps = (int64_t)gridDim.x * kWarps;
  unsigned waiting = 0;
  for (int64_t base = gwarp * G; base < p.n; base += nwarps * G) {
    const int64_t i = base + g;
    int32_t ci = 0;
    /* one lane reads the color so the group agrees on it */
    if (i < p.n && gl == 0) ci = (int32_t)mispc_load_relaxed((const uint32_t *)p.color + i);
    if (L > 1) ci = __shfl_sync(0xffffffffu, ci, g * L);
    const bool open = i < p.n && ci < 0;
    int64_t b = 0, e = 0;
    if (open) b = p.rowptr[i], e = p.rowptr[i + 1];
    const bool high = open && L < 32 && e - b > kWarpDegree;
    bool wait = open && !high && settle<L>(p, (int32_t)i, b, e, gl, gmask, top);
    if (L < 32) { /* the whole warp for each long row of this step */
      unsigned hm = __ballot_sync(0xffffffffu, high && gl == 0);
      while (hm) {
        const int src = __ffs(hm) - 1;
        hm &= hm - 1;
        const int32_t hv = (int32_t)__shfl_sync(0xffffffffu, i, src);
        const int64_t hb = __shfl_sync(0xffffffffu, b, src);
        const int64_t he = __shfl_sync(0xffffffffu, e, src);
        int32_t htop = -1;
        const bool w = settle<32>(p, hv, hb, he, lane, 0xffffffffu, htop);
        top = htop > top ? htop : top; /* lane 0 stored it */
        if (lane == src) wait = w;
      }
    }
    waiting += wait && gl == 0;
  }
  return waiting;
}

__device__ __forceinline__ void add_top(const Plan &p, int32_t top) {
  const unsigned t = mispc_block_max<kBlock>((unsigned)(top + 1));
  if (threadIdx.x == 0 && t) atomicMax(p.count, t);
}

template <int L> __global__ void __launch_bounds__(kBlock, kPersistentPerSm) jp_persistent(Plan p) {
  init_body(p);
  cg::this_grid().sync();
  int32_t top = -1;
  while (__any_sync(0xffffffffu, jp_pass<L>(p, top) != 0)) {
  }
  add_top(p, top);
}

__global__ void __launch_bounds__(kBlock) jp_init(Plan p) {
  init_body(p);
}

template <int L> __global__ void __launch_bounds__(kBlock) jp_round(Plan p, int r) {
  int32_t top = -1;
  const unsigned left = mispc_block_sum<kBlock>(jp_pass<L>(p, top));
  if (threadIdx.x == 0 && left) atomicAdd(p.count + 1 + r, left);
  add_top(p, top);
}

template <int L>
mispc_status run(mispc_context *ctx, cudaStream_t s, const Plan &p, int persistent) {
  Plan q = p;
  int launched = 0;
  MISPC_TRY(mis_cuda::launch_persistent(ctx, s, (const void *)jp_persistent<L>, &q, p.n, persistent,
                                        &launched));
  if (launched) return MISPC_SUCCESS;
  const unsigned grid = mispc_device_grid(ctx, p.n, kBlock);
  jp_init<<<grid, kBlock, 0, s>>>(p);
  int stop = -1;
  MISPC_TRY(mis_cuda::run_rounds_lagged(
      ctx, s, kMaxRounds,
      [&](int r, unsigned *left) {
        jp_round<L><<<grid, kBlock, 0, s>>>(p, r);
        cudaMemcpyAsync(left, p.count + 1 + r, 4, cudaMemcpyDeviceToHost, s);
      },
      &stop));
  if (stop < 0)
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_color: vertices left uncolored after %d rounds", kMaxRounds);
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status color_jp_cuda(mispc_context *ctx, const mispc_csr *g, int key_mode,
                                      uint64_t seed, int no_persistent, int32_t *color,
                                      int32_t *ncolors) {
  *ncolors = 0;
  if (g->nrows == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  Plan p = {g->rowptr, g->colidx, NULL, color, g->nrows, seed, key_mode, NULL};
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)g->nrows * 4, (void **)&p.key, "coloring keys");
  const size_t ncount = (size_t)kMaxRounds + 2;
  if (!st) st = mispc_scratch_alloc(ctx, ncount * 4, (void **)&p.count, "coloring counters");
  unsigned top = 0;
  if (!st) {
    cudaMemsetAsync(p.count, 0, ncount * 4, s);
    /* lanes as for MIS-1 (mis1_cuda.cu lanes_for) */
    const int lanes = g->nnz <= 12 * g->nrows ? 1 : 8;
    st = lanes == 1 ? run<1>(ctx, s, p, !no_persistent) : run<8>(ctx, s, p, !no_persistent);
  }
  if (!st) {
    cudaMemcpyAsync(&top, p.count, 4, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "coloring kernels");
  }
  mispc_scratch_free(ctx, p.key);
  mispc_scratch_free(ctx, p.count);
  if (!st) *ncolors = (int32_t)top;
  return st;
}
