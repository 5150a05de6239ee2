/* Device-side CSR validation in one launch and one wait: a group of lanes
 * per row (sized by the mean row length, so loads of a row coalesce; rows of
 * more than 4 times the mean, hubs, by the whole block) checks
 * offsets, column range, order and self loops, and, for symmetry, that every
 * entry (i, j) above the diagonal has its (j, i) and that there are as many
 * entries below the diagonal as above. The device only answers pass / fail;
 * mispc_csr_check re-checks a failing matrix on the host for the message. */
#include <stdint.h>

#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;

/* r[0]: rows (or the offsets' ends) that fail, r[1]: entries above the
 * diagonal minus those below (mod 2^64), r[2]: entries above the diagonal
 * without their transpose.
 *
 * Why half the searches suffice: once rows are strictly increasing (no
 * duplicates), (i, j) -> (j, i) maps the entries above the diagonal
 * one-to-one into those below if every upper entry has its transpose; with
 * as many below as above, the map is onto, so every lower entry has its
 * transpose too. A row that fails the first checks makes the answer "fail"
 * whatever the searches found; they stay inside [0, nnz) for any input. */
/* Entry p of row i (row start b): its failures into bad, its side of the
 * diagonal into diff, a missing transpose of an upper entry into missing. */
__device__ __forceinline__ void check_entry(int64_t i, int64_t b, int64_t p, int64_t ncols,
                                            int64_t nnz, const int64_t *rowptr,
                                            const int32_t *colidx, bool order, bool sym, bool loops,
                                            bool &bad, long long &diff, long long &missing) {
  const int32_t j = colidx[p];
  if (j < 0 || j >= ncols || (order && p > b && colidx[p - 1] >= j) || (loops && j == i)) {
    bad = true;
    return;
  }
  if (!sym || j == i) return;
  if (j < i) {
    --diff;
    return;
  }
  ++diff;
  /* 32-bit offsets (the kernel is issue-bound); a row that long or
   * inverted fails on its own */
  const int64_t lo = max(rowptr[j], (int64_t)0), len = min(rowptr[j + 1], nnz) - lo;
  const int32_t *row = colidx + lo;
  const int l = len > 0 && len < INT32_MAX ? mispc_lower_bound32(row, (int)len, (int32_t)i) : 0;
  missing += !(l < len && row[l] == (int32_t)i);
}

/* W lanes a row, a block a pass over kBlock / W consecutive rows; those of
 * more than long_row entries are then checked by all kBlock threads
 * together: with W lanes a hub row's searches ran one after another
 * (gen:kron:16 2.23 ms on an H200, 2026-11-29; 0.21 ms with rows over 256
 * entries block-wide). */
template <int W>
__global__ void __launch_bounds__(kBlock)
    check_rows(int64_t n, int64_t ncols, int64_t nnz, const int64_t *rowptr, const int32_t *colidx,
               int64_t long_row, unsigned checks, unsigned long long *r) {
  constexpr int R = kBlock / W;
  __shared__ int64_t longs[R];
  __shared__ int nlong;
  const bool order = checks & (MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC);
  const bool sym = checks & MISPC_CHECK_SYMMETRIC, loops = checks & MISPC_CHECK_NO_SELF_LOOPS;
  long long diff = 0, missing = 0;
  bool bad = false;
  if (blockIdx.x == 0 && threadIdx.x == 0) bad = rowptr[0] != 0 || rowptr[n] != nnz;
  const int lane = (int)(threadIdx.x % W);
  for (int64_t base = (int64_t)blockIdx.x * R; base < n; base += (int64_t)gridDim.x * R) {
    if (threadIdx.x == 0) nlong = 0;
    __syncthreads();
    const int64_t i = base + threadIdx.x / W;
    if (i < n) {
      const int64_t b = rowptr[i], e = rowptr[i + 1];
      if (e < b || b < 0 || e > nnz)
        bad = true;
      else if (e - b > long_row) {
        if (lane == 0) longs[atomicAdd(&nlong, 1)] = i;
      } else
        for (int64_t p = b + lane; p < e; p += W)
          check_entry(i, b, p, ncols, nnz, rowptr, colidx, order, sym, loops, bad, diff, missing);
    }
    __syncthreads();
    for (int k = 0; k < nlong; ++k) {
      const int64_t li = longs[k], b = rowptr[li], e = rowptr[li + 1];
      for (int64_t p = b + threadIdx.x; p < e; p += kBlock)
        check_entry(li, b, p, ncols, nnz, rowptr, colidx, order, sym, loops, bad, diff, missing);
    }
    __syncthreads(); /* longs and nlong read before the next pass resets them */
  }
  const long long nbad = mispc_block_sum<kBlock>((long long)bad);
  diff = mispc_block_sum<kBlock>(diff);
  missing = mispc_block_sum<kBlock>(missing);
  if (threadIdx.x == 0) {
    if (nbad) atomicAdd(&r[0], (unsigned long long)nbad);
    if (diff) atomicAdd(&r[1], (unsigned long long)diff);
    if (missing) atomicAdd(&r[2], (unsigned long long)missing);
  }
}

} // namespace

/* MISPC_SUCCESS if A passes, MISPC_ERR_VERIFY if not (caller explains). */
extern "C" mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A,
                                               unsigned checks) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, *h = NULL;
  MISPC_TRY(mispc_pinned_scratch(ctx, 3 * sizeof *h, (void **)&h));
  MISPC_TRY(mispc_scratch_alloc(ctx, 3 * sizeof *d, (void **)&d, "CSR check"));
  cudaMemsetAsync(d, 0, 3 * sizeof *d, s);
  /* at most 8 lanes a row: each lane's searches run one after another, and
   * more rows in flight a warp hide them better (H100, Elasticity3D_60's
   * 78-entry rows: 0.93 ms with 32 lanes, 0.59 with 8) */
  const int w = mispc_lanes_for_rows(A);
  /* hubs: rows over 4 times the mean length (and over 32 entries) go block-wide */
  const int64_t mean = A->nrows > 0 ? A->nnz / A->nrows : 0,
                long_row = mean * 4 > 32 ? mean * 4 : 32;
  mispc_with_lanes(w < 8 ? w : 8, [&](auto lanes) {
    constexpr int W = decltype(lanes)::value;
    check_rows<W>
        <<<mispc_device_grid(ctx, (long long)W * (A->nrows > 0 ? A->nrows : 1), kBlock), kBlock, 0,
           s>>>(A->nrows, A->ncols, A->nnz, A->rowptr, A->colidx, long_row, checks, d);
    return 0;
  });
  cudaMemcpyAsync(h, d, 3 * sizeof *h, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "CSR validation kernel");
  mispc_scratch_free(ctx, d);
  MISPC_TRY(st);
  return h[0] || h[1] || h[2] ? MISPC_ERR_VERIFY : MISPC_SUCCESS;
}
