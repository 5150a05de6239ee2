/* Device CSR from (row, col) keys: CUB radix sort, CUB unique, then row
 * offsets by binary search in the sorted keys (deterministic, no atomics);
 * ids ordered by a key the same way. */
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

__global__ void iota(int64_t n, int32_t *v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    v[i] = (int32_t)i;
}

/* ptr[k] = first position of key k in the sorted keys (binary search). */
__global__ void key_offsets(int64_t n, const int32_t *sorted, int32_t nkeys, int64_t *ptr) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k <= nkeys;
       k += (int64_t)gridDim.x * blockDim.x) {
    ptr[k] = mispc_lower_bound(sorted, (int64_t)0, n, (int32_t)k);
  }
}

} // namespace

extern "C" mispc_status mispc_order_by_key_cuda(mispc_context *ctx, int64_t n, const int32_t *key,
                                                int32_t nkeys, int32_t *order, int64_t *ptr) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int32_t *buf = NULL; /* ids in, sorted keys out */
  void *temp = NULL;
  size_t bytes = 0;
  int bits = 1;
  while (bits < 31 && (1ll << bits) <= nkeys) ++bits;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 8 + 8, (void **)&buf, "sort buffers");
  if (!st && n > 0) {
    int32_t *ids = buf, *keys_out = buf + n;
    iota<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, ids);
    cub::DeviceRadixSort::SortPairs(NULL, bytes, key, keys_out, ids, order, n, 0, bits, s);
    st = mispc_scratch_alloc(ctx, bytes + 16, &temp, "sort scratch");
    /* stable radix sort: ids stay increasing inside each key */
    if (!st) cub::DeviceRadixSort::SortPairs(temp, bytes, key, keys_out, ids, order, n, 0, bits, s);
    if (!st)
      key_offsets<<<mispc_device_grid(ctx, nkeys + 1, 256), 256, 0, s>>>(n, keys_out, nkeys, ptr);
  } else if (!st) {
    cudaMemsetAsync(ptr, 0, sizeof(int64_t) * (size_t)(nkeys + 1), s);
  }
  if (!st) st = mispc_sync(ctx, s, "ordering by key");
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, buf);
  return st;
}

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
