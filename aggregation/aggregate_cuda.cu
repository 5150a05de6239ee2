/* The aggregation phases on the GPU (semantics in agg_backend.h; the host
 * twins are in aggregate_host.c and give identical labels).
 *
 * Phase 1 and 2 label disjoint stars (roots are >= 3 apart in the graph the
 * MIS-2 ran on), so plain parallel writes never collide. Phase 3 reads a
 * frozen copy of the labels, so its choices do not depend on order. Root
 * numbering in increasing id comes from CUB's stable select. */
#include <stdint.h>

#include "agg_backend.h"
#include "cuda_util.cuh"
#include "mis_backend.h"

namespace {

constexpr int kBlock = 256;

/* Labels root k and its neighbours with `first + k`; with only_free, only
 * neighbours that were unaggregated (agg < 0) are taken. */
__global__ void label_stars(const int64_t *rowptr, const int32_t *colidx, const int32_t *root,
                            int64_t nroots, int64_t first, bool only_free, int32_t *agg) {
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t k = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; k < nroots; k += nwarps) {
    int32_t r = root[first + k];
    int32_t id = (int32_t)(first + k);
    for (int64_t p = rowptr[r] + lane; p < rowptr[r + 1]; p += 32) {
      int32_t u = colidx[p];
      if (u != r && (!only_free || agg[u] < 0)) agg[u] = id;
    }
    if (lane == 0) agg[r] = id;
  }
}

/* flag[v] = member of the phase-2 MIS-2 with >= 2 unaggregated neighbours. */
__global__ void phase2_candidates(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                                  const uint8_t *in_set, const int32_t *agg, uint8_t *flag) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    int free_nbrs = 0;
    if (in_set[v])
      for (int64_t p = rowptr[v]; p < rowptr[v + 1] && free_nbrs < 2; ++p)
        free_nbrs += colidx[p] != v && agg[colidx[p]] < 0;
    flag[v] = free_nbrs >= 2;
  }
}

__global__ void unaggregated(int64_t n, const int32_t *agg, uint8_t *mask,
                             unsigned long long *count) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint8_t m = agg[v] < 0;
    mask[v] = m;
    mine += m;
  }
  mine = mispc_block_sum<kBlock>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(count, mine);
}

__global__ void aggregate_sizes(int64_t n, const int32_t *tent, int32_t *size) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (tent[v] >= 0) atomicAdd(&size[tent[v]], 1);
}

/* Phase 3: each unaggregated v joins, among the tentative aggregates of its
 * neighbours, the one with most neighbours in it, then the smaller, then the
 * lower id (basic: that of its smallest-id aggregated neighbour). */
__global__ void phase3(int64_t n, const int64_t *rowptr, const int32_t *colidx, const int32_t *tent,
                       const int32_t *size, bool basic, int32_t *agg) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    if (tent[v] >= 0) continue;
    int32_t best = -1;
    int best_count = 0, best_size = 0;
    const int64_t b = rowptr[v], e = rowptr[v + 1];
    for (int64_t p = b; p < e; ++p) {
      int32_t a = tent[colidx[p]];
      if (a < 0) continue;
      if (basic) {
        best = a;
        break;
      }
      int c = 0;
      for (int64_t q = b; q < e; ++q) c += tent[colidx[q]] == a;
      int sz = size[a];
      if (best < 0 || c > best_count ||
          (c == best_count && (sz < best_size || (sz == best_size && a < best)))) {
        best = a;
        best_count = c;
        best_size = sz;
      }
    }
    agg[v] = best;
  }
}

unsigned grid_for(mispc_context *ctx, int64_t work) {
  int sms = 0, coop = 0;
  mispc_device_caps(ctx, &sms, &coop);
  return mispc_grid_for(work, kBlock, 8u * (unsigned)(sms ? sms : 1));
}

mispc_status sync_check(mispc_context *ctx, cudaStream_t s, const char *what) {
  cudaError_t e = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status agg_phase1_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const uint8_t *in_set, int32_t *agg, int32_t *root,
                                        int64_t *naggs) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(agg, 0xff, (size_t)g->nrows * 4, s)); /* all -1 */
  MISPC_TRY(mispc_mis_to_list_cuda(ctx, g->nrows, in_set, root, naggs));    /* increasing id */
  if (*naggs > 0)
    label_stars<<<grid_for(ctx, 32 * *naggs), kBlock, 0, s>>>(g->rowptr, g->colidx, root, *naggs, 0,
                                                              false, agg);
  return sync_check(ctx, s, "aggregation phase 1");
}

extern "C" mispc_status agg_unaggregated_cuda(mispc_context *ctx, int64_t n, const int32_t *agg,
                                              uint8_t *mask, int64_t *count) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, h = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d, "counter"));
  cudaMemsetAsync(d, 0, 8, s);
  if (n > 0) unaggregated<<<grid_for(ctx, n), kBlock, 0, s>>>(n, agg, mask, d);
  cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = sync_check(ctx, s, "unaggregated count");
  mispc_scratch_free(ctx, d);
  *count = (int64_t)h;
  return st;
}

extern "C" mispc_status agg_phase2_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const uint8_t *in_set, int32_t *agg, int32_t *root,
                                        int64_t *naggs) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = g->nrows;
  uint8_t *flag = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, (size_t)n + 1, (void **)&flag, "phase-2 candidates"));
  phase2_candidates<<<grid_for(ctx, n), kBlock, 0, s>>>(n, g->rowptr, g->colidx, in_set, agg, flag);
  int64_t added = 0;
  mispc_status st = mispc_mis_to_list_cuda(ctx, n, flag, root + *naggs, &added);
  if (!st && added > 0)
    label_stars<<<grid_for(ctx, 32 * added), kBlock, 0, s>>>(g->rowptr, g->colidx, root, added,
                                                             *naggs, true, agg);
  if (!st) st = sync_check(ctx, s, "aggregation phase 2");
  mispc_scratch_free(ctx, flag);
  if (!st) *naggs += added;
  return st;
}

extern "C" mispc_status agg_phase3_cuda(mispc_context *ctx, const mispc_csr *g, int32_t *agg,
                                        int64_t naggs, int basic) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = g->nrows;
  int32_t *tent = NULL, *size = NULL;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 4 + 4, (void **)&tent, "tentative labels");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)naggs * 4 + 4, (void **)&size, "aggregate sizes");
  if (!st) {
    cudaMemcpyAsync(tent, agg, (size_t)n * 4, cudaMemcpyDeviceToDevice, s);
    cudaMemsetAsync(size, 0, (size_t)naggs * 4 + 4, s);
    aggregate_sizes<<<grid_for(ctx, n), kBlock, 0, s>>>(n, tent, size);
    phase3<<<grid_for(ctx, n), kBlock, 0, s>>>(n, g->rowptr, g->colidx, tent, size, basic != 0,
                                               agg);
    st = sync_check(ctx, s, "aggregation phase 3");
  }
  mispc_scratch_free(ctx, tent);
  mispc_scratch_free(ctx, size);
  return st;
}
