/* mispc_tentative_prolongator on the GPU: one thread an aggregate gathers
 * the aggregate's block of B into scratch, factors it with block_qr.h (the
 * host's source, built with --fmad=false) and scatters Q into P0 and R into
 * the coarse near-null space. Members are ordered by (aggregate, node id) as
 * on the host. */
#include "agg_backend.h"
#include "block_qr.h"
#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 128;

/* *bad = the smallest vertex whose label is outside [0, na). */
__global__ void check_labels(int64_t n, const int32_t *agg, int64_t na, unsigned long long *bad) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (agg[v] < 0 || agg[v] >= na) atomicMin(bad, (unsigned long long)v);
}

__global__ void fixed_rowptr(int64_t ndof, int k, int64_t *rowptr) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= ndof;
       i += (int64_t)gridDim.x * blockDim.x)
    rowptr[i] = i * k;
}

/* Aggregate c: Q = its members' rows of B (column-major, m = size * bs rows)
 * in scratch at off[c] * bs * k, then Q R; P0's row of dof d of member v
 * gets columns c*k .. c*k+k-1; Bc (nc x k column-major) gets R. */
__global__ void aggregate_qr(int64_t na, const int64_t *off, const int32_t *order, int bs, int k,
                             const double *B, int64_t ndof, double *scratch, double *Rs,
                             int32_t *colidx, double *values, double *Bc) {
  const int64_t nc = na * k;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < na;
       c += (int64_t)gridDim.x * blockDim.x) {
    block_qr_aggregate(c, order + off[c], off[c + 1] - off[c], bs, k, B, ndof,
                       scratch + off[c] * bs * k, Rs + c * k * k, colidx, values, Bc, nc);
  }
}

} // namespace

extern "C" mispc_status agg_tentative_cuda(mispc_context *ctx, const mispc_aggregates *a, int bs,
                                           int k, const double *B, mispc_csr *P, double *Bc,
                                           int64_t *bad) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = a->n, na = a->naggs, ndof = n * bs;
  *bad = -1;
  mispc_scratch_list sl = {{0}, 0};
  unsigned long long *d_bad = NULL, h_bad = ~0ull;
  int32_t *order = NULL;
  int64_t *off = NULL;
  double *scratch = NULL, *Rs = NULL;
  mispc_status st =
      mispc_scratch_list_alloc(ctx, &sl, sizeof *d_bad, "label check", (void **)&d_bad);
  if (!st)
    st = MISPC_CUDA_CALL(ctx,
                         cudaMemcpyAsync(d_bad, &h_bad, sizeof h_bad, cudaMemcpyHostToDevice, s));
  if (!st && n > 0) {
    check_labels<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, a->agg, na, d_bad);
    st = MISPC_CUDA_CALL(ctx, cudaGetLastError());
  }
  if (!st)
    st = MISPC_CUDA_CALL(ctx,
                         cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s));
  if (!st) st = mispc_sync(ctx, s, "tentative prolongator");
  if (!st && h_bad != ~0ull) {
    *bad = (int64_t)h_bad;
    mispc_scratch_list_free(ctx, &sl);
    return MISPC_SUCCESS;
  }
  if (!st) st = mispc_scratch_list_alloc(ctx, &sl, (size_t)n * 4, "members", (void **)&order);
  if (!st)
    st = mispc_scratch_list_alloc(ctx, &sl, (size_t)(na + 1) * 8, "member offsets", (void **)&off);
  if (!st)
    st = mispc_scratch_list_alloc(ctx, &sl, (size_t)(ndof * k) * 8, "aggregate blocks",
                                  (void **)&scratch);
  if (!st)
    st = mispc_scratch_list_alloc(ctx, &sl, (size_t)(na * k * k) * 8, "R factors", (void **)&Rs);
  if (!st) st = mispc_order_by_key_cuda(ctx, n, a->agg, (int32_t)na, order, off);
  if (!st) st = mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, ndof, na * k, ndof * k, 1, P);
  if (!st) {
    fixed_rowptr<<<mispc_device_grid(ctx, ndof + 1, 256), 256, 0, s>>>(ndof, k, P->rowptr);
    if (na > 0)
      aggregate_qr<<<mispc_device_grid(ctx, na, kBlock), kBlock, 0, s>>>(
          na, off, order, bs, k, B, ndof, scratch, Rs, P->colidx, P->values, Bc);
    st = MISPC_CUDA_CALL(ctx, cudaGetLastError());
  }
  if (!st) st = mispc_sync(ctx, s, "tentative prolongator");
  mispc_scratch_list_free(ctx, &sl);
  if (st) mispc_csr_free(ctx, P);
  return st;
}
