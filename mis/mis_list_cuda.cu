/* Membership array -> sorted member list on the GPU (CUB select). */
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_util.cuh"
#include "mis_backend.h"

extern "C" mispc_status mispc_mis_to_list_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                               int32_t *list, int64_t *count) {
  *count = 0;
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  thrust::counting_iterator<int32_t> ids(0);
  size_t temp_bytes = 0;
  MISPC_CUDA_TRY(
      ctx, cub::DeviceSelect::Flagged(NULL, temp_bytes, ids, in_set, list, (int64_t *)NULL, n, s));
  void *temp = NULL;
  int64_t *d_count = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, temp_bytes + 16, &temp, "CUB select scratch"));
  d_count = (int64_t *)((char *)temp + ((temp_bytes + 7) / 8) * 8);
  cudaError_t e = cub::DeviceSelect::Flagged(temp, temp_bytes, ids, in_set, list, d_count, n, s);
  if (e == cudaSuccess) e = cudaMemcpyAsync(count, d_count, 8, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  mispc_scratch_free(ctx, temp);
  if (e != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "member list selection failed: %s",
                        cudaGetErrorString(e));
  return MISPC_SUCCESS;
}
