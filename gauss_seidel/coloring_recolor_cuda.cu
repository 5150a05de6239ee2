/* GPU step of the iterated greedy recoloring (coloring_recolor.c says what it
 * computes): one launch per class, last class first, and one wait for all
 * passes. A launch scans the old colors of every vertex (a warp 32 at a
 * time, a ballot of those in the class) and gives each match a group of W
 * lanes, which OR the colors its neighbours of the classes above hold into a
 * 64-bit mask. A launch reads only colors written by earlier launches, so the
 * result does not depend on timing. Later passes launch the first pass's
 * classes too (colors never increase, so the classes above the new count are
 * empty scans), so the host does not wait between passes.
 *
 * No class lists: sorting the vertices by class (a radix sort and a wait a
 * pass, measured first) cost more than the scans (Laplace3D_100 point, 6
 * classes: 0.3 ms a pass), and lists by counts and atomics (three small
 * launches a pass) saved 0.2 of Elasticity3D_60's 1.0 ms a pass (45 classes)
 * but cost Laplace3D_100 0.1 ms: a launch is bound by each vertex's chain of
 * dependent loads, not by the scan. */
#include "color_backend.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4; /* entries a lane loads before it tests them */

template <int W>
__global__ void __launch_bounds__(kBlock)
    recolor_class(int64_t n, const int64_t *rowptr, const int32_t *colidx, const int32_t *old,
                  int32_t *color, int32_t c, int32_t *top) {
  constexpr int G = 32 / W; /* vertices a warp recolors at once */
  const int lane = threadIdx.x & 31, g = lane / W, gl = lane & (W - 1);
  int32_t mx = -1;
  for (int64_t v0 = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) & ~31ll; v0 < n;
       v0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t mine = v0 + lane;
    unsigned m = __ballot_sync(~0u, mine < n && old[mine] == c);
    while (m) {
      const unsigned bit = __fns(m, 0, g + 1); /* the group's vertex: m's (g+1)-th set bit */
      const bool has = bit < 32;
      const int64_t v = v0 + (has ? bit : 0);
      const int64_t b = has ? rowptr[v] : 0, e = has ? rowptr[v + 1] : 0;
      int32_t got = has ? -1 : 0;
      for (int32_t base = 0; __any_sync(~0u, got < 0); base += 64) {
        uint64_t taken = 0;
        if (got < 0)
          for (int64_t p0 = b + gl; p0 < e; p0 += kUnroll * W) {
            /* kUnroll entries' loads in flight at each of the three steps */
            int32_t u[kUnroll], ou[kUnroll];
#pragma unroll
            for (int j = 0; j < kUnroll; ++j) u[j] = p0 + j * W < e ? colidx[p0 + j * W] : -1;
#pragma unroll
            for (int j = 0; j < kUnroll; ++j) ou[j] = u[j] >= 0 ? old[u[j]] : -1;
#pragma unroll
            for (int j = 0; j < kUnroll; ++j) {
              if (ou[j] <= c) continue; /* v itself, and the classes recolored after v's */
              const int32_t cu = color[u[j]];
              if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
            }
          }
        for (int o = W / 2; o > 0; o /= 2) taken |= __shfl_xor_sync(~0u, taken, o);
        if (got < 0 && ~taken) got = base + __ffsll((long long)~taken) - 1;
      }
      if (has) {
        if (gl == 0) color[v] = got;
        mx = max(mx, got);
      }
      for (int k = 0; k < G && m; ++k) m &= m - 1;
    }
  }
  mx = __reduce_max_sync(~0u, mx);
  if (lane == 0 && mx >= 0) atomicMax(top, mx);
}

} // namespace

extern "C" mispc_status color_recolor_cuda(mispc_context *ctx, const mispc_csr *g, int passes,
                                           int32_t *color, int32_t *ncolors) {
  const int64_t n = g->nrows;
  const int32_t k = ncolors[0];
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int32_t *old = NULL, *top = NULL;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 4 + 4 * (size_t)passes + 8, (void **)&old,
                                        "recoloring classes");
  if (st) return st;
  top = old + n; /* the largest color of each pass */
  cudaMemsetAsync(top, 0xff, 4 * (size_t)passes, s);
  /* a lane per kUnroll * 2 entries of the mean row: the chains of dependent
   * loads (class, row, columns, their classes and colors), not bandwidth,
   * bound a launch, so fewer lanes a vertex put more vertices in flight */
  const int lanes = mispc_lanes_for_mean(n ? (double)g->nnz / (double)n / (2.0 * kUnroll) : 0.0);
  const unsigned grid = mispc_device_grid(ctx, n, kBlock);
  for (int pass = 0; pass < passes; ++pass) {
    cudaMemcpyAsync(old, color, (size_t)n * 4, cudaMemcpyDeviceToDevice, s);
    for (int32_t c = k - 1; c >= 0; --c)
      mispc_with_lanes(lanes, [&](auto w) {
        recolor_class<decltype(w)::value>
            <<<grid, kBlock, 0, s>>>(n, g->rowptr, g->colidx, old, color, c, top + pass);
      });
  }
  int32_t htop[MISPC_COLORING_MAX_RECOLOR];
  cudaMemcpyAsync(htop, top, 4 * (size_t)passes, cudaMemcpyDeviceToHost, s);
  st = mispc_sync(ctx, s, "recoloring kernels");
  mispc_scratch_free(ctx, old);
  for (int pass = 1; !st && pass <= passes; ++pass) ncolors[pass] = htop[pass - 1] + 1;
  return st;
}
