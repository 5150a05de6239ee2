/* Device-side CSR validation: one thread per row finds the row's first
 * problem; the lowest failing row is kept with atomicMin, so the answer does
 * not depend on scheduling. */
#include <stdint.h>

#include "cuda_util.cuh"

namespace {

enum : unsigned long long { kOk = ~0ull };

__device__ bool row_contains(const int64_t *rowptr, const int32_t *colidx, int64_t r, int32_t j) {
  int64_t lo = rowptr[r], hi = rowptr[r + 1], end = hi;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (colidx[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < end && colidx[lo] == j;
}

/* Pass 1: offsets, ranges, order, self loops. */
__global__ void check_rows(int64_t n, int64_t ncols, int64_t nnz, const int64_t *rowptr,
                           const int32_t *colidx, unsigned checks, unsigned long long *first_bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = rowptr[i], e = rowptr[i + 1];
    bool bad = e < b || b < 0 || e > nnz;
    for (int64_t p = b; !bad && p < e; ++p) {
      int32_t j = colidx[p];
      bad = j < 0 || j >= ncols;
      if (!bad && (checks & (MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC)) && p > b)
        bad = colidx[p - 1] >= j;
      if (!bad && (checks & MISPC_CHECK_NO_SELF_LOOPS)) bad = j == i;
    }
    if (bad) atomicMin(first_bad, (unsigned long long)i);
  }
}

/* Pass 2 (rows known sorted): every (i, j) has its (j, i). */
__global__ void check_symmetric(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                                unsigned long long *first_bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p)
      if (!row_contains(rowptr, colidx, colidx[p], (int32_t)i)) {
        atomicMin(first_bad, (unsigned long long)i);
        break;
      }
}

} // namespace

/* MISPC_SUCCESS if A passes, MISPC_ERR_VERIFY if not (caller explains). */
extern "C" mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A,
                                               unsigned checks) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int64_t ends[2];
  MISPC_CUDA_TRY(ctx,
                 cudaMemcpyAsync(&ends[0], A->rowptr, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&ends[1], A->rowptr + A->nrows, sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, s));
  MISPC_CUDA_TRY(ctx, cudaStreamSynchronize(s));
  if (ends[0] != 0 || ends[1] != A->nnz) return MISPC_ERR_VERIFY;
  if (A->nrows == 0) return MISPC_SUCCESS;
  unsigned long long *d_bad = NULL, h_bad = kOk;
  MISPC_CUDA_TRY(ctx, cudaMallocAsync(&d_bad, sizeof *d_bad, s));
  mispc_status st = MISPC_SUCCESS;
  unsigned grid = mispc_grid_for(A->nrows, 256, 65535u * 4u);
  cudaMemcpyAsync(d_bad, &h_bad, sizeof h_bad, cudaMemcpyHostToDevice, s);
  check_rows<<<grid, 256, 0, s>>>(A->nrows, A->ncols, A->nnz, A->rowptr, A->colidx, checks, d_bad);
  if (checks & MISPC_CHECK_SYMMETRIC) {
    /* Pass 2 relies on sorted rows; it only runs if pass 1 found nothing. */
    cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    if (h_bad == kOk) check_symmetric<<<grid, 256, 0, s>>>(A->nrows, A->rowptr, A->colidx, d_bad);
  }
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  cudaFreeAsync(d_bad, s);
  if (e != cudaSuccess)
    st = mispc_seterr(ctx, MISPC_ERR_CUDA, "CSR validation kernel failed: %s",
                      cudaGetErrorString(e));
  else if (h_bad != kOk)
    st = MISPC_ERR_VERIFY;
  return st;
}
