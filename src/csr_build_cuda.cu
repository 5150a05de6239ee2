/* Device CSR from (row, col) keys: CUB radix sort, CUB unique, then row
 * offsets by binary search in the sorted keys (deterministic, no atomics). */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

__global__ void keys_to_csr(int64_t nrows, const uint64_t *keys, int64_t nnz, int cb,
                            int64_t *rowptr, int32_t *colidx) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const uint64_t mask = (1ull << cb) - 1ull;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz; k += stride)
    colidx[k] = (int32_t)(keys[k] & mask);
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r <= nrows; r += stride) {
    rowptr[r] = mispc_lower_bound(keys, (int64_t)0, nnz, (uint64_t)r << cb);
  }
}

__global__ void widen_int32(int64_t n, const int32_t *in, int64_t *out) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += stride)
    out[k] = in[k];
}

} // namespace

extern "C" mispc_status mispc_widen_int32_cuda(mispc_context *ctx, int64_t n, const int32_t *in,
                                               int64_t *out) {
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  widen_int32<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, in, out);
  MISPC_CUDA_TRY(ctx, cudaGetLastError());
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_csr_from_keys_cuda(mispc_context *ctx, int64_t nrows, int64_t ncols,
                                                 uint64_t *keys, int64_t n_keys, int col_bits,
                                                 mispc_csr *out) {
  int key_bits = col_bits;
  while (key_bits < 64 && (nrows >> (key_bits - col_bits)) > 0) ++key_bits;
  memset(out, 0, sizeof *out);
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  uint64_t *alt = NULL, *uniq = NULL;
  void *temp = NULL;
  int64_t *d_count = NULL, count = 0;
  size_t bytes_sort = 0, bytes_uniq = 0;
  mispc_status st = MISPC_SUCCESS;
  if (n_keys > 0) {
    st = mispc_scratch_alloc(ctx, (size_t)n_keys * 8, (void **)&alt, "key sort buffer");
    cub::DoubleBuffer<uint64_t> db(keys, alt);
    /* size queries only: they launch nothing */
    if (!st && (cub::DeviceRadixSort::SortKeys(NULL, bytes_sort, db, n_keys, 0, key_bits, s) ||
                cub::DeviceSelect::Unique(NULL, bytes_uniq, keys, alt, d_count, n_keys, s)))
      st = mispc_seterr(ctx, MISPC_ERR_CUDA, "CUB scratch size query failed");
    size_t bytes = (bytes_sort > bytes_uniq ? bytes_sort : bytes_uniq) + 16;
    if (!st) st = mispc_scratch_alloc(ctx, bytes, &temp, "CUB scratch");
    if (!st) {
      d_count = (int64_t *)temp; /* first 8 bytes; CUB scratch after 16 */
      void *cub_temp = (char *)temp + 16;
      size_t cub_bytes = bytes - 16;
      cudaError_t e =
          cub::DeviceRadixSort::SortKeys(cub_temp, cub_bytes, db, n_keys, 0, key_bits, s);
      uint64_t *sorted = db.Current();
      uniq = db.Alternate();
      if (e == cudaSuccess)
        e = cub::DeviceSelect::Unique(cub_temp, cub_bytes, sorted, uniq, d_count, n_keys, s);
      if (e == cudaSuccess) e = cudaMemcpyAsync(&count, d_count, 8, cudaMemcpyDeviceToHost, s);
      if (e == cudaSuccess) e = cudaStreamSynchronize(s);
      if (e != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "building CSR from keys failed: %s",
                          cudaGetErrorString(e));
    }
  }
  mispc_csr A;
  if (!st) st = mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, nrows, ncols, count, 0, &A);
  if (!st) {
    int sms = 0, coop = 0;
    st = mispc_device_caps(ctx, &sms, &coop);
    unsigned grid = mispc_grid_for((nrows + 1 > count ? nrows + 1 : count), 256, 8u * sms);
    keys_to_csr<<<grid, 256, 0, s>>>(nrows, uniq ? uniq : keys, count, col_bits, A.rowptr,
                                     A.colidx);
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (!st && e != cudaSuccess)
      st = mispc_seterr(ctx, MISPC_ERR_CUDA, "CSR row offsets failed: %s", cudaGetErrorString(e));
    if (st)
      mispc_csr_free(ctx, &A);
    else
      *out = A;
  }
  mispc_scratch_free(ctx, alt);
  mispc_scratch_free(ctx, temp);
  return st;
}
