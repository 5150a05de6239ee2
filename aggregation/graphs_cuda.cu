/* Strength graph and coarse (quotient) graph on the GPU: both emit (row, col)
 * keys and let mispc_csr_from_keys_cuda sort and deduplicate them, so the
 * output is the same sorted pattern the host builds. */
#include <math.h>
#include <stdint.h>

#include "agg_backend.h"
#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;
constexpr uint64_t kNone = ~0ull;

__device__ __forceinline__ uint64_t key(int64_t r, int64_t c) {
  return ((uint64_t)r << 32) | (uint64_t)c;
}

__global__ void diagonal(int64_t n, const int64_t *rowptr, const int32_t *colidx, const double *val,
                         double *diag) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double d = 0;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p)
      if (colidx[p] == i) d += val[p]; /* duplicates summed, as the host does */
    diag[i] = d;
  }
}

/* Two keys per stored entry: (I, J) and (J, I) for strong off-node entries,
 * kNone otherwise. */
__global__ void strength_keys(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                              const double *val, const double *diag, double theta, int bs,
                              uint64_t *keys) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t I = i / bs;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int64_t j = colidx[p], J = j / bs;
      bool strong = I != J;
      if (strong && val && theta > 0) strong = fabs(val[p]) > theta * sqrt(fabs(diag[i] * diag[j]));
      keys[2 * p] = strong ? key(I, J) : kNone;
      keys[2 * p + 1] = strong ? key(J, I) : kNone;
    }
  }
}

__global__ void coarse_keys(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                            const int32_t *agg, uint64_t *keys) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int32_t A = agg[i];
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int32_t B = agg[colidx[p]];
      keys[p] = A != B && A >= 0 && B >= 0 ? key(A, B) : kNone;
    }
  }
}

int bits_for(int64_t x) {
  int b = 1;
  while (b < 32 && (1ll << b) <= x) ++b;
  return b;
}

} // namespace

extern "C" mispc_status agg_strength_cuda(mispc_context *ctx, const mispc_csr *A, double theta,
                                          int bs, mispc_csr *S) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t nodes = A->nrows / bs;
  uint64_t *keys = NULL;
  double *diag = NULL;
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)A->nnz * 16 + 8, (void **)&keys, "strength keys");
  const bool use_values = A->values && theta > 0;
  if (!st && use_values)
    st = mispc_scratch_alloc(ctx, (size_t)A->nrows * 8 + 8, (void **)&diag, "diagonal");
  if (!st) {
    if (use_values)
      diagonal<<<mispc_device_grid(ctx, A->nrows, kBlock), kBlock, 0, s>>>(
          A->nrows, A->rowptr, A->colidx, A->values, diag);
    strength_keys<<<mispc_device_grid(ctx, A->nrows, kBlock), kBlock, 0, s>>>(
        A->nrows, A->rowptr, A->colidx, use_values ? A->values : NULL, diag, theta, bs, keys);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      st = mispc_seterr(ctx, MISPC_ERR_CUDA, "strength graph: %s", cudaGetErrorString(e));
  }
  if (!st)
    st = mispc_csr_from_keys_cuda(ctx, nodes, nodes, keys, 2 * A->nnz, 32 + bits_for(nodes), S);
  mispc_scratch_free(ctx, keys);
  mispc_scratch_free(ctx, diag);
  return st;
}

extern "C" mispc_status agg_coarse_cuda(mispc_context *ctx, const mispc_csr *g, const int32_t *agg,
                                        int64_t naggs, mispc_csr *coarse) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  uint64_t *keys = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, (size_t)g->nnz * 8 + 8, (void **)&keys, "coarse keys"));
  coarse_keys<<<mispc_device_grid(ctx, g->nrows, kBlock), kBlock, 0, s>>>(g->nrows, g->rowptr,
                                                                          g->colidx, agg, keys);
  mispc_status st = MISPC_SUCCESS;
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    st = mispc_seterr(ctx, MISPC_ERR_CUDA, "coarse graph: %s", cudaGetErrorString(e));
  if (!st)
    st = mispc_csr_from_keys_cuda(ctx, naggs, naggs, keys, g->nnz, 32 + bits_for(naggs), coarse);
  mispc_scratch_free(ctx, keys);
  return st;
}
