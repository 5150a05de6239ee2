/* The row update of mispc_smooth_prolongator on the GPU (galerkin.c has the
 * host's): W's row i times -omega / a_ii, plus P0's row i. Built with
 * --fmad=false; __dmul_rn / __dadd_rn as the host's rounded operations. */
#include "agg_backend.h"
#include "cuda_util.cuh"

namespace {

__global__ void smooth_rows(int64_t n, const int64_t *ap, const int32_t *aj, const double *av,
                            const int64_t *pp, const int32_t *pj, const double *pv, double omega,
                            const int64_t *wp, const int32_t *wj, double *wv,
                            unsigned long long *bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double d = 0;
    for (int64_t e = ap[i]; e < ap[i + 1]; ++e)
      if (aj[e] == i) {
        d = av[e];
        break;
      }
    if (!(d != 0) || !isfinite(d)) {
      atomicMin(bad, (unsigned long long)i);
      continue;
    }
    const double s = omega / d;
    const int64_t b = wp[i], e = wp[i + 1];
    for (int64_t q = b; q < e; ++q) wv[q] = -__dmul_rn(s, wv[q]);
    for (int64_t p = pp[i]; p < pp[i + 1]; ++p) {
      const int64_t at = mispc_lower_bound(wj, b, e, pj[p]);
      wv[at] = __dadd_rn(pv[p], wv[at]);
    }
  }
}

} // namespace

extern "C" mispc_status agg_smooth_rows_cuda(mispc_context *ctx, const mispc_csr *A,
                                             const mispc_csr *P0, double omega, mispc_csr *W,
                                             int64_t *bad) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d_bad = NULL, h_bad = ~0ull;
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof *d_bad, (void **)&d_bad, "row flag"));
  mispc_status st = MISPC_SUCCESS;
  if (cudaSuccess != cudaMemcpyAsync(d_bad, &h_bad, sizeof h_bad, cudaMemcpyHostToDevice, s))
    st = mispc_cuda_failed(ctx, "prolongator smoothing");
  if (!st && A->nrows > 0) {
    smooth_rows<<<mispc_device_grid(ctx, A->nrows, 256), 256, 0, s>>>(
        A->nrows, A->rowptr, A->colidx, A->values, P0->rowptr, P0->colidx, P0->values, omega,
        W->rowptr, W->colidx, W->values, d_bad);
    if (cudaGetLastError() != cudaSuccess) st = mispc_cuda_failed(ctx, "prolongator smoothing");
  }
  if (!st && cudaSuccess != cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s))
    st = mispc_cuda_failed(ctx, "prolongator smoothing");
  if (!st) st = mispc_sync(ctx, s, "prolongator smoothing");
  mispc_scratch_free(ctx, d_bad);
  *bad = (!st && h_bad != ~0ull) ? (int64_t)h_bad : -1;
  return st;
}
